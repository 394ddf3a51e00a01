/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t-patatt-unit - patatt signatures (X-Developer-Signature) with keys made
 * for this run: an OpenSSL Ed25519 key signs the digest D that the test
 * computes on its own (canonical headers written out by hand, the body
 * canonicalised by the simple rule that holds for plain ASCII patches),
 * so the library's canonicalisation is checked, not just repeated.
 * Then patatt's own samples (the vectors of patatt.md section 7) where
 * Debian's patatt package installs them, the
 * pieces of the canonicalisation, OpenSSH keys signed by ssh-keygen and
 * OpenPGP keys signed by gpg when those tools are installed, and hostile
 * messages that must be judged without a crash.
 */
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
#include "tap.h"

#define T_SIGNED	"1700000000"

#define FROM_ALICE	"From: Alice Example <alice@example.org>\n"
#define SUBJ		"Subject: [PATCH] leds: fix the blinking\n"
#define HDRS \
	FROM_ALICE \
	"To: linux-leds@vger.kernel.org\n" \
	"Date: Mon, 2 Jun 2025 10:00:00 +0200\n" \
	SUBJ \
	"Message-ID: <20250602.1@example.org>\n"
#define CANON_HDRS \
	"from:Alice Example <alice@example.org>\r\n" \
	"subject:leds: fix the blinking\r\n"
#define BODY \
	"The LED blinked twice as fast as asked.\n" \
	"\n" \
	"Signed-off-by: Alice Example <alice@example.org>\n" \
	"---\n" \
	" drivers/leds/led-core.c | 2 +-\n" \
	" 1 file changed, 1 insertion(+), 1 deletion(-)\n" \
	"\n" \
	"diff --git a/drivers/leds/led-core.c b/drivers/leds/led-core.c\n" \
	"index 1111111..2222222 100644\n" \
	"--- a/drivers/leds/led-core.c\n" \
	"+++ b/drivers/leds/led-core.c\n" \
	"@@ -1 +1 @@\n" \
	"-\tdelay /= 2; \n" \
	"+\tdelay = delay;\n" \
	"-- \n" \
	"2.43.0\n" \
	"\n" \
	"\n"

static char top[64], ring[128], ghome[128];
static struct patatt_keyring *kr;

struct key {
	EVP_PKEY	*pk;
	char		 pub[64];	/* Base64 of the raw key */
};

/* What to sign: NULL fields take the defaults of the valid message. */
struct spec {
	const char		*hdrs;
	const char		*body;
	const char		*canon_body;	/* NULL: the simple rule */
	const char		*canon_hdrs;
	const char		*a;		/* "ed25519-sha256" */
	const char		*t;		/* T_SIGNED; "" leaves it out */
	const char		*i;		/* "alice@example.org" */
	const char		*s;		/* "20250602"; "" leaves it out */
	const char		*h;		/* "from:subject" */
	const struct key	*key;
	int			 no_b;
	const char		*after;		/* fields after the signature */
};

static void
cleanup(void)
{
	if (ghome[0])
		tap_run(NULL, "gpgconf", "--homedir", ghome, "--kill", "all", NULL);
	if (top[0])
		tap_rmtree(top);
}

static void
b64(char *out, size_t size, const void *p, size_t n)
{
	if (size < (n + 2) / 3 * 4 + 1) {
		out[0] = '\0';
		return;
	}
	EVP_EncodeBlock((unsigned char *)out, p, (int)n);
}

static void
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

static void
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
static void
put_key(const char *rel, const char *content)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", ring, rel);
	if (tap_write_file(path, content, strlen(content)) != 0)
		tap_diag("cannot write %s", path);
}

/* test_canon - the simple rule: CRLF lines, trailing blank lines gone */
static void
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
static void
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
static void
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
static void
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

static void
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
static void
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

static struct patatt_report report;

static int expect(struct patatt *, const struct sbuf *, enum patatt_result,
    const char *, ...) __attribute__((format(printf, 4, 5)));

/* check - patatt_check on raw bytes; its return code */
static int
check(struct patatt *pt, const char *raw, size_t len)
{
	struct mailmsg *m = mailmsg_new((size_t)64 << 20);
	struct pa_err err;
	int rc;

	memset(&report, 0, sizeof(report));
	err.msg[0] = '\0';
	if (m == NULL || mailmsg_parse(m, raw, len) != 0)
		rc = PA_ENOMEM;
	else if ((rc = patatt_check(pt, m, time(NULL), &report, &err)) != 0)
		tap_diag("patatt_check: %s", err.msg);
	mailmsg_free(m);
	return rc;
}

/* expect - one signature, with that result; says why when not */
static int
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

/*
 * keyfiles - keyring files changed while the verifier lives: a change is
 * seen at once, also a second change in the same clock tick; more signers
 * than the key cache holds all verify.
 */
