/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * patatt-verify.c - the verdict on one signature for one reading of the
 * body (patatt.md 3 and 6, step 3), in patatt's order: h= signs From and
 * Subject, bh= matches, b= is there, then the digest D and the signature
 * over it with the key patatt.c found; and the way a signature's result
 * and texts are written, which patatt.c shares.
 */
#include "config.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "patchattest.h"
#include "base.h"
#include "patatt.h"
#include "openpgp.h"
#include "patatt-int.h"
#include "pgp.h"
#include "sshsig.h"

static int	 decode_sig(struct patatt *, struct patatt_check *);
static int	 has_name(const char *, size_t, const char *);
static int	 name_char(char);
static void	 name_signed(const struct patatt_tags *, struct patatt_sig *);
static int	 same_digest(const struct sbuf *,
		    const unsigned char [DIGEST_LEN]);
static int	 run_openpgp(struct patatt *, struct patatt_check *,
		    struct pa_err *);
static int	 verify_openpgp(struct patatt *, struct patatt_check *,
		    const unsigned char [DIGEST_LEN], struct patatt_sig *,
		    struct pa_err *);
static int	 tags_refused(const struct patatt_tags *,
		    const struct patatt_reading *, struct patatt_sig *);
static void	 verify_ed25519(struct patatt *, const struct patatt_check *,
		    const unsigned char [DIGEST_LEN], struct patatt_sig *);
static int	 verify_openssh(struct patatt *, const struct patatt_check *,
		    const unsigned char [DIGEST_LEN], struct patatt_sig *);

void
patatt_set(struct patatt_sig *s, enum patatt_result r, const char *fmt, ...)
{
	va_list ap;

	s->result = r;
	va_start(ap, fmt);
	vsnprintf(s->detail, sizeof(s->detail), fmt, ap);
	va_end(ap);
}

void
patatt_copy(char *out, size_t size, const char *s, size_t len)
{
	const char *nul = memchr(s, '\0', len);

	if (nul)
		len = (size_t)(nul - s);
	if (len >= size)
		len = size - 1;
	memcpy(out, s, len);
	out[len] = '\0';
}

/*
 * decode_sig - b= as patatt reads it: the canonical value after its last
 * "b=", whitespace removed, Base64-decoded
 */
static int
decode_sig(struct patatt *pt, struct patatt_check *c)
{
	const struct sbuf *v = &pt->tags.canon;
	const char *p, *cut = NULL;
	struct sbuf flat;
	size_t i;
	int rc;

	if (c->sig_state != 0)
		return 0;
	for (p = v->buf; (p = memmem(p, v->len - (size_t)(p - v->buf), "b=",
	    2)) != NULL; p += 2)
		cut = p + 2;
	c->sig_state = -1;
	if (cut == NULL)
		return 0;
	sbuf_init(&flat, v->len);
	for (i = (size_t)(cut - v->buf); i < v->len; i++)
		if (v->buf[i] != ' ' && (v->buf[i] < '\t' || v->buf[i] > '\r'))
			sbuf_addch(&flat, v->buf[i]);
	sbuf_reset(&pt->sig);
	if ((rc = sbuf_failed(&flat)) == 0)
		rc = codec_b64_strict(&pt->sig, flat.buf, flat.len);
	sbuf_release(&flat);
	if (rc == PA_ENOMEM)
		return rc;
	c->sig_state = rc == 0 ? 1 : -1;
	return 0;
}

/* same_digest - the OpenPGP signed content is D */
static int
same_digest(const struct sbuf *plain, const unsigned char d[DIGEST_LEN])
{
	return plain->len == DIGEST_LEN && memcmp(plain->buf, d,
	    DIGEST_LEN) == 0;
}

/* has_name - the ":"-separated list h has the name word */
static int
has_name(const char *h, size_t len, const char *word)
{
	const char *end = h + len, *colon;
	size_t n = strlen(word);

	for (; h <= end; h = colon + 1) {
		if ((colon = memchr(h, ':', (size_t)(end - h))) == NULL)
			colon = end;
		if ((size_t)(colon - h) == n && memcmp(h, word, n) == 0)
			return 1;
		if (colon == end)
			break;
	}
	return 0;
}

/* name_char - whether c may be in a header name that a reason shows */
static int
name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '-';
}

