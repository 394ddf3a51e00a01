/* SPDX-License-Identifier: BSD-2-Clause */
#include "config.h"

#include <pthread.h>

#include <openssl/err.h>
#include <openssl/evp.h>

#include "patchattest.h"
#include "codec.h"
#include "digest.h"

const unsigned char digest_empty[DIGEST_LEN] = {
	0xe3, 0xb0, 0xc4, 0x42, 0x98, 0xfc, 0x1c, 0x14, 0x9a, 0xfb, 0xf4,
	0xc8, 0x99, 0x6f, 0xb9, 0x24, 0x27, 0xae, 0x41, 0xe4, 0x64, 0x9b,
	0x93, 0x4c, 0xa4, 0x95, 0x99, 0x1b, 0x78, 0x52, 0xb8, 0x55,
};

#if OPENSSL_VERSION_NUMBER >= 0x30000000L
/*
 * OpenSSL 3 looks EVP_sha256() up in its provider tables at every
 * initialisation, under a lock; look it up once.
 */
static EVP_MD		*sha256_md, *sha1_md;
static pthread_once_t	 md_once = PTHREAD_ONCE_INIT;

static void
md_fetch(void)
{
	sha256_md = EVP_MD_fetch(NULL, "SHA256", NULL);
	sha1_md = EVP_MD_fetch(NULL, "SHA1", NULL);
}

static const EVP_MD *
sha256(void)
{
	pthread_once(&md_once, md_fetch);
	return sha256_md != NULL ? sha256_md : EVP_sha256();
}

static const EVP_MD *
sha1(void)
{
	pthread_once(&md_once, md_fetch);
	return sha1_md != NULL ? sha1_md : EVP_sha1();
}
#else
#define sha256()	EVP_sha256()
#define sha1()		EVP_sha1()
#endif

/*
 * failed - a digest cannot be made (out of memory): the reasons OpenSSL
 * queued for this thread are dropped, or each failure would keep its
 * allocations until the thread ends.
 */
static int
failed(void)
{
	ERR_clear_error();
	return PA_ENOMEM;
}

static void
init_md(struct digest *d, const EVP_MD *md)
{
	d->failed = 0;
	d->md = md;
	d->ctx = EVP_MD_CTX_new();
	if (d->ctx == NULL || EVP_DigestInit_ex(d->ctx, md, NULL) != 1) {
		d->failed = 1;
		(void)failed();
	}
}

void
digest_init(struct digest *d)
{
	init_md(d, sha256());
}

void
digest_init_sha1(struct digest *d)
{
	init_md(d, sha1());
}

void
digest_update(struct digest *d, const void *data, size_t len)
{
	if (!d->failed && len && EVP_DigestUpdate(d->ctx, data, len) != 1) {
		d->failed = 1;
		(void)failed();
	}
}

int
digest_final(struct digest *d, unsigned char out[DIGEST_LEN])
{
	unsigned int n = 0;

	if (d->failed || EVP_DigestFinal_ex(d->ctx, out, &n) != 1 ||
	    n != (unsigned)EVP_MD_size(d->md)) {
		d->failed = 1;
		return failed();
	}
	/* Ready for another message without a new allocation. */
	if (EVP_DigestInit_ex(d->ctx, d->md, NULL) != 1) {
		d->failed = 1;
		(void)failed();
	}
	return 0;
}

void
digest_release(struct digest *d)
{
	EVP_MD_CTX_free(d->ctx);
	d->ctx = NULL;
}

int
digest_sha256(unsigned char out[DIGEST_LEN], const void *data, size_t len)
{
	unsigned int n = 0;

	if (EVP_Digest(data, len, out, &n, sha256(), NULL) != 1 ||
	    n != DIGEST_LEN)
		return failed();
	return 0;
}

void
digest_hex(char out[DIGEST_HEXLEN + 1], const unsigned char in[DIGEST_LEN])
{
	codec_hex(out, in, DIGEST_LEN, 0);
}
