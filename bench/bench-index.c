/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bench-index - how fast the LMDB index builds and answers.
 *
 * usage: bench-index [-k] [-d DOCS] [-t TRIPLES] [-b BATCH] [-l LOOKUPS]
 *
 * In a temporary directory (removed afterwards, unless -k): an index of DOCS
 * (default 100,000) synthetic documents of TRIPLES (10) random triples
 * each, BATCH (1,000) documents a commit; then, each in a new process
 * (this program run again with an internal argument):
 *  - cold open: attindex_open() and the first lookup, with the index
 *    file's pages dropped from the page cache first (posix_fadvise), and
 *    once more with them cached;
 *  - LOOKUPS (1,000,000) lookups, 90% of known attestation IDs and 10%
 *    of unknown ones, each timed with clock_gettime: p50, p99, p99.9 and
 *    the largest, in microseconds; three times, "lookup" touching the
 *    pages for the first time in that process, "lookup_warm" the same
 *    again, and "lookup_checked" each after the look at the index's file
 *    that the milter takes before each message (attindex_replaced);
 *    then the process's memory: peak RSS (getrusage), and the current RSS
 *    split into anonymous memory and mapped file pages (the index itself,
 *    shared with the page cache).
 *
 * After the build, where the file's bytes go: per database of the index
 * its pages (branch, leaf, overflow), entries and bytes of key and value
 * an entry, then the pages LMDB keeps for reuse (free after the last
 * commits) and the rest of the file.
 *
 * Each figure is one line "name value unit".  Aims: lookup p99 under
 * 20 us, cold open under 1 s, RSS under 40 MB.
 */
#include "config.h"

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <lmdb.h>

#include "attest.h"
#include "patchattest.h"
#include "benchutil.h"

#define HIST_STEP_NS	50		/* latency histogram resolution */
#define HIST_BUCKETS	200000		/* up to 10 ms; beyond: the last */
#define MAX_TRIPLES	64
#define MISS_SEED	((uint64_t)1 << 40)

static unsigned long	 ndocs = 100000, ntriples = 10, batch = 1000;
static unsigned long	 nlookups = 1000000;
static const char	*runtag = "";	/* cold run: "evicted", "cached" */

static void	 gen_triple(struct att_triple *, uint64_t);
static void	 attid_of(char *, const struct att_triple *);
static void	 build(const char *);
static void	 db_sizes(MDB_txn *, MDB_dbi, const char *);
static void	 sizes(const char *);
static void	 evict(const char *);
static void	 run_self(const char *, const char *, const char *);
static void	 cold(const char *);
static void	 pass(struct attindex *, const char *, int);
static void	 lookups(const char *);
static long	 status_kib(const char *);

/* gen_triple - the random triple number seed */
static void
gen_triple(struct att_triple *t, uint64_t seed)
{
	unsigned char *p = (unsigned char *)t;
	uint64_t r;
	size_t i;

	for (i = 0; i < sizeof(*t); i += 8) {
		r = bench_mix(seed * 16 + i / 8);
		memcpy(p + i, &r, 8);
	}
}

static void
attid_of(char *out, const struct att_triple *t)
{
	snprintf(out, MSGHASH_ATTID_LEN + 1,
	    "%02x%02x%02x%02x-%02x%02x%02x%02x-%02x%02x%02x%02x",
	    t->i[0], t->i[1], t->i[2], t->i[3], t->m[0], t->m[1], t->m[2],
	    t->m[3], t->p[0], t->p[1], t->p[2], t->p[3]);
}

