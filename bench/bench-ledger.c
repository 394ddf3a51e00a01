/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bench-ledger - how fast the arrival records are written and found.
 *
 * usage: bench-ledger [-jk] [-n RECORDS] [-l LOOKUPS]
 *
 * In a temporary directory (removed afterwards, unless -k): a ledger
 * filled with RECORDS (default 1,000,000) records of the sizes list mail
 * has (Message-IDs of some 50 bytes, subjects of 70, trailers of 150,
 * the hashes; 4 in 5 with a patch, from 20,000 identities), through
 * ledger_record() and ledger_sync() as the milter writes them: the write
 * rate, the time one ledger_record() call takes (p50, p99, largest), and
 * how often the queue was full (the writer behind: such a record is
 * given again after ledger_sync() here, untimed; the milter would judge
 * that message through OnError).  Then LOOKUPS (default 200,000) calls of
 * ledger_by_message_id(), 90% of known Message-IDs picked at random, 10%
 * of unknown ones: p50, p99 and the largest, in microseconds.  Then
 * where the file's bytes go (bench/ledgersize.h).  Each figure is one
 * line "name value unit".
 *
 * -j: the journal of StateDatabase instead (StateFile-outbox), with the
 * database away (a socket folder that does not exist), so that every
 * record stays in it: the time one ledger_record() call takes there, the
 * journal synced once per batch by its sender as in an outage, then how
 * long opening the full journal takes.  No lookups.
 */
#include "config.h"

#include <sys/stat.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "patchattest.h"
#include "state.h"
#include "benchutil.h"
#include "ledgersize.h"

#define IDENTITIES	20000

static unsigned long	 nrecords = 1000000, nlookups = 200000;
static int		 journal;	/* -j */

/* message_id - the Message-ID of record k (unknown ones: k >= nrecords) */
static void
message_id(char *buf, size_t size, uint64_t k)
{
	snprintf(buf, size, "20240%06llu.%llu-%llu-dev%llu@kernel.org",
	    (unsigned long long)(k % 1000000), (unsigned long long)k,
	    (unsigned long long)(bench_mix(k) % 30 + 1),
	    (unsigned long long)(bench_mix(k) % IDENTITIES));
}

static void
hex(char *buf, size_t digits, uint64_t seed)
{
	size_t i;

	for (i = 0; i < digits; i += 16)
		snprintf(buf + i, digits - i + 1, "%016llx",
		    (unsigned long long)bench_mix(seed + i));
}

/* record - the synthetic record k */
static void
record(struct arrival *a, uint64_t k, time_t when)
{
	char id[128];
	uint64_t who = bench_mix(k) % IDENTITIES;

	memset(a, 0, sizeof(*a));
	message_id(id, sizeof(id), k);
	arrival_set_message_id(a, id, strlen(id));
	a->arrived = when;
	snprintf(a->envelope_from, sizeof(a->envelope_from),
	    "dev%llu@kernel.org", (unsigned long long)who);
	snprintf(a->author, sizeof(a->author), "Developer Number%llu "
	    "<dev%llu@kernel.org>", (unsigned long long)who,
	    (unsigned long long)who);
	snprintf(a->identity, sizeof(a->identity), "dev%llu@kernel.org",
	    (unsigned long long)who);
	snprintf(a->subject, sizeof(a->subject), "[PATCH v3 %llu/12] "
	    "drivers/net: fix the reference count of the queue %llu",
	    (unsigned long long)(k % 12 + 1), (unsigned long long)k);
	snprintf(a->list_id, sizeof(a->list_id),
	    "<netdev.vger.kernel.org>");
	a->has_patch = bench_mix(k + 1) % 5 != 0;
	hex(a->i, 64, k * 4);
	hex(a->m, 64, k * 4 + 1);
	hex(a->p, 64, k * 4 + 2);
	hex(a->m_core, 64, k * 4 + 3);
	hex(a->patch_id, 40, k * 7);
	snprintf(a->trailers, sizeof(a->trailers),
	    "Signed-off-by: Developer Number%llu <dev%llu@kernel.org>\n"
	    "Reviewed-by: Another Reviewer <reviewer@example.org>\n"
	    "Link: https://lore.kernel.org/r/%s\n", (unsigned long long)who,
	    (unsigned long long)who, id);
	snprintf(a->result, sizeof(a->result), "pass");
	snprintf(a->v01, sizeof(a->v01), "none");
	a->signed_trusted = bench_mix(who) % 5 == 0;
	snprintf(a->patatt, sizeof(a->patatt), a->signed_trusted ? "pass" :
	    "");
	if (a->signed_trusted)
		snprintf(a->key, sizeof(a->key), "openpgp/dev%llu@kernel.org/"
		    "default", (unsigned long long)who);
}

