/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * metrics.c - what the milter counts, and the Prometheus text format
 * (version 0.0.4) of it for metrics-http.c.
 *
 * The counters are atomics bumped by the callbacks' threads without a
 * lock; a scrape reads each one on its own, so two counters of one
 * message may be a message apart in a scrape, never more.  The gauges
 * (the index, the keyring, the journal) are read when scraped.
 */
#include "config.h"

#include <sys/stat.h>

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "milter.h"

#define NVERDICTS	(VERDICT_TEMPERROR + 1)
#define NSCHEMES	(SCHEME_PATATT + 1)
#define KEYRING_DEPTH	6	/* ALGO/DOMAIN/USER/SELECTOR and a spare */
#define KEYRING_FILES	200000	/* files counted at most */
#define KEYRING_EVERY	60	/* seconds a count of them serves */

/*
 * The verdicts that can be counted under each label, a bit each: their
 * series are served from the start (at zero, so that a rate sees the
 * first one), and no others, which a dashboard would show as traffic
 * that cannot exist.  A count that lands outside them (a verdict added
 * to the decider and not here) is still served, from its first.
 */
#define V(v)		(1u << (v))
#define ALL_VERDICTS	(V(NVERDICTS) - 1)
/* what a signature can get: never unsigned-by-signer (a message's) */
#define SIG_VERDICTS	(ALL_VERDICTS & ~V(VERDICT_UNSIGNED_BY_SIGNER))

/*
 * The a= of patatt signatures; anything else counts as the last.  Only
 * an OpenPGP key expires, is revoked or is judged by a trust model
 * (untrusted); a signature that cannot be used (no b=, b= not Base64, no
 * usable identity) is none, and under an algorithm we do not know it is
 * nothing else, or temperror when the signatures could not be read at
 * all.
 */
static const struct {
	const char	*name;
	unsigned	 verdicts;
} algorithms[] = {
	{ "ed25519-sha256", SIG_VERDICTS & ~V(VERDICT_UNTRUSTED) },
	{ "openpgp-sha256", SIG_VERDICTS },
	{ "openssh-sha256", SIG_VERDICTS & ~V(VERDICT_UNTRUSTED) },
	{ "unknown", V(VERDICT_NONE) | V(VERDICT_TEMPERROR) }
};
#define NALGOS	(sizeof(algorithms) / sizeof(algorithms[0]))

/*
 * The scheme that gave a message its verdict (decide.h), and the
 * verdicts each gives: a patch without a document is scheme none, never
 * v0.1, and so are what signer memory makes of it and a message that
 * could not be judged.
 */
static const struct {
	const char	*name;
	unsigned	 verdicts;
} schemes[NSCHEMES] = {
	[SCHEME_NONE] = { "none", V(VERDICT_NONE) |
	    V(VERDICT_UNSIGNED_BY_SIGNER) | V(VERDICT_TEMPERROR) },
	[SCHEME_V01] = { "v0.1", ALL_VERDICTS & ~V(VERDICT_NONE) },
	[SCHEME_PATATT] = { "patatt", ALL_VERDICTS }
};

static const char *const action_names[] = {
	[ACTION_ACCEPT] = "accept", [ACTION_REJECT] = "reject",
	[ACTION_TEMPFAIL] = "tempfail", [ACTION_QUARANTINE] = "quarantine"
};
#define NACTIONS	(sizeof(action_names) / sizeof(action_names[0]))

/* Upper bounds of the latency buckets, in nanoseconds and as written. */
static const struct {
	unsigned long long	 ns;
	const char		*le;
} buckets[] = {
	{ 1000000ULL, "0.001" }, { 2500000ULL, "0.0025" },
	{ 5000000ULL, "0.005" }, { 10000000ULL, "0.01" },
	{ 25000000ULL, "0.025" }, { 50000000ULL, "0.05" },
	{ 100000000ULL, "0.1" }, { 250000000ULL, "0.25" },
	{ 500000000ULL, "0.5" }, { 1000000000ULL, "1" },
	{ 2500000000ULL, "2.5" }, { 5000000000ULL, "5" },
	{ 10000000000ULL, "10" }
};
#define NBUCKETS	(sizeof(buckets) / sizeof(buckets[0]))