static void
build(const char *dir)
{
	struct att_triple t[MAX_TRIPLES];
	struct att_docinfo d;
	struct attindex *h;
	struct pa_err err;
	struct stat sb;
	char data[1100];
	unsigned long k, j;
	size_t docs, atts;
	double t0, t1;

	if (attindex_open(&h, dir, 1, &err) != 0)
		bench_die(dir, err.msg);
	t0 = bench_now();
	for (k = 0; k < ndocs; k++) {
		if (k % batch == 0 && attindex_begin(h, &err) != 0)
			bench_die("begin", err.msg);
		memset(&d, 0, sizeof(d));
		memcpy(d.docid, &k, sizeof(k));
		d.docid[31] = 0xd0;
		d.status = PGP_SIG_GOOD;
		d.when = 1600000000 + (time_t)k;
		snprintf(d.fpr, sizeof(d.fpr), "%040lu", k);
		snprintf(d.uids, sizeof(d.uids), "Developer %lu "
		    "<dev%lu@example.org>", k, k);
		snprintf(d.where, sizeof(d.where), "git/0.git:%040lx", k);
		snprintf(d.msgid, sizeof(d.msgid), "<%lu@example.org>", k);
		for (j = 0; j < ntriples; j++)
			gen_triple(&t[j], k * ntriples + j);
		if (attindex_put(h, &d, t, ntriples, &err) != 0)
			bench_die("put", err.msg);
		if ((k + 1) % batch == 0 || k + 1 == ndocs)
			if (attindex_commit(h, &err) != 0)
				bench_die("commit", err.msg);
	}
	t1 = bench_now();
	if (attindex_stats(h, &docs, &atts, &err) != 0)
		bench_die("stats", err.msg);
	attindex_close(h);
	snprintf(data, sizeof(data), "%s/data.mdb", dir);
	if (stat(data, &sb) != 0)
		bench_die(data, strerror(errno));
	printf("build_documents %zu docs\n", docs);
	printf("build_attestations %zu atts\n", atts);
	printf("build_time %.2f s\n", t1 - t0);
	printf("build_rate %.0f attestations/s\n", (double)atts / (t1 - t0));
	printf("index_size %.1f MiB\n", (double)sb.st_size / 1048576);
	fflush(stdout);
}

/* db_sizes - the pages and entries of database dbi, called name */
static void
db_sizes(MDB_txn *txn, MDB_dbi dbi, const char *name)
{
	unsigned long long kb = 0, vb = 0;
	MDB_cursor *cur;
	MDB_stat ms;
	MDB_val k, v;
	double n;
	int rc;

	if (mdb_stat(txn, dbi, &ms) != 0 || mdb_cursor_open(txn, dbi, &cur))
		bench_die(name, "cannot be looked at");
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0;
	    rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT))
		kb += k.mv_size, vb += v.mv_size;
	mdb_cursor_close(cur);
	n = ms.ms_entries > 0 ? (double)ms.ms_entries : 1;
	printf("index_db_%s %.1f MiB\n", name, (double)(ms.ms_branch_pages +
	    ms.ms_leaf_pages + ms.ms_overflow_pages) * ms.ms_psize / 1048576);
	printf("index_db_%s_pages %zu branch %zu leaf %zu overflow\n", name,
	    ms.ms_branch_pages, ms.ms_leaf_pages, ms.ms_overflow_pages);
	printf("index_db_%s_entries %zu entries\n", name, ms.ms_entries);
	printf("index_db_%s_entry %.1f key_bytes %.1f value_bytes\n", name,
	    (double)kb / n, (double)vb / n);
}

/*
 * sizes - where the bytes of the index at dir go: each database named in
 * its main one, the pages kept for reuse, the rest
 */
static void
sizes(const char *dir)
{
	unsigned long long freed = 0;
	char name[128];
	MDB_env *env;
	MDB_txn *txn;
	MDB_dbi main, dbi;
	MDB_cursor *cur;
	MDB_envinfo info;
	MDB_stat ms;
	MDB_val k, v;
	int rc;

	if (mdb_env_create(&env) != 0)
		bench_die(dir, "cannot be looked at");
	mdb_env_set_maxdbs(env, 16);
	if (mdb_env_open(env, dir, MDB_RDONLY | MDB_NOLOCK, 0600) != 0 ||
	    mdb_txn_begin(env, NULL, MDB_RDONLY, &txn) != 0 ||
	    mdb_dbi_open(txn, NULL, 0, &main) != 0 ||
	    mdb_cursor_open(txn, main, &cur) != 0)
		bench_die(dir, "cannot be read as LMDB");
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0;
	    rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
		snprintf(name, sizeof(name), "%.*s", (int)k.mv_size,
		    (char *)k.mv_data);
		if (mdb_dbi_open(txn, name, 0, &dbi) == 0)
			db_sizes(txn, dbi, name);
	}
	mdb_cursor_close(cur);
	/* The free list: per transaction, a count and the page numbers. */
	if (mdb_cursor_open(txn, 0, &cur) != 0)
		bench_die(dir, "has no free list");
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0;
	    rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT))
		if (v.mv_size >= sizeof(size_t))
			freed += *(const size_t *)v.mv_data;
	mdb_cursor_close(cur);
	mdb_env_info(env, &info);
	mdb_env_stat(env, &ms);
	printf("index_free %.1f MiB\n", (double)freed * ms.ms_psize /
	    1048576);
	printf("index_in_use %.1f MiB\n", ((double)info.me_last_pgno + 1 -
	    (double)freed) * ms.ms_psize / 1048576);
	mdb_txn_abort(txn);
	mdb_env_close(env);
}

