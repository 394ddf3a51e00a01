/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * changed.c - what changed in a patch, in words: the parts a 2020
 * document or an earlier copy says differ, and what the first copy of a
 * Message-ID tells of a patatt signature that no longer verifies.
 *
 * patatt's bh= is one hash of the whole canonical body, so the signature
 * alone says only "the body" or "a signed header".  The ledger may hold
 * the copy of the same Message-ID that arrived first with a signature
 * that checked out (read with the message's other state, consult.c);
 * its i/m/p, author and subject set beside this mail's
 * (arrival_compare(), as "patchattest arrived" does) name the part.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "decide.h"
#include "decide-int.h"
#include "state.h"

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

int
changed_since_first(struct decider *d, struct patatt_earlier *out)
{
	const struct arrival *first;
	struct arrival cur;
	struct pa_err ignored;

	if ((first = decider_first_copy(d)) == NULL)
		return PA_ENOTFOUND;
	/* this mail as its own record would have it (decide_arrival()) */
	(void)mailfacts_record(d->f, &cur, &ignored);
	memset(out, 0, sizeof(*out));
	memcpy(out->identity, first->identity, sizeof(out->identity));
	out->has_patch = cur.has_patch && first->has_patch;
	out->match = arrival_compare(&cur, first, &out->parts);
	out->fields = arrival_fields_differ(&cur, first);
	return 0;
}