static atomic_ullong	messages[NVERDICTS][NSCHEMES];
static atomic_ullong	signatures[NALGOS][NVERDICTS];
static atomic_ullong	actions[NACTIONS];
static atomic_ullong	awaiting;
static atomic_ullong	forged;
static atomic_ullong	unrecorded;

static atomic_ullong	latency[NBUCKETS + 1];	/* the last: above all */
static atomic_ullong	latency_sum_ns;

static size_t
algorithm_of(const char *a)
{
	size_t i;

	for (i = 0; i < NALGOS - 1; i++)
		if (strcmp(a, algorithms[i].name) == 0)
			break;
	return i;
}

void
metrics_decided(const struct decision *d, const struct policy_outcome *o)
{
	atomic_fetch_add_explicit(&messages[d->result][d->scheme], 1,
	    memory_order_relaxed);
	if (d->has_patatt)
		atomic_fetch_add_explicit(&signatures[algorithm_of(d->algo)]
		    [d->patatt], 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&actions[o->action], 1,
	    memory_order_relaxed);
	if (o->awaiting)
		atomic_fetch_add_explicit(&awaiting, 1, memory_order_relaxed);
	if (d->unrecorded)
		atomic_fetch_add_explicit(&unrecorded, 1,
		    memory_order_relaxed);
}

void
metrics_forged(size_t n)
{
	atomic_fetch_add_explicit(&forged, n, memory_order_relaxed);
}

void
metrics_latency(const struct timespec *start)
{
	struct timespec end;
	long long ns;
	size_t i;

	clock_gettime(CLOCK_MONOTONIC, &end);
	ns = (long long)(end.tv_sec - start->tv_sec) * 1000000000LL +
	    (end.tv_nsec - start->tv_nsec);

	if (ns < 0)
		ns = 0;
	for (i = 0; i < NBUCKETS && (unsigned long long)ns > buckets[i].ns; i++)
		;
	atomic_fetch_add_explicit(&latency[i], 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&latency_sum_ns, (unsigned long long)ns,
	    memory_order_relaxed);
}

static unsigned long long
get(atomic_ullong *c)
{
	return atomic_load_explicit(c, memory_order_relaxed);
}

/* head - the HELP and TYPE lines of a metric */
static void
head(struct sbuf *out, const char *name, const char *type, const char *help)
{
	sbuf_addf(out, "# HELP patchattest_%s %s\n# TYPE patchattest_%s %s\n",
	    name, help, name, type);
}

static void
render_messages(struct sbuf *out)
{
	unsigned long long identical, differing, n;
	size_t v, s, a;

	head(out, "messages_total", "counter", "Patch and signed mail "
	    "decided, by result and by the scheme that gave it (none: no "
	    "document and no signature).");
	for (v = 0; v < NVERDICTS; v++)
		for (s = 0; s < NSCHEMES; s++)
			if ((n = get(&messages[v][s])) != 0 ||
			    (schemes[s].verdicts & V(v)))
				sbuf_addf(out, "patchattest_messages_total{"
				    "result=\"%s\",scheme=\"%s\"} %llu\n",
				    verdict_name((enum verdict)v),
				    schemes[s].name, n);
	head(out, "patatt_signatures_total", "counter", "Mail with patatt "
	    "signatures, by the algorithm and result of the one that "
	    "decided.");
	for (a = 0; a < NALGOS; a++)
		for (v = 0; v < NVERDICTS; v++)
			if ((n = get(&signatures[a][v])) != 0 ||
			    (algorithms[a].verdicts & V(v)))
				sbuf_addf(out, "patchattest_patatt_signatures_"
				    "total{algorithm=\"%s\",result=\"%s\"} "
				    "%llu\n", algorithms[a].name,
				    verdict_name((enum verdict)v), n);
	head(out, "actions_total", "counter", "Decided mail by what was done "
	    "with it.");
	for (a = 0; a < NACTIONS; a++)
		sbuf_addf(out, "patchattest_actions_total{action=\"%s\"} %llu\n",
		    action_names[a], get(&actions[a]));
	head(out, "awaiting_document_total", "counter", "Patches deferred "
	    "because their attestation may be on its way (AttestationWait).");
	sbuf_addf(out, "patchattest_awaiting_document_total %llu\n",
	    get(&awaiting));
	head(out, "forged_fields_removed_total", "counter", "Header fields "
	    "only we may write, found in incoming mail and removed.");
	sbuf_addf(out, "patchattest_forged_fields_removed_total %llu\n",
	    get(&forged));
	copylog_counts(&identical, &differing);
	head(out, "copies_total", "counter", "Mail whose Message-ID had "
	    "arrived before, by whether its content is the first copy's.");
	sbuf_addf(out, "patchattest_copies_total{content=\"identical\"} "
	    "%llu\n", identical);
	sbuf_addf(out, "patchattest_copies_total{content=\"differing\"} "
	    "%llu\n", differing);
}