static void
keyfiles(struct patatt *pt)
{
	enum { NSIGNERS = PATATT_KEYCACHE_MAX + 8 };
	static struct key dev[NSIGNERS];
	struct key alice, bob;
	struct spec sp;
	struct sbuf msg;
	char rel[128], id[64], path[512], *big;
	size_t i, round, ok, len;
	const char *ring_rel = "ed25519/example.org/kf/20250602";

	keygen(&alice);
	keygen(&bob);
	sbuf_init(&msg, SBUF_NOMAX);
	memset(&sp, 0, sizeof(sp));
	sp.key = &alice;
	sp.i = "kf@example.org";
	build(&msg, &sp);

	put_key(ring_rel, alice.pub);
	usleep(1100 * 1000);	/* old enough to be kept */
	expect(pt, &msg, PATATT_VALID, "key file read once");
	expect(pt, &msg, PATATT_VALID, "  ... and again");
	put_key(ring_rel, bob.pub);	/* same size, same inode */
	expect(pt, &msg, PATATT_BADSIG, "  ... replaced by another key");
	put_key(ring_rel, alice.pub);
	expect(pt, &msg, PATATT_VALID, "  ... the first key back");
	put_key(ring_rel, bob.pub);	/* within the same tick, likely */
	expect(pt, &msg, PATATT_BADSIG,
	    "  ... replaced again right after it was read");
	snprintf(path, sizeof(path), "%s/%s", ring, ring_rel);
	unlink(path);
	expect(pt, &msg, PATATT_NOKEY, "  ... removed");
	big = malloc(PATATT_KEYFILE_MAX + 2);
	for (i = 0; big != NULL && i < 2; i++) {
		/* just under the cap: read whole; just over: refused */
		len = PATATT_KEYFILE_MAX - 10 + 11 * i;
		memset(big, 'A', len);
		big[len] = '\0';
		put_key(ring_rel, big);
		if (expect(pt, &msg, PATATT_ERROR, "key file of %zu bytes", len))
			tap_check(strstr(report.sig[0].detail, i == 0 ?
			    "is not an ed25519 key" : "over") != NULL, "  %s",
			    report.sig[0].detail);
	}
	free(big);
	unlink(path);

	for (i = 0; i < NSIGNERS; i++) {
		keygen(&dev[i]);
		snprintf(rel, sizeof(rel),
		    "ed25519/example.org/dev%zu/20250602", i);
		put_key(rel, dev[i].pub);
	}
	usleep(1100 * 1000);
	for (round = 0; round < 2; round++) {
		for (i = ok = 0; i < NSIGNERS; i++) {
			snprintf(id, sizeof(id), "dev%zu@example.org", i);
			sp.i = id;
			sp.key = &dev[i];
			build(&msg, &sp);
			ok += check(pt, msg.buf, msg.len) == 0 &&
			    report.n == 1 &&
			    report.sig[0].result == PATATT_VALID;
			sp.key = &dev[(i + 1) % NSIGNERS];
			build(&msg, &sp);
			ok += check(pt, msg.buf, msg.len) == 0 &&
			    report.n == 1 &&
			    report.sig[0].result == PATATT_BADSIG;
		}
		tap_check_int((long long)ok, 2 * NSIGNERS, "%d signers, "
		    "each with its own key and not another's (round %zu)",
		    NSIGNERS, round + 1);
	}
	for (i = 0; i < NSIGNERS; i++)
		EVP_PKEY_free(dev[i].pk);
	EVP_PKEY_free(alice.pk);
	EVP_PKEY_free(bob.pk);
	sbuf_release(&msg);
}

