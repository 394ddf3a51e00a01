/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pgp - OpenPGP signatures through GPGME: verifying attestation documents
 * and patatt's signed messages, clearsigning, importing keys, and the
 * validity of signers' keys.
 *
 * struct pgp owns one GPGME context on a GnuPG home directory.  It is not
 * shared between threads: each thread (or milter connection) makes its
 * own with pgp_new().  gpgme_check_version() must have run once before
 * any thread starts (pa_global_init() runs it).
 *
 * Key lookups (pgp_key()) are answered from a cache of the whole keyring,
 * read again only when the keyring or trust database files change, so a
 * revoked or newly trusted key takes effect without re-indexing and
 * without running gpg for every message.
 */
#ifndef PA_PGP_H
#define PA_PGP_H

#include <stddef.h>
#include <time.h>

#include "base.h"
#include "patchattest.h"

#define PGP_FPR_MAX	64	/* hex fingerprint and NUL */
#define PGP_UID_MAX	8	/* user IDs kept per key */
#define PGP_UIDLEN	256

enum pgp_sigstatus {
	PGP_SIG_GOOD,		/* cryptographically good (trust not judged) */
	PGP_SIG_BAD,		/* the signed text was altered */
	PGP_SIG_NOKEY,		/* no public key to check it */
	PGP_SIG_ERROR		/* several signatures, unknown algorithm, ... */
};

struct pgp_sig {
	enum pgp_sigstatus	 status;
	char			 fpr[PGP_FPR_MAX];	/* signing key or subkey */
	time_t			 when;			/* signature time, UTC */
	unsigned		 nsigs;
	unsigned		 key_expired:1;	/* GOOD, by a key expired since */
	unsigned		 key_revoked:1;	/* GOOD, by a key revoked since */
	char			 detail[128];		/* for ERROR, why */
};

enum pgp_keystate {
	PGP_KEY_TRUSTED,	/* usable and trusted under the trust model */
	PGP_KEY_UNTRUSTED,	/* usable, not trusted */
	PGP_KEY_REVOKED,
	PGP_KEY_EXPIRED,
	PGP_KEY_MISSING		/* not in the keyring */
};

struct pgp_key {
	enum pgp_keystate	 state;
	char			 primary[PGP_FPR_MAX];	/* primary key fpr */
	size_t			 nuids;
	char			 uid[PGP_UID_MAX][PGP_UIDLEN];	/* "Name <addr>" */
	char			 addr[PGP_UID_MAX][PGP_UIDLEN];	/* addr only */
};

struct pgp;

int	pgp_global_init(struct pa_err *);

/*
 * pgp_new - a context on home (NULL: GnuPG's default) into *out: 0, or an
 * error with err saying why (*out NULL)
 */
int		 pgp_new(struct pgp **out, const char *home, enum trust_model,
		    struct pa_err *);
void		 pgp_free(struct pgp *);

/*
 * pgp_recheck_every - from now on, a context looks at its home's files
 * for a change at most once every ms milliseconds (0, the default: at
 * every use), which saves a daemon some system calls per message.  Set
 * once, before threads start.
 */
void		 pgp_recheck_every(unsigned ms);

/*
 * pgp_verify - check one clearsigned document (doc must start with its
 * "-----BEGIN PGP SIGNED MESSAGE-----" line); the signed text, as GnuPG
 * returns it, replaces the contents of plaintext (also for a bad
 * signature, so the caller can say what it claimed).  The line end gpg
 * adds after the last line is removed: it is not signed (RFC 4880, 7.1),
 * so a payload without a final LF comes back byte for byte.
 *
 * sig judges the cryptography only: exactly one signature, else
 * PGP_SIG_ERROR.  A signature by a key that has since expired or been
 * revoked is PGP_SIG_GOOD, with detail saying so; the key's state is
 * pgp_key()'s to judge.  A signature past its own expiry is an ERROR.
 *
 * Returns 0 with sig filled in; PA_ETOOBIG for a document over 16 MiB or
 * a signed text over plaintext's cap; PA_ENOMEM; PA_ERROR when GnuPG
 * could not run at all.
 */
int	pgp_verify(struct pgp *, const char *doc, size_t len,
	    struct pgp_sig *sig, struct sbuf *plaintext, struct pa_err *);

/*
 * pgp_import - add the OpenPGP keys in keys (armored or binary) to the
 * home; *nkeys gets how many were imported or already there.  Returns 0,
 * or PA_ERROR when none was (err says why), PA_ETOOBIG, PA_ENOMEM.
 */
int	pgp_import(struct pgp *, const void *keys, size_t len,
	    unsigned *nkeys, struct pa_err *);

/*
 * pgp_clearsign - text signed with key (NULL: GnuPG's default key) into
 * out as a clearsigned document, with one armor "Comment: " line per
 * entry of comments (NULL-ended; at most 16 of 200 bytes, no control
 * characters).  Armor headers are not signed, so they are added after
 * GnuPG signs.  Only keys without a passphrase can sign: GnuPG is never
 * allowed to ask for one, and err says so.  Returns 0 or PA_ERROR,
 * PA_ETOOBIG, PA_ENOMEM.
 */
int	pgp_clearsign(struct pgp *, const char *key, const char *text,
	    size_t len, const char *const *comments, struct sbuf *out,
	    struct pa_err *);

/*
 * pgp_key - the state of the key that has fpr as its primary key or one
 * of its subkeys, at time now.  fpr is a fingerprint or a 16-digit key ID
 * (any case, optional 0x); a short key ID, or a key ID that two keys
 * share, is MISSING.  Revoked and expired (at now) apply to the primary
 * key and to the subkey named; the trust models' rules are written out
 * at pgp_models[] in pgp.c.  key->uid and key->addr hold the user IDs
 * that are not revoked ("Name <addr>" and addr; one that does not fit
 * whole is left out).  Returns 0 (MISSING included), or PA_ERROR /
 * PA_ENOMEM when the keyring cannot be listed.
 */
int	pgp_key(struct pgp *, const char *fpr, time_t now, struct pgp_key *,
	    struct pa_err *);

struct openpgp_keys;

/*
 * pgp_keystore - the public keys of the home, for openpgp_verify(), as of
 * the listing pgp_key() answers from: exported by gpg once per listing,
 * so no gpg runs while the keyring files are unchanged.  *out belongs to
 * p and lasts until the next pgp_key() or pgp_keystore().  Returns 0, or
 * PA_ERROR / PA_ENOMEM when the keyring cannot be listed or exported (err
 * says why).
 */
int	pgp_keystore(struct pgp *, struct openpgp_keys **out,
	    struct pa_err *);

#endif