static void
render_latency(struct sbuf *out)
{
	unsigned long long total = 0, sum;
	size_t i;

	head(out, "decision_duration_seconds", "histogram", "Time to decide "
	    "one message: hashes, signatures, lookups and its record (a "
	    "fault: the time to find it).");
	for (i = 0; i < NBUCKETS; i++) {
		total += get(&latency[i]);
		sbuf_addf(out, "patchattest_decision_duration_seconds_bucket{"
		    "le=\"%s\"} %llu\n", buckets[i].le, total);
	}
	total += get(&latency[NBUCKETS]);
	sbuf_addf(out, "patchattest_decision_duration_seconds_bucket{"
	    "le=\"+Inf\"} %llu\n", total);
	sum = get(&latency_sum_ns);
	sbuf_addf(out, "patchattest_decision_duration_seconds_sum %llu.%09llu\n"
	    "patchattest_decision_duration_seconds_count %llu\n",
	    sum / 1000000000ULL, sum % 1000000000ULL, total);
}

/* key_files - files below the folder dirfd, depth levels at most */
static void
key_files(int dirfd, int depth, size_t *n, time_t *newest)
{
	struct dirent *e;
	struct stat st;
	DIR *dir;
	int fd;

	if ((dir = fdopendir(dirfd)) == NULL) {
		close(dirfd);
		return;
	}
	while (*n < KEYRING_FILES && (e = readdir(dir)) != NULL) {
		if (e->d_name[0] == '.' ||
		    fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		/* a link to a key file counts; a link to a folder is not
		   followed (it could lead back up) */
		if (S_ISLNK(st.st_mode) &&
		    fstatat(dirfd, e->d_name, &st, 0) == 0 &&
		    !S_ISREG(st.st_mode))
			continue;
		if (S_ISREG(st.st_mode)) {
			(*n)++;
			if (st.st_mtime > *newest)
				*newest = st.st_mtime;
		} else if (S_ISDIR(st.st_mode) && depth > 1 &&
		    (fd = openat(dirfd, e->d_name, O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC)) != -1)
			key_files(fd, depth - 1, n, newest);
	}
	closedir(dir);
}

/*
 * render_keyring - the keyring folders' files, counted again once
 * KEYRING_EVERY seconds have passed: a keyring of ten thousand files
 * takes a good part of a second to walk
 */
static void
render_keyring(struct sbuf *out, const struct pa_config *cf, time_t now)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static time_t counted_at, newest;
	static size_t n;
	size_t i;
	int fd;

	pthread_mutex_lock(&lock);
	if (counted_at == 0 || now - counted_at >= KEYRING_EVERY ||
	    now < counted_at) {
		n = 0;
		newest = 0;
		for (i = 0; i < cf->patatt_keyrings.n; i++)
			if ((fd = open(cf->patatt_keyrings.v[i], O_RDONLY |
			    O_DIRECTORY | O_CLOEXEC)) != -1)
				key_files(fd, KEYRING_DEPTH, &n, &newest);
		counted_at = now;
	}
	head(out, "keyring_keys", "gauge", "Key files in the PatattKeyring "
	    "folders.");
	sbuf_addf(out, "patchattest_keyring_keys %zu\n", n);
	head(out, "keyring_age_seconds", "gauge", "Seconds since the newest "
	    "key file of the PatattKeyring folders changed.");
	if (newest != 0)
		sbuf_addf(out, "patchattest_keyring_age_seconds %lld\n",
		    (long long)(now - newest));
	pthread_mutex_unlock(&lock);
}

