/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * arrival - the part of an arrival record that the mail itself gives:
 * its Message-ID (without <>), author, subject and List-Id, and for a
 * patch its i/m/p (msghash's entry[0], the primary reading), m_core,
 * patch-id and trailer lines (patchfacts).  The one place that reads
 * them, so that what the milter records and what "patchattest arrived"
 * compares are computed alike.  The caller sets the rest (the time, the
 * envelope sender, the verdicts).
 *
 * arrival_from_mail() clears *a first and uses h and pf as working
 * storage (initialised by the caller); 0, or PA_ENOMEM / PA_ETOOBIG
 * with err saying why.  A mail without a patch, or one git mailinfo
 * would reject, is a record without has_patch, not an error.
 * arrival_fill() does the same with h and pf already computed for m (a
 * decider has them: reading the mail again would double its cost);
 * has_patch: they hold m's patch (msghash and patchfacts gave 0).
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
#include "mail.h"
#include "ledger.h"

int	arrival_from_mail(struct arrival *a, const struct mailmsg *m,
	    struct msghash *h, struct patchfacts *pf, struct pa_err *err);
void	arrival_fill(struct arrival *a, const struct mailmsg *m,
	    const struct msghash *h, const struct patchfacts *pf,
	    int has_patch);
/*
 * arrival_message_id - m's Message-ID as the ledger keys it: all of its
 * bytes (NUL ones too, however long), blanks around it and one pair of
 * <> cut; a pointer into m and *len, or NULL when it has none
 */
const char *arrival_message_id(const struct mailmsg *m, size_t *len);

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
