/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * patattsign.c - patch mail signed as patatt signs it (see patattsign.h).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <openssl/evp.h>

#include "benchutil.h"
#include "patattsign.h"

#define MAX_MAIL	((size_t)64 << 20)

void
patattsign_b64(struct sbuf *out, const unsigned char *in, size_t len)
{
	unsigned char *p;
	int n;

	if (len > MAX_MAIL || (p = malloc(4 * ((len + 2) / 3) + 1)) == NULL)
		bench_die("base64", strerror(ENOMEM));
	n = EVP_EncodeBlock(p, in, (int)len);
	sbuf_add(out, p, (size_t)n);
	free(p);
}

static void
sha256(unsigned char out[32], const void *p, size_t len)
{
	if (EVP_Digest(p, len, out, NULL, EVP_sha256(), NULL) != 1)
		bench_die("SHA-256", "OpenSSL failed");
}

static int
is_ws(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' ||
	    c == '\f';
}

/* canon_value - a header value canonicalised as patatt does (§2.2) */
static void
canon_value(struct sbuf *out, const char *v, size_t len)
{
	size_t i, start = out->len;
	int blank = 0;

	for (i = 0; i < len; i++) {
		if (v[i] == '\r' || v[i] == '\n')
			continue;
		if (is_ws((unsigned char)v[i])) {
			blank = 1;
			continue;
		}
		if (blank && out->len > start)
			sbuf_addch(out, ' ');
		blank = 0;
		sbuf_addch(out, v[i]);
	}
	sbuf_addstr(out, "\r\n");
}

/* info_get - the stripped value of "Name: value" in mailinfo's output */
static void
info_get(const struct sbuf *info, const char *name, struct sbuf *out)
{
	const char *p = info->buf, *end = info->buf + info->len, *eol;
	size_t n = strlen(name);

	for (; p < end; p = eol + 1) {
		if ((eol = memchr(p, '\n', (size_t)(end - p))) == NULL)
			eol = end;
		if ((size_t)(eol - p) > n && memcmp(p, name, n) == 0 &&
		    p[n] == ':') {
			p += n + 1;
			while (p < eol && is_ws((unsigned char)*p))
				p++;
			while (eol > p && is_ws((unsigned char)eol[-1]))
				eol--;
			sbuf_add(out, p, (size_t)(eol - p));
			return;
		}
		if (eol == end)
			break;
	}
}

/*
 * header_end - length of the header block of msg (through the LF before
 * the first whitespace-only line); the body starts after that line
 */
static size_t
header_end(const char *msg, size_t len, size_t *body)
{
	size_t at = 0, eol, k;

	while (at < len) {
		for (eol = at; eol < len && msg[eol] != '\n'; eol++)
			;
		for (k = at; k < eol && is_ws((unsigned char)msg[k]); k++)
			;
		if (k == eol) {
			*body = eol < len ? eol + 1 : len;
			return at;
		}
		at = eol + 1;
	}
	bench_die("a patch", "no body");
	return 0;
}

/* last_field - the raw value of the last header field name, or NULL */
static const char *
last_field(const char *hdr, size_t len, const char *name, size_t *vlen)
{
	const char *found = NULL, *p = hdr, *end = hdr + len, *q;
	size_t n = strlen(name);

	while (p < end) {
		q = p;
		do {
			q = memchr(q, '\n', (size_t)(end - q));
			q = q ? q + 1 : end;
		} while (q < end && (*q == ' ' || *q == '\t'));
		if ((size_t)(q - p) > n && strncasecmp(p, name, n) == 0 &&
		    p[n] == ':') {
			found = p + n + 1;
			*vlen = (size_t)(q - found);
		}
		p = q;
	}
	return found;
}

/* sign_digest - b= for digest d */
static void
sign_digest(const struct signer *s, const unsigned char d[32],
    struct sbuf *b)
{
	unsigned char sig[64 + 32];
	gpgme_data_t in, out;
	gpgme_error_t ge;
	char *p;
	size_t n;

	if (s->pgp == NULL) {
		/* PyNaCl's signed message: the signature, then D */
		if (crypto_sign_detached(sig, NULL, d, 32, s->ed_sk) != 0)
			bench_die("Ed25519", "libsodium cannot sign");
		memcpy(sig + 64, d, 32);
		patattsign_b64(b, sig, sizeof(sig));
		return;
	}
	if ((ge = gpgme_data_new_from_mem(&in, (const char *)d, 32, 0)) != 0 ||
	    (ge = gpgme_data_new(&out)) != 0 ||
	    (ge = gpgme_op_sign(s->pgp, in, out, GPGME_SIG_MODE_NORMAL)) != 0)
		bench_die("GnuPG signing", gpgme_strerror(ge));
	gpgme_data_release(in);
	if ((p = gpgme_data_release_and_get_mem(out, &n)) == NULL)
		bench_die("GnuPG signing", "no output");
	patattsign_b64(b, (const unsigned char *)p, n);
	gpgme_free(p);
}

