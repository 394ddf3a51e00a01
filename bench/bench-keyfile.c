/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bench-keyfile - what patatt keyring files cost a message: crafted
 * OpenPGP key files, and the cache of parsed key files under many
 * signers.  Each message names its signer's key file in an
 * X-Developer-Signature whose b= is no signature: the key file is looked
 * up, read and parsed as for any signature, and that is what is timed
 * (patatt_check(), the verdict being badsig or keyfault).
 *
 * usage: bench-keyfile [-k] [-C] [-r ROUNDS]
 *
 * In a temporary directory (removed afterwards, unless -k), GnuPG makes
 * one key with the most subkeys (64) and user IDs (128) a key file may
 * have; then, each a line "name value unit":
 *  - "keyfile_3300_subkeys_*": a key file of that key's first subkey
 *    repeated 3,300 times (about 1 MiB), the shape that cost librnp
 *    4.5 s a parse: the first message after it appears (it is refused,
 *    unparsed: keyfault), and a later one;
 *  - "keyfile_largest_*": the key itself, the largest shape accepted:
 *    its first message (parsed), a later one, and the memory the cache
 *    keeps for it (which PATATT_PGP_COST estimates);
 *  - "keycache_R_*": R ed25519 signers (300, then 1.5 times the cache's
 *    count) sending in turn, ROUNDS (default 5) times: parses, hits,
 *    evictions, and the time of one message.
 * -C measures the cache only (the crafted files take GnuPG a minute).
 */
#include "config.h"

#include <sys/stat.h>

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "patchattest.h"
#include "sig.h"
#include "base.h"
#include "benchutil.h"

#define SUBKEYS		64	/* the most a key file may have */
#define UIDS		128	/* likewise */
#define CACHE_COUNT	1024	/* the key files the cache holds */

static char	 dir[] = "/tmp/bench-keyfile.XXXXXX";
static char	 home[64];

/* gpg - gpg in the bench's home with args (NULL-ended), output to out */
static void
gpg(const char *out, const char *a, const char *b, const char *c,
    const char *d, const char *e)
{
	char *argv[] = { "gpg", "--homedir", home, "--batch", "--quiet",
	    "--passphrase", "", (char *)a, (char *)b, (char *)c, (char *)d,
	    (char *)e, NULL };

	if (bench_run(argv, NULL, out) != 0)
		bench_die("gpg", a);
}

/* at - a path in the bench's folder */
static const char *
at(const char *name)
{
	static char buf[2][128];
	static int k;

	k ^= 1;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", dir, name);
	return buf[k];
}

/* one - the time of one patatt_check() of a message signed as who */
static double
one(struct patatt *pt, const char *algo, const char *who,
    enum patatt_result want)
{
	struct patatt_report r;
	struct mailmsg *m;
	struct pa_err err;
	char raw[512];
	double t;
	int n;

	n = snprintf(raw, sizeof(raw), "From: Dev <%s>\nSubject: [PATCH] x\n"
	    "X-Developer-Signature: v=1; a=%s-sha256; t=1; i=%s; "
	    "h=from:subject; bh=AAAA; b=AAAA\n\nbody\n", who, algo, who);
	if (mailmsg_new(&m, sizeof(raw)) != 0 ||
	    mailmsg_parse(m, raw, (size_t)n) != 0)
		bench_die(who, "cannot make the message");
	t = bench_now();
	if (patatt_check(pt, m, time(NULL), &r, &err) != 0)
		bench_die(who, err.msg);
	t = bench_now() - t;
	if (r.n != 1 || r.sig[0].result != want)
		bench_die(who, r.n ? r.sig[0].detail : "no signature");
	mailmsg_free(m);
	return t;
}

