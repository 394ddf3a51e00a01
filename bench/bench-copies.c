/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bench-copies - one mail replayed 5,000 times under its Message-ID into
 * a StateFile, as a flood would: what a copy costs to write (in batches
 * of 100, each committed and synced, as the writer would take them) at
 * the start and at the end, and what reading the Message-ID's copies
 * costs then, with how many copies the file keeps.  A copy must cost the
 * same at the 5,000th as at the 2nd.
 *
 * usage: bench-copies [-n COPIES]
 *
 * Each figure is one line "name value unit".
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "patchattest.h"
#include "state.h"
#include "benchutil.h"

#define BATCH	100
#define READS	1000
#define ID	"20240101.12345-1-replayed@kernel.org"

static unsigned long	 ncopies = 5000;

static void
copy_of(struct arrival *a, unsigned long k)
{
	memset(a, 0, sizeof(*a));
	arrival_set_message_id(a, ID, strlen(ID));
	a->arrived = 1700000000 + (time_t)k;
	a->has_patch = 1;
	snprintf(a->envelope_from, sizeof(a->envelope_from), "dev@kernel.org");
	snprintf(a->author, sizeof(a->author), "Dev <dev@kernel.org>");
	snprintf(a->identity, sizeof(a->identity), "dev@kernel.org");
	snprintf(a->subject, sizeof(a->subject), "[PATCH] net: fix a leak");
	snprintf(a->host, sizeof(a->host), "mx%lu.example.net [192.0.2.%lu]",
	    k % 7, k % 200);
	memset(a->i, 'a', 64);
	memset(a->m, 'b', 64);
	memset(a->m_core, 'b', 64);
	/* one copy in 500 with a diff of its own */
	snprintf(a->p, sizeof(a->p), "%064lx", k % 500 == 499 ? k : 0);
	memset(a->patch_id, 'c', 40);
	snprintf(a->result, sizeof(a->result), "pass");
	snprintf(a->key, sizeof(a->key), "ed25519/kernel.org/dev/default");
	a->signed_trusted = 1;
}

/* batch - copies [from, from + n) written: seconds per copy */
static double
batch(struct ledger *l, unsigned long from, unsigned long n)
{
	struct arrival a;
	struct pa_err err;
	unsigned long k;
	double t = bench_now();

	for (k = from; k < from + n; k++) {
		copy_of(&a, k);
		if (ledger_record(l, &a, &err) != 0)
			bench_die("ledger_record", err.msg);
	}
	if (ledger_sync(l, &err) != 0)
		bench_die("ledger_sync", err.msg);
	return (bench_now() - t) / (double)n;
}

static int
count(void *arg, const struct arrival *a)
{
	(void)a;
	++*(unsigned *)arg;
	return 0;
}

/* reads - seconds per read of the Message-ID's copies; *n: how many */
static double
reads(struct ledger *l, unsigned *n)
{
	struct pa_err err;
	double t = bench_now();
	int i;

	for (i = 0; i < READS; i++) {
		*n = 0;
		if (ledger_by_message_id(l, ID, count, n, &err) != 0)
			bench_die("ledger_by_message_id", err.msg);
	}
	return (bench_now() - t) / READS;
}

int
main(int argc, char *argv[])
{
	char dir[256], path[300];
	const char *tmp;
	struct ledger *l;
	struct ledger_copies c;
	struct pa_err err;
	double first, last, r0, r1;
	unsigned long k;
	unsigned n0, n1;
	int ch;

	while ((ch = getopt(argc, argv, "n:")) != -1) {
		if (ch != 'n') {
			fprintf(stderr, "usage: bench-copies [-n COPIES]\n");
			return 2;
		}
		ncopies = bench_getnum(optarg, 4 * BATCH, 1ul << 24);
	}
	if (pa_global_init(&err) != 0)
		bench_die("pa_global_init", err.msg);
	tmp = getenv("TMPDIR");
	snprintf(dir, sizeof(dir), "%s/bench-copies.XXXXXX",
	    tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
	if (mkdtemp(dir) == NULL)
		bench_die(dir, "cannot make it");
	snprintf(path, sizeof(path), "%s/state.mdb", dir);
	if (ledger_open(&l, path, 1, 1, 0, 0, &err) != 0)
		bench_die("ledger_open", err.msg);
	/* the first copy alone, then copies 2 to 101, ..., the last 100 */
	batch(l, 0, 1);
	first = batch(l, 1, BATCH);
	r0 = reads(l, &n0);
	for (k = 1 + BATCH; k + 2 * BATCH <= ncopies; k += BATCH)
		batch(l, k, BATCH);
	last = batch(l, k, ncopies - k);
	r1 = reads(l, &n1);
	if (ledger_copies(l, ID, strlen(ID), &c, &err) != 0)
		bench_die("ledger_copies", err.msg);
	printf("copies %u copies\n", c.arrived);
	printf("copies_kept %u copies\n", c.kept);
	printf("copies_differing %u copies\n", c.differing);
	printf("copy_write_first %.1f us\n", first * 1e6);
	printf("copy_write_last %.1f us\n", last * 1e6);
	printf("copy_write_last_vs_first %.2f ratio\n", last / first);
	printf("copies_read_at_%u %.1f us\n", n0, r0 * 1e6);
	printf("copies_read_at_%lu %.1f us (%u read)\n", ncopies, r1 * 1e6,
	    n1);
	ledger_close(l);
	bench_rmtree(dir);
	return 0;
}
