/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * patatt - the in-header patch signatures of patatt (X-Developer-Signature,
 * spec: patatt.md): parsing, canonicalisation, and verification of
 * ed25519-sha256, openssh-sha256 and openpgp-sha256 signatures.
 *
 * The body and the signed From and Subject come from the same git
 * mailinfo emulation as the attestation hashes, run as patatt runs git
 * ("--encoding=utf-8 --no-scissors"): first as git >= 2.33 does (no
 * charset conversion), then, when that does not verify, as git < 2.32
 * did (conversion to UTF-8, names under 3 bytes replaced by the address);
 * a signature that verifies only the second way says so in detail.
 *
 * Keys come from patatt keyring folders in patatt's own layout
 * (ALGO/<domain>/<local>/<selector>, each part lower-cased and URL-quoted,
 * then by-hash/XX/<sha256 hex of that path>), searched in order, the
 * first file found binding the identity, as patatt's keyringsrc does.  A
 * key is trusted by being there, whatever its kind: ed25519, OpenSSH, or
 * OpenPGP (an export of one or more keys with their subkeys, checked in
 * this process by librnp, which judges the keys' validity).  An OpenPGP
 * signature whose identity has no file in any folder is checked with the
 * keys of a GnuPG home, as patatt falls back to the default keyring: the
 * one configured, else GnuPG's default when it can be used (without one
 * the signature is NOKEY, as patatt says), checked by librnp too, with
 * the home's keys exported once per change of its keyring, so no gpg
 * runs per message.  A keyring that cannot be read is KEYFAULT, never
 * taken for a missing key.  A
 * key offered only by the message's own X-Developer-Key proves nothing:
 * when the keyrings have no key, an ed25519 or OpenSSH signature is
 * checked with the offered key and, if it verifies, reported as
 * PATATT_OFFERED with the key in `offered', for a caller that trusts keys
 * on first use; anything else is PATATT_NOKEY.  An identity that has a
 * key file of any kind in a folder (another algorithm, another selector)
 * is never OFFERED: only its files speak for it.  OFFERED also needs
 * every folder readable; when one is not, the signature is PATATT_KEYFAULT.
 *
 * The keyring folders and the key files parsed from them are one struct
 * patatt_keyring, shared by every verifier of a process (it has its own
 * lock); each file is read once and again only when it changes.
 *
 * Lifecycle: patatt_keyring_new() once; patatt_new() per thread (it owns
 * a GnuPG context and the mailinfo work buffers), patatt_check() any
 * number of times, patatt_free(); patatt_keyring_free() after the last
 * verifier.  Errors about the environment (memory, a GnuPG home that
 * cannot be read) are return codes; everything about the message is in
 * the results.  Work is bounded: header fields, the signatures judged,
 * the X-Developer-Key fields read, tag values, h= names, b= and key files
 * all have caps (patatt-int.h); a message over a cap is ERROR.  A mail
 * with more than PATATT_MAX_SIGS signatures has none verified (each is
 * ERROR, saying so).  An OpenPGP b= is read by a bounded packet reader
 * (openpgp-msg.h: at most 4 KiB, sent or uncompressed, in the one shape
 * gpg --sign makes) before librnp sees it; anything else is BADSIG.
 */
#ifndef PA_PATATT_H
#define PA_PATATT_H

#include <stddef.h>
#include <time.h>

#include "base.h"
#include "patchattest.h"
#include "pgp.h"

#define PATATT_MAX_SIGS		8	/* signatures verified per message;
					   more, and none is */
#define PATATT_IDENTITY_MAX	256
#define PATATT_DETAIL_MAX	256

enum patatt_result {
	PATATT_VALID,		/* the signature verifies with a keyring key
				   (or, OpenPGP, one of the GnuPG home) */
	PATATT_KEY_EXPIRED,	/* OpenPGP: good signature, but the key
				   has expired or was revoked, since or
				   already when it signed (patatt says
				   BADSIG); detail says which */
	PATATT_OFFERED,		/* verifies only with the key the message
				   offers in X-Developer-Key (proves nothing
				   unless trusted on first use) */
	PATATT_BADSIG,		/* bh, the digest or the signature is wrong */
	PATATT_NOKEY,		/* no key for the identity in the keyrings */
	PATATT_KEYFAULT,	/* the keyrings cannot say: a folder missing
				   or unreadable, the key file unreadable,
				   not a regular file, too big, or no key
				   (or one over the limits of openpgp.h);
				   a fault of this server, not a verdict on
				   the mail; detail names the file inside
				   its folder */
	PATATT_ERROR		/* unusable: no a=, unknown algorithm, no b=,
				   b= not Base64, mailinfo fails (l= is
				   never used: a body that does not hash
				   to bh= is BADSIG, whatever l= says) */
};

enum patatt_algo {
	PATATT_ED25519,
	PATATT_OPENPGP,
	PATATT_OPENSSH,
	PATATT_ALGO_UNKNOWN
};

/*
 * Whether the keyrings hold a key file of any algorithm for a signature's
 * identity (its selector's file, or a folder of the identity), which
 * settles whether a key the mail offers may be trusted on first use.
 */
enum patatt_held {
	PATATT_HELD_NONE,	/* no file of any kind, every folder read */
	PATATT_HELD_SOME,	/* a file of some algorithm */
	PATATT_HELD_UNKNOWN	/* not looked for, or a folder or file
				   could not be read */
};

/*
 * What a BADSIG says was changed since signing.  The body is hashed into
 * bh= apart from the headers h= names, which are signed with bh=; so a
 * body that does not hash to bh= is a changed body, and a signature whose
 * signed digest (ed25519, OpenPGP carry it) is not the message's, bh=
 * matching, is a changed header.  An OpenSSH signature carries no digest:
 * one that does not verify over the message's, by the right key, is a
 * changed header or a damaged signature.  Which part of the body, or
 * which header, is not in the signature.
 */
enum patatt_changed {
	PATATT_CHANGED_UNKNOWN,	/* not a BADSIG, or it does not say */
	PATATT_CHANGED_BODY,
	PATATT_CHANGED_HEADERS,
	PATATT_CHANGED_HEADERS_OR_SIG
};

#define PATATT_SIGNED_MAX	96	/* signed_headers, NUL included */

struct patatt_sig {
	enum patatt_result	 result;
	enum patatt_changed	 changed;	/* for BADSIG */
	char			 signed_headers[PATATT_SIGNED_MAX];	/* h= as
						   header names ("From,
						   Subject, Message-ID"), or
						   "" when h= is not plain
						   names or too long */
	enum patatt_held	 held;
	enum patatt_algo	 algo;
	char			 identity[PATATT_IDENTITY_MAX];	/* i=, or From */
	char			 selector[64];			/* s=, "default" */
	time_t			 signed_at;	/* t=, or the OpenPGP time; 0 */
	char			 key[PGP_FPR_MAX];	/* OpenPGP fingerprint of
						   the signing key, or "" */
	char			 keysrc[PATATT_DETAIL_MAX];	/* key file path;
						   "X-Developer-Key" when
						   OFFERED; "" for a key of
						   the GnuPG home only */
	char			 offered[PATATT_DETAIL_MAX];	/* X-Developer-Key
						   pk= (ed25519) or fpr=
						   (openpgp; openssh:
						   "SHA256:...") for this
						   identity, or "" */
	char			 detail[PATATT_DETAIL_MAX];	/* why, in words */
};

struct patatt_report {
	size_t			 n;		/* signatures reported: those
						   of the first PATATT_MAX_SIGS
						   headers */
	size_t			 total;		/* X-Developer-Signature headers
						   (n < total: some unjudged) */
	struct patatt_sig	 sig[PATATT_MAX_SIGS];
};

struct patatt_keyring;

/*
 * patatt_keyring_new - the keyring folders dirs[0..n) (n may be 0), each
 * of which must be a folder; PA_ERROR with err saying which is not, or
 * PA_ENOMEM.
 */
int		 patatt_keyring_new(struct patatt_keyring **,
		    char *const *dirs, size_t n, struct pa_err *);
/*
 * patatt_keyring_hold - one more holder (a configuration reloaded with the
 * same folders keeps the files parsed); each holder calls
 * patatt_keyring_free() once
 */
struct patatt_keyring *patatt_keyring_hold(struct patatt_keyring *);
void		 patatt_keyring_free(struct patatt_keyring *);
/* What the cache of parsed key files has done (patatt_keyring_stats). */
struct patatt_cache_stats {
	unsigned long	 parses;	/* key files parsed */
	unsigned long	 hits;		/* lookups answered from the cache */
	unsigned long	 waits;		/* ... after waiting for a parse */
	unsigned long	 evictions;	/* entries dropped to make room */
	size_t		 entries, bytes;	/* now */
};

void		 patatt_keyring_stats(struct patatt_keyring *,
		    struct patatt_cache_stats *);
/*
 * patatt_identity_canon - the one form of a patatt identity that key files,
 * first-use pins and UIDMatch compare: the address lowered in ASCII, as
 * the key paths are (patatt.md 4).  0, or PA_ENOTFOUND for an identity
 * that has no such form (no "@", a byte that is not printable ASCII, or
 * longer than size - 1).
 */
int		 patatt_identity_canon(char *out, size_t size,
		    const char *identity);
/*
 * patatt_key_file - where a keyring folder keeps identity's key for the
 * signature algorithm algo (a=, "ed25519-sha256") and selector (s=, ""
 * for "default"): "ed25519/<domain>/<local>/<selector>", as patatt lays
 * out its .keyring, into out.  0, or PA_ENOTFOUND (an unknown algorithm,
 * an identity without "@", a part that is empty, "." or ".."), or
 * PA_ETOOBIG (out is too small).
 */
int		 patatt_key_file(char *out, size_t size, const char *algo,
		    const char *identity, const char *selector);
/* patatt_keyring_relative - a key file's path inside its folder */
const char	*patatt_keyring_relative(const struct patatt_keyring *,
		    const char *path);

struct patatt;

/*
 * patatt_new - a verifier into *out, with keyring keys (NULL: no folder)
 * and GnuPG home gnupg_home (NULL: GnuPG's default) for OpenPGP keys
 * without a file.  pa_global_init() must have run.  0, or an error with
 * err set when GnuPG cannot be set up on the home (*out NULL).
 */
int		 patatt_new(struct patatt **out, struct patatt_keyring *keys,
		    const char *gnupg_home, struct pa_err *);
void		 patatt_free(struct patatt *);

/*
 * patatt_check - every X-Developer-Signature of a complete message (after
 * mailmsg_eom or mailmsg_parse), in header order, into r (r->n == 0: no
 * signature); key expiry is judged at now.  Returns 0, or PA_ENOMEM /
 * PA_ERROR (the GnuPG home cannot be read: err says why) when nothing
 * could be judged.
 */
int	patatt_check(struct patatt *, const struct mailmsg *, time_t now,
	    struct patatt_report *r, struct pa_err *err);

/*
 * patatt_result_name - "valid", "key-expired", "offered", "badsig",
 * "nokey", "keyfault", "error"
 */
const char	*patatt_result_name(enum patatt_result);

#endif