/* render_state_file - StateFile's size, when it is a file of its own */
static void
render_state_file(struct sbuf *out, const struct state_gauges *sg)
{
	head(out, "state_file_size_bytes", "gauge", "Size of StateFile.");
	if (sg->ledger_sized)
		sbuf_addf(out, "patchattest_state_file_size_bytes %llu\n",
		    (unsigned long long)sg->ledger_size.file);
	head(out, "state_file_used_bytes", "gauge", "Bytes of StateFile in "
	    "use (records, their indexes, habits); LMDB reuses the rest.");
	if (sg->ledger_sized)
		sbuf_addf(out, "patchattest_state_file_used_bytes %llu\n",
		    (unsigned long long)sg->ledger_size.used);
	head(out, "state_file_max_bytes", "gauge", "StateMaxSize: the bytes "
	    "of StateFile in use at most; the oldest records go beyond.");
	if (sg->ledger_sized)
		sbuf_addf(out, "patchattest_state_file_max_bytes %llu\n",
		    (unsigned long long)sg->ledger_size.max);
}

static void
render_state(struct sbuf *out, time_t now)
{
	struct state_gauges sg;

	state_gauges(&sg);
	head(out, "index_age_seconds", "gauge", "Seconds since the index of "
	    "2020 documents last changed.");
	if (sg.index_known)
		sbuf_addf(out, "patchattest_index_age_seconds %lld\n",
		    (long long)(now - sg.index_changed));
	head(out, "index_size_bytes", "gauge", "Size of the index's data "
	    "file.");
	if (sg.index_known)
		sbuf_addf(out, "patchattest_index_size_bytes %lld\n",
		    sg.index_bytes);
	head(out, "state_errors_total", "counter", "Faults of the state "
	    "stores: ledger or pins that could not be opened, mail whose "
	    "arrival record could not be written.");
	sbuf_addf(out, "patchattest_state_errors_total{kind=\"ledger\"} %llu\n"
	    "patchattest_state_errors_total{kind=\"pins\"} %llu\n"
	    "patchattest_state_errors_total{kind=\"unrecorded\"} %llu\n",
	    sg.ledger_faults, sg.pins_faults, get(&unrecorded));
	head(out, "state_journal_depth", "gauge", "Arrival records waiting "
	    "to be written.");
	sbuf_addf(out, "patchattest_state_journal_depth %zu\n",
	    sg.journal_depth);
	head(out, "state_journal_damage_total", "counter", "Damage found in "
	    "the journal of arrival records (StateDatabase), each time.");
	sbuf_addf(out, "patchattest_state_journal_damage_total %llu\n",
	    sg.journal_damage);
	head(out, "state_journal_lost_records_total", "counter", "Arrival "
	    "records known lost to damage in the journal.");
	sbuf_addf(out, "patchattest_state_journal_lost_records_total %llu\n",
	    sg.journal_lost);
	head(out, "state_journal_set_aside_bytes_total", "counter", "Damaged "
	    "bytes of the journal kept in the file beside it "
	    "(StateFile-outbox-damaged).");
	sbuf_addf(out, "patchattest_state_journal_set_aside_bytes_total "
	    "%llu\n", sg.journal_aside);
	render_state_file(out, &sg);
}

int
metrics_render(struct sbuf *out)
{
	struct generation *g;
	time_t now = time(NULL);

	render_messages(out);
	render_latency(out);
	render_state(out, now);
	g = state_hold();
	render_keyring(out, &g->cf, now);
	state_release(g);
	return sbuf_failed(out) ? PA_ETOOBIG : 0;
}