/* first_use - the first and a later message naming file (as dev0's) */
static void
first_use(const char *name, const char *file, enum patatt_result want)
{
	struct patatt_keyring *kr;
	struct patatt *pt;
	struct mallinfo2 m0, m1;
	struct pa_err err;
	char ring[128], dest[256], *d = ring;
	char *mk[] = { "mkdir", "-p", dest, NULL };
	char *cp[] = { "cp", (char *)file, dest, NULL };
	double t;

	snprintf(ring, sizeof(ring), "%s/ring-%s", dir, name);
	snprintf(dest, sizeof(dest), "%s/openpgp/example.org/dev0", ring);
	if (bench_run(mk, NULL, NULL) != 0)
		bench_die(dest, "mkdir failed");
	snprintf(dest, sizeof(dest), "%s/openpgp/example.org/dev0/default",
	    ring);
	if (bench_run(cp, NULL, NULL) != 0)
		bench_die(dest, "cp failed");
	sleep(2);	/* settled: one read */
	if (patatt_keyring_new(&kr, &d, 1, &err) != 0 ||
	    patatt_new(&pt, kr, home, &err) != 0)
		bench_die(name, err.msg);
	m0 = mallinfo2();
	t = one(pt, "openpgp", "dev0@example.org", want);
	m1 = mallinfo2();
	printf("keyfile_%s_first %.0f us\n", name, t * 1e6);
	printf("keyfile_%s_memory %zu bytes (kept by the cache)\n", name,
	    m1.uordblks > m0.uordblks ? m1.uordblks - m0.uordblks : 0);
	t = one(pt, "openpgp", "dev0@example.org", want);
	printf("keyfile_%s_again %.0f us\n", name, t * 1e6);
	patatt_free(pt);
	patatt_keyring_free(kr);
}

/* crafted - the key files: the largest accepted, and 3,300 subkeys */
static void
crafted(void)
{
	struct sbuf bare, one, out;
	char fpr[64], uid[64];
	size_t i;
	double t;
	FILE *f;

	t = bench_now();
	gpg(NULL, "--quick-gen-key", "Dev 0 <dev0@example.org>", "ed25519",
	    "sign", "never");
	gpg(at("list"), "--with-colons", "--list-keys", "dev0@example.org",
	    NULL, NULL);
	sbuf_init(&bare, SBUF_NOMAX);
	bench_read_file(at("list"), &bare);
	if (sscanf(strstr(bare.buf, "\nfpr:") ? strstr(bare.buf, "\nfpr:") :
	    "", "\nfpr:::::::::%40s", fpr) != 1)
		bench_die("gpg --list-keys", "no fingerprint");
	gpg(at("bare"), "--export", fpr, NULL, NULL, NULL);
	for (i = 0; i < SUBKEYS; i++) {
		gpg(NULL, "--quick-add-key", fpr, "ed25519", "sign", "never");
		if (i == 0)
			gpg(at("one"), "--export", fpr, NULL, NULL, NULL);
	}
	for (i = 1; i < UIDS; i++) {
		snprintf(uid, sizeof(uid), "Dev %zu <dev%zu@example.org>", i,
		    i);
		gpg(NULL, "--quick-add-uid", fpr, uid, NULL, NULL);
	}
	gpg(at("largest"), "--export", fpr, NULL, NULL, NULL);
	printf("keyfile_made %.1f s (gpg)\n", bench_now() - t);

	/* 3,300 copies of the first subkey and its binding */
	sbuf_reset(&bare);
	sbuf_init(&one, SBUF_NOMAX);
	sbuf_init(&out, SBUF_NOMAX);
	bench_read_file(at("bare"), &bare);
	bench_read_file(at("one"), &one);
	sbuf_add(&out, bare.buf, bare.len);
	for (i = 0; i < 3300; i++)
		sbuf_add(&out, one.buf + bare.len, one.len - bare.len);
	if ((f = fopen(at("3300"), "wb")) == NULL ||
	    fwrite(out.buf, 1, out.len, f) != out.len || fclose(f) != 0)
		bench_die(at("3300"), "cannot write");
	printf("keyfile_3300_subkeys_bytes %zu bytes\n", out.len);
	first_use("3300_subkeys", at("3300"), PATATT_KEYFAULT);
	sbuf_reset(&out);
	bench_read_file(at("largest"), &out);
	printf("keyfile_largest_bytes %zu bytes (%d subkeys, %d user IDs)\n",
	    out.len, SUBKEYS, UIDS);
	first_use("largest", at("largest"), PATATT_BADSIG);
	sbuf_release(&bare);
	sbuf_release(&one);
	sbuf_release(&out);
}