/* synthetic - messages signed here with Ed25519 keys */
static void
synthetic(struct patatt *pt)
{
	struct key alice, bob, carol;
	struct spec sp;
	struct sbuf msg, two, crlf;
	char after[256], path[PATATT_PATH_MAX], hp[PATATT_PATH_MAX];
	size_t i;

	keygen(&alice);
	keygen(&bob);
	keygen(&carol);
	if (!alice.pk || !bob.pk || !carol.pk)
		tap_skip_all("OpenSSL cannot make Ed25519 keys");
	put_key("ed25519/example.org/alice/20250602", alice.pub);
	put_key("ed25519/example.org/dave/default", bob.pub);
	sbuf_init(&msg, SBUF_NOMAX);
	sbuf_init(&two, SBUF_NOMAX);
	sbuf_init(&crlf, SBUF_NOMAX);

	memset(&sp, 0, sizeof(sp));
	sp.key = &alice;
	build(&msg, &sp);
	if (expect(pt, &msg, PATATT_VALID, "signed with the keyring key")) {
		tap_check_str(report.sig[0].identity, "alice@example.org",
		    "identity from i=");
		tap_check_int((long long)report.sig[0].signed_at, 1700000000,
		    "signing time from t=");
		tap_check_int(report.sig[0].algo, PATATT_ED25519, "ed25519");
		snprintf(path, sizeof(path), "%s/ed25519/example.org/alice/"
		    "20250602", ring);
		tap_check_str(report.sig[0].keysrc, path, "key source");
		tap_check_str(report.sig[0].selector, "20250602", "selector");
	}

	/* CRLF: the same message as it comes over SMTP */
	sbuf_reset(&crlf);
	for (i = 0; i < msg.len; i++) {
		if (msg.buf[i] == '\n')
			sbuf_addch(&crlf, '\r');
		sbuf_addch(&crlf, msg.buf[i]);
	}
	expect(pt, &crlf, PATATT_VALID, "CRLF copy");

	build(&msg, &sp);
	replace(&msg, "twice as fast", "thrice as fast");
	if (expect(pt, &msg, PATATT_BADSIG, "tampered body"))
		tap_check(strstr(report.sig[0].detail, "body hash") != NULL,
		    "  caught by bh: %s", report.sig[0].detail);
	build(&msg, &sp);
	sbuf_setlen(&msg, msg.len - 2);	/* the body ends "2.43.0\n" */
	sbuf_addstr(&msg, "\n_______________________________________________\n"
	    "list footer\n");
	expect(pt, &msg, PATATT_BADSIG, "text added past l= is not cut off");

	build(&msg, &sp);
	replace(&msg, "fix the blinking", "fix the blinkin");
	if (expect(pt, &msg, PATATT_BADSIG, "tampered Subject"))
		tap_check(strstr(report.sig[0].detail, "digest") != NULL,
		    "  caught by D: %s", report.sig[0].detail);
	build(&msg, &sp);
	replace(&msg, "Subject: [PATCH] leds", "Subject: [PATCH v2]   leds");
	expect(pt, &msg, PATATT_VALID, "Subject prefix and blanks are not "
	    "signed");
	build(&msg, &sp);
	replace(&msg, "To: linux-leds", "To: linux-kernel");
	expect(pt, &msg, PATATT_VALID, "unsigned header changed");

	sp.t = "";
	build(&msg, &sp);
	if (expect(pt, &msg, PATATT_BADSIG, "no t="))
		tap_check(strstr(report.sig[0].detail, "t=") != NULL, "  %s",
		    report.sig[0].detail);
	sp.t = NULL;
	sp.h = "from";
	sp.canon_hdrs = "from:Alice Example <alice@example.org>\r\n";
	build(&msg, &sp);
	expect(pt, &msg, PATATT_BADSIG, "h= without subject");
	sp.h = "from:subject:message-id";
	sp.canon_hdrs = CANON_HDRS "message-id:<20250602.1@example.org>\r\n";
	build(&msg, &sp);
	expect(pt, &msg, PATATT_VALID, "h= with message-id");
	replace(&msg, "<20250602.1@", "<20250602.2@");
	expect(pt, &msg, PATATT_BADSIG, "  ... changed Message-ID");
	sp.h = NULL;
	sp.canon_hdrs = NULL;

	sp.a = "rsa-sha256";
	build(&msg, &sp);
	if (expect(pt, &msg, PATATT_ERROR, "unknown algorithm"))
		tap_check_int(report.sig[0].algo, PATATT_ALGO_UNKNOWN,
		    "  algo unknown");
	sp.a = NULL;
	sp.no_b = 1;
	build(&msg, &sp);
	expect(pt, &msg, PATATT_ERROR, "no b=");
	sp.no_b = 0;
	sbuf_reset(&msg);
	sbuf_addstr(&msg, HDRS);
	sig_field(&msg, &sp, "!!notbase64@@");
	sbuf_addstr(&msg, "\n" BODY);
	expect(pt, &msg, PATATT_ERROR, "b= not Base64");
	sbuf_reset(&msg);
	sbuf_addstr(&msg, HDRS);
	sig_field(&msg, &sp, "AAAA");
	sbuf_addstr(&msg, "\n" BODY);
	expect(pt, &msg, PATATT_BADSIG, "b= too short");

	sp.key = &bob;
	build(&msg, &sp);
	if (expect(pt, &msg, PATATT_BADSIG, "signed with another key"))
		tap_check(strstr(report.sig[0].detail, "verify") != NULL, "  %s",
		    report.sig[0].detail);

	sp.i = "bob@example.org";
	build(&msg, &sp);
	expect(pt, &msg, PATATT_NOKEY, "no key for the identity");
	sp.s = "";
	sp.i = "dave@example.org";
	build(&msg, &sp);
	if (expect(pt, &msg, PATATT_VALID, "no s=: selector default"))
		tap_check_str(report.sig[0].selector, "default",
		    "  selector reported");

	/* X-Developer-Key: a key offered by the message itself */
	sp.key = &carol;
	sp.i = "carol@example.org";
	sp.s = NULL;
	snprintf(after, sizeof(after), "X-Developer-Key: i=carol@example.org; "
	    "a=ed25519;\n pk=%s\n", carol.pub);
	sp.after = after;
	build(&msg, &sp);
	if (expect(pt, &msg, PATATT_OFFERED, "key only in X-Developer-Key"))
		tap_check_str(report.sig[0].offered, carol.pub,
		    "  the offered key reported");
	replace(&msg, "twice", "thrice");
	expect(pt, &msg, PATATT_NOKEY, "  ... tampered: NOKEY, not OFFERED");
	snprintf(after, sizeof(after), "X-Developer-Key: i=carol@example.org; "
	    "a=ed25519; pk=%s\n", bob.pub);
	build(&msg, &sp);
	expect(pt, &msg, PATATT_NOKEY, "offered key is not the signer's");
	snprintf(after, sizeof(after), "X-Developer-Key: i=mallory@example.org;"
	    " a=ed25519; pk=%s\n", carol.pub);
	build(&msg, &sp);
	if (expect(pt, &msg, PATATT_NOKEY, "offered for another identity"))
		tap_check_str(report.sig[0].offered, "", "  nothing offered");
	sp.after = NULL;
	sp.i = NULL;

	/* Two signers: each judged on its own */
	memset(&sp, 0, sizeof(sp));
	sp.key = &alice;
	sbuf_reset(&two);
	sbuf_addstr(&two, HDRS);
	sig_field(&two, &sp, NULL);
	sp.key = &carol;
	sp.i = "carol@example.org";
	sig_field(&two, &sp, NULL);
	sbuf_addstr(&two, "\n" BODY);
	tap_check(check(pt, two.buf, two.len) == 0 && report.n == 2 &&
	    report.total == 2 && report.sig[0].result == PATATT_VALID &&
	    report.sig[1].result == PATATT_NOKEY &&
	    strcmp(report.sig[1].identity, "carol@example.org") == 0,
	    "two signatures: valid, then nokey");

	/* No i=: the identity is the From address */
	memset(&sp, 0, sizeof(sp));
	sp.key = &alice;
	sp.i = "alice@example.org";
	build(&msg, &sp);
	replace(&msg, "i=alice@example.org; ", "");
	if (expect(pt, &msg, PATATT_BADSIG, "no i= (tag string changed)"))
		tap_check_str(report.sig[0].identity, "alice@example.org",
		    "  identity from From");

	/* In-body From and Subject are the signed ones (B4 Relay) */
	memset(&sp, 0, sizeof(sp));
	sp.key = &alice;
	sp.hdrs = "From: Alice Example via B4 Relay "
	    "<devnull+alice.example.org@kernel.org>\n"
	    "Subject: [PATCH v2 1/2] leds: relay subject\n"
	    "Date: Mon, 2 Jun 2025 10:00:00 +0200\n";
	sp.body = "From: Alice Example <alice@example.org>\n"
	    "Subject: [PATCH] leds: the real subject\n"
	    "\n" BODY;
	sp.canon_body = NULL;
	sp.canon_hdrs = "from:Alice Example <alice@example.org>\r\n"
	    "subject:leds: the real subject\r\n";
	{
		struct sbuf cb;

		sbuf_init(&cb, SBUF_NOMAX);
		test_canon(&cb, BODY);
		sp.canon_body = cb.buf;
		build(&msg, &sp);
		expect(pt, &msg, PATATT_VALID, "in-body From and Subject");
		replace(&msg, "From: Alice Example <alice@example.org>",
		    "From: Mallory <alice@example.org>");
		expect(pt, &msg, PATATT_BADSIG, "  ... in-body From changed");
		sbuf_release(&cb);
	}

	/* by-hash: the key only under by-hash/XX/... */
	memset(&sp, 0, sizeof(sp));
	sp.key = &carol;
	sp.i = "Erin+Leds@Example.ORG";
	sp.s = "Hashed";
	tap_check_int(patatt_key_path(path, sizeof(path), "ed25519", sp.i,
	    sp.s), 0, "key path of %s", sp.i);
	tap_check_str(path, "ed25519/example.org/erin%2Bleds/hashed",
	    "  lower-cased and quoted");
	{
		unsigned char h[32];
		char hex[65];

		digest_sha256(h, path, strlen(path));
		digest_hex(hex, h);
		snprintf(hp, sizeof(hp), "by-hash/%.2s/%s", hex, hex + 2);
	}
	put_key(hp, carol.pub);
	build(&msg, &sp);
	if (expect(pt, &msg, PATATT_VALID, "key found by hash"))
		tap_check(strstr(report.sig[0].keysrc, hp) != NULL, "  %s",
		    report.sig[0].keysrc);
	sp.i = "..@..";
	build(&msg, &sp);
	expect(pt, &msg, PATATT_NOKEY, "identity \"..@..\" names no file");
	sp.i = "nobody";
	build(&msg, &sp);
	expect(pt, &msg, PATATT_ERROR, "identity without @");

	/*
	 * Mode R: a Latin-1 message signed by git < 2.32, which converted
	 * the commit message to UTF-8; git >= 2.33 does not.
	 */
	memset(&sp, 0, sizeof(sp));
	sp.key = &alice;
	sp.hdrs = HDRS "MIME-Version: 1.0\n"
	    "Content-Type: text/plain; charset=iso-8859-1\n"
	    "Content-Transfer-Encoding: 8bit\n";
	sp.body = "Caf\xe9 lights blink now.\n\n---\n x | 1 +\n";
	sp.canon_body = "Caf\xc3\xa9 lights blink now.\r\n\r\n---\r\n"
	    " x | 1 +\r\n";
	build(&msg, &sp);
	if (expect(pt, &msg, PATATT_VALID, "signed as git < 2.32 read it"))
		tap_check(strstr(report.sig[0].detail, "2.32") != NULL, "  %s",
		    report.sig[0].detail);
	sp.canon_body = "Caf\xe9 lights blink now.\r\n\r\n---\r\n"
	    " x | 1 +\r\n";
	build(&msg, &sp);
	expect(pt, &msg, PATATT_VALID, "signed as git >= 2.33 reads it");

	/* A Message-ID with an encoded word: Python's decoding is signed */
	memset(&sp, 0, sizeof(sp));
	sp.key = &alice;
	sp.hdrs = FROM_ALICE SUBJ
	    "Message-ID: <20210101.=?utf-8?q?abc?=@example.org>\n";
	sp.h = "from:subject:message-id";
	sp.canon_hdrs =
	    CANON_HDRS "message-id:<20210101. abc @example.org>\r\n";
	build(&msg, &sp);
	expect(pt, &msg, PATATT_VALID, "?q? in a signed header");

	sbuf_release(&msg);
	sbuf_release(&two);
	sbuf_release(&crlf);
	EVP_PKEY_free(alice.pk);
	EVP_PKEY_free(bob.pk);
	EVP_PKEY_free(carol.pk);
}

