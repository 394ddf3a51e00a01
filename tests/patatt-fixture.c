/* SPDX-License-Identifier: BSD-2-Clause */
/* patatt-fixture - see patatt-fixture.h */
#include "config.h"

#include <sys/types.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "patchattest.h"
#include "codec.h"
#include "digest.h"
#include "mailmsg.h"
#include "patatt.h"
#include "patatt-int.h"
#include "pgp.h"
#include "pyheader.h"
#include "sbuf.h"
#include "patatt-fixture.h"
#include "tap.h"

char top[64], ring[128], ghome[128];
struct patatt_keyring *kr;
struct patatt_report report;

static void
cleanup(void)
{
	if (ghome[0])
		tap_run(NULL, "gpgconf", "--homedir", ghome, "--kill", "all", NULL);
	if (top[0])
		tap_rmtree(top);
}

struct patatt *
fixture_start(void)
{
	struct patatt *pt;
	struct pa_err err;
	const char *tmp;

	if (pa_global_init(&err) != 0)
		tap_skip_all("GnuPG not usable: %s", err.msg);
	/* Agent sockets live in the home: keep the path short. */
	tmp = getenv("TMPDIR");
	snprintf(top, sizeof(top), "%s/t-patunit.XXXXXX",
	    tmp && tmp[0] && strlen(tmp) < 40 ? tmp : "/tmp");
	if (mkdtemp(top) == NULL)
		tap_skip_all("cannot make a temporary directory");
	atexit(cleanup);
	snprintf(ring, sizeof(ring), "%s/keys", top);
	snprintf(ghome, sizeof(ghome), "%s/gnupg", top);
	if (mkdir(ring, 0700) != 0 || mkdir(ghome, 0700) != 0)
		tap_skip_all("cannot make the keyring");
	if (patatt_keyring_new(&kr, (char *[]){ ring }, 1, &err) != 0 ||
	    patatt_new(&pt, kr, ghome, &err) != 0)
		tap_skip_all("patatt_new: %s", err.msg);
	return pt;
}

int
fixture_end(struct patatt *pt)
{
	patatt_free(pt);
	patatt_keyring_free(kr);
	return tap_done();
}

void
b64(char *out, size_t size, const void *p, size_t n)
{
	if (size < (n + 2) / 3 * 4 + 1) {
		out[0] = '\0';
		return;
	}
	EVP_EncodeBlock((unsigned char *)out, p, (int)n);
}

void
keygen(struct key *k)
{
	EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_id(EVP_PKEY_ED25519, NULL);
	unsigned char raw[32];
	size_t n = sizeof(raw);

	k->pk = NULL;
	if (ctx && EVP_PKEY_keygen_init(ctx) == 1)
		EVP_PKEY_keygen(ctx, &k->pk);
	EVP_PKEY_CTX_free(ctx);
	if (k->pk && EVP_PKEY_get_raw_public_key(k->pk, raw, &n) == 1)
		b64(k->pub, sizeof(k->pub), raw, 32);
}

void
sign_raw(const struct key *k, const void *msg, size_t len,
    unsigned char sig[64])
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	size_t n = 64;

	memset(sig, 0, 64);
	if (ctx && EVP_DigestSignInit(ctx, NULL, NULL, NULL, k->pk) == 1)
		EVP_DigestSign(ctx, sig, &n, msg, len);
	EVP_MD_CTX_free(ctx);
}

/* put_key - a keyring file, relative to the keyring */
void
put_key(const char *rel, const char *content)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", ring, rel);
	if (tap_write_file(path, content, strlen(content)) != 0)
		tap_diag("cannot write %s", path);
}

/* test_canon - the simple rule: CRLF lines, trailing blank lines gone */
void
test_canon(struct sbuf *out, const char *body)
{
	size_t n = strlen(body);

	while (n > 0 && body[n - 1] == '\n')
		n--;
	for (; n > 0; body++, n--)
		if (*body == '\n')
			sbuf_add(out, "\r\n", 2);
		else
			sbuf_addch(out, *body);
	sbuf_add(out, "\r\n", 2);
}

/* tags - "v=1; ...; b=" of a spec, with bh and l of the canonical body */
void
tags(struct sbuf *out, const struct spec *sp)
{
	struct sbuf cb;
	unsigned char h[32];
	char bh[64];

	sbuf_init(&cb, SBUF_NOMAX);
	if (sp->canon_body)
		sbuf_addstr(&cb, sp->canon_body);
	else
		test_canon(&cb, sp->body ? sp->body : BODY);
	digest_sha256(h, cb.buf, cb.len);
	b64(bh, sizeof(bh), h, 32);
	sbuf_addf(out, "v=1; a=%s; ", sp->a ? sp->a : "ed25519-sha256");
	if (!sp->t || sp->t[0])
		sbuf_addf(out, "t=%s; ", sp->t ? sp->t : T_SIGNED);
	sbuf_addf(out, "l=%zu; i=%s; ", cb.len, sp->i ? sp->i :
	    "alice@example.org");
	if (!sp->s || sp->s[0])
		sbuf_addf(out, "s=%s; ", sp->s ? sp->s : "20250602");
	sbuf_addf(out, "h=%s; bh=%s; b=", sp->h ? sp->h : "from:subject", bh);
	sbuf_release(&cb);
}

