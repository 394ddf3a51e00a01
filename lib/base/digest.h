/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * digest - SHA-256 through OpenSSL's EVP interface, and SHA-1 for the ids
 * git computes with it (patch-id).
 *
 * A struct digest lives on the caller's storage: digest_init() before use,
 * digest_release() after (it frees the EVP context).  digest_update() and
 * digest_final() may be called on a digest whose init failed; the failure
 * is reported once, by digest_final() returning PA_ENOMEM.
 */
#ifndef PA_DIGEST_H
#define PA_DIGEST_H

#include <stddef.h>

#define DIGEST_LEN	32
#define DIGEST_HEXLEN	64
#define DIGEST_SHA1_LEN	20

struct evp_md_ctx_st;
struct evp_md_st;

struct digest {
	struct evp_md_ctx_st	*ctx;
	const struct evp_md_st	*md;
	int			 failed;
};

void	digest_init(struct digest *);
/* digest_init_sha1 - a digest of SHA-1, whose digest_final gives 20 bytes */
void	digest_init_sha1(struct digest *);
void	digest_update(struct digest *, const void *, size_t);
/* digest_final - DIGEST_LEN bytes into out (DIGEST_SHA1_LEN for SHA-1) */
int	digest_final(struct digest *, unsigned char out[DIGEST_LEN]);
void	digest_release(struct digest *);

/*
 * digest_empty - SHA-256 of nothing: the p of a patch part without a
 * diff, which attests no content (spec 6.6)
 */
extern const unsigned char digest_empty[DIGEST_LEN];

/* digest_sha256 - one-shot hash of a byte range */
int	digest_sha256(unsigned char out[DIGEST_LEN], const void *, size_t);

/* digest_hex - 64 lower-case hex digits and a NUL into out */
void	digest_hex(char out[DIGEST_HEXLEN + 1],
	    const unsigned char in[DIGEST_LEN]);

#endif
