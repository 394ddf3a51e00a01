/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * mailfacts - the facts of one mail, each computed once, for its verdict
 * and its arrival record: its hashes (msghash, every variant with
 * MSGHASH_VARIANTS), the patch as git am reads it and what a record
 * keeps of it beside its i/m/p (patchfacts: patch-id, trailers, m_core),
 * and the header fields a record keeps (the Message-ID and the hash that
 * finds it, From, Subject, List-Id).  The decider reads the mail it
 * decides through one (decide_begin()), and so does whatever else sets a
 * mail beside what arrived ("patchattest arrived", the tests that record
 * mail); the state layer is handed the values (mailfacts_record()'s
 * record, the Message-ID's hash for a lookup) and reads no mail.
 *
 * Caller storage: mailfacts_init() once, mailfacts_read() for any number
 * of mails (the buffers are kept), mailfacts_release() at the end.  The
 * mail must stay unchanged while its facts are used.  The hashes and the
 * header fields are computed by mailfacts_read(); the patch's facts at
 * the first need (mailfacts_patch(), mailfacts_record()), so that mail
 * that is neither recorded nor judged by its author costs no more.
 */
#ifndef PA_MAILFACTS_H
#define PA_MAILFACTS_H

#include <stddef.h>

#include "patchattest.h"
#include "mail.h"
#include "state.h"

struct mailfacts {
	const struct mailmsg	*msg;
	struct msghash		 h;		/* h.n 0: no hash */
	int			 hash_rc;	/* msghash_compute()'s */
	struct pa_err		 hash_why;	/* ... and why, when not 0 */
	struct patchfacts	 pf;
	int			 pf_rc;		/* patchfacts_compute()'s */
	int			 pf_done;	/* pf, pf_rc: this mail's */
	const char		*id;		/* the Message-ID as the ledger
						   keys it, in msg: all of its
						   bytes, blanks around it and
						   one pair of <> cut; NULL:
						   none */
	size_t			 id_len;
	struct arrival		 rec;		/* what the mail gives of its
						   record: the header fields,
						   the patch's once pf_done */
};

void	mailfacts_init(struct mailfacts *);
void	mailfacts_release(struct mailfacts *);
/*
 * mailfacts_read - msg's facts into f: its hashes (msghash_compute() with
 * flags) and header fields now, the patch's at the first need.  Returns
 * msghash_compute()'s code (f->hash_rc; h.n is 0 unless it is 0):
 * PA_ENOPATCH, PA_EMAILINFO (hash_why says why), PA_ENOMEM or PA_ETOOBIG
 * are facts of the mail too, not failures of this call.
 */
int	mailfacts_read(struct mailfacts *f, const struct mailmsg *msg,
	    unsigned flags);
/*
 * mailfacts_patch - the patch as git am reads it (f->pf.mi) and its
 * facts, computed at the first call for the mail read last:
 * patchfacts_compute()'s code
 */
int	mailfacts_patch(struct mailfacts *f);
/*
 * mailfacts_record - what the mail gives of its arrival record, into *a
 * (cleared first): its Message-ID (and the hash that finds it), author,
 * subject and List-Id, and for a patch (one the primary reading hashed,
 * and git am would apply) its i/m/p (msghash's entry[0]), m_core,
 * patch-id, trailer lines and author as git am reads it.  The caller
 * sets the rest (the time, the envelope sender, the verdicts).  0, or
 * PA_ENOMEM / PA_ETOOBIG with err saying why the patch could not be
 * read: *a then holds the header fields only.  A mail without a patch,
 * or one git mailinfo would reject, is a record without has_patch, not
 * an error.
 */
int	mailfacts_record(struct mailfacts *f, struct arrival *a,
	    struct pa_err *err);

#endif
