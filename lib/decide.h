/*
 * decide - the verdict on one patch mail: its hashes (every variant), the
 * index, the signers' keys and the policy.
 *
 * struct decider belongs to one thread at a time (it holds a GnuPG
 * context); the index may be shared by many deciders.  decider_new() takes
 * the configuration and an open index, both of which must outlive it; a
 * decider without an index (NULL) calls every patch VERDICT_TEMPERROR.
 *
 * decide() never fails: a message that is not patch mail returns
 * PA_ENOPATCH and leaves d unset; anything else returns 0 with d filled,
 * problems of the index or the keyring being VERDICT_TEMPERROR with the
 * reason in d->reason.
 */
#ifndef PA_DECIDE_H
#define PA_DECIDE_H

#include <stddef.h>
#include <time.h>

#include "attindex.h"
#include "paconfig.h"
#include "patchattest.h"
#include "pgp.h"
#include "sbuf.h"

enum verdict {
	VERDICT_PASS,		/* attested by a trusted key, policy met */
	VERDICT_STALE,		/* ... but signed too long before the mail */
	VERDICT_UIDMISMATCH,	/* ... but no user ID has the author's address */
	VERDICT_UNTRUSTED,	/* signed by a key that is not trusted */
	VERDICT_NOKEY,		/* signed by a key we do not have */
	VERDICT_FAIL,		/* the patch differs, or the signature is bad */
	VERDICT_NONE,		/* a patch, and no attestation for it */
	VERDICT_TEMPERROR	/* the index or the keyring is unusable */
};

/* Parts of a patch that differ from what a document attests. */
#define DECIDE_DIFF_I	0x1	/* author or subject */
#define DECIDE_DIFF_M	0x2	/* commit message */
#define DECIDE_DIFF_P	0x4	/* the diff */

struct decision {
	enum verdict	 result;
	char		 attid[MSGHASH_ATTID_LEN + 1];
	unsigned	 differs;		/* DECIDE_DIFF_* for FAIL */
	char		 signer[PGP_UIDLEN];	/* "Name <addr>", or "" */
	char		 key[PGP_FPR_MAX];	/* primary key fingerprint */
	time_t		 signed_at;		/* 0: unknown */
	time_t		 mail_date;		/* the Date header, 0: none */
	char		 reason[256];
};

struct decider;

int	decider_new(struct decider **, const struct pa_config *,
	    struct attindex *, struct pa_err *);
void	decider_free(struct decider *);

int	decide(struct decider *, const struct mailmsg *, time_t now,
	    struct decision *);

/* verdict_name - "pass", "fail", ... as the header spells them */
const char	*verdict_name(enum verdict);

/*
 * decision_header - the X-Patch-Attested value, folded with LF and a tab
 * where longer than 78 columns (name included), into out (appended).
 */
int	decision_header(const struct decision *, struct sbuf *out);

#endif