/*
 * name_signed - h= as header names for a reason ("From, Subject,
 * Message-ID"): each word's first letter upper-cased, "id" as "ID"; ""
 * when h= (which comes from the mail) holds anything but names and ':'
 * or does not fit
 */
static void
name_signed(const struct patatt_tags *t, struct patatt_sig *s)
{
	const char *h = t->v[TAG_H];
	size_t i, n = 0, len = t->len[TAG_H];
	char *out = s->signed_headers, c;
	int start, id;

	out[0] = '\0';
	if (h == NULL || len == 0 || len * 2 >= sizeof(s->signed_headers))
		return;
	for (i = 0; i < len; i++) {
		c = h[i];
		if (c == ':') {
			out[n++] = ',';
			out[n++] = ' ';
			continue;
		}
		if (!name_char(c)) {
			out[0] = '\0';
			return;
		}
		start = i == 0 || h[i - 1] == ':' || h[i - 1] == '-';
		id = i > 0 && ascii_lower(h[i - 1]) == 'i' && c == 'd' &&
		    (i == 1 || !name_char(h[i - 2]) || h[i - 2] == '-') &&
		    (i + 1 == len || h[i + 1] == ':' || h[i + 1] == '-');
		if ((start || id) && c >= 'a' && c <= 'z')
			c = (char)(c - 'a' + 'A');
		out[n++] = c;
	}
	out[n] = '\0';
}

/*
 * run_openpgp - librnp's verdict on b= (once per signature) with the keys
 * of the identity's keyring file, else with those of the GnuPG home (its
 * export, made once per change of the keyring: no gpg runs here)
 */
static int
run_openpgp(struct patatt *pt, struct patatt_check *c, struct pa_err *err)
{
	struct openpgp_keys *keys;
	int rc;

	if (c->from == PATATT_KEY_RING) {
		pthread_mutex_lock(&c->key->use);
		rc = openpgp_verify(c->key->pgp, pt->sig.buf, pt->sig.len,
		    &pt->plain, &c->osig);
		pthread_mutex_unlock(&c->key->use);
		return rc;
	}
	if ((rc = pgp_keystore(pt->pgp, &keys, err)) != 0)
		return rc;
	return openpgp_verify(keys, pt->sig.buf, pt->sig.len, &pt->plain,
	    &c->osig);
}

/*
 * verify_openpgp - the verdict of librnp's result against D, the key's
 * validity judged at pt->now (a key of the GnuPG home is judged again by
 * the trust model, in decide-patatt.c)
 */
static int
verify_openpgp(struct patatt *pt, struct patatt_check *c,
    const unsigned char d[DIGEST_LEN], struct patatt_sig *s,
    struct pa_err *err)
{
	struct openpgp_sig *os = &c->osig;
	char till[16];
	struct tm tm;
	int rc;