/* evict - drop the index file's pages from the page cache (best effort) */
static void
evict(const char *dir)
{
	char data[1100];
	int fd;

	snprintf(data, sizeof(data), "%s/data.mdb", dir);
	if ((fd = open(data, O_RDONLY)) == -1)
		bench_die(data, strerror(errno));
	fdatasync(fd);
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	close(fd);
}

/* run_self - this program again, in a new process, with mode and dir */
static void
run_self(const char *mode, const char *dir, const char *tag)
{
	char n[32], cnt[32];
	pid_t pid;
	int status;

	fflush(stdout);
	snprintf(n, sizeof(n), "%lu", ntriples);
	snprintf(cnt, sizeof(cnt), "%lu:%lu", ndocs, nlookups);
	if ((pid = fork()) == -1)
		bench_die("fork", strerror(errno));
	if (pid == 0) {
		execl("/proc/self/exe", "bench-index", mode, dir, n, cnt, tag,
		    (char *)NULL);
		fprintf(stderr, "bench-index: exec: %s\n", strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &status, 0) == -1 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0)
		bench_die(mode, "the measuring process failed");
}

/* cold - open a not yet opened index and look one ID up */
static void
cold(const char *dir)
{
	struct att_hit hits[4];
	struct att_triple t;
	struct attindex *h;
	struct pa_err err;
	char attid[MSGHASH_ATTID_LEN + 1];
	double t0, t1, t2;
	size_t n;

	gen_triple(&t, 0);
	attid_of(attid, &t);
	t0 = bench_now();
	if (attindex_open(&h, dir, 0, &err) != 0)
		bench_die(dir, err.msg);
	t1 = bench_now();
	if (attindex_lookup(h, attid, hits, 4, &n, &err) != 0)
		bench_die("lookup", err.msg);
	t2 = bench_now();
	if (n != 1)
		bench_die("lookup", "the first document is not found");
	attindex_close(h);
	printf("cold_open_%s %.3f ms\n", runtag, (t1 - t0) * 1e3);
	printf("cold_open_first_lookup_%s %.3f ms\n", runtag,
	    (t2 - t0) * 1e3);
}

