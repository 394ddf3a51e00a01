/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * decide - the verdict on one mail: its patch's hashes (every variant)
 * against the index, its patatt signatures against the keyrings, the
 * signers' keys and the policy.
 *
 * struct decider belongs to one thread at a time (it holds a GnuPG
 * context and the message's working state); the index and the patatt
 * keyring may be shared by many deciders.  decider_new() takes the
 * configuration, which must outlive it.
 *
 * A decision takes two steps, so that a caller sharing the index with a
 * writer holds it only for the lookups: decide_begin() hashes the message
 * and verifies its signatures (no index), decide_end() looks the
 * attestations and first-use keys up and gives the verdict.  decide()
 * does both.
 *
 * Neither fails: a message that carries neither a patch nor a patatt
 * signature is PA_ENOPATCH and gets no verdict; anything else returns 0
 * with d filled, problems of the index or the keyring being
 * VERDICT_TEMPERROR with the reason in d->reason.  A signed mail without
 * a patch (a cover letter, a pull request) gets patatt's verdict alone,
 * with no attid.
 */
#ifndef PA_DECIDE_H
#define PA_DECIDE_H

#include <stddef.h>
#include <time.h>

#include "attest.h"
#include "base.h"
#include "patchattest.h"
#include "sig.h"
#include "state.h"

enum verdict {
	VERDICT_PASS,		/* attested by a trusted key, policy met */
	VERDICT_STALE,		/* ... but signed too long before the mail
				   arrived, or after it */
	VERDICT_UIDMISMATCH,	/* ... but no user ID has the author's address */
	VERDICT_UNTRUSTED,	/* signed by a key that is not trusted */
	VERDICT_NOKEY,		/* signed by a key we do not have */
	VERDICT_FAIL,		/* the patch differs, or the signature is bad */
	VERDICT_UNSIGNED_BY_SIGNER,	/* not signed with the key its identity
					   habitually signs with */
	VERDICT_NONE,		/* a patch, and no attestation for it */
	VERDICT_TEMPERROR	/* the index or the keyring is unusable */
};

/* Parts of a patch that differ from what a document attests. */
#define DECIDE_DIFF_I	0x1	/* author or subject */
#define DECIDE_DIFF_M	0x2	/* commit message */
#define DECIDE_DIFF_P	0x4	/* the diff */

/*
 * Which signature scheme gave the verdict.  None did for a patch with
 * neither a document nor a signature (VERDICT_NONE, or what signer
 * memory makes of it) and for a mail that could not be judged at all
 * (decision_fault()), rather than a scheme the server may not even use.
 */
enum scheme {
	SCHEME_NONE,		/* neither (the zero of a decision) */
	SCHEME_V01,		/* a 2020 attestation document, or the patch
				   or the index that could not be read for one */
	SCHEME_PATATT		/* an X-Developer-Signature in the mail */
};

struct decision {
	enum verdict	 result;
	enum scheme	 scheme;
	int		 has_patch;		/* 0: patatt's verdict only */
	int		 lasting;		/* TEMPERROR that a retry would
						   meet again (the message is
						   too big to judge): it is
						   accepted, never deferred */
	int		 unsafe;		/* TEMPERROR with fields only
						   we may write left in it:
						   never accepted */
	int		 unrecorded;		/* its arrival record could
						   not be written: OnError */
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
	char		 selector[64];		/* patatt's s=, or "" */
	char		 offered[256];		/* the key the signature names
						   (OpenPGP fingerprint) or the
						   mail offers (X-Developer-Key),
						   or "" */
	char		 tofu_key[256];		/* the key this message pinned
						   for identity (PatattTOFU),
						   or "" */
	/* What the author's domain vouches for, whatever the verdict: the
	   header.d of a dkim=pass in the topmost field of a verifier of
	   TrustedAuthservIDs, of the author's organizational domain (the
	   Public Suffix List's) and nearest the author's domain; or "". */
	char		 dkim_domain[256];
	unsigned	 authres_ignored;	/* Authentication-Results
						   fields not read: another
						   authserv-id, under the
						   verifier's own, or
						   malformed */
};

struct decider;
struct patatt_keyring;

/*
 * dkim_global_init - the Public Suffix List that DKIM alignment reads,
 * once per process before any thread (pa_global_init() calls it): 0, or
 * PA_ERROR when there is none (err says why)
 */
int	dkim_global_init(struct pa_err *);

/*
 * decider_new - a decider for cfg; keys is the patatt keyring of cfg's
 * PatattKeyring folders shared with other deciders (it must outlive this
 * one), or NULL for the decider to make its own.  0, PA_ENOMEM, PA_ERROR
 * (GnuPG cannot be set up, a keyring folder is missing: err says why).
 */
int	decider_new(struct decider **, const struct pa_config *cfg,
	    struct patatt_keyring *keys, struct pa_err *);
void	decider_free(struct decider *);
/*
 * decider_rebind - the decider serves cfg from now on, cfg having the
 * GnuPGHome, TrustModel and PatattKeyring of the configuration it was
 * made for (a reload that changed other settings): its GnuPG contexts and
 * their key listings are kept
 */
void	decider_rebind(struct decider *, const struct pa_config *cfg);
/*
 * decider_use_pins - PatattTOFU's pins from now on (NULL: none, and a key
 * only offered is temperror); record: patches may pin a first key, else
 * the pins are only read
 */
void	decider_use_pins(struct decider *, struct pins *pins, int record);

/*
 * decider_use_ledger - signer memory from ledger from now on (see
 * signer.c).  NULL: none; why says why it cannot be consulted, which the
 * reason of a verdict it could have changed repeats, or is NULL when it
 * is off by design.  why must stay valid until decide_end().
 */
void	decider_use_ledger(struct decider *, struct ledger *,
	    const char *why);

/*
 * decide_habit_identity - the identity whose signing habit signer memory
 * judges the message decide_begin() took last by: its sender (canonical,
 * see signer.c), or "" when none does (a reply, no usable address)
 */
const char	*decide_habit_identity(const struct decider *);

/*
 * decide_arrival - the arrival record of the message decided last into
 * a: what the mail gives of it from the facts decide_begin() read
 * (mailfacts_record(): nothing of the mail is read again), and d (its decision by decide_end()), where it came
 * from as the MTA said (from), arrived at the time decide_begin() was
 * given.  copy is left for the store.  Call it after decide_end(), before
 * the next message.
 */
void	decide_arrival(struct decider *, const struct decision *d,
	    const struct arrival_origin *from, struct arrival *a);
/*
 * decide_arrival_unjudged - the arrival record of a message that
 * decide_begin() took last and found neither a patch nor signed
 * (PA_ENOPATCH), when it is still one to remember: a cover letter (by
 * its subject), or a mail whose patch part has no diff (a diffstat: it
 * has an attestation ID).  Its fields from the facts decide_begin() read
 * of msg, from, the time decide_begin() was given; no verdict and no
 * identity, so that it teaches no signing habit.  0; PA_ENOPATCH: nothing
 * to record; or PA_ENOMEM / PA_ETOOBIG with err saying why.
 */
int	decide_arrival_unjudged(struct decider *, const struct mailmsg *msg,
	    const struct arrival_origin *from, struct arrival *a,
	    struct pa_err *err);

/*
 * decide_begin - the first step on msg, which must stay unchanged until
 * decide_end(): 0, or PA_ENOPATCH (no patch, no signature: stop here).
 * now is the mail's arrival: the time keys' expiry, AttestationWait and
 * the signing times (decide_signing_time()) are judged at.
 */
int	decide_begin(struct decider *, const struct mailmsg *msg, time_t now);
/*
 * decide_begin_read - decide_begin() on the mail whose facts f holds
 * (mailfacts_read() with MSGHASH_VARIANTS; they and their mail must stay
 * unchanged until the record is made): a caller that needs them before
 * the decision (check: the arrival the mail is judged as of) computes
 * them once
 */
struct mailfacts;
int	decide_begin_read(struct decider *, struct mailfacts *f, time_t now);

/*
 * decide_end - the verdict, with the index ix.  ix NULL: no index; when
 * ix_fault says why it is unusable, patches are VERDICT_TEMPERROR with
 * that reason; when ix_fault is NULL there is none by design (no Archive,
 * nothing learnt yet) and a patch without a signature is VERDICT_NONE.
 */
void	decide_end(struct decider *, struct attindex *ix,
	    const char *ix_fault, struct decision *d);

/* decide - both steps; ix NULL is an unusable index */
int	decide(struct decider *, const struct mailmsg *msg,
	    struct attindex *ix, time_t now, struct decision *d);

/*
 * What one indexed 2020 document says of a patch, and what the signing
 * key is now: everything record_verdict() judges.
 */
struct record_facts {
	enum pgp_sigstatus	 sig;		/* the document's signature */
	unsigned		 differs;	/* DECIDE_DIFF_*: record vs mail */
	enum pgp_keystate	 key;		/* the signing key, today */
	int			 author_uid;	/* a user ID has the author's
						   address */
	time_t			 signed_at;	/* the document's signing
						   time; 0: unknown */
	const char		*fpr;		/* the signing key, as signed */
	const char		*author;	/* the author's address */
	time_t			 arrived;	/* the mail's arrival; 0:
						   unknown */
};

/*
 * record_verdict - the 2020 verdict on facts under cfg (TrustModel,
 * UIDMatch, StalenessDays, MaxClockSkew): d's result, differs and reason
 */
void	record_verdict(const struct record_facts *, const struct pa_config *cfg,
	    struct decision *d);

/*
 * decide_signing_time - a signature made at signed_at on a mail that
 * arrived (the milter's clock, never the mail's Date) at arrived, under
 * cfg's StalenessDays and MaxClockSkew: VERDICT_PASS, or VERDICT_STALE
 * when it was made too long before the arrival or too long after it (the
 * signer's clock, or the signing time, is wrong), with the reason in
 * reason.  Either time 0 (unknown) passes.
 */
enum verdict	decide_signing_time(const struct pa_config *cfg,
		    time_t signed_at, time_t arrived, char *reason,
		    size_t size);

/* PatattTOFU: an identity's offered key against its pin. */
enum tofu_seen {
	TOFU_SAME,		/* the key pinned */
	TOFU_OTHER,		/* another key is pinned */
	TOFU_FIRST,		/* no pin: this key is pinned now */
	TOFU_UNPINNED,		/* no pin, and none made */
	TOFU_UNKNOWN		/* the pins cannot be read */
};

/*
 * What the first copy of a mail's Message-ID whose patatt signature
 * checked out (its arrival record) says changed in this one: the part
 * a signature that no longer verifies does not name.
 */
struct patatt_earlier {
	char		 identity[ARRIVAL_TEXT_MAX];	/* its signer's i=,
							   canonical */
	int		 has_patch;	/* both are patches: match and parts
					   compare their hashes */
	enum arrival_match match;
	unsigned	 parts;		/* ARRIVAL_PART_* that differ */
	unsigned	 fields;	/* ARRIVAL_FIELD_* that differ */
};

/*
 * What decide_patatt() needs to judge patatt signatures: the policy, the
 * keyring folders (to name key files within them), a GnuPG context for
 * the state of OpenPGP keys of the GnuPG home, the mail's author address
 * and its arrival (now), and for PatattTOFU a function that compares an
 * identity's offered key with its pin, and pins it when pin is set and
 * the identity has none (*pinned: the pin it has, when it has one; why:
 * when the pin cannot be read, TOFU_UNKNOWN, why not); the first copy of
 * the Message-ID, when one is known, to name what changed.
 */
struct patatt_report;
struct patatt_context {
	const struct pa_config	*cfg;
	const struct patatt_keyring *keys;
	struct pgp		*pgp;
	const char		*author;	/* address, or NULL */
	time_t			 now;		/* the mail's arrival */
	enum tofu_seen		(*tofu)(void *, const char *identity,
				    const char *key, int pin,
				    struct pin *pinned, struct pa_err *why);
	void			*tofu_arg;
	const struct patatt_earlier *earlier;	/* NULL: none known */
};

/*
 * decide_patatt - the verdict of a message's patatt signatures into out:
 * a contradicted signature fails, else the best verdict counts.  0, or
 * PA_ENOTFOUND (out untouched) when there is no signature.
 */
int	decide_patatt(const struct patatt_context *,
	    const struct patatt_report *, struct decision *out);

/*
 * decision_combine - one verdict from the 2020 scheme's (d, in and out)
 * and patatt's (pt): a contradiction by either fails; else a pass by
 * either passes; else the better of the two, a 2020 "none" not counting.
 */
void	decision_combine(struct decision *d, const struct decision *pt);

/*
 * decision_fault - d is a message that could not be judged because of
 * why: VERDICT_TEMPERROR, lasting or not (see struct decision), with
 * nothing else known.  The policy (policy_apply()) says what happens to
 * it, as to every other verdict.
 */
void	decision_fault(struct decision *d, int lasting, const char *why);

/* verdict_name - "pass", "fail", ... as the header spells them */
const char	*verdict_name(enum verdict);

#endif
