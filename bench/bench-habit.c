/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bench-habit - signer memory on real list history: each CORPUS (a
 * folder as bench/replay.h describes, ../shared/corpus/NAME) replayed in
 * arrival order through the decider and a ledger, as the milter would
 * have judged and recorded it.
 *
 * usage: bench-habit [-k] CORPUS...
 *
 * Reports, one "name value unit" line each: the messages, the patch mails
 * judged and how many of them the ledger gives back by Message-ID (all
 * must be); then for SignerHabitMinimum N = 1, 2, 3, 5: the patch mails
 * that signer memory judged by a habit when they arrived (their sender's;
 * a reply is judged by none), how many of those were
 * unsigned-by-signer, and that per 1,000; then where the bytes of the
 * ledger's file go (bench/ledgersize.h: the bytes per record of the
 * corpus's StateFile).  Every flag counts as a false
 * positive: nobody is known to have forged mail on a public list's
 * history, so what the flags find there is the honest signers' own
 * unsigned patches (the figure is an upper bound).  Each flag is listed
 * with its file and reason.  The replay runs with N = 1: a flag under a
 * larger N is a flag under 1 whose author had signed at least N.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "patchattest.h"
#include "benchutil.h"
#include "ledgersize.h"
#include "replay.h"

static const unsigned minimums[] = { 1, 2, 3, 5 };
#define NMIN	(sizeof(minimums) / sizeof(minimums[0]))

struct tally {
	size_t	 messages, patches, recorded;
	size_t	 habitual[NMIN], flags[NMIN];
	double	*lat;
};

/* same_record - fn of ledger_by_message_id(): the record of arg's mail */
static int
same_record(void *arg, const struct arrival *a)
{
	const struct arrival *want = arg;

	return a->arrived == want->arrived && strcmp(a->p, want->p) == 0;
}

/* count - what replaying one patch mail (d, a, the habit h it met) says */
static void
count(struct tally *t, struct replay *r, size_t k, const struct decision *d,
    struct arrival *a, const struct habit *h)
{
	struct pa_err err;
	size_t n;

	t->patches++;
	if (a->message_id[0] != '\0' && ledger_by_message_id(r->lg,
	    a->message_id, same_record, a, &err) == 1)
		t->recorded++;
	for (n = 0; n < NMIN; n++) {
		if (h->recent_signed < minimums[n] ||
		    2 * h->recent_signed < h->recent)
			continue;
		t->habitual[n]++;
		if (d->result == VERDICT_UNSIGNED_BY_SIGNER)
			t->flags[n]++;
	}
	if (d->result == VERDICT_UNSIGNED_BY_SIGNER)
		printf("habit_flag %s signed=%u false-positive: %s\n",
		    strrchr(r->files[k], '/') + 1, h->recent_signed,
		    d->reason);
}

static void
report(const struct tally *t)
{
	size_t n;

	printf("habit_messages %zu messages\n", t->messages);
	printf("habit_patch_mails %zu mails\n", t->patches);
	printf("habit_recorded %zu mails (%s)\n", t->recorded,
	    t->recorded == t->patches ? "all" : "NOT ALL");
	for (n = 0; n < NMIN; n++) {
		printf("habit_N%u_habitual %zu mails\n", minimums[n],
		    t->habitual[n]);
		printf("habit_N%u_flags %zu mails\n", minimums[n],
		    t->flags[n]);
		printf("habit_N%u_false_positives_per_1000 %.1f per-1000\n",
		    minimums[n], t->habitual[n] ? 1000.0 * (double)t->flags[n] /
		    (double)t->habitual[n] : 0.0);
	}
}

static void
run(const char *corpus, const char *scratch)
{
	struct tally t;
	struct replay r;
	struct decision d;
	struct arrival a;
	struct habit h;
	struct pa_err err;
	char path[4096];
	size_t k;
	double t0;
	int rc;

	memset(&t, 0, sizeof(t));
	if (replay_open(&r, corpus, scratch, 1, &err) != 0)
		bench_die(corpus, err.msg);
	if ((t.lat = calloc(r.nfiles + 1, sizeof(*t.lat))) == NULL)
		bench_die("timing", strerror(ENOMEM));
	printf("corpus %s\n", corpus);
	for (k = 0; k < r.nfiles; k++) {
		t.messages++;
		t0 = bench_now();
		rc = replay_one(&r, k, &d, &a, &h, &err);
		if (rc == PA_ENOPATCH)
			continue;
		if (rc != 0)
			bench_die(r.files[k], err.msg);
		if (!d.has_patch)
			continue;
		t.lat[t.patches] = bench_now() - t0;
		count(&t, &r, k, &d, &a, &h);
	}
	report(&t);
	bench_latencies("habit_replay_per_patch", t.lat, t.patches);
	free(t.lat);
	replay_close(&r);
	snprintf(path, sizeof(path), "%s/state.mdb", scratch);
	bench_ledger_sizes(path, "ledger");
}

int
main(int argc, char **argv)
{
	char tmp[] = "/tmp/bench-habit.XXXXXX", dir[64];
	char *killargv[] = { "gpgconf", "--homedir", dir, "--kill", "all",
	    NULL };
	struct pa_err err;
	int c, keep = 0, i;

	bench_name = "bench-habit";
	bench_quiet();
	while ((c = getopt(argc, argv, "k")) != -1) {
		if (c != 'k')
			goto usage;
		keep = 1;
	}
	if (optind == argc)
		goto usage;
	if (mkdtemp(tmp) == NULL)
		bench_die("mkdtemp", strerror(errno));
	if (pa_global_init(&err) != 0)
		bench_die("set-up", err.msg);
	for (i = optind; i < argc; i++) {
		/* a ledger and a GnuPG home of its own for each corpus */
		snprintf(dir, sizeof(dir), "%s/%d", tmp, i);
		if (mkdir(dir, 0700) != 0)
			bench_die(dir, strerror(errno));
		run(argv[i], dir);
		snprintf(dir, sizeof(dir), "%s/%d/gnupg", tmp, i);
		bench_run(killargv, NULL, NULL);
	}
	if (keep)
		printf("bench-habit: the ledger is kept in %s\n", tmp);
	else
		bench_rmtree(tmp);
	return 0;
usage:
	fprintf(stderr, "usage: bench-habit [-k] CORPUS...\n");
	return 2;
}