	if (!c->pgp_done) {
		if ((rc = run_openpgp(pt, c, err)) != 0)
			return rc;
		c->pgp_done = 1;
	}
	patatt_copy(s->key, sizeof(s->key), os->fpr, strlen(os->fpr));
	if (os->when != 0)
		s->signed_at = os->when;
	till[0] = '\0';
	if (os->valid_till != OPENPGP_FOREVER && os->valid_till != 0 &&
	    gmtime_r(&os->valid_till, &tm) != NULL)
		strftime(till, sizeof(till), " on %Y-%m-%d", &tm);
	switch (os->status) {
	case OPENPGP_NOKEY:
		if (c->from == PATATT_KEY_RING)
			patatt_set(s, PATATT_NOKEY, "signed by %s, which is "
			    "not a key of %s", os->fpr[0] ? os->fpr :
			    "an unnamed key", c->key->rel);
		else
			patatt_set(s, PATATT_NOKEY, "%s/%s: no OpenPGP key %s "
			    "in any keyring folder or the GnuPG home",
			    s->identity, s->selector, os->fpr[0] ? os->fpr :
			    "(unnamed)");
		return 0;
	case OPENPGP_BAD:
		patatt_set(s, PATATT_BADSIG, "bad OpenPGP signature by %s",
		    os->fpr);
		return 0;
	case OPENPGP_UNUSABLE:
		patatt_set(s, PATATT_BADSIG, "unusable OpenPGP signature: %s",
		    os->detail);
		return 0;
	case OPENPGP_GOOD:
	case OPENPGP_KEY_INVALID:
	case OPENPGP_SIG_EXPIRED:
		break;
	}
	if (!same_digest(&pt->plain, d)) {
		patatt_set(s, PATATT_BADSIG,
		    "the signed digest is not the message's: "
		    "a signed header was changed");
		s->changed = PATATT_CHANGED_HEADERS;
	} else if (os->status == OPENPGP_SIG_EXPIRED)
		patatt_set(s, PATATT_KEY_EXPIRED, "good signature by %s, but "
		    "the signature itself has expired or is dated ahead",
		    os->fpr);
	else if (os->status == OPENPGP_KEY_INVALID && os->revoked &&
	    os->valid_till == 0)
		patatt_set(s, PATATT_KEY_EXPIRED, "signed by %s, a key revoked "
		    "from the start (or as compromised)", os->fpr);
	else if (os->status == OPENPGP_KEY_INVALID && os->valid_till == 0)
		patatt_set(s, PATATT_KEY_EXPIRED, "signed by %s, a key that "
		    "was never valid", os->fpr);
	else if (os->status == OPENPGP_KEY_INVALID)
		patatt_set(s, PATATT_KEY_EXPIRED, "signed by %s after the key "
		    "%s%s", os->fpr, os->revoked ? "was revoked" : "expired",
		    till);
	else if (os->valid_till != OPENPGP_FOREVER &&
	    pt->now >= os->valid_till)	/* as gpg: expired at that second */
		patatt_set(s, PATATT_KEY_EXPIRED, "good signature by %s, but "
		    "the key %s%s", os->fpr, os->revoked ? "was revoked" :
		    "expired", till);
	else
		patatt_set(s, PATATT_VALID, "%s", "");
	return 0;
}

/*
 * tags_refused - patatt's checks of h=, bh= and b=, before any digest: 1
 * when one failed, with its verdict in s
 */
static int
tags_refused(const struct patatt_tags *t, const struct patatt_reading *rd,
    struct patatt_sig *s)
{
	if (t->v[TAG_H] == NULL) {
		patatt_set(s, PATATT_BADSIG, "no h= (signed headers)");
		return 1;
	}
	if (!has_name(t->v[TAG_H], t->len[TAG_H], "from") ||
	    !has_name(t->v[TAG_H], t->len[TAG_H], "subject")) {
		patatt_set(s, PATATT_BADSIG,
		    "h= does not sign from and subject");
		return 1;
	}
	if (t->v[TAG_BH] == NULL || t->len[TAG_BH] != strlen(rd->bh) ||
	    memcmp(t->v[TAG_BH], rd->bh, t->len[TAG_BH]) != 0) {
		patatt_set(s, PATATT_BADSIG,
		    "body hash mismatch (the canonical body "
		    "has %zu bytes, l=%.*s)",
		    rd->body_len, t->len[TAG_L] > 20 ? 20 : (int)t->len[TAG_L],
		    t->v[TAG_L] ? t->v[TAG_L] : "");
		s->changed = PATATT_CHANGED_BODY;
		return 1;
	}
	if (t->v[TAG_B] == NULL || t->len[TAG_B] == 0) {
		patatt_set(s, PATATT_ERROR, "Missing \"b=\" value");
		return 1;
	}
	return 0;
}

/* verify_ed25519 - b= is sig || D, as PyNaCl signs, by the key found */
static void
verify_ed25519(struct patatt *pt, const struct patatt_check *c,
    const unsigned char d[DIGEST_LEN], struct patatt_sig *s)
{
	const struct patatt_tags *t = &pt->tags;
	const unsigned char *sig = (const unsigned char *)pt->sig.buf;

	if (pt->sig.len < 64 || sshsig_ed25519(c->ed, sig + 64,
	    pt->sig.len - 64, sig) != 0)
		patatt_set(s, PATATT_BADSIG,
		    "the Ed25519 signature does not verify");
	else if (t->v[TAG_T] == NULL || t->len[TAG_T] == 0)
		patatt_set(s, PATATT_BADSIG, "no t= (required for ed25519)");
	else if (pt->sig.len != 64 + DIGEST_LEN ||
	    memcmp(sig + 64, d, DIGEST_LEN) != 0) {
		patatt_set(s, PATATT_BADSIG, "the signed digest is not the "
		    "message's: a signed header was changed");
		s->changed = PATATT_CHANGED_HEADERS;
	} else
		patatt_set(s, PATATT_VALID, "%s", "");
}