static void
fill(struct ledger *l, const char *path)
{
	struct arrival a;
	struct pa_err err;
	struct stat st;
	double t0, t, *lat;
	unsigned long i, full = 0;
	int rc;
	time_t start = time(NULL) - 86400;

	if ((lat = malloc(nrecords * sizeof(*lat))) == NULL)
		bench_die("malloc", "out of memory");
	t0 = bench_now();
	for (i = 0; i < nrecords; i++) {
		record(&a, i, start + (time_t)(i / 20));
		t = bench_now();
		rc = ledger_record(l, &a, &err);
		lat[i] = bench_now() - t;
		for (; rc != 0; rc = ledger_record(l, &a, &err)) {
			full++;
			if (ledger_sync(l, &err) != 0)
				bench_die("ledger_sync", err.msg);
		}
	}
	/* the database away, the journal holds them: no sync to wait for */
	if (!journal && ledger_sync(l, &err) != 0)
		bench_die("ledger_sync", err.msg);
	t = bench_now() - t0;
	printf("records %lu\n", nrecords);
	printf("write_rate %.0f records/s\n", nrecords / t);
	printf("queue_full %lu times\n", full);
	bench_latencies("record", lat, nrecords);
	if (stat(path, &st) == 0)
		printf("file_size %.0f MB\n", st.st_size / 1e6);
	free(lat);
}

static int
found(void *arg, const struct arrival *a)
{
	(void)a;
	++*(unsigned long *)arg;
	return 0;
}

static void
lookups(struct ledger *l)
{
	struct pa_err err;
	char id[128];
	double t, *lat;
	unsigned long i, hits = 0;
	uint64_t k;
	int rc;

	if ((lat = malloc(nlookups * sizeof(*lat))) == NULL)
		bench_die("malloc", "out of memory");
	for (i = 0; i < nlookups; i++) {
		k = bench_mix(i + ((uint64_t)1 << 40));
		k = i % 10 == 9 ? nrecords + k % nrecords : k % nrecords;
		message_id(id, sizeof(id), k);
		t = bench_now();
		rc = ledger_by_message_id(l, id, found, &hits, &err);
		lat[i] = bench_now() - t;
		if (rc != 0 && rc != PA_ENOTFOUND)
			bench_die("ledger_by_message_id", err.msg);
	}
	printf("lookups %lu (%lu found)\n", nlookups, hits);
	bench_latencies("lookup", lat, nlookups);
	free(lat);
}

/* open_journal - the ledger of StateDatabase (away) over dir/state.mdb */
static void
open_journal(struct ledger **l, const char *dir)
{
	struct pa_config cf;
	struct pa_err err;
	struct sbuf problems;
	char conf[1100];
	FILE *f;

	snprintf(conf, sizeof(conf), "%s/bench.conf", dir);
	if ((f = fopen(conf, "w")) == NULL)
		bench_die(conf, "cannot write it");
	fprintf(f, "StateFile %s/state.mdb\nStateDatabase host=%s/away "
	    "dbname=x user=x\n", dir, dir);
	fclose(f);
	sbuf_init(&problems, 4096);
	if (config_init(&cf) != 0 || config_load(&cf, conf, &problems) != 0)
		bench_die(conf, problems.len ? problems.buf : "out of memory");
	sbuf_release(&problems);
	if (statedb_ledger_open(l, &cf, 1, NULL, &err) != 0)
		bench_die("statedb_ledger_open", err.msg);
	config_release(&cf);
}

int
main(int argc, char *argv[])
{
	char dir[1024], path[1100];
	const char *tmp;
	double t;
	struct ledger *l;
	struct pa_err err;
	int ch, keep = 0;

	bench_name = "bench-ledger";
	while ((ch = getopt(argc, argv, "jkl:n:")) != -1) {
		switch (ch) {
		case 'j':
			journal = 1;
			break;
		case 'k':
			keep = 1;
			break;
		case 'l':
			nlookups = bench_getnum(optarg, 1, 1ul << 30);
			break;
		case 'n':
			nrecords = bench_getnum(optarg, 1, 1ul << 26);
			break;
		default:
			fprintf(stderr, "usage: bench-ledger [-jk] [-n RECORDS] "
			    "[-l LOOKUPS]\n");
			return 2;
		}
	}
	if (pa_global_init(&err) != 0)
		bench_die("pa_global_init", err.msg);
	tmp = getenv("TMPDIR");
	snprintf(dir, sizeof(dir), "%s/bench-ledger.XXXXXX",
	    tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
	if (mkdtemp(dir) == NULL)
		bench_die(dir, "cannot make it");
	if (journal) {
		snprintf(path, sizeof(path), "%s/state.mdb-outbox", dir);
		open_journal(&l, dir);
		fill(l, path);
		ledger_close(l);
		t = bench_now();
		open_journal(&l, dir);
		printf("journal_open %.1f ms\n", (bench_now() - t) * 1e3);
		ledger_close(l);
	} else {
		snprintf(path, sizeof(path), "%s/state.mdb", dir);
		if (ledger_open(&l, path, 1, 1, 0, 0, &err) != 0)
			bench_die("ledger_open", err.msg);
		fill(l, path);
		lookups(l);
		ledger_close(l);
		bench_ledger_sizes(path, "ledger");
	}
	if (keep)
		printf("kept %s\n", dir);
	else
		bench_rmtree(dir);
	return 0;
}
