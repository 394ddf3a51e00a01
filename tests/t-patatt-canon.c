/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t-patatt-canon - patatt's canonical form and digest: the pieces of the
 * canonicalisation against Python's output, Ed25519 signatures over the
 * digest D the test computes on its own (patatt-fixture.c), and patatt's
 * own sample vectors (patatt.md section 7) where Debian's patatt package
 * installs them.
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
#include "patatt-fixture.h"
#include "tap.h"

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
	if (expect(pt, &msg, PATATT_NOKEY, "offered key is not the signer's"))
		tap_check(strstr(report.sig[0].detail, "; with the offered "
		    "key: the Ed25519 signature does not verify") != NULL,
		    "  the reason the offered key failed is kept: %s",
		    report.sig[0].detail);
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
	struct mailmsg *m;
	unsigned char d[32];
	char dir[512], path[600], hex[65], *raw, *used;
	const char *text;
	size_t i, k, len, tlen;

	if (!tap_check(mailmsg_new(&m, 1 << 20) == 0, "a message buffer"))
		return;
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
	if (patatt_new(&pt, kr, ghome, &err) != 0) {
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

int
main(void)
{
	struct patatt *pt = fixture_start();
	pieces();
	synthetic(pt);
	samples();
	return fixture_end(pt);
}
