/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t-pgp - signing, verifying and judging keys with a real GnuPG, in
 * throwaway homes made for this run: a signer's home (own key, ultimately
 * trusted), an empty home, and a home that only imported the signer's
 * public key.  The keyring cache must notice a revocation and a TOFU
 * policy change without a new context.
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

#include "patchattest.h"
#include "paconfig.h"
#include "pgp.h"
#include "sbuf.h"
#include "tap.h"

#define PAYLOAD \
	"2a02abe0-215cf3f1-2acb5798:\n" \
	"  i: 2a02abe02216f626105622aee2f26ab1" \
	"0c155b6442e23441d90fc5fe4071b86e\n" \
	"  m: 215cf3f133478917ad147a6eda1010a9" \
	"c4bba1846e7dd35295e9a0081559e9b0\n" \
	"  p: 2acb5798c366f97501f8feacb873327b" \
	"ac161951ce83e90f04bbcde32e993865"

static char top[64];
static char home_a[96], home_b[96], home_c[96], home_e[96], home_l[96];

#define SIG_BEGIN	"-----BEGIN PGP SIGNATURE-----"

/*
 * Packets made by gpg for the test of odd entries: "gpg -c" of a short
 * text (passphrase "x"), and "gpg --store -z 9" of one whose compressed
 * bytes after the first five were zeroed.
 */
static const char *const odd_packets[] = {
	"jA0ECQMC7hHuG/zKKAz/0kUBkEnOk833pszI2+c0VWsnsvCdjLKMbmGjFTJf\n"
	"L8AwFO5+yPTiZyclMug+xGAJ8TJk6THdBjuM5m0CkE76M+XcSU09lys=",
	"owJ42lsAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA==",
};

static const char *const comments[] = {
	"att-fmt-ver: 0.1", "att-hash: sha256", NULL
};

static int
gen_key(const char *home, const char *uid, const char *expire,
    const char *pass)
{
	if (pass)
		return tap_run(NULL, "gpg", "--homedir", home, "--batch",
		    "--pinentry-mode", "loopback", "--passphrase", pass,
		    "--quick-gen-key", uid, "ed25519", "sign", expire, NULL);
	return tap_run(NULL, "gpg", "--homedir", home, "--batch", "--passphrase",
	    "", "--quick-gen-key", uid, "ed25519", "sign", expire, NULL);
}

static void
cleanup(void)
{
	const char *homes[] = { home_a, home_b, home_c, home_e, home_l };
	size_t i;

	for (i = 0; i < sizeof(homes) / sizeof(homes[0]); i++)
		if (homes[i][0])
			tap_run(NULL, "gpgconf", "--homedir", homes[i], "--kill",
			    "all", NULL);
	if (top[0])
		tap_rmtree(top);
}

static struct pgp *
ctx(const char *home, enum trust_model m)
{
	struct pa_err err;
	struct pgp *p;

	if (pgp_new(&p, home, m, &err) != 0)
		tap_diag("pgp_new %s: %s", home, err.msg);
	return p;
}

static int
state(struct pgp *p, const char *fpr, time_t now)
{
	struct pgp_key key;
	struct pa_err err;

	if (p == NULL)
		return -1;
	if (pgp_key(p, fpr, now, &key, &err) != 0) {
		tap_diag("pgp_key: %s", err.msg);
		return -1;
	}
	return key.state;
}

/* sign_with_gpg - a clearsigned file made by gpg itself, keys -u each */
static char *
gpg_clearsign(const char *home, const char *k1, const char *k2, size_t *len)
{
	char in[160], out[160];

	snprintf(in, sizeof(in), "%s/in.txt", top);
	snprintf(out, sizeof(out), "%s/out.asc", top);
	if (tap_write_file(in, PAYLOAD, sizeof(PAYLOAD) - 1) != 0)
		return NULL;
	remove(out);
	if (tap_run(NULL, "gpg", "--homedir", home, "--batch", "-u", k1, "-u", k2,
	    "-o", out, "--clearsign", in, NULL) != 0)
		return NULL;
	return tap_read_file(out, len);
}

