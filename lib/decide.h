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

/* Which signature scheme gave the verdict. */
enum scheme {
	SCHEME_V01,		/* a 2020 attestation document (or none) */
	SCHEME_PATATT		/* an X-Developer-Signature in the mail */
};

struct decision {
	enum verdict	 result;
	enum scheme	 scheme;
	char		 attid[MSGHASH_ATTID_LEN + 1];
	unsigned	 differs;		/* DECIDE_DIFF_* for FAIL */
	char		 signer[PGP_UIDLEN];	/* "Name <addr>", or "" */
	char		 key[256];	/* OpenPGP primary key fingerprint,
					   or patatt's keyring file */
	time_t		 signed_at;		/* 0: unknown */
	time_t		 mail_date;		/* the Date header, 0: none */
	char		 reason[256];
	/* Each scheme's own result, when the mail has patatt signatures. */
	int		 has_patatt;
	enum verdict	 v01, patatt;
	char		 algo[16];		/* patatt's a=, or "" */
	char		 identity[256];		/* patatt's i=, or "" */
	char		 tofu_key[256];		/* a first-use key the caller
						   records for identity */
};

struct decider;

int	decider_new(struct decider **, const struct pa_config *,
	    struct attindex *, struct pa_err *);
void	decider_free(struct decider *);

int	decide(struct decider *, const struct mailmsg *, time_t now,
	    struct decision *);

/*
 * What decide_patatt() needs to judge patatt signatures: the policy, a
 * GnuPG context for OpenPGP keys' state, the mail's author address and
 * date, and for PatattTOFU a function that compares an identity's offered
 * key with the one first seen (0: the same, 1: another key, 2: none seen
 * yet, -1: cannot tell).
 */
struct patatt_report;
struct patatt_judge {
	const struct pa_config	*cfg;
	struct pgp		*pgp;
	const char		*author;	/* address, or NULL */
	time_t			 mail_date, now;
	int			(*tofu)(void *, const char *identity,
				    const char *key);
	void			*tofu_arg;
};

/*
 * decide_patatt - the verdict of a message's patatt signatures into out:
 * a contradicted signature fails, else the best verdict counts.  Returns
 * 0 (out untouched) when there is no signature, else 1.
 */
int	decide_patatt(const struct patatt_judge *,
	    const struct patatt_report *, struct decision *out);

/*
 * decision_combine - one verdict from the 2020 scheme's (d, in and out)
 * and patatt's (pt): a contradiction by either fails; else a pass by
 * either passes; else the better of the two, a 2020 "none" not counting.
 */
void	decision_combine(struct decision *d, const struct decision *pt);

/* verdict_name - "pass", "fail", ... as the header spells them */
const char	*verdict_name(enum verdict);

/*
 * decision_header - the X-Patch-Attested value, folded with LF and a tab
 * where longer than 78 columns (name included), into out (appended).
 */
int	decision_header(const struct decision *, struct sbuf *out);

#endif
