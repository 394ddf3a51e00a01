/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sshsig.c - raw Ed25519 signatures through libsodium, and OpenSSH SSHSIG
 * signatures (Ed25519 through libsodium, RSA and ECDSA through OpenSSL's
 * EVP interface).
 *
 * An SSHSIG blob (OpenSSH PROTOCOL.sshsig) is
 *
 *	"SSHSIG" uint32(1) string(publickey) string(namespace)
 *	string(reserved) string(hash_algorithm) string(signature)
 *
 * and the key signs "SSHSIG" string(namespace) string(reserved)
 * string(hash_algorithm) string(H(message)).  The signature string is
 * string(type) string(blob), as in the SSH protocol (RFC 4253, 8332,
 * 5656, 8709).  ssh-keygen's rules are kept: version 1 only, the
 * namespace must match, no "ssh-rsa" (SHA-1) signatures, nothing after
 * the last field.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/bn.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/opensslv.h>
#include <sodium.h>
#if OPENSSL_VERSION_NUMBER >= 0x30000000L
#include <openssl/core_names.h>
#include <openssl/param_build.h>
#define HAVE_OSSL_PARAM	1
#endif

#include "patchattest.h"
#include "base.h"
#include "sshsig.h"

#define SSHSIG_MAGIC	"SSHSIG"
#define SSHSIG_MAGIC_LEN 6
#define RSA_MIN_BYTES	128	/* 1024 bits, ssh-keygen's minimum */
#define RSA_MAX_BYTES	2048	/* 16384 bits, its maximum */
#define MSG_HASH_MAX	64

/* A reader of SSH wire data: uint32 and string fields. */
struct rd {
	const unsigned char	*p;
	size_t			 len;
};

struct ssh_str {
	const unsigned char	*p;
	size_t			 len;
};

static int	 get_u32(struct rd *, uint32_t *);
static int	 get_str(struct rd *, struct ssh_str *);
static unsigned char *put_str(unsigned char *, const unsigned char *, size_t);
static int	 str_is(const struct ssh_str *, const char *);
static int	 mpint_pos(struct ssh_str *);
static int verify_pkey(EVP_PKEY *, const EVP_MD *, const unsigned char *,
    size_t, const unsigned char *, size_t);
static int	 verify_key(const struct ssh_str *, const struct ssh_str *,
		    const struct ssh_str *, const unsigned char *, size_t,
		    char *);

static int
get_u32(struct rd *r, uint32_t *v)
{
	if (r->len < 4)
		return -1;
	*v = (uint32_t)r->p[0] << 24 | (uint32_t)r->p[1] << 16 |
	    (uint32_t)r->p[2] << 8 | r->p[3];
	r->p += 4;
	r->len -= 4;
	return 0;
}

static int
get_str(struct rd *r, struct ssh_str *s)
{
	uint32_t n;

	if (get_u32(r, &n) != 0 || n > r->len)
		return -1;
	s->p = r->p;
	s->len = n;
	r->p += n;
	r->len -= n;
	return 0;
}

/* put_str - an SSH string at o; returns the byte after it */
static unsigned char *
put_str(unsigned char *o, const unsigned char *p, size_t len)
{
	o[0] = (unsigned char)(len >> 24);
	o[1] = (unsigned char)(len >> 16);
	o[2] = (unsigned char)(len >> 8);
	o[3] = (unsigned char)len;
	memcpy(o + 4, p, len);
	return o + 4 + len;
}

static int
str_is(const struct ssh_str *s, const char *word)
{
	return s->len == strlen(word) && memcmp(s->p, word, s->len) == 0;
}

/* mpint_pos - a positive mpint without its leading zeros; -1 if not */
static int
mpint_pos(struct ssh_str *s)
{
	if (s->len == 0 || (s->p[0] & 0x80))
		return -1;
	while (s->len > 0 && s->p[0] == 0) {
		s->p++;
		s->len--;
	}
	return s->len > 0 ? 0 : -1;
}

/* verify_pkey - 0 when sig verifies over data hashed with md */
static int
verify_pkey(EVP_PKEY *pk, const EVP_MD *md, const unsigned char *sig,
    size_t siglen, const unsigned char *data, size_t len)
{
	EVP_MD_CTX *ctx;
	int ok;

	if ((ctx = EVP_MD_CTX_new()) == NULL)
		return PA_ENOMEM;
	ok = EVP_DigestVerifyInit(ctx, NULL, md, NULL, pk) == 1 &&
	    EVP_DigestVerify(ctx, sig, siglen, data, len) == 1;
	EVP_MD_CTX_free(ctx);
	return ok ? 0 : SSHSIG_BAD;
}

