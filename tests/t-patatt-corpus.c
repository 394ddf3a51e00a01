/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t-patatt-corpus - our verdicts on the signed messages of the corpus
 * against the real tool's (Debian's patatt 0.6.3, clock at 2026-12-03),
 * through the decision the milter and "patchattest check" make: every
 * signed message, a patch or not (cover letters), must get a verdict, and
 * its patatt part must be patatt's.
 *
 * Two set-ups, each with an empty GnuPG home and no index, so that the
 * keyring folder is all there is, as patatt had it:
 *  - CORPUS/linux-leds/patatt-keys and patatt-expected.tsv (ed25519 keys
 *    from the messages, OpenPGP keys from Debian's keyring);
 *  - CORPUS/linux-leds/kernel-keyring and patatt-expected-kernel.tsv (the
 *    kernel's own .keyring files: OpenPGP only).
 *
 * patatt's word against our patatt verdict: PASS is pass, NOKEY nokey,
 * ERROR none, BADSIG fail -- except a BADSIG whose detail has EXPKEYSIG or
 * REVKEYSIG (gpg found the signature good, the key expired or revoked):
 * that is our untrusted, whose reason must say expired or revoked.
 *
 * CORPUS is $PATCHATTEST_CORPUS, else $srcdir/../shared/corpus; without
 * it the test skips and says so.
 */
#include "config.h"

#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "patchattest.h"
#include "decide.h"
#include "paconfig.h"
#include "tap.h"

#define MAX_MESSAGE	(64u << 20)
#define VERDICT_CLOCK	1796299200	/* 2026-12-03 12:00 UTC */

struct tally {
	unsigned	rows, agree, ed_rows, ed_agree, pgp_rows, pgp_agree;
	unsigned	no_patch, expkeysig;
};

static char home[64];

static void
cleanup(void)
{
	if (home[0]) {
		tap_run(NULL, "gpgconf", "--homedir", home, "--kill", "all",
		    NULL);
		tap_rmtree(home);
	}
}

static int
split_tabs(char *line, char **col, int max)
{
	int n = 0;

	col[n++] = line;
	while (n < max && (line = strchr(line, '\t')) != NULL) {
		*line++ = '\0';
		col[n++] = line;
	}
	return n;
}

/* want_of - patatt's word as our verdict */
static enum verdict
want_of(const char *result, const char *detail)
{
	if (strcmp(result, "PASS") == 0)
		return VERDICT_PASS;
	if (strcmp(result, "NOKEY") == 0)
		return VERDICT_NOKEY;
	if (strcmp(result, "BADSIG") == 0)
		return strstr(detail, "EXPKEYSIG") || strstr(detail,
		    "REVKEYSIG") ? VERDICT_UNTRUSTED : VERDICT_FAIL;
	return VERDICT_NONE;
}

/* check_row - one signed message: col name, identity, algorithm, result */
static void
check_row(const char *dir, char **col, struct decider *dc, struct mailmsg *m,
    struct tally *t)
{
	struct decision d;
	enum verdict want;
	char path[8192];
	char *raw;
	size_t len;
	int ed = strncmp(col[2], "ed25519", 7) == 0, agree;

	t->rows++;
	if (ed)
		t->ed_rows++;
	else
		t->pgp_rows++;
	want = want_of(col[3], col[4]);
	snprintf(path, sizeof(path), "%s/%s", dir, col[0]);
	if ((raw = tap_read_file(path, &len)) == NULL) {
		tap_check(0, "%s: cannot read", col[0]);
		return;
	}
	if (mailmsg_parse(m, raw, len) != 0 ||
	    decide_begin(dc, m, VERDICT_CLOCK) != 0) {
		free(raw);
		tap_check(0, "%s: a signed message gets a verdict", col[0]);
		return;
	}
	free(raw);
	decide_end(dc, NULL, NULL, &d);
	if (!d.has_patch)
		t->no_patch++;
	agree = d.has_patatt && d.patatt == want &&
	    strcmp(d.identity, col[1]) == 0 &&
	    (d.has_patch || d.attid[0] == '\0');
	if (agree && want == VERDICT_UNTRUSTED) {
		t->expkeysig++;
		agree = strstr(d.reason, "expired") != NULL ||
		    strstr(d.reason, "revoked") != NULL;
	}
	if (agree) {
		t->agree++;
		if (ed)
			t->ed_agree++;
		else
			t->pgp_agree++;
		return;
	}
	tap_check(0, "%s (%s, %s): patatt %s, we %s", col[0], col[1], col[2],
	    col[3], d.has_patatt ? verdict_name(d.patatt) : "no verdict");
	tap_diag("  ours: %s: %s", d.identity, d.reason);
	tap_diag("  patatt: %s", col[4]);
}

/* run - every row of tsv, judged with keyring as the only keys */
static void
run(const char *dir, const char *tsv_name, const char *keyring_name)
{
	struct pa_config cfg;
	struct decider *dc;
	struct mailmsg *m;
	struct pa_err err;
	struct tally t;
	char path[8192], ring[8192], *tsv, *line, *next, *col[8];
	size_t len;

	snprintf(path, sizeof(path), "%s/%s", dir, tsv_name);
	snprintf(ring, sizeof(ring), "%s/%s", dir, keyring_name);
	if ((tsv = tap_read_file(path, &len)) == NULL) {
		tap_check(0, "read %s", path);
		return;
	}
	config_init(&cfg);
	/* patatt judges no signing time: years of list mail are not stale */
	cfg.staleness_days = 0;
	free(cfg.gnupg_home);
	cfg.gnupg_home = strdup(home);
	cfg.patatt_keyrings.v = (char *[]){ ring };
	cfg.patatt_keyrings.n = 1;
	if (mailmsg_new(&m, MAX_MESSAGE) != 0 ||
	    decider_new(&dc, &cfg, NULL, &err) != 0) {
		tap_check(0, "a decider with %s: %s", keyring_name, err.msg);
		goto out;
	}
	memset(&t, 0, sizeof(t));
	for (line = tsv; line && *line; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		if (line == tsv || split_tabs(line, col, 8) < 5)
			continue;	/* the column names */
		check_row(dir, col, dc, m, &t);
	}
	decider_free(dc);

	printf("# %s with %s: %u rows (ed25519 %u, openpgp %u), %u without "
	    "a patch\n", tsv_name, keyring_name, t.rows, t.ed_rows,
	    t.pgp_rows, t.no_patch);
	printf("# ed25519: %u of %u agree; openpgp: %u of %u agree (%u "
	    "EXP/REVKEYSIG BADSIGs are untrusted)\n", t.ed_agree, t.ed_rows,
	    t.pgp_agree, t.pgp_rows, t.expkeysig);
	tap_check(t.rows > 0, "%s: rows read: %u", tsv_name, t.rows);
	tap_check_int(t.agree, t.rows, "%s with %s: every row agrees",
	    tsv_name, keyring_name);
	tap_check(t.no_patch > 0, "%s: signed mail without a patch judged too "
	    "(%u)", tsv_name, t.no_patch);
out:
	cfg.patatt_keyrings.v = NULL;
	cfg.patatt_keyrings.n = 0;
	config_release(&cfg);
	mailmsg_free(m);
	free(tsv);
}

int
main(void)
{
	struct pa_err err;
	struct stat st;
	const char *corpus = getenv("PATCHATTEST_CORPUS"), *tmp;
	char dir[4096], path[8192];

	if (corpus && *corpus)
		snprintf(dir, sizeof(dir), "%s/linux-leds", corpus);
	else
		snprintf(dir, sizeof(dir), "%s/../shared/corpus/linux-leds",
		    tap_srcdir());
	snprintf(path, sizeof(path), "%s/patatt-expected.tsv", dir);
	if (stat(path, &st) != 0)
		tap_skip_all("no corpus: %s not found (set PATCHATTEST_CORPUS "
		    "to the folder that holds linux-leds/)", path);
	if (pa_global_init(&err) != 0)
		tap_skip_all("GnuPG not usable: %s", err.msg);
	/* Agent sockets live in the home: keep the path short. */
	tmp = getenv("TMPDIR");
	snprintf(home, sizeof(home), "%s/t-pcorp.XXXXXX",
	    tmp && tmp[0] && strlen(tmp) < 40 ? tmp : "/tmp");
	if (mkdtemp(home) == NULL)
		tap_skip_all("cannot make a temporary GnuPG home");
	atexit(cleanup);

	run(dir, "patatt-expected.tsv", "patatt-keys");
	snprintf(path, sizeof(path), "%s/patatt-expected-kernel.tsv", dir);
	if (stat(path, &st) == 0)
		run(dir, "patatt-expected-kernel.tsv", "kernel-keyring");
	else
		tap_skip("no patatt-expected-kernel.tsv in %s", dir);
	return tap_done();
}
