/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pgp-int.h - what the two halves of the GnuPG module share: pgp.c
 * (contexts, verifying, signing) and pgp-keys.c (the keyring listing and
 * the trust models).
 */
#ifndef PA_PGP_INT_H
#define PA_PGP_INT_H

#include <sys/types.h>

#include <stddef.h>
#include <time.h>

#include <gpgme.h>

#include "openpgp.h"
#include "pgp.h"

#define PGP_NSTAMPS	6	/* files whose change outdates a listing */

struct pgp_stamp {
	int		 exists;
	dev_t		 dev;
	ino_t		 ino;
	off_t		 size;
	struct timespec	 mtime;
};

/* One fingerprint or key ID of the listing, pointing into keys[key]. */
struct pgp_ix {
	const char	*id;		/* upper-case hex, owned by the key */
	size_t		 key;
	gpgme_subkey_t	 sub;
};

struct pgp {
	gpgme_ctx_t		 ctx;		/* sign, verify */
	gpgme_ctx_t		 lctx;		/* key listing */
	enum trust_model	 model;
	char			*home;		/* resolved, for the stamps */
	int			 listed;
	struct pgp_stamp	 stamp[PGP_NSTAMPS];
	struct timespec		 looked;	/* when the home was last
						   found unchanged
						   (CLOCK_MONOTONIC) */
	gpgme_key_t		*keys;
	size_t			 nkeys, akeys;
	struct pgp_ix		*ix;
	size_t			 nix;
	struct openpgp_keys	*store;		/* the listing's public keys
						   for librnp, made when
						   first asked; or NULL */
};

/* A trust model: how the keyring is listed, and what makes a key trusted. */
struct pgp_model {
	enum trust_model	 model;
	const char		*gpg_model;	/* listing's --trust-model */
	gpgme_keylist_mode_t	 extra;		/* more keylist mode bits */
	int			(*trusted)(gpgme_key_t, time_t);
};

/* pgp_model_of - the model's entry, or NULL for an unknown one */
const struct pgp_model	*pgp_model_of(enum trust_model);

/*
 * pgp_home_check - the home is a folder we may read, and so is each of
 * its keyring files that exists; PA_ERROR with err saying which is not
 * (gpg would find no key there, and every signer would look unknown)
 */
int			 pgp_home_check(const struct pgp *, struct pa_err *);

/* pgp_cache_clear - forget the listing */
void			 pgp_cache_clear(struct pgp *);

#endif