/*
 * samples - patatt's own samples (patatt.md section 7), read where
 * Debian's patatt package puts them ($PATATT_SAMPLES overrides), with the
 * sample ed25519 key the specification gives, in a keyring made here.
 * The OpenSSH sample's key is only offered by the mail; the OpenPGP
 * sample's key is not at hand: its digest is still checked.
 */
static void
samples(void)
{
	static const struct {
		const char	*file;
		const char	*d;
		enum patatt_result want;
	} sm[] = {
		{ "ed25519-signed.txt", "67f2666caab904a308236fd884af67cb"
		  "c42828d7b76834c6680af97b2d6a3bc1", PATATT_VALID },
		{ "openssh-signed.txt", "38fcbff3576b230241056e57897c778d"
		  "b46868eedb295a2d8daa06d32e3c481e", PATATT_OFFERED },
		{ "pgp-signed.txt", "655f089c612a83a23f447fbecc021078"
		  "ec2abd3c77b09c158b88b01a225f4835", PATATT_NOKEY },
	};
	struct mailinfo mi;
	struct mailinfo_opts o = { 0 };
	struct patatt_msg pm;
	struct patatt_reading rd;
	struct patatt_tags tg;
	struct sbuf work;
	struct patatt *pt;
	struct pa_err err;
	struct mailmsg *m = mailmsg_new(1 << 20);
	unsigned char d[32];
	char dir[512], path[600], hex[65], *raw, *used;
	const char *text;
	size_t i, k, len, tlen;

	snprintf(dir, sizeof(dir), "%s", getenv("PATATT_SAMPLES") ?
	    getenv("PATATT_SAMPLES") : "/usr/share/doc/patatt/samples");
	snprintf(path, sizeof(path), "%s/ed25519-signed.txt", dir);
	if (access(path, R_OK) != 0) {
		tap_skip("patatt's samples are not in %s (Debian package "
		    "patatt; or set PATATT_SAMPLES)", dir);
		mailmsg_free(m);
		return;
	}
	put_key("ed25519/kernel.org/mricon/20210505",
	    "i+0Am6o59VU+dAfK4WhkCl56BrA+rY4cXlq3AbO5M8c=\n");
	if ((pt = patatt_new(kr, ghome, &err)) == NULL) {
		tap_check(0, "patatt_new on the sample keyring: %s", err.msg);
		mailmsg_free(m);
		return;
	}
	mailinfo_init(&mi);
	patatt_msg_init(&pm);
	patatt_reading_init(&rd);
	patatt_tags_init(&tg);
	sbuf_init(&work, 0);
	for (i = 0; i < sizeof(sm) / sizeof(sm[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, sm[i].file);
		if ((raw = tap_read_file(path, &len)) == NULL) {
			tap_check(0, "read %s", path);
			continue;
		}
		if (check(pt, raw, len) == 0 && report.n == 1)
			tap_check(report.sig[0].result == sm[i].want,
			    "sample %s: %s", sm[i].file,
			    patatt_result_name(sm[i].want));
		else
			tap_check(0, "sample %s judged", sm[i].file);
		if (mailmsg_parse(m, raw, len) != 0)
			continue;
		text = mailmsg_text(m, &tlen);
		patatt_msg_split(&pm, text, tlen);
		patatt_read(&rd, &mi, &work, text, tlen, &o);
		if (i == 0) {
			tap_check_str(rd.bh,
			    "aWNA6NFmS5xpRH5Gpy45nWiKCOnDOKHOYOV7"
			    "Y6lyLcU=",
			    "sample bh");
			tap_check_int((long long)rd.body_len, 403,
			    "sample canonical body length");
			tap_check_str(rd.from.buf, " Konstantin Ryabitsev "
			    "<konstantin@linuxfoundation.org>", "sample From");
			tap_check_str(rd.subject.buf, " Specify subset of the "
			    "world", "sample Subject");
		}
		if (sm[i].d == NULL) {
			free(raw);
			continue;
		}
		for (k = 0; k < pm.n; k++)
			if (patatt_field_is(&pm, k, "x-developer-signature"))
				break;
		used = calloc(pm.n + 1, 1);
		text = patatt_field_value(&pm, k, &tlen);
		if (k < pm.n && used &&
		    patatt_tags_parse(&tg, text, tlen) == 0 &&
		    patatt_digest(d, &pm, &rd, &tg, used, &work) == 0) {
			digest_hex(hex, d);
			tap_check_str(hex, sm[i].d, "D of %s", sm[i].file);
		} else
			tap_check(0, "D of %s", sm[i].file);
		free(used);
		free(raw);
	}
	snprintf(path, sizeof(path), "%s/unsigned.txt", dir);
	if ((raw = tap_read_file(path, &len)) != NULL) {
		tap_check(check(pt, raw, len) == 0 && report.n == 0 &&
		    report.total == 0, "unsigned sample: no signature");
		free(raw);
	}
	tap_check_int(patatt_key_byhash(path, sizeof(path),
	    "ed25519/kernel.org/mricon/byhash"), 0, "by-hash path");
	tap_check_str(path, "by-hash/3e/e90cceff5057342bd7a80853e1297c5aae0139"
	    "6a64c59dc251fe0f5eedc30c", "  as in patatt.md 4.1");
	patatt_free(pt);
	mailinfo_release(&mi);
	patatt_msg_release(&pm);
	patatt_reading_release(&rd);
	patatt_tags_release(&tg);
	sbuf_release(&work);
	mailmsg_free(m);
}

/* pieces - the decoders, against Python's output on the same bytes */
static void
pieces(void)
{
	static const struct {
		const char	*in;
		const char	*want;	/* NULL: Python raises */
	} py[] = {
		{ " <20210101.=?utf-8?q?abc?=@example.org>",
		    "<20210101. abc @example.org>" },
		{ " =?utf-8?q?caf=C3=A9?= au lait", "caf\xc3\xa9 au lait" },
		{ " a =?utf-8?q?x?= b", "a x b" },
		{ " =?utf-8?q?x?= =?utf-8?q?y?=", "xy" },
		{ " =?iso-8859-1?q?=E9t=E9?= =?utf-8?q?y?=",
		    "\xc3\xa9t\xc3\xa9y" },
		{ " plain ?q? text \xc3\xa9 dropped",
		    " plain ?q? text  dropped" },
		{ " =?utf-8?b?w6k=?= (comment)", "\xc3\xa9 (comment)" },
		{ " =?UTF-8?Q?a_b?=\n =?utf-8?q?c?=", "a bc" },
		{ " =?us-ascii?q?x?= y =?utf-8?q?z?=", "x  y z" },
		{ " =?latin-1?q?=E9?==?iso-8859-1?q?=E9?=",
		    "\xc3\xa9 \xc3\xa9" },
		{ " =?utf-8?q?=FF?=", NULL },
		{ " =?bogus?q?x?=", NULL },
		{ " =?utf-8?b?w6?=", NULL },
	};
	static const struct {
		const char	*in;
		const char	*want;	/* NULL: refused */
	} b64v[] = {
		{ "", "" },
		{ "QQ==", "A" },
		{ "QUI=", "AB" },
		{ "QUJD", "ABC" },
		{ "QQ", NULL },
		{ "QQ=", NULL },
		{ "Q===", NULL },
		{ "QU=I", NULL },
		{ "QUJD!", NULL },
		{ "QUJDRA==", "ABCD" },
		{ "QUJDRA===", NULL },
	};
	struct sbuf out;
	size_t i;
	int rc;

	sbuf_init(&out, 1 << 16);
	for (i = 0; i < sizeof(py) / sizeof(py[0]); i++) {
		sbuf_reset(&out);
		rc = pyheader_decode(&out, py[i].in, strlen(py[i].in));
		if (py[i].want)
			tap_check(rc == 0 && strcmp(out.buf, py[i].want) == 0,
			    "decode_header %zu as Python: \"%s\"", i, out.buf);
		else
			tap_check(rc == PA_EDECODE || rc == PA_ECHARSET,
			    "decode_header %zu raises as in Python", i);
	}
	for (i = 0; i < sizeof(b64v) / sizeof(b64v[0]); i++) {
		sbuf_reset(&out);
		rc = codec_b64_strict(&out, b64v[i].in, strlen(b64v[i].in));
		if (b64v[i].want)
			tap_check(rc == 0 && strcmp(out.buf, b64v[i].want) == 0,
			    "strict Base64 \"%s\"", b64v[i].in);
		else
			tap_check(rc == PA_EDECODE, "strict Base64 refuses \"%s\"",
			    b64v[i].in);
	}
	sbuf_reset(&out);
	patatt_canon_value(&out, " a \t b\r\n  c  \r\n", 15);
	tap_check_str(out.buf, "a b c\r\n", "relaxed header value");
	sbuf_reset(&out);
	patatt_canon_value(&out, " a\r\nb\n", 6);
	tap_check_str(out.buf, "ab\r\n", "line ends go without a space");
	sbuf_release(&out);
}

/* slurp - a file the tools wrote, or NULL */
static char *
slurp(const char *path, size_t *len)
{
	return tap_read_file(path, len);
}

/* openssh - keys made and signatures made by ssh-keygen */
static void
openssh(struct patatt *pt)
{
	static const char *const types[][2] = {
		{ "ed25519", NULL }, { "rsa", "3072" }, { "ecdsa", "256" },
	};
	struct spec sp;
	struct key dummy;
	struct sbuf msg, s, b;
	unsigned char d[32];
	char kpath[256], dpath[256], spath[300], rel[128], user[32], *pub, *sig,
	    *p, *q;
	size_t i, len;

	if (tap_run(NULL, "ssh-keygen", "-Y", "check-novalidate", "-h", NULL) ==
	    127) {
		tap_skip("ssh-keygen not installed: no OpenSSH signatures");
		return;
	}
	keygen(&dummy);
	sbuf_init(&msg, SBUF_NOMAX);
	sbuf_init(&s, SBUF_NOMAX);
	sbuf_init(&b, SBUF_NOMAX);
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		snprintf(kpath, sizeof(kpath), "%s/ssh-%s", top, types[i][0]);
		snprintf(user, sizeof(user), "ssh%s", types[i][0]);
		if (tap_run(NULL, "ssh-keygen", "-q", "-t", types[i][0], "-N", "",
		    "-C", "test", "-f", kpath, types[i][1] ? "-b" : NULL,
		    types[i][1], NULL) != 0) {
			tap_check(0, "ssh-keygen -t %s", types[i][0]);
			continue;
		}
		snprintf(spath, sizeof(spath), "%s.pub", kpath);
		if ((pub = slurp(spath, &len)) == NULL)
			continue;
		snprintf(rel, sizeof(rel), "openssh/example.org/%s/default",
		    user);
		put_key(rel, pub);
		free(pub);

		memset(&sp, 0, sizeof(sp));
		sp.key = &dummy;
		sp.a = "openssh-sha256";
		sp.s = "";
		snprintf(rel, sizeof(rel), "%s@example.org", user);
		sp.i = rel;
		sbuf_reset(&s);
		tags(&s, &sp);
		digest_of(d, CANON_HDRS, &s);
		snprintf(dpath, sizeof(dpath), "%s/d-%s", top, types[i][0]);
		tap_write_file(dpath, d, 32);
		snprintf(spath, sizeof(spath), "%s.sig", dpath);
		remove(spath);
		if (tap_run(NULL, "ssh-keygen", "-Y", "sign", "-n", "patatt", "-f",
		    kpath, dpath, NULL) != 0 || (sig = slurp(spath, &len)) ==
		    NULL) {
			tap_check(0, "ssh-keygen -Y sign with %s", types[i][0]);
			continue;
		}
		/* The armored body, lines joined */
		sbuf_reset(&b);
		for (p = sig; *p; p = q + 1) {
			if ((q = strchr(p, '\n')) == NULL)
				q = p + strlen(p);
			if (*p != '-')
				sbuf_add(&b, p, (size_t)(q - p));
			if (*q == '\0')
				break;
		}
		free(sig);
		sbuf_reset(&msg);
		sbuf_addstr(&msg, HDRS);
		sig_field(&msg, &sp, b.buf);
		sbuf_addstr(&msg, "\n" BODY);
		expect(pt, &msg, PATATT_VALID, "OpenSSH %s key", types[i][0]);
		replace(&msg, "fix the blinking", "fix the blinkin");
		expect(pt, &msg, PATATT_BADSIG, "  ... tampered Subject");
	}
	EVP_PKEY_free(dummy.pk);
	sbuf_release(&msg);
	sbuf_release(&s);
	sbuf_release(&b);
}

