/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * arrival - two arrival records set side by side: what differs between
 * a mail and what arrived, as "patchattest arrived" and the decider
 * (a patatt signature that no longer verifies, set beside the first
 * copy) and the stores (a copy set beside the first) compare them.
 * Records are values here: this layer reads no mail, and what a mail
 * gives of its record is read above it (lib/verdict's mailfacts.h).
 *
 * arrival_compare() sets a mail beside a record of what arrived.  Two
 * patch mails are told apart by their hashes: i (author and subject), m
 * (commit message), p (diff).  Trailers added since are not a change:
 * when m differs but m_core (the message without its trailer block) is
 * the same and every trailer line that arrived is still there, the
 * match is ARRIVAL_SAME_TRAILERS; a trailer removed or changed is a
 * change of m.  Mails without a patch (a cover letter) are set side by
 * side by their subject, with runs of blanks (folding) taken as one.
 */
#ifndef PA_ARRIVAL_H
#define PA_ARRIVAL_H

#include "patchattest.h"
#include "ledger.h"

enum arrival_match {
	ARRIVAL_SAME,
	ARRIVAL_SAME_TRAILERS,	/* only trailers were added */
	ARRIVAL_DIFFERS
};

/* The parts that differ, a bit each (arrival_compare()'s *parts). */
#define ARRIVAL_PART_I		1	/* author/subject */
#define ARRIVAL_PART_M		2	/* commit message */
#define ARRIVAL_PART_P		4	/* diff */

enum arrival_match arrival_compare(const struct arrival *cur,
	    const struct arrival *old, unsigned *parts);
/* The signed fields that differ (arrival_fields_differ()). */
#define ARRIVAL_FIELD_FROM	1	/* author */
#define ARRIVAL_FIELD_SUBJECT	2

/*
 * arrival_fields_differ - which of cur's author and subject are not
 * old's, runs of blanks (folding) taken as one: ARRIVAL_FIELD_* bits
 */
unsigned arrival_fields_differ(const struct arrival *cur,
	    const struct arrival *old);
/*
 * arrival_added_trailers - the trailer lines of cur that old had not,
 * appended to out, one a line
 */
void	arrival_added_trailers(struct sbuf *out, const struct arrival *cur,
	    const struct arrival *old);

#endif
