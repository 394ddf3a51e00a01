/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * changed.c - what changed in a patch, in words: the parts a 2020
 * document or an earlier copy says differ, and what the first copy of a
 * Message-ID tells of a patatt signature that no longer verifies.
 *
 * patatt's bh= is one hash of the whole canonical body, so the signature
 * alone says only "the body" or "a signed header".  The ledger may hold
 * the copy of the same Message-ID that arrived first with a signature
 * that checked out; its i/m/p, author and subject set beside this mail's
 * (arrival_compare(), as "patchattest arrived" does) name the part.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "decide.h"
#include "decide-int.h"
#include "base.h"
#include "mail.h"
#include "sig.h"
#include "state.h"

/* patatt's verdicts, as records spell them, of a signature that checked
   out over the body and signed headers it came with */
static const char *const checked_out[] = {
	"pass", "stale", "uidmismatch", "untrusted"
};

struct first_copy {
	struct arrival	 a;
	int		 found;
};

void
decide_parts(char *out, size_t size, unsigned differs)
{
	static const struct {
		unsigned	 bit;
		const char	*what;
	} parts[] = {
		{ DECIDE_DIFF_I, "author or subject" },
		{ DECIDE_DIFF_M, "commit message" },
		{ DECIDE_DIFF_P, "diff" },
	};
	size_t k, n = 0;

	out[0] = '\0';
	for (k = 0; k < sizeof(parts) / sizeof(parts[0]) && n < size; k++)
		if (differs & parts[k].bit)
			n += (size_t)snprintf(out + n, size - n, "%s%s",
			    n ? " and " : "", parts[k].what);
}

/* mismatched - a signature of r failed on its body or signed headers */
static int
mismatched(const struct patatt_report *r)
{
	size_t k;

	for (k = 0; k < r->n && k < PATATT_MAX_SIGS; k++)
		if (r->sig[k].result == PATATT_BADSIG &&
		    r->sig[k].changed != PATATT_CHANGED_UNKNOWN)
			return 1;
	return 0;
}

/* take_first - fn of ledger_by_message_id(): the first copy that
   checked out, then stop */
static int
take_first(void *arg, const struct arrival *a)
{
	struct first_copy *f = arg;
	size_t k;

	for (k = 0; k < sizeof(checked_out) / sizeof(checked_out[0]); k++)
		if (strcmp(a->patatt, checked_out[k]) == 0) {
			f->a = *a;
			f->found = 1;
			return 1;
		}
	return 0;
}

int
changed_since_first(struct decider *d, struct patatt_earlier *out)
{
	struct first_copy first;
	struct arrival cur;
	struct pa_err ignored;

	if (d->ledger == NULL || d->msg == NULL || !mismatched(&d->report) ||
	    d->f->id == NULL || d->f->id_len == 0)
		return PA_ENOTFOUND;
	first.found = 0;
	if (ledger_by_message_id_bytes(d->ledger, d->f->id, d->f->id_len,
	    take_first, &first, &ignored) < 0 || !first.found)
		return PA_ENOTFOUND;
	/* this mail as its own record would have it (decide_arrival()) */
	(void)mailfacts_record(d->f, &cur, &ignored);
	memset(out, 0, sizeof(*out));
	memcpy(out->identity, first.a.identity, sizeof(out->identity));
	out->has_patch = cur.has_patch && first.a.has_patch;
	out->match = arrival_compare(&cur, &first.a, &out->parts);
	out->fields = arrival_fields_differ(&cur, &first.a);
	return 0;
}