int
sshsig_ed25519(const unsigned char pub[32], const void *msg, size_t len,
    const unsigned char sig[64])
{
	/* libsodium's rules are PyNaCl's, so patatt's: a non-canonical
	   signature or a small-order key does not verify. */
	return crypto_sign_verify_detached(sig, msg, len, pub) == 0 ? 0 :
	    SSHSIG_BAD;
}

#ifdef HAVE_OSSL_PARAM
/* fromdata - a public key of type name ("RSA", "EC") from parameters */
static EVP_PKEY *
fromdata(const char *name, OSSL_PARAM_BLD *bld)
{
	EVP_PKEY_CTX *ctx = NULL, *check = NULL;
	OSSL_PARAM *params;
	EVP_PKEY *pk = NULL;

	if ((params = OSSL_PARAM_BLD_to_param(bld)) == NULL)
		return NULL;
	if ((ctx = EVP_PKEY_CTX_new_from_name(NULL, name, NULL)) == NULL ||
	    EVP_PKEY_fromdata_init(ctx) != 1 ||
	    EVP_PKEY_fromdata(ctx, &pk, EVP_PKEY_PUBLIC_KEY, params) != 1)
		pk = NULL;
	/* A point off the curve must not get as far as a verification. */
	if (pk && ((check = EVP_PKEY_CTX_new_from_pkey(NULL, pk, NULL)) ==
	    NULL || EVP_PKEY_public_check(check) != 1)) {
		EVP_PKEY_free(pk);
		pk = NULL;
	}
	EVP_PKEY_CTX_free(check);
	EVP_PKEY_CTX_free(ctx);
	OSSL_PARAM_free(params);
	return pk;
}

static EVP_PKEY *
rsa_key(const struct ssh_str *e, const struct ssh_str *n)
{
	OSSL_PARAM_BLD *bld;
	BIGNUM *be, *bn;
	EVP_PKEY *pk = NULL;

	be = BN_bin2bn(e->p, (int)e->len, NULL);
	bn = BN_bin2bn(n->p, (int)n->len, NULL);
	if (be && bn && (bld = OSSL_PARAM_BLD_new()) != NULL) {
		if (OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, bn) &&
		    OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, be))
			pk = fromdata("RSA", bld);
		OSSL_PARAM_BLD_free(bld);
	}
	BN_free(be);
	BN_free(bn);
	return pk;
}

static EVP_PKEY *
p256_key(const struct ssh_str *q)
{
	OSSL_PARAM_BLD *bld;
	EVP_PKEY *pk = NULL;

	if ((bld = OSSL_PARAM_BLD_new()) == NULL)
		return NULL;
	if (OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME,
	    "prime256v1", 0) &&
	    OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY,
	    q->p, q->len))
		pk = fromdata("EC", bld);
	OSSL_PARAM_BLD_free(bld);
	return pk;
}

/* ecdsa_der - the SSH (r, s) signature blob as DER into der */
static int
ecdsa_der(const struct ssh_str *blob, unsigned char *der, size_t *derlen)
{
	struct rd r = { blob->p, blob->len };
	struct ssh_str sr, ss;
	ECDSA_SIG *sig;
	BIGNUM *br, *bs;
	unsigned char *o = der;
	int n;

	if (get_str(&r, &sr) != 0 || get_str(&r, &ss) != 0 || r.len != 0 ||
	    mpint_pos(&sr) != 0 || mpint_pos(&ss) != 0 || sr.len > 32 ||
	    ss.len > 32)
		return SSHSIG_BAD;
	if ((sig = ECDSA_SIG_new()) == NULL)
		return PA_ENOMEM;
	br = BN_bin2bn(sr.p, (int)sr.len, NULL);
	bs = BN_bin2bn(ss.p, (int)ss.len, NULL);
	if (br == NULL || bs == NULL || ECDSA_SIG_set0(sig, br, bs) != 1) {
		BN_free(br);
		BN_free(bs);
		ECDSA_SIG_free(sig);
		return PA_ENOMEM;
	}
	n = i2d_ECDSA_SIG(sig, NULL);
	if (n <= 0 || (size_t)n > *derlen) {
		ECDSA_SIG_free(sig);
		return SSHSIG_BAD;
	}
	*derlen = (size_t)i2d_ECDSA_SIG(sig, &o);
	ECDSA_SIG_free(sig);
	return 0;
}
#endif