/*
 * verify_openssh - b= is an SSHSIG over D in namespace "patatt", by the
 * keyring file's key or else the key it carries, which must be the offered
 * one.  Returns 0 or PA_ENOMEM.
 */
static int
verify_openssh(struct patatt *pt, const struct patatt_check *c,
    const unsigned char d[DIGEST_LEN], struct patatt_sig *s)
{
	const struct patatt_tags *t = &pt->tags;
	const unsigned char *key, *sig = (const unsigned char *)pt->sig.buf;
	char why[SSHSIG_WHY_MAX], fpr[SSHSIG_FPR_MAX];
	size_t keylen;
	int rc = 0;

	if (c->from == PATATT_KEY_RING) {
		key = (const unsigned char *)c->key->blob.buf;
		keylen = c->key->blob.len;
	} else if ((key = sshsig_pubkey(sig, pt->sig.len, &keylen)) == NULL ||
	    (rc = sshsig_fingerprint(fpr, key, keylen)) != 0 ||
	    strcmp(fpr, s->offered) != 0) {
		if (rc == PA_ENOMEM)
			return rc;
		patatt_set(s, PATATT_BADSIG, "not signed with the offered key");
		return 0;
	}
	rc = sshsig_verify(sig, pt->sig.len, key, keylen, "patatt", d,
	    DIGEST_LEN, why);
	if (rc == PA_ENOMEM)
		return rc;
	if (rc == SSHSIG_UNSUP)
		patatt_set(s, PATATT_ERROR, "%s", why);
	else if (rc != 0) {
		patatt_set(s, PATATT_BADSIG, "%s", why);
		if (rc == SSHSIG_MISMATCH)
			s->changed = PATATT_CHANGED_HEADERS_OR_SIG;
	} else if (t->v[TAG_T] == NULL || t->len[TAG_T] == 0)
		patatt_set(s, PATATT_BADSIG, "no t= (required for openssh)");
	else
		patatt_set(s, PATATT_VALID, "%s", "");
	return 0;
}

/*
 * patatt_verify - the verdict for one reading of the body, into s.  Returns
 * 0, or PA_ENOMEM / PA_ERROR (GnuPG did not run).
 */
int
patatt_verify(struct patatt *pt, struct patatt_check *c,
    const struct patatt_reading *rd, struct patatt_sig *s, struct pa_err *err)
{
	unsigned char d[DIGEST_LEN];
	int rc;

	s->changed = PATATT_CHANGED_UNKNOWN;
	if (rd->rc != 0) {
		patatt_set(s, PATATT_ERROR, "%s", rd->why);
		return 0;
	}
	name_signed(&pt->tags, s);
	if (tags_refused(&pt->tags, rd, s))
		return 0;
	rc = patatt_digest(d, &pt->msg, rd, &pt->tags, pt->used, &pt->work);
	if (rc == PA_ENOMEM)
		return rc;
	if (rc == PA_ETOOBIG) {
		patatt_set(s, PATATT_BADSIG, "h= names over %d headers",
		    PATATT_HNAMES_MAX);
		return 0;
	}
	if (rc != 0) {
		patatt_set(s, PATATT_ERROR,
		    "a signed header cannot be read: %s", pa_strerror(rc));
		return 0;
	}
	if ((rc = decode_sig(pt, c)) != 0)
		return rc;
	if (c->sig_state < 0) {
		patatt_set(s, PATATT_ERROR, "b= is not valid Base64");
		return 0;
	}
	switch (s->algo) {
	case PATATT_ED25519:
		verify_ed25519(pt, c, d, s);
		return 0;
	case PATATT_OPENSSH:
		return verify_openssh(pt, c, d, s);
	case PATATT_OPENPGP:
		return verify_openpgp(pt, c, d, s, err);
	default:
		patatt_set(s, PATATT_ERROR, "unknown algorithm");
		return 0;
	}
}