int
main(void)
{
	struct pgp *pa, *pb, *pc_gpg, *pc_tofu, *pc_ring, *pe, *none;
	struct sbuf doc, plain, bad;
	struct pgp_sig sig;
	struct pgp_key key;
	struct pa_err err;
	char fpr[PGP_FPR_MAX], pfpr[PGP_FPR_MAX], efpr[PGP_FPR_MAX], path[256], big[2100];
	char *rev, *p, *two;
	const char *tmp;
	size_t len, i;
	struct timespec ts0, ts1;
	time_t t0;
	long ms;
	int rc;

	if (tap_run(NULL, "gpg", "--version", NULL) != 0)
		tap_skip_all("gpg not installed");
	if (pa_global_init(&err) != 0)
		tap_skip_all("GnuPG not usable: %s", err.msg);
	/* Agent sockets live in the home: keep the path short. */
	tmp = getenv("TMPDIR");
	snprintf(top, sizeof(top), "%s/t-pgp.XXXXXX",
	    tmp && tmp[0] && strlen(tmp) < 40 ? tmp : "/tmp");
	if (mkdtemp(top) == NULL)
		tap_skip_all("cannot make a temporary directory");
	atexit(cleanup);
	snprintf(home_a, sizeof(home_a), "%s/a", top);
	snprintf(home_b, sizeof(home_b), "%s/b", top);
	snprintf(home_c, sizeof(home_c), "%s/c", top);
	snprintf(home_e, sizeof(home_e), "%s/e", top);
	mkdir(home_a, 0700);
	mkdir(home_b, 0700);
	mkdir(home_c, 0700);
	mkdir(home_e, 0700);
	t0 = time(NULL);
	if (gen_key(home_a, "Test Signer <signer@example.org>", "never",
	    NULL) != 0)
		tap_skip_all("gpg --quick-gen-key failed");

	sbuf_init(&doc, SBUF_NOMAX);
	sbuf_init(&plain, SBUF_NOMAX);
	sbuf_init(&bad, SBUF_NOMAX);

	/* Sign and verify in the signer's own home. */
	pa = ctx(home_a, TRUST_GPG);
	tap_check(pa != NULL, "context on the signer's home");
	if (pa == NULL)
		return tap_done();
	rc = pgp_clearsign(pa, NULL, PAYLOAD, sizeof(PAYLOAD) - 1, comments,
	    &doc, &err);
	tap_check_int(rc, 0, "clearsign with the default key");
	if (rc != 0)
		tap_diag("%s", err.msg);
	tap_check(strncmp(doc.buf, "-----BEGIN PGP SIGNED MESSAGE-----\n", 35) ==
	    0, "a clearsigned document");
	tap_check(strstr(doc.buf, "\n-----BEGIN PGP SIGNATURE-----\n"
	    "Comment: att-fmt-ver: 0.1\nComment: att-hash: sha256\n\n") != NULL,
	    "armor comments right after the armor line");
	tap_check(strstr(doc.buf, "\n" PAYLOAD "\n-----BEGIN PGP SIGNATURE") !=
	    NULL, "the payload is in the document as it is");

	rc = pgp_verify(pa, doc.buf, doc.len, &sig, &plain, &err);
	tap_check_int(rc, 0, "verify runs");
	tap_check_int(sig.status, PGP_SIG_GOOD, "own signature is good");
	tap_check_int(sig.nsigs, 1, "one signature");
	tap_check(strlen(sig.fpr) == 40, "signing key fingerprint: %s", sig.fpr);
	tap_check(sig.when >= t0 - 5 && sig.when <= time(NULL) + 5,
	    "signature time is now");
	tap_check_mem(plain.buf, plain.len, PAYLOAD, sizeof(PAYLOAD) - 1,
	    "signed text equals the payload byte for byte");
	snprintf(fpr, sizeof(fpr), "%s", sig.fpr);

	/* The same document with CRLF line ends, as mail may carry it. */
	sbuf_reset(&bad);
	for (i = 0; i < doc.len; i++) {
		if (doc.buf[i] == '\n')
			sbuf_addch(&bad, '\r');
		sbuf_addch(&bad, doc.buf[i]);
	}
	rc = pgp_verify(pa, bad.buf, bad.len, &sig, &plain, &err);
	tap_check(rc == 0 && sig.status == PGP_SIG_GOOD,
	    "a CRLF copy verifies too");
	for (i = 0, len = 0; i < plain.len; i++)
		if (plain.buf[i] != '\r')
			plain.buf[len++] = plain.buf[i];
	tap_check_mem(plain.buf, len, PAYLOAD, sizeof(PAYLOAD) - 1,
	    "its signed text is the payload, apart from CRs");

	/* One byte of the signed text changed. */
	sbuf_reset(&bad);
	sbuf_add(&bad, doc.buf, doc.len);
	p = strstr(bad.buf, "  m: 215c");
	if (p)
		p[5] = '3';
	rc = pgp_verify(pa, bad.buf, bad.len, &sig, &plain, &err);
	tap_check(rc == 0 && sig.status == PGP_SIG_BAD, "altered text is BAD");
	tap_check(strstr(plain.buf, "  m: 315c") != NULL,
	    "the altered text is returned");

	/* Not a document, too big, two signatures. */
	rc = pgp_verify(pa, "hello\n", 6, &sig, &plain, &err);
	tap_check(rc == 0 && sig.status == PGP_SIG_ERROR,
	    "plain text is an ERROR: %s", sig.detail);
	rc = pgp_verify(pa, doc.buf, (16u << 20) + 1, &sig, &plain, &err);
	tap_check_int(rc, PA_ETOOBIG, "a document over 16 MiB is refused");
	sbuf_reset(&bad);
	sbuf_add(&bad, doc.buf, doc.len / 2);
	rc = pgp_verify(pa, bad.buf, bad.len, &sig, &plain, &err);
	tap_check(rc == 0 && sig.status == PGP_SIG_ERROR,
	    "a truncated document is an ERROR: %s", sig.detail);

	/*
	 * Packets GnuPG reads with errors no list of document errors had
	 * (symmetrically encrypted data: "Unexpected error"; compressed data
	 * that does not inflate) in place of the signature: the document's
	 * ERROR, not GnuPG failing to run, which would stop an archive run.
	 */
	for (i = 0; i < sizeof(odd_packets) / sizeof(odd_packets[0]); i++) {
		sbuf_reset(&bad);
		p = strstr(doc.buf, SIG_BEGIN);
		sbuf_add(&bad, doc.buf, p ? (size_t)(p - doc.buf) : 0);
		sbuf_addstr(&bad, SIG_BEGIN "\n\n");
		sbuf_addstr(&bad, odd_packets[i]);
		sbuf_addstr(&bad, "\n-----END PGP SIGNATURE-----\n");
		rc = pgp_verify(pa, bad.buf, bad.len, &sig, &plain, &err);
		tap_check(p != NULL && rc == 0 && sig.status == PGP_SIG_ERROR,
		    "%s in place of the signature: an ERROR (%s), not a fault "
		    "(%d: %s)", i == 0 ? "an encrypted packet" :
		    "compressed data that does not inflate", sig.detail, rc,
		    rc ? err.msg : "");
	}

	/* The own key: ultimately trusted under the gpg model. */
	rc = pgp_key(pa, fpr, time(NULL), &key, &err);
	tap_check_int(rc, 0, "pgp_key runs");
	tap_check_int(key.state, PGP_KEY_TRUSTED, "own key TRUSTED (gpg)");
	tap_check_str(key.primary, fpr, "primary fingerprint");
	tap_check_int(key.nuids, 1, "one user ID");
	tap_check_str(key.uid[0], "Test Signer <signer@example.org>",
	    "user ID as Name <addr>");
	tap_check_str(key.addr[0], "signer@example.org", "its address");
	tap_check_int(state(pa, fpr + 24, time(NULL)), PGP_KEY_TRUSTED,
	    "found by its long key ID");
	snprintf(path, sizeof(path), "0x%s", fpr + 24);
	for (p = path; *p; p++)
		if (*p >= 'A' && *p <= 'F')
			*p = (char)(*p - 'A' + 'a');
	tap_check_int(state(pa, path, time(NULL)), PGP_KEY_TRUSTED,
	    "and as 0x with lower case");
	tap_check_int(state(pa, fpr + 32, time(NULL)), PGP_KEY_MISSING,
	    "a short key ID is not enough");
	tap_check_int(state(pa, "not hex", time(NULL)), PGP_KEY_MISSING,
	    "garbage is MISSING");
	tap_check_int(state(pa, "0000000000000000000000000000000000000000",
	    time(NULL)), PGP_KEY_MISSING, "an unknown key is MISSING");

	/*
	 * A warm cache answers without running gpg: a thousand lookups
	 * take far less than the thousand gpg runs would (several ms each).
	 */
	clock_gettime(CLOCK_MONOTONIC, &ts0);
	for (i = 0, rc = 0; i < 1000; i++)
		rc |= state(pa, fpr, time(NULL)) != PGP_KEY_TRUSTED;
	clock_gettime(CLOCK_MONOTONIC, &ts1);
	ms = (ts1.tv_sec - ts0.tv_sec) * 1000 +
	    (ts1.tv_nsec - ts0.tv_nsec) / 1000000;
	tap_check(rc == 0 && ms < 1000, "1000 warm lookups in %ld ms", ms);

	/* A key that expires in a day. */
	if (gen_key(home_a, "Expiring <exp@example.org>", "1d", NULL) != 0)
		tap_diag("could not make the expiring key");
	rc = pgp_clearsign(pa, "exp@example.org", PAYLOAD,
	    sizeof(PAYLOAD) - 1, comments, &doc, &err);
	tap_check_int(rc, 0, "clearsign with a named key");
	rc = pgp_verify(pa, doc.buf, doc.len, &sig, &plain, &err);
	tap_check(rc == 0 && sig.status == PGP_SIG_GOOD && strcmp(sig.fpr, fpr),
	    "signed by the named key");
	snprintf(efpr, sizeof(efpr), "%s", sig.fpr);
	tap_check_int(state(pa, efpr, time(NULL)), PGP_KEY_TRUSTED,
	    "the new key is noticed without a new context");
	tap_check_int(state(pa, efpr, time(NULL) + 2 * 86400), PGP_KEY_EXPIRED,
	    "judged two days later it is EXPIRED");
	tap_check_int(state(pa, fpr, time(NULL) + 2 * 86400), PGP_KEY_TRUSTED,
	    "a key without expiry is not");

	/*
	 * At a daemon's pace (pgp_recheck_every) the home is looked at once
	 * an interval: a key made within it is not listed yet, and is once
	 * the interval has passed.
	 */
	pgp_recheck_every(60000);
	(void)state(pa, fpr, time(NULL));
	if (gen_key(home_a, "Paced <paced@example.org>", "never", NULL) != 0)
		tap_diag("could not make the paced key");
	rc = pgp_clearsign(pa, "paced@example.org", PAYLOAD,
	    sizeof(PAYLOAD) - 1, comments, &doc, &err);
	if (rc == 0)
		rc = pgp_verify(pa, doc.buf, doc.len, &sig, &plain, &err);
	snprintf(pfpr, sizeof(pfpr), "%s", rc == 0 ? sig.fpr : "");
	tap_check_int(state(pa, pfpr, time(NULL)), PGP_KEY_MISSING,
	    "paced: a key made within the interval is not listed yet");
	pgp_recheck_every(100);
	nanosleep(&(struct timespec){ 0, 150000000L }, NULL);
	tap_check_int(state(pa, pfpr, time(NULL)), PGP_KEY_TRUSTED,
	    "... and is once the interval has passed");
	pgp_recheck_every(0);
	rc = pgp_clearsign(pa, "nobody@example.org", PAYLOAD,
	    sizeof(PAYLOAD) - 1, comments, &doc, &err);
	tap_check(rc != 0 && strstr(err.msg, "nobody@example.org") != NULL,
	    "an unknown signing key is an error: %s", err.msg);
	rc = pgp_clearsign(pa, NULL, "x", 1, (const char *const[]){ "a\nb",
	    NULL }, &doc, &err);
	tap_check(rc != 0, "a comment with a line break is refused: %s",
	    err.msg);

	/* Two signatures in one document. */
	two = gpg_clearsign(home_a, fpr, efpr, &len);
	rc = two ? pgp_verify(pa, two, len, &sig, &plain, &err) : -1;
	tap_check(rc == 0 && sig.status == PGP_SIG_ERROR && sig.nsigs == 2,
	    "two signatures are an ERROR: %s", sig.detail);
	free(two);

	/* An empty home has no key. */
	rc = pgp_clearsign(pa, fpr, PAYLOAD, sizeof(PAYLOAD) - 1, comments,
	    &doc, &err);
	tap_check_int(rc, 0, "clearsign by fingerprint");
	pb = ctx(home_b, TRUST_GPG);
	rc = pb ? pgp_verify(pb, doc.buf, doc.len, &sig, &plain, &err) : -1;
	tap_check(rc == 0 && sig.status == PGP_SIG_NOKEY,
	    "without the public key: NOKEY");
	len = strlen(sig.fpr);
	tap_check(len >= 16 && strcmp(fpr + 40 - len, sig.fpr) == 0,
	    "NOKEY names the issuer: %s", sig.fpr);
	tap_check_mem(plain.buf, plain.len, PAYLOAD, sizeof(PAYLOAD) - 1,
	    "NOKEY still returns the signed text");
	tap_check_int(state(pb, sig.fpr, time(NULL)), PGP_KEY_MISSING,
	    "and pgp_key says MISSING");
	pgp_free(pb);

	/* A home that imported the public key only. */
	snprintf(path, sizeof(path), "%s/signer.asc", top);
	rc = tap_run(path, "gpg", "--homedir", home_a, "--armor", "--export",
	    fpr, NULL);
	rc = rc == 0 ? tap_run(NULL, "gpg", "--homedir", home_c, "--batch",
	    "--import", path, NULL) : rc;
	tap_check_int(rc, 0, "public key imported into another home");
	pc_gpg = ctx(home_c, TRUST_GPG);
	pc_tofu = ctx(home_c, TRUST_TOFU);
	pc_ring = ctx(home_c, TRUST_KEYRING);
	rc = pc_gpg ? pgp_verify(pc_gpg, doc.buf, doc.len, &sig, &plain,
	    &err) : -1;
	tap_check(rc == 0 && sig.status == PGP_SIG_GOOD &&
	    strcmp(sig.fpr, fpr) == 0, "GOOD there too");
	tap_check_int(state(pc_gpg, fpr, time(NULL)), PGP_KEY_UNTRUSTED,
	    "gpg model: an imported, uncertified key is UNTRUSTED");
	tap_check_int(state(pc_ring, fpr, time(NULL)), PGP_KEY_TRUSTED,
	    "keyring model: TRUSTED");
	tap_check_int(state(pc_tofu, fpr, time(NULL)), PGP_KEY_TRUSTED,
	    "tofu model: first use is TRUSTED");
	tap_check_int(state(pc_tofu, fpr, time(NULL)), PGP_KEY_TRUSTED,
	    "tofu model: still TRUSTED when asked again");
	rc = tap_run(NULL, "gpg", "--homedir", home_c, "--batch", "--trust-model",
	    "tofu", "--tofu-policy", "bad", fpr, NULL);
	tap_check_int(rc, 0, "TOFU policy set to bad");
	tap_check_int(state(pc_tofu, fpr, time(NULL)), PGP_KEY_UNTRUSTED,
	    "tofu model: policy bad is UNTRUSTED, same context");
	rc = tap_run(NULL, "gpg", "--homedir", home_c, "--batch", "--trust-model",
	    "tofu", "--tofu-policy", "good", fpr, NULL);
	tap_check_int(state(pc_tofu, fpr, time(NULL)), PGP_KEY_TRUSTED,
	    "tofu model: policy good is TRUSTED again");

	/* Revoke it there, after the contexts have listed the keyring. */
	snprintf(path, sizeof(path), "%s/openpgp-revocs.d/%s.rev", home_a,
	    fpr);
	rev = tap_read_file(path, &len);
	tap_check(rev != NULL, "gpg wrote a revocation certificate");
	if (rev && (p = strstr(rev, ":-----BEGIN PGP PUBLIC KEY BLOCK"))) {
		memmove(p, p + 1, len - (size_t)(p - rev));
		len--;
	}
	snprintf(path, sizeof(path), "%s/revoke.asc", top);
	rc = rev ? tap_write_file(path, rev, len) : -1;
	free(rev);
	rc = rc == 0 ? tap_run(NULL, "gpg", "--homedir", home_c, "--batch",
	    "--import", path, NULL) : rc;
	tap_check_int(rc, 0, "revocation imported");
	tap_check_int(state(pc_ring, fpr, time(NULL)), PGP_KEY_REVOKED,
	    "keyring model: REVOKED without a new context");
	tap_check_int(state(pc_gpg, fpr, time(NULL)), PGP_KEY_REVOKED,
	    "gpg model: REVOKED");
	tap_check_int(state(pc_tofu, fpr, time(NULL)), PGP_KEY_REVOKED,
	    "tofu model: REVOKED");
	rc = pc_gpg ? pgp_verify(pc_gpg, doc.buf, doc.len, &sig, &plain,
	    &err) : -1;
	tap_check(rc == 0 && sig.status == PGP_SIG_GOOD &&
	    strstr(sig.detail, "revoked") != NULL,
	    "the signature stays cryptographically GOOD: %s", sig.detail);
	pgp_free(pc_gpg);
	pgp_free(pc_tofu);
	pgp_free(pc_ring);

	/* A key with a passphrase is refused, not prompted for. */
	if (gen_key(home_e, "Locked <locked@example.org>", "never",
	    "secret") != 0)
		tap_diag("could not make the passphrase key");
	tap_run(NULL, "gpgconf", "--homedir", home_e, "--kill", "gpg-agent",
	    NULL);
	pe = ctx(home_e, TRUST_GPG);
	rc = pe ? pgp_clearsign(pe, "locked@example.org", PAYLOAD,
	    sizeof(PAYLOAD) - 1, comments, &doc, &err) : -1;
	tap_check(rc != 0 && strstr(err.msg, "passphrase") != NULL,
	    "a key with a passphrase fails clearly: %s", err.msg);
	pgp_free(pe);

	/* A 2,000-byte user ID: the signer is named, cut and marked. */
	snprintf(home_l, sizeof(home_l), "%s/l", top);
	mkdir(home_l, 0700);
	memset(big, 'N', 2000);
	snprintf(big + 2000, sizeof(big) - 2000, " <long@example.org>");
	pe = gen_key(home_l, big, "never", NULL) == 0 ?
	    ctx(home_l, TRUST_KEYRING) : NULL;
	rc = pe ? pgp_clearsign(pe, NULL, PAYLOAD, sizeof(PAYLOAD) - 1,
	    comments, &doc, &err) : -1;
	if (rc == 0)
		rc = pgp_verify(pe, doc.buf, doc.len, &sig, &plain, &err);
	if (rc == 0)
		rc = pgp_key(pe, sig.fpr, time(NULL), &key, &err);
	tap_check(rc == 0 && key.nuids == 1 && strlen(key.uid[0]) < PGP_UIDLEN &&
	    strncmp(key.uid[0], "NNNN", 4) == 0 && strstr(key.uid[0],
	    "N... <long@example.org>") != NULL, "a 2,000-byte user ID: named, "
	    "cut: %.20s...%s", rc == 0 && key.nuids ? key.uid[0] : "",
	    rc == 0 && key.nuids ? key.uid[0] + strlen(key.uid[0]) - 25 : "");
	pgp_free(pe);

	tap_check(pgp_new(&none, top, (enum trust_model)99, &err) != 0 &&
	    none == NULL, "an unknown trust model is refused");
	snprintf(path, sizeof(path), "%s/none", top);
	tap_check(pgp_new(&none, path, TRUST_GPG, &err) != 0 && none == NULL &&
	    strstr(err.msg, path) != NULL, "a missing home is refused: %s",
	    err.msg);

	pgp_free(pa);
	sbuf_release(&doc);
	sbuf_release(&plain);
	sbuf_release(&bad);
	return tap_done();
}