/* digest_of - D over the canonical headers and the tag string */
void
digest_of(unsigned char d[32], const char *canon_hdrs, const struct sbuf *s)
{
	struct sbuf all;

	sbuf_init(&all, SBUF_NOMAX);
	sbuf_addstr(&all, canon_hdrs);
	sbuf_addstr(&all, "x-developer-signature:");
	sbuf_add(&all, s->buf, s->len);
	digest_sha256(d, all.buf, all.len);
	sbuf_release(&all);
}

/*
 * sig_field - "X-Developer-Signature: ..." folded the way patatt folds
 * it (before bh= and b=, and inside the Base64), with b = sig || D
 */
void
sig_field(struct sbuf *out, const struct spec *sp, const char *b_value)
{
	struct sbuf s;
	unsigned char d[32], sd[96];
	char b[160];
	const char *p;

	sbuf_init(&s, SBUF_NOMAX);
	tags(&s, sp);
	digest_of(d, sp->canon_hdrs ? sp->canon_hdrs : CANON_HDRS, &s);
	sign_raw(sp->key, d, 32, sd);
	memcpy(sd + 64, d, 32);
	b64(b, sizeof(b), sd, 96);
	if (sp->no_b)
		sbuf_setlen(&s, s.len - 4);	/* without "; b=" */
	sbuf_addstr(out, "X-Developer-Signature: ");
	p = strstr(s.buf, "; bh=");
	sbuf_add(out, s.buf, (size_t)(p - s.buf));
	sbuf_addstr(out, ";\n ");
	p += 2;
	if (sp->no_b)
		sbuf_addstr(out, p);
	else {
		sbuf_add(out, p, strlen(p) - 4);
		sbuf_addstr(out, ";\n b=");
		if (b_value)
			sbuf_addstr(out, b_value);
		else {
			sbuf_add(out, b, 73);
			sbuf_addstr(out, "\n ");
			sbuf_addstr(out, b + 73);
		}
	}
	sbuf_addch(out, '\n');
	sbuf_release(&s);
}

void
build(struct sbuf *msg, const struct spec *sp)
{
	sbuf_reset(msg);
	sbuf_addstr(msg, sp->hdrs ? sp->hdrs : HDRS);
	sig_field(msg, sp, NULL);
	if (sp->after)
		sbuf_addstr(msg, sp->after);
	sbuf_addch(msg, '\n');
	sbuf_addstr(msg, sp->body ? sp->body : BODY);
}

/* replace - the first "from" in msg by "to" */
void
replace(struct sbuf *msg, const char *from, const char *to)
{
	struct sbuf out;
	char *p = strstr(msg->buf, from);

	if (p == NULL) {
		tap_diag("replace: no \"%s\"", from);
		return;
	}
	sbuf_init(&out, SBUF_NOMAX);
	sbuf_add(&out, msg->buf, (size_t)(p - msg->buf));
	sbuf_addstr(&out, to);
	sbuf_addstr(&out, p + strlen(from));
	sbuf_reset(msg);
	sbuf_add(msg, out.buf, out.len);
	sbuf_release(&out);
}

/* check - patatt_check on raw bytes; its return code */
int
check(struct patatt *pt, const char *raw, size_t len)
{
	struct mailmsg *m;
	struct pa_err err;
	int rc;

	memset(&report, 0, sizeof(report));
	err.msg[0] = '\0';
	(void)mailmsg_new(&m, (size_t)64 << 20);	/* NULL: below */
	if (m == NULL || mailmsg_parse(m, raw, len) != 0)
		rc = PA_ENOMEM;
	else if ((rc = patatt_check(pt, m, time(NULL), &report, &err)) != 0)
		tap_diag("patatt_check: %s", err.msg);
	mailmsg_free(m);
	return rc;
}

/* expect - one signature, with that result; says why when not */
int
expect(struct patatt *pt, const struct sbuf *msg, enum patatt_result want,
    const char *fmt, ...)
{
	char name[256];
	va_list ap;
	int ok;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	ok = check(pt, msg->buf, msg->len) == 0 && report.n == 1 &&
	    report.sig[0].result == want;
	tap_check(ok, "%s: %s", name, patatt_result_name(want));
	if (!ok && report.n > 0)
		tap_diag("got %s (%s)",
		    patatt_result_name(report.sig[0].result),
		    report.sig[0].detail);
	else if (!ok)
		tap_diag("%zu signatures", report.n);
	return ok;
}