/* gpg_sign - gpg -s of D (faked: gpg's clock), in Base64; 0 or -1 */
static int
gpg_sign(struct sbuf *out, const char *key, const unsigned char d[32],
    const char *faked)
{
	char in[256], sg[256], *raw, *enc;
	size_t len;
	int rc;

	snprintf(in, sizeof(in), "%s/d.bin", top);
	snprintf(sg, sizeof(sg), "%s/d.gpg", top);
	tap_write_file(in, d, 32);
	remove(sg);
	if (faked)
		rc = tap_run(NULL, "gpg", "--homedir", ghome, "--batch",
		    "--faked-system-time", faked, "-u", key, "-o", sg, "-s", in,
		    NULL);
	else
		rc = tap_run(NULL, "gpg", "--homedir", ghome, "--batch", "-u", key,
		    "-o", sg, "-s", in, NULL);
	if (rc != 0 || (raw = slurp(sg, &len)) == NULL)
		return -1;
	enc = malloc(len / 3 * 4 + 8);
	if (enc)
		b64(enc, len / 3 * 4 + 8, raw, len);
	sbuf_reset(out);
	if (enc)
		sbuf_addstr(out, enc);
	free(enc);
	free(raw);
	return out->len > 0 ? 0 : -1;
}

/* fpr_of - the fingerprint of the key with uid, by gpg --with-colons */
static int
fpr_of(const char *uid, char fpr[41])
{
	char out[256], *txt, *p;
	size_t len;

	snprintf(out, sizeof(out), "%s/colons", top);
	if (tap_run(out, "gpg", "--homedir", ghome, "--batch", "--with-colons",
	    "--list-keys", uid, NULL) != 0 || (txt = slurp(out, &len)) == NULL)
		return -1;
	p = strstr(txt, "\nfpr:");
	if (p == NULL || strlen(p) < 5 + 9 + 40) {
		free(txt);
		return -1;
	}
	memcpy(fpr, p + 5 + 8, 40);
	fpr[40] = '\0';
	free(txt);
	return 0;
}

