/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * patattsign - patch mail signed as patatt signs it (spec patatt.md 2,
 * 3, 5), for the benchmarks: the body and the From and Subject from "git
 * mailinfo --encoding=utf-8 --no-scissors", the digest D over the
 * canonical signed headers and the signature header up to "b=", then b=
 * the Ed25519 signature and D (ed25519-sha256, through libsodium) or the
 * OpenPGP signed message of D made by GnuPG (openpgp-sha256, through
 * GPGME, with the context's signer).
 */
#ifndef PA_PATATTSIGN_H
#define PA_PATATTSIGN_H

#include <stddef.h>

#include <gpgme.h>
#include <sodium.h>

#include "base.h"

struct signer {
	const char	*algo;		/* "ed25519" or "openpgp" */
	const char	*identity;
	const char	*selector;	/* NULL: none (patatt: "default") */
	unsigned char	 ed_sk[crypto_sign_SECRETKEYBYTES];	/* ed25519 */
	unsigned char	 ed_pk[crypto_sign_PUBLICKEYBYTES];
	gpgme_ctx_t	 pgp;		/* openpgp: signs with its signer */
	char		 offer[128];	/* X-Developer-Key pk= or fpr= */
};

/*
 * patattsign_message - raw (LF line ends) signed by s: the headers
 * X-Developer-Signature and X-Developer-Key appended to the header block,
 * into out; scratch files go into the folder tmp
 */
void	patattsign_message(const struct signer *s, const char *tmp,
	    const char *raw, size_t len, struct sbuf *out);

/* patattsign_b64 - Base64 of in appended to out */
void	patattsign_b64(struct sbuf *out, const unsigned char *in, size_t len);

#endif
