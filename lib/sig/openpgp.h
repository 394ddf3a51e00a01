/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * openpgp - OpenPGP signed messages checked in this process, through
 * librnp, with the keys of one key file (a patatt keyring file: an
 * armored or binary export of one or more primary keys with subkeys).
 *
 * Key validity -- self-signatures, subkey bindings, expiry, revocation --
 * is librnp's, never judged here: it says until when a key was valid,
 * and whether the signing key was valid when it signed.
 *
 * struct openpgp_keys is made once per key file and used by one thread at
 * a time (librnp's objects are not shared between threads); it holds no
 * file and no descriptor.  openpgp_verify() never changes it in a way a
 * later call could see.
 *
 * A key file is counted before librnp parses it, which checks every
 * self-signature and binding: over OPENPGP_KEYS_MAX primary keys,
 * OPENPGP_SUBKEYS_MAX subkeys, OPENPGP_UIDS_MAX user IDs (and
 * attributes), OPENPGP_SIGS_MAX signatures, or a packet cut short, and
 * it is refused unparsed.
 *
 * Return codes: 0; PA_ENOMEM; PA_EBADDOC (the file holds no usable key,
 * or is refused by the limits; err says which).
 * Everything about a signature is in struct openpgp_sig, not in the
 * return code.
 */
#ifndef PA_OPENPGP_H
#define PA_OPENPGP_H

#include <stddef.h>
#include <time.h>

#include "patchattest.h"
#include "base.h"

#define OPENPGP_FPR_MAX		64	/* hex fingerprint and NUL */
#define OPENPGP_KEYS_MAX	16	/* primary keys in one key file */
#define OPENPGP_SUBKEYS_MAX	64	/* their subkeys, together */
#define OPENPGP_UIDS_MAX	128	/* their user IDs and attributes */
#define OPENPGP_SIGS_MAX	4096	/* their signatures */

enum openpgp_status {
	OPENPGP_GOOD,		/* verifies, by a key valid when it signed */
	OPENPGP_BAD,		/* does not verify: the data or the
				   signature was changed */
	OPENPGP_NOKEY,		/* by a key the file does not hold */
	OPENPGP_KEY_INVALID,	/* by a key that was not valid when it
				   signed (expired, revoked, newer than the
				   signature); not checked further */
	OPENPGP_SIG_EXPIRED,	/* verifies, but the signature itself has
				   expired or is dated in the future */
	OPENPGP_UNUSABLE	/* not one signed message with one
				   signature; detail says why */
};

struct openpgp_sig {
	enum openpgp_status	 status;
	char			 fpr[OPENPGP_FPR_MAX];	/* signing (sub)key,
							   or the issuer's
							   key ID; "" */
	time_t			 when;		/* signature time, 0: unknown */
	time_t			 valid_till;	/* end of the key's validity
						   (expiry or revocation);
						   OPENPGP_FOREVER: none;
						   0: never valid */
	unsigned		 revoked:1;	/* the key (or its primary)
						   is revoked */
	char			 detail[128];
};

#define OPENPGP_FOREVER	((time_t)-1)

struct openpgp_keys;

/* openpgp_keys_load - the keys of a key file's bytes into *out */
int	openpgp_keys_load(struct openpgp_keys **out, const void *data,
	    size_t len, struct pa_err *);
/*
 * openpgp_keys_empty - a set without keys, with which openpgp_verify()
 * says who signed: OPENPGP_NOKEY and the issuer in fpr (0 or PA_ENOMEM)
 */
int	openpgp_keys_empty(struct openpgp_keys **out);
void	openpgp_keys_free(struct openpgp_keys *);

/*
 * openpgp_verify - the signed message msg (binary OpenPGP, as "gpg
 * --sign" makes it; any other shape is OPENPGP_UNUSABLE before librnp
 * reads it, see openpgp-msg.h) checked with keys; its signed content, at
 * most plain's cap, replaces plain's contents.  Returns 0 with sig
 * filled, or PA_ENOMEM.
 */
int	openpgp_verify(struct openpgp_keys *keys, const void *msg,
	    size_t len, struct sbuf *plain, struct openpgp_sig *sig);

#endif