void
patattsign_message(const struct signer *s, const char *tmp, const char *raw,
    size_t len, struct sbuf *out)
{
	char mpath[128], ppath[128], ipath[128], inpath[128];
	char *argv[] = { "git", "mailinfo", "--encoding=utf-8",
	    "--no-scissors", mpath, ppath, NULL };
	struct sbuf info, mp, body, tags, hdrs, v, b;
	unsigned char d[32];
	const char *mid, *p, *end, *eol;
	size_t hlen, boff, midlen, i;

	snprintf(inpath, sizeof(inpath), "%s/in", tmp);
	snprintf(mpath, sizeof(mpath), "%s/m", tmp);
	snprintf(ppath, sizeof(ppath), "%s/p", tmp);
	snprintf(ipath, sizeof(ipath), "%s/i", tmp);
	bench_write_file(inpath, raw, len);
	if (bench_run(argv, inpath, ipath) != 0)
		bench_die("git mailinfo", "failed (is git installed?)");
	sbuf_init(&info, MAX_MAIL);
	sbuf_init(&mp, MAX_MAIL);
	sbuf_init(&body, MAX_MAIL);
	sbuf_init(&tags, MAX_MAIL);
	sbuf_init(&hdrs, MAX_MAIL);
	sbuf_init(&v, MAX_MAIL);
	sbuf_init(&b, MAX_MAIL);
	bench_read_file(ipath, &info);
	bench_read_file(mpath, &mp);
	bench_read_file(ppath, &mp);

	/* the body (§2.3): trailing CR/LF dropped, each line ending CRLF */
	while (mp.len > 0 && (mp.buf[mp.len - 1] == '\n' ||
	    mp.buf[mp.len - 1] == '\r'))
		mp.len--;
	for (p = mp.buf, end = mp.buf + mp.len; ; p = eol + 1) {
		if ((eol = memchr(p, '\n', (size_t)(end - p))) == NULL)
			eol = end;
		for (i = (size_t)(eol - p); i > 0 && p[i - 1] == '\r'; i--)
			;
		sbuf_add(&body, p, i);
		sbuf_addstr(&body, "\r\n");
		if (eol == end)
			break;
	}
	sha256(d, body.buf, body.len);

	/* the signed headers (§2.2): From and Subject as mailinfo saw them */
	hlen = header_end(raw, len, &boff);
	sbuf_addch(&v, ' ');
	info_get(&info, "Author", &v);
	sbuf_addstr(&v, " <");
	info_get(&info, "Email", &v);
	sbuf_addch(&v, '>');
	sbuf_addstr(&hdrs, "from:");
	canon_value(&hdrs, v.buf, v.len);
	sbuf_reset(&v);
	sbuf_addch(&v, ' ');
	info_get(&info, "Subject", &v);
	sbuf_addstr(&hdrs, "subject:");
	canon_value(&hdrs, v.buf, v.len);
	if ((mid = last_field(raw, hlen, "Message-ID", &midlen)) != NULL) {
		if (memmem(mid, midlen, "?q?", 3) != NULL)
			bench_die("a patch", "a Message-ID with ?q? (RFC 2047)");
		sbuf_addstr(&hdrs, "message-id:");
		canon_value(&hdrs, mid, midlen);
	}

	/* the tags in patatt's order, then D over headers and tags (§3.1) */
	sbuf_addf(&tags, "v=1; a=%s-sha256; ", s->algo);
	if (s->pgp == NULL)
		sbuf_addf(&tags, "t=%lld; ", (long long)time(NULL));
	sbuf_addf(&tags, "l=%zu; i=%s; ", body.len, s->identity);
	if (s->selector != NULL)
		sbuf_addf(&tags, "s=%s; ", s->selector);
	sbuf_addf(&tags, "h=from:subject%s; bh=", mid ? ":message-id" : "");
	patattsign_b64(&tags, d, 32);
	sbuf_addstr(&tags, "; b=");
	sbuf_addstr(&hdrs, "x-developer-signature:");
	sbuf_add(&hdrs, tags.buf, tags.len);
	sha256(d, hdrs.buf, hdrs.len);
	sign_digest(s, d, &b);

	/* the message: header, the two fields folded as patatt folds them */
	sbuf_add(out, raw, hlen);
	sbuf_addstr(out, "X-Developer-Signature: ");
	for (p = tags.buf, end = tags.buf + tags.len; p < end; p++)
		if (p[0] == ' ' && (p[1] == 'i' || p[1] == 'b'))
			sbuf_addstr(out, "\n ");	/* before i= bh= b= */
		else
			sbuf_addch(out, *p);
	for (i = 0; i < b.len; i += i == 0 ? 73 : 75) {
		if (i > 0)
			sbuf_addstr(out, "\n ");
		sbuf_add(out, b.buf + i, b.len - i < (i == 0 ? 73 : 75) ?
		    b.len - i : (i == 0 ? 73 : 75));
	}
	sbuf_addf(out, "\nX-Developer-Key: i=%s; a=%s;\n %s\n", s->identity,
	    s->algo, s->offer);
	sbuf_add(out, raw + hlen, len - hlen);
	if (sbuf_failed(out) || sbuf_failed(&hdrs) || sbuf_failed(&body))
		bench_die("signing", strerror(ENOMEM));
	sbuf_release(&info);
	sbuf_release(&mp);
	sbuf_release(&body);
	sbuf_release(&tags);
	sbuf_release(&hdrs);
	sbuf_release(&v);
	sbuf_release(&b);
}
