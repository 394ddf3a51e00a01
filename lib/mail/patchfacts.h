/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * patchfacts - what an arrival record keeps of a patch mail beside its
 * i/m/p: the patch-id of its diff (patchid.h), the trailer lines of its
 * commit message and m_core, the hash of the message without them
 * (trailers.h), all from git mailinfo's primary reading (the one
 * msghash's entry[0] comes from).
 *
 * Caller storage: patchfacts_init() once, patchfacts_compute() for any
 * number of messages (the buffers are kept), patchfacts_release() at the
 * end.  patchfacts_compute() takes git mailinfo's reading from the
 * msghash the message was just hashed into, when it holds it, and reads
 * the message itself otherwise (h NULL, or a variant read last); pf->mi
 * points to the reading used, valid until the next msghash_compute() on
 * h or patchfacts_compute() on pf.  It returns 0, PA_ENOPATCH (no patch),
 * PA_EMAILINFO (git mailinfo would fail), or PA_ENOMEM / PA_ETOOBIG.
 * A message that is not UTF-8 has no m_core (has_m_core 0), a patch
 * without a diff no patch-id ("").
 */
#ifndef PA_PATCHFACTS_H
#define PA_PATCHFACTS_H

#include "mailinfo.h"
#include "patchid.h"
#include "base.h"

/*
 * The trailer lines kept, NUL excluded: as many whole lines as fit (an
 * arrival record's room for them)
 */
#define PATCHFACTS_TRAILERS_MAX	2047

struct mailmsg;
struct msghash;

struct patchfacts {
	char		 patch_id[PATCHID_HEXLEN + 1];
	unsigned char	 m_core[DIGEST_LEN];
	int		 has_m_core;
	struct sbuf	 trailers;	/* one per line */
	int		 trailers_cut;	/* lines left out for room */
	const struct mailinfo *mi;	/* the reading: mi->msg, mi->patch */
	struct mailinfo	 own;		/* ours, when msghash had none */
};

void	patchfacts_init(struct patchfacts *);
void	patchfacts_release(struct patchfacts *);
int	patchfacts_compute(struct patchfacts *, const struct mailmsg *,
	    const struct msghash *h);

#endif