/* openpgp - keys and signatures made by gpg in the test's home */
static void
openpgp(struct patatt *pt)
{
	struct spec sp;
	struct key dummy;
	struct sbuf msg, s, b, good;
	unsigned char d[32];
	char fpr[41], ofpr[41], xfpr[41], path[600], *exp;
	size_t len;
	int rc;

	if (tap_run(NULL, "gpg", "--version", NULL) != 0) {
		tap_skip("gpg not installed: no OpenPGP signatures");
		return;
	}
	if (tap_run(NULL, "gpg", "--homedir", ghome, "--batch", "--passphrase", "",
	    "--quick-gen-key", "Alice <alice@example.org>", "ed25519", "sign",
	    "never", NULL) != 0 ||
	    tap_run(NULL, "gpg", "--homedir", ghome, "--batch", "--passphrase", "",
	    "--quick-gen-key", "Other <other@example.org>", "ed25519", "sign",
	    "never", NULL) != 0 ||
	    tap_run(NULL, "gpg", "--homedir", ghome, "--batch", "--passphrase", "",
	    "--faked-system-time", "20200101T000000!", "--quick-gen-key",
	    "Old <old@example.org>", "ed25519", "sign", "2020-06-01",
	    NULL) != 0 || fpr_of("alice@example.org", fpr) != 0 ||
	    fpr_of("other@example.org", ofpr) != 0 ||
	    fpr_of("old@example.org", xfpr) != 0) {
		tap_skip("gpg cannot make keys here");
		return;
	}
	keygen(&dummy);
	sbuf_init(&msg, SBUF_NOMAX);
	sbuf_init(&s, SBUF_NOMAX);
	sbuf_init(&b, SBUF_NOMAX);
	sbuf_init(&good, SBUF_NOMAX);
	memset(&sp, 0, sizeof(sp));
	sp.key = &dummy;
	sp.a = "openpgp-sha256";
	sp.t = "";
	sp.s = "";
	sp.i = "pgp@example.org";
	tags(&s, &sp);
	digest_of(d, CANON_HDRS, &s);

	if (gpg_sign(&b, fpr, d, NULL) == 0) {
		sbuf_reset(&msg);
		sbuf_addstr(&msg, HDRS);
		sig_field(&msg, &sp, b.buf);
		sbuf_addstr(&msg, "\n" BODY);
		if (expect(pt, &msg, PATATT_VALID, "OpenPGP, key in the home"))
			tap_check_str(report.sig[0].key, fpr,
			    "  signing key reported");
		tap_check(report.n == 1 && report.sig[0].signed_at > 0 &&
		    report.sig[0].keysrc[0] == '\0', "  time from GnuPG, no "
		    "keyring file");
		/* a keyring file for the identity holding another key */
		snprintf(path, sizeof(path), "%s/other.asc", top);
		if (tap_run(path, "gpg", "--homedir", ghome, "--batch", "--armor",
		    "--export", ofpr, NULL) == 0 && (exp = slurp(path, &len))) {
			put_key("openpgp/example.org/pgp/default", exp);
			expect(pt, &msg, PATATT_NOKEY, "OpenPGP, signer not in "
			    "the identity's keyring file");
			free(exp);
		}
		if (tap_run(path, "gpg", "--homedir", ghome, "--batch",
		    "--export", fpr, NULL) == 0 && (exp = slurp(path, &len))) {
			tap_write_file(path, exp, len);
			snprintf(path, sizeof(path),
			    "%s/openpgp/example.org/pgp/"
			    "default",
			    ring);
			tap_write_file(path, exp, len);
			expect(pt, &msg, PATATT_VALID, "OpenPGP, signer in the "
			    "identity's (binary) keyring file");
			free(exp);
		}
		sbuf_reset(&good);
		sbuf_add(&good, msg.buf, msg.len);
		replace(&msg, "fix the blinking", "fix the blinkin");
		expect(pt, &msg, PATATT_BADSIG, "OpenPGP, tampered Subject");
	} else
		tap_check(0, "gpg -s");

	sp.i = "old@example.org";
	sbuf_reset(&s);
	tags(&s, &sp);
	digest_of(d, CANON_HDRS, &s);
	if (gpg_sign(&b, xfpr, d, "20200201T000000!") == 0) {
		sbuf_reset(&msg);
		sbuf_addstr(&msg, HDRS);
		sig_field(&msg, &sp, b.buf);
		sbuf_addstr(&msg, "\n" BODY);
		expect(pt, &msg, PATATT_KEY_EXPIRED, "OpenPGP, key expired "
		    "since");
	} else
		tap_check(0, "gpg -s with a faked time");

	/* Revoke the first key: its good signature is KEY_EXPIRED now. */
	snprintf(path, sizeof(path), "%s/openpgp-revocs.d/%s.rev", ghome, fpr);
	if (good.len > 0 && (exp = slurp(path, &len)) != NULL) {
		char *colon = strstr(exp, ":-----BEGIN PGP PUBLIC KEY BLOCK");

		/* gpg writes the certificate with a ":" to stop a mistake */
		if (colon)
			memmove(colon, colon + 1, len - (size_t)(colon - exp));
		snprintf(path, sizeof(path), "%s/revoke.asc", top);
		tap_write_file(path, exp, strlen(exp));
		free(exp);
		if (tap_run(NULL, "gpg", "--homedir", ghome, "--batch", "--import",
		    path, NULL) != 0)
			tap_check(0, "gpg imports the revocation");
		/* The keyring file speaks for the identity, not the home. */
		expect(pt, &good, PATATT_VALID, "OpenPGP, key revoked in the "
		    "GnuPG home, not in the keyring file");
		snprintf(path, sizeof(path), "%s/openpgp/example.org/pgp/"
		    "default", ring);
		if (tap_run(path, "gpg", "--homedir", ghome, "--batch",
		    "--export", fpr, NULL) == 0 && expect(pt, &good,
		    PATATT_KEY_EXPIRED, "OpenPGP, key revoked since, in the "
		    "keyring file"))
			/* gpg dates the revocation it made in advance
			   with the key, so librnp finds it revoked from the
			   start */
			tap_check(strstr(report.sig[0].detail, "revoked") != NULL,
			    "  %s", report.sig[0].detail);
		unlink(path);
		if (expect(pt, &good, PATATT_KEY_EXPIRED, "OpenPGP, key revoked "
		    "since, in the GnuPG home"))
			tap_check(strstr(report.sig[0].detail, "revoked") != NULL,
			    "  %s", report.sig[0].detail);
	} else
		tap_check(0, "gpg made a revocation certificate");

	sbuf_reset(&msg);
	sbuf_addstr(&msg, HDRS);
	sig_field(&msg, &sp, "owGbwMvMwCEWVaH7bbPrB1bGNQlJzFkl");
	sbuf_addstr(&msg, "\n" BODY);
	rc = check(pt, msg.buf, msg.len);
	tap_check(rc == 0 && report.n == 1 &&
	    report.sig[0].result == PATATT_BADSIG, "OpenPGP, garbage packet: "
	    "%s", report.n ? report.sig[0].detail : "-");
	EVP_PKEY_free(dummy.pk);
	sbuf_release(&msg);
	sbuf_release(&s);
	sbuf_release(&b);
	sbuf_release(&good);
}