/* ring - n ed25519 key files in a keyring folder of their own */
static struct patatt_keyring *
ring(unsigned long n)
{
	static const char key[] = "11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=";
	char top[128], sub[256], path[300], *d = top;
	char *mk[] = { "mkdir", "-p", sub, NULL };
	struct patatt_keyring *kr;
	struct pa_err err;
	unsigned long i;

	snprintf(top, sizeof(top), "%s/ring%lu", dir, n);
	for (i = 0; i < n; i++) {
		snprintf(sub, sizeof(sub), "%s/ed25519/example.org/dev%lu",
		    top, i);
		if (bench_run(mk, NULL, NULL) != 0)
			bench_die(sub, "mkdir failed");
		snprintf(path, sizeof(path), "%s/default", sub);
		bench_write_file(path, key, sizeof(key) - 1);
	}
	sleep(2);	/* the files settle: no racy re-reads */
	if (patatt_keyring_new(&kr, &d, 1, &err) != 0)
		bench_die(top, err.msg);
	return kr;
}

/* cache - n signers in turn, rounds times */
static void
cache(unsigned long n, unsigned long rounds)
{
	struct patatt_keyring *kr = ring(n);
	struct patatt_cache_stats st;
	struct patatt *pt;
	struct pa_err err;
	char who[64];
	unsigned long r, i;
	double t = 0;

	if (patatt_new(&pt, kr, home, &err) != 0)
		bench_die("patatt_new", err.msg);
	for (r = 0; r < rounds; r++)
		for (i = 0; i < n; i++) {
			snprintf(who, sizeof(who), "dev%lu@example.org", i);
			t += one(pt, "ed25519", who, PATATT_BADSIG);
		}
	patatt_keyring_stats(kr, &st);
	printf("keycache_%lu_messages %lu (%lu rounds)\n", n, n * rounds,
	    rounds);
	printf("keycache_%lu_parses %lu\n", n, st.parses);
	printf("keycache_%lu_hits %lu (%.1f%% of the rounds after the "
	    "first)\n", n, st.hits, rounds > 1 ? 100.0 * (double)st.hits /
	    (double)(n * (rounds - 1)) : 0.0);
	printf("keycache_%lu_evictions %lu\n", n, st.evictions);
	printf("keycache_%lu_message %.1f us\n", n, t * 1e6 /
	    (double)(n * rounds));
	patatt_free(pt);
	patatt_keyring_free(kr);
}

int
main(int argc, char **argv)
{
	char *kill_agent[] = { "gpgconf", "--homedir", NULL, "--kill", "all",
	    NULL };
	unsigned long rounds = 5;
	struct pa_err err;
	int keep = 0, craft = 1, c;

	bench_name = "bench-keyfile";
	while ((c = getopt(argc, argv, "kCr:")) != -1)
		switch (c) {
		case 'C':
			craft = 0;
			break;
		case 'k':
			keep = 1;
			break;
		case 'r':
			rounds = bench_getnum(optarg, 1, 1000);
			break;
		default:
			fprintf(stderr, "usage: bench-keyfile [-k] "
			    "[-C] [-r ROUNDS]\n");
			return 2;
		}
	if (pa_global_init(&err) != 0)
		bench_die("init", err.msg);
	bench_quiet();
	if (mkdtemp(dir) == NULL)
		bench_die(dir, "mkdtemp");
	snprintf(home, sizeof(home), "%s/gnupg", dir);
	if (mkdir(home, 0700) != 0)
		bench_die(home, "mkdir");
	if (craft)
		crafted();
	cache(300, rounds);
	cache(CACHE_COUNT * 3 / 2, rounds);
	kill_agent[2] = home;
	bench_run(kill_agent, NULL, NULL);
	if (keep)
		printf("bench-keyfile: kept %s\n", dir);
	else
		bench_rmtree(dir);
	return 0;
}
