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
 */
#ifndef PA_ARRIVAL_H
#define PA_ARRIVAL_H

#include "patchattest.h"
#include "mail.h"
#include "ledger.h"

int	arrival_from_mail(struct arrival *a, const struct mailmsg *m,
	    struct msghash *h, struct patchfacts *pf, struct pa_err *err);

#endif