/*
 * verify_key - sig (string type, string blob) over data with the public
 * key blob key; why gets the reason for anything but success.
 */
static int
verify_key(const struct ssh_str *key, const struct ssh_str *sigtype,
    const struct ssh_str *sigblob, const unsigned char *data, size_t len,
    char *why)
{
	struct rd r = { key->p, key->len };
	struct ssh_str type, a, b;
	EVP_PKEY *pk = NULL;
	const EVP_MD *md = NULL;
	unsigned char buf[RSA_MAX_BYTES];
	const unsigned char *sig = sigblob->p;
	size_t siglen = sigblob->len;
	int rc;

	if (get_str(&r, &type) != 0)
		goto bad_key;
	if (str_is(&type, "ssh-ed25519")) {
		if (get_str(&r, &a) != 0 || r.len != 0 || a.len != 32)
			goto bad_key;
		if (!str_is(sigtype, "ssh-ed25519") || siglen != 64)
			goto bad_type;
		if (sshsig_ed25519(a.p, data, len, sig) == 0)
			return 0;
		snprintf(why, SSHSIG_WHY_MAX, "the ssh-ed25519 signature "
		    "does not verify");
		return SSHSIG_MISMATCH;
	}
#ifdef HAVE_OSSL_PARAM
	if (str_is(&type, "ssh-rsa")) {
		/* e, then n (RFC 4253 6.6) */
		if (get_str(&r, &a) != 0 || get_str(&r, &b) != 0 ||
		    r.len != 0 || mpint_pos(&a) != 0 || mpint_pos(&b) != 0 ||
		    a.len > 8 || b.len < RSA_MIN_BYTES || b.len > RSA_MAX_BYTES)
			goto bad_key;
		if (str_is(sigtype, "rsa-sha2-256"))
			md = EVP_sha256();
		else if (str_is(sigtype, "rsa-sha2-512"))
			md = EVP_sha512();
		else
			goto bad_type;
		/* OpenSSH accepts a signature shorter than the modulus. */
		if (siglen > b.len)
			goto bad_sig;
		memset(buf, 0, b.len - siglen);
		memcpy(buf + b.len - siglen, sig, siglen);
		sig = buf;
		siglen = b.len;
		pk = rsa_key(&a, &b);
	} else if (str_is(&type, "ecdsa-sha2-nistp256")) {
		if (get_str(&r, &a) != 0 || get_str(&r, &b) != 0 ||
		    r.len != 0 || !str_is(&a, "nistp256") || b.len != 65 ||
		    b.p[0] != 4)
			goto bad_key;
		if (!str_is(sigtype, "ecdsa-sha2-nistp256"))
			goto bad_type;
		siglen = sizeof(buf);
		if ((rc = ecdsa_der(sigblob, buf, &siglen)) == SSHSIG_BAD)
			goto bad_sig;
		if (rc != 0)
			return rc;
		sig = buf;
		md = EVP_sha256();
		pk = p256_key(&b);
	} else
#endif
	{
		snprintf(why, SSHSIG_WHY_MAX, "unsupported key type %.*s",
		    type.len > 40 ? 40 : (int)type.len, (const char *)type.p);
		return SSHSIG_UNSUP;
	}
	if (pk == NULL)
		goto bad_key;
	rc = verify_pkey(pk, md, sig, siglen, data, len);
	EVP_PKEY_free(pk);
	if (rc != SSHSIG_BAD)
		return rc;
	snprintf(why, SSHSIG_WHY_MAX, "the %.*s signature does not verify",
	    (int)sigtype->len, (const char *)sigtype->p);
	return SSHSIG_MISMATCH;
bad_key:
	snprintf(why, SSHSIG_WHY_MAX, "the public key blob is malformed");
	return SSHSIG_BAD;
bad_type:
	snprintf(why, SSHSIG_WHY_MAX, "signature type %.*s does not go with "
	    "the key", sigtype->len > 40 ? 40 : (int)sigtype->len,
	    (const char *)sigtype->p);
	return SSHSIG_BAD;
bad_sig:
	snprintf(why, SSHSIG_WHY_MAX, "the signature blob is malformed");
	return SSHSIG_BAD;
}

