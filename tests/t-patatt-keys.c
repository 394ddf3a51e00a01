/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t-patatt-keys - the other kinds of key: OpenSSH keys and signatures
 * made by ssh-keygen, OpenPGP keys and signatures made by gpg, when those
 * tools are installed.
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

int
main(void)
{
	struct patatt *pt = fixture_start();
	openssh(pt);
	openpgp(pt);
	return fixture_end(pt);
}