/* status_kib - a "Name:  N kB" line of /proc/self/status, or -1 */
static long
status_kib(const char *name)
{
	char line[256];
	size_t len = strlen(name);
	long v = -1;
	FILE *f;

	if ((f = fopen("/proc/self/status", "r")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, name, len) == 0 && line[len] == ':') {
			v = strtol(line + len + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

/*
 * pass - nlookups timed lookups, 90% known and 10% unknown IDs, reported
 * with prefix name; the same sequence on every pass.  checked: each one
 * after the milter's look at the data file (attindex_replaced), timed
 * together.
 */
static void
pass(struct attindex *h, const char *name, int checked)
{
	static uint32_t hist[HIST_BUCKETS];
	struct att_hit hits[8];
	struct att_triple t;
	struct pa_err err;
	struct timespec a, b;
	char attid[MSGHASH_ATTID_LEN + 1];
	unsigned long i, known = 0, found = 0, wrong = 0, c;
	uint64_t r = 12345, ns, maxns = 0, sum = 0;
	const double q[] = { 0.50, 0.99, 0.999 };
	const char *qn[] = { "p50", "p99", "p99.9" };
	size_t n, k;
	double t0, t1;

	memset(hist, 0, sizeof(hist));
	t0 = bench_now();
	for (i = 0; i < nlookups; i++) {
		r = bench_mix(r);
		if (r % 10 != 0) {
			gen_triple(&t, (r >> 8) % (ndocs * ntriples));
			known++;
		} else
			gen_triple(&t, MISS_SEED + (r >> 8));
		attid_of(attid, &t);
		clock_gettime(CLOCK_MONOTONIC, &a);
		if (checked && attindex_replaced(h))
			bench_die("lookup", "the index was replaced");
		if (attindex_lookup(h, attid, hits, 8, &n, &err) != 0)
			bench_die("lookup", err.msg);
		clock_gettime(CLOCK_MONOTONIC, &b);
		ns = (uint64_t)(b.tv_sec - a.tv_sec) * 1000000000u +
		    (uint64_t)b.tv_nsec - (uint64_t)a.tv_nsec;
		sum += ns;
		if (ns > maxns)
			maxns = ns;
		hist[ns / HIST_STEP_NS < HIST_BUCKETS ? ns / HIST_STEP_NS :
		    HIST_BUCKETS - 1]++;
		if (n > 0) {
			found++;
			if (memcmp(&hits[0].t, &t, sizeof(t)) != 0)
				wrong++;
		}
	}
	t1 = bench_now();
	if (found != known || wrong != 0)
		bench_die("lookup", "a known ID was not found or came back wrong");
	printf("%s_found %lu of_%lu_known\n", name, found, known);
	printf("%s_rate %.0f lookups/s\n", name, (double)nlookups /
	    (t1 - t0));
	printf("%s_mean %.2f us\n", name, (double)sum / (double)nlookups /
	    1e3);
	for (k = 0; k < 3; k++) {
		for (c = 0, i = 0; i < HIST_BUCKETS; i++)
			if ((c += hist[i]) >= (unsigned long)(q[k] *
			    (double)nlookups + 0.5))
				break;
		printf("%s_%s %.2f us\n", name, qn[k],
		    (double)((i + 1) * HIST_STEP_NS) / 1e3);
	}
	printf("%s_max %.2f us\n", name, (double)maxns / 1e3);
}

/*
 * lookups - a first pass (every page touched for the first time by this
 * process: page faults) and a second, warm one (the milter's steady
 * state), then the memory of the process.
 */
static void
lookups(const char *dir)
{
	struct attindex *h;
	struct pa_err err;
	struct rusage ru;

	if (attindex_open(&h, dir, 0, &err) != 0)
		bench_die(dir, err.msg);
	printf("lookup_count %lu lookups\n", nlookups);
	pass(h, "lookup", 0);
	pass(h, "lookup_warm", 0);
	pass(h, "lookup_checked", 1);
	getrusage(RUSAGE_SELF, &ru);
	printf("lookup_maxrss %.1f MiB\n", (double)ru.ru_maxrss / 1024);
	printf("lookup_rss_anon %.1f MiB\n", (double)status_kib("RssAnon") /
	    1024);
	printf("lookup_rss_file %.1f MiB\n", (double)status_kib("RssFile") /
	    1024);
	attindex_close(h);
}

int
main(int argc, char *argv[])
{
	char dir[1024], *colon;
	const char *tmp;
	int ch, keep = 0;

	bench_name = "bench-index";
	if (argc == 6 && argv[1][0] == '-' && argv[1][1] == '-') {
		/* A measuring process: MODE DIR TRIPLES DOCS:LOOKUPS TAG */
		ntriples = bench_getnum(argv[3], 1, MAX_TRIPLES);
		if ((colon = strchr(argv[4], ':')) == NULL)
			bench_die(argv[4], "not DOCS:LOOKUPS");
		*colon = '\0';
		ndocs = bench_getnum(argv[4], 1, 1ul << 30);
		nlookups = bench_getnum(colon + 1, 1, 1ul << 34);
		runtag = argv[5];
		if (strcmp(argv[1], "--cold") == 0)
			cold(argv[2]);
		else if (strcmp(argv[1], "--lookup") == 0)
			lookups(argv[2]);
		else
			bench_die(argv[1], "unknown mode");
		return 0;
	}
	while ((ch = getopt(argc, argv, "b:d:kl:t:")) != -1) {
		switch (ch) {
		case 'k':
			keep = 1;
			break;
		case 'b':
			batch = bench_getnum(optarg, 1, 1ul << 24);
			break;
		case 'd':
			ndocs = bench_getnum(optarg, 1, 1ul << 30);
			break;
		case 'l':
			nlookups = bench_getnum(optarg, 1, 1ul << 34);
			break;
		case 't':
			ntriples = bench_getnum(optarg, 1, MAX_TRIPLES);
			break;
		default:
			fprintf(stderr, "usage: bench-index [-k] [-d DOCS] "
			    "[-t TRIPLES] [-b BATCH] [-l LOOKUPS]\n");
			return 2;
		}
	}
	tmp = getenv("TMPDIR");
	snprintf(dir, sizeof(dir), "%.1000s/bench-index.XXXXXX",
	    tmp != NULL && *tmp != '\0' ? tmp : "/tmp");
	if (mkdtemp(dir) == NULL)
		bench_die(dir, strerror(errno));
	build(dir);
	sizes(dir);
	evict(dir);
	run_self("--cold", dir, "evicted");
	run_self("--cold", dir, "cached");
	run_self("--lookup", dir, "");
	if (keep)
		fprintf(stderr, "bench-index: the index is kept in %s\n", dir);
	else
		bench_rmtree(dir);
	return 0;
}