/* hostile - bounded work and no crash on what an attacker can send */
static void
hostile(struct patatt *pt)
{
	struct key k;
	struct spec sp;
	struct sbuf msg, big, base;
	size_t i, j;
	unsigned seed = 12345;
	int rc, ok;

	keygen(&k);
	sbuf_init(&msg, SBUF_NOMAX);
	sbuf_init(&big, SBUF_NOMAX);
	sbuf_init(&base, SBUF_NOMAX);
	memset(&sp, 0, sizeof(sp));
	sp.key = &k;
	build(&base, &sp);

	/* 5000 header fields */
	sbuf_reset(&msg);
	for (i = 0; i < 5000; i++)
		sbuf_addf(&msg, "X-Junk-%zu: %zu\n", i, i);
	sbuf_addstr(&msg, base.buf);
	rc = check(pt, msg.buf, msg.len);
	tap_check(rc == 0 && report.n == 1 &&
	    report.sig[0].result == PATATT_ERROR, "5000 header fields: %s",
	    report.n ? report.sig[0].detail : "-");

	/* 20 signatures: 8 judged, all counted */
	sbuf_reset(&msg);
	for (i = 0; i < 20; i++)
		sig_field(&msg, &sp, NULL);
	sbuf_addstr(&msg, base.buf);
	rc = check(pt, msg.buf, msg.len);
	tap_check(rc == 0 && report.n == PATATT_MAX_SIGS && report.total == 21,
	    "21 signatures: %zu judged of %zu", report.n, report.total);

	/* a signature value of 100 kB, and b= of 60 kB */
	sbuf_reset(&big);
	for (i = 0; i < 100000; i++)
		sbuf_addch(&big, "AB; =\n\t"[i % 7]);
	sbuf_reset(&msg);
	sbuf_addstr(&msg, HDRS "X-Developer-Signature: ");
	sbuf_add(&msg, big.buf, big.len);
	sbuf_addstr(&msg, "\n\n" BODY);
	ok = check(pt, msg.buf, msg.len) == 0 && report.n == 1 &&
	    report.sig[0].result == PATATT_ERROR;
	tap_check(ok, "100 kB signature value: error");
	sbuf_reset(&big);
	for (i = 0; i < 60000; i++)
		sbuf_addch(&big, 'A' + (char)(i % 26));
	sbuf_reset(&msg);
	sbuf_addstr(&msg, HDRS);
	sig_field(&msg, &sp, big.buf);
	sbuf_addstr(&msg, "\n" BODY);
	tap_check(check(pt, msg.buf, msg.len) == 0 && report.n == 1 &&
	    report.sig[0].result == PATATT_ERROR, "60 kB b=: error");

	/* h= naming 500 headers */
	sbuf_reset(&big);
	sbuf_addstr(&big, "from:subject");
	for (i = 0; i < 500; i++)
		sbuf_addstr(&big, ":to");
	sp.h = big.buf;
	build(&msg, &sp);
	rc = check(pt, msg.buf, msg.len);
	tap_check(rc == 0 && report.n == 1 &&
	    report.sig[0].result == PATATT_BADSIG, "h= of 502 names: %s",
	    report.n ? report.sig[0].detail : "-");
	sp.h = NULL;

	/* many encoded words and broken ones in a signed header */
	sbuf_reset(&big);
	sbuf_addstr(&big, "Message-ID: <x");
	for (i = 0; i < 2000; i++)
		sbuf_addstr(&big, i % 3 ? "=?utf-8?q?a_b?= " : "=?x?q?=?q?");
	sbuf_addstr(&big, ">\n");
	sbuf_reset(&msg);
	sbuf_addstr(&msg, big.buf);
	sp.h = "from:subject:message-id";
	build(&base, &sp);
	sbuf_addstr(&msg, base.buf);
	rc = check(pt, msg.buf, msg.len);
	tap_check(rc == 0 && report.n == 1,
	    "2000 encoded words in a signed header: %s", report.n ?
	    patatt_result_name(report.sig[0].result) : "-");
	sp.h = NULL;
	build(&base, &sp);

	/* messages patatt cannot read */
	tap_check(check(pt, "X-Developer-Signature: a=ed25519\n\n", 34) == 0 &&
	    report.n == 1 && report.sig[0].result == PATATT_ERROR,
	    "no body: error");
	sbuf_reset(&msg);
	sbuf_addstr(&msg, "Not a header line\n");
	sbuf_addstr(&msg, base.buf);
	rc = check(pt, msg.buf, msg.len);
	tap_check(rc == 0 && report.n == 1 &&
	    report.sig[0].result == PATATT_ERROR, "header without colon: %s",
	    report.n ? report.sig[0].detail : "-");
	sbuf_reset(&msg);
	sbuf_addstr(&msg, "From: \xff\xfe <x@y>\n");
	sbuf_addstr(&msg, base.buf);
	rc = check(pt, msg.buf, msg.len);
	tap_check(rc == 0 && report.n == 1 &&
	    report.sig[0].result == PATATT_ERROR, "From not UTF-8: %s",
	    report.n ? report.sig[0].detail : "-");

	/* garbage: bytes flipped and cut anywhere, over and over */
	for (ok = 1, i = 0; i < 400; i++) {
		sbuf_reset(&msg);
		sbuf_add(&msg, base.buf, base.len);
		for (j = 0; j < 1 + i % 8; j++) {
			seed = seed * 1103515245 + 12345;
			msg.buf[(seed >> 8) % msg.len] = (char)(seed >> 16);
		}
		if (i % 5 == 0)
			msg.len = (seed >> 4) % msg.len;
		rc = check(pt, msg.buf, msg.len);
		if (rc != 0 || report.n > PATATT_MAX_SIGS)
			ok = 0;
	}
	tap_check(ok, "400 damaged copies judged");
	sbuf_reset(&msg);
	for (i = 0; i < 3000; i++) {
		seed = seed * 1103515245 + 12345;
		sbuf_addch(&msg, (char)(seed >> 16));
		if (i == 40)
			sbuf_addstr(&msg, "\nX-Developer-Signature: a=openssh-"
			    "sha256; i=a@b; h=from:subject; t=1; b=U1NIU0lH");
	}
	tap_check(check(pt, msg.buf, msg.len) == 0, "random bytes judged");
	EVP_PKEY_free(k.pk);
	sbuf_release(&msg);
	sbuf_release(&big);
	sbuf_release(&base);
}

int
main(void)
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

	tap_check(patatt_keyring_new(&kr, (char *[]){ "/nonexistent/keys" }, 1,
	    &err) == PA_ERROR && kr == NULL && err.msg[0],
	    "a keyring that is not there: %s", err.msg);
	if (patatt_keyring_new(&kr, (char *[]){ ring }, 1, &err) != 0 ||
	    (pt = patatt_new(kr, ghome, &err)) == NULL)
		tap_skip_all("patatt_new: %s", err.msg);
	tap_check_str(patatt_result_name(PATATT_KEY_EXPIRED), "key-expired",
	    "result names");

	pieces();
	synthetic(pt);
	keyfiles(pt);
	samples();
	openssh(pt);
	openpgp(pt);
	hostile(pt);
	patatt_free(pt);
	patatt_keyring_free(kr);
	return tap_done();
}