/* parse - the fields of an SSHSIG blob; -1 if it is not one */
static int
parse(const unsigned char *blob, size_t len, struct ssh_str f[5])
{
	struct rd r = { blob, len };
	uint32_t version;
	int i;

	if (len < SSHSIG_MAGIC_LEN || memcmp(blob, SSHSIG_MAGIC,
	    SSHSIG_MAGIC_LEN) != 0)
		return -1;
	r.p += SSHSIG_MAGIC_LEN;
	r.len -= SSHSIG_MAGIC_LEN;
	if (get_u32(&r, &version) != 0 || version != 1)
		return -1;
	/* public key, namespace, reserved, hash algorithm, signature */
	for (i = 0; i < 5; i++)
		if (get_str(&r, &f[i]) != 0)
			return -1;
	return r.len == 0 ? 0 : -1;
}

const unsigned char *
sshsig_pubkey(const unsigned char *blob, size_t len, size_t *keylen)
{
	struct ssh_str f[5];

	if (parse(blob, len, f) != 0)
		return NULL;
	*keylen = f[0].len;
	return f[0].p;
}

int
sshsig_verify(const unsigned char *blob, size_t len,
    const unsigned char *key, size_t keylen, const char *ns,
    const void *msg, size_t msglen, char why[SSHSIG_WHY_MAX])
{
	struct ssh_str f[5], sigtype, sigblob;
	struct rd r;
	unsigned char h[MSG_HASH_MAX], *data, *o;
	const EVP_MD *md;
	unsigned hlen = 0;
	size_t nslen = strlen(ns), dlen;
	int rc;

	why[0] = '\0';
	if (parse(blob, len, f) != 0) {
		snprintf(why, SSHSIG_WHY_MAX, "not an SSHSIG version 1 blob");
		return SSHSIG_BAD;
	}
	if (f[0].len != keylen || memcmp(f[0].p, key, keylen) != 0) {
		snprintf(why, SSHSIG_WHY_MAX, "signed with another key");
		return SSHSIG_BAD;
	}
	if (!str_is(&f[1], ns)) {
		snprintf(why, SSHSIG_WHY_MAX, "namespace is not \"%s\"", ns);
		return SSHSIG_BAD;
	}
	if (str_is(&f[3], "sha256"))
		md = EVP_sha256();
	else if (str_is(&f[3], "sha512"))
		md = EVP_sha512();
	else {
		snprintf(why, SSHSIG_WHY_MAX, "unknown hash algorithm");
		return SSHSIG_BAD;
	}
	r.p = f[4].p;
	r.len = f[4].len;
	if (get_str(&r, &sigtype) != 0 || get_str(&r, &sigblob) != 0 ||
	    r.len != 0) {
		snprintf(why, SSHSIG_WHY_MAX, "the signature is malformed");
		return SSHSIG_BAD;
	}
	if (EVP_Digest(msg, msglen, h, &hlen, md, NULL) != 1)
		return PA_ENOMEM;
	/* What the key signed: every length fits, blob is bounded by len. */
	dlen = SSHSIG_MAGIC_LEN + 4 + nslen + 4 + f[2].len + 4 + f[3].len +
	    4 + hlen;
	if ((data = malloc(dlen)) == NULL)
		return PA_ENOMEM;
	memcpy(data, SSHSIG_MAGIC, SSHSIG_MAGIC_LEN);
	o = data + SSHSIG_MAGIC_LEN;
	o = put_str(o, (const unsigned char *)ns, nslen);
	o = put_str(o, f[2].p, f[2].len);
	o = put_str(o, f[3].p, f[3].len);
	put_str(o, h, hlen);
	rc = verify_key(&f[0], &sigtype, &sigblob, data, dlen, why);
	free(data);
	/* The reason is in why; what OpenSSL queued for this thread would
	   otherwise stay allocated until the thread ends. */
	if (rc != 0)
		ERR_clear_error();
	return rc;
}

int
sshsig_fingerprint(char out[SSHSIG_FPR_MAX], const unsigned char *key,
    size_t keylen)
{
	unsigned char h[DIGEST_LEN];
	int n, rc;

	if ((rc = digest_sha256(h, key, keylen)) != 0)
		return rc;
	memcpy(out, "SHA256:", 7);
	n = EVP_EncodeBlock((unsigned char *)out + 7, h, DIGEST_LEN);
	/* ssh-keygen prints it without the padding. */
	while (n > 0 && out[7 + n - 1] == '=')
		n--;
	out[7 + n] = '\0';
	return 0;
}
