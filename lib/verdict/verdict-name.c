/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * verdict-name.c - the verdicts as the header spells them, apart from
 * decide.c so that what writes them (arrival records, headers, the log)
 * calls nothing of the decider.  tests/t-circles.sh knows files by name:
 * lib/verdict/arrival.c calling decide.c would close a circle through
 * lib/state/arrival.c, which the decider calls (changed.c).
 */
#include "config.h"

#include <stddef.h>

#include "decide.h"

static const char *const verdict_names[] = {
	[VERDICT_PASS] = "pass",
	[VERDICT_STALE] = "stale",
	[VERDICT_UIDMISMATCH] = "uidmismatch",
	[VERDICT_UNTRUSTED] = "untrusted",
	[VERDICT_NOKEY] = "nokey",
	[VERDICT_FAIL] = "fail",
	[VERDICT_UNSIGNED_BY_SIGNER] = "unsigned-by-signer",
	[VERDICT_NONE] = "none",
	[VERDICT_TEMPERROR] = "temperror",
};

const char *
verdict_name(enum verdict v)
{
	if ((size_t)v < sizeof(verdict_names) / sizeof(verdict_names[0]))
		return verdict_names[v];
	return "temperror";
}
