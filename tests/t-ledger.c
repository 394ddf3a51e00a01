/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t-ledger - the arrival records and signing habits (lib/state/ledger*)
 * on real LMDB files: every field back as written; a second copy of a
 * Message-ID kept beside the first; Message-IDs of 100 KiB and with a
 * NUL byte; the habit rules; retention; records and a file of the
 * codec's first version, read and expired; a bound on the file's size
 * held through a flood (from few authors, and from as many as records);
 * records written by threads at once; the file empty, of random bytes,
 * of something else or cut short, and a record damaged in it: each an
 * error naming it; a full disk (a small tmpfs, when the test may mount
 * one): records stay queued, ledger_record() says why once the queue is
 * full, and they are written once when space returns.
 */
#include "config.h"

#include <sys/mount.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <lmdb.h>

#include "patchattest.h"
#include "base.h"
#include "state.h"
#include "ledger-codec.h"	/* LEDGER_VALUE_MAX */
#include "ledger-int.h"	/* ledger_grow(), to grow the map at once */
#include "tap.h"

#define DAY		86400
#define BOUND		((uint64_t)2 << 20)	/* a small max_size */
#define FLOOD		((time_t)1800000000)	/* a flood begins */
#define QUEUE		4096	/* LEDGER_QUEUE_MAX */

static char dir[256];

/* at - a path in the scratch folder */
static const char *
at(const char *name)
{
	static char path[2][512];
	static int turn;

	turn ^= 1;
	snprintf(path[turn], sizeof(path[turn]), "%s/%s", dir, name);
	return path[turn];
}

/* fill - every field of a, told apart by n */
static void
fill(struct arrival *a, int n, time_t when)
{
	char id[64];

	memset(a, 0, sizeof(*a));
	snprintf(id, sizeof(id), "msg%d@example.org", n);
	arrival_set_message_id(a, id, strlen(id));
	a->arrived = when;
	snprintf(a->envelope_from, sizeof(a->envelope_from),
	    "bounce%d@example.org", n);
	snprintf(a->author, sizeof(a->author), "Dev %d <dev%d@example.org>",
	    n, n);
	snprintf(a->identity, sizeof(a->identity), "dev%d@example.org", n);
	snprintf(a->subject, sizeof(a->subject), "[PATCH %d/9] fix %d", n, n);
	snprintf(a->list_id, sizeof(a->list_id), "<list%d.example.org>", n);
	a->has_patch = 1;
	snprintf(a->i, sizeof(a->i), "%064x", n + 1);
	snprintf(a->m, sizeof(a->m), "%064x", n + 2);
	snprintf(a->p, sizeof(a->p), "%064x", n + 3);
	snprintf(a->m_core, sizeof(a->m_core), "%064x", n + 4);
	snprintf(a->patch_id, sizeof(a->patch_id), "%040x", n + 5);
	snprintf(a->trailers, sizeof(a->trailers),
	    "Signed-off-by: Dev %d <dev%d@example.org>\nLink: x\n", n, n);
	snprintf(a->result, sizeof(a->result), "pass");
	snprintf(a->v01, sizeof(a->v01), "none");
	snprintf(a->patatt, sizeof(a->patatt), "pass");
	snprintf(a->key, sizeof(a->key), "openpgp/dev%d@example.org/default",
	    n);
	a->signed_trusted = 1;
	snprintf(a->dkim, sizeof(a->dkim), "example.org");
}

/* collect - a callback: each record into an array of 8 */
struct got {
	struct arrival	 a[8];
	int		 n;
};

static int
collect(void *arg, const struct arrival *a)
{
	struct got *g = arg;

	if (g->n < 8)
		g->a[g->n] = *a;
	g->n++;
	return 0;
}

static int
count(void *arg, const struct arrival *a)
{
	(void)a;
	++*(int *)arg;
	return 0;
}

/* same - a and b differ in no field but copy (b has the one stored) */
static int
same(const struct arrival *a, const struct arrival *b)
{
	struct arrival x = *a;

	x.copy = b->copy;
	return memcmp(&x, b, sizeof(x)) == 0;
}

static void
test_round_trip(void)
{
	struct ledger *l;
	struct arrival a, b;
	struct got g = { .n = 0 };
	struct pa_err err;
	int n = 0;

	tap_check_int(ledger_open(&l, at("l.mdb"), 0, 1, 0, 0, &err),
	    PA_ENOTFOUND, "missing, not to be made: PA_ENOTFOUND");
	if (!tap_check_int(ledger_open(&l, at("l.mdb"), 1, 1, 0, 0, &err), 0,
	    "missing, made"))
		return;
	fill(&a, 1, 1700000000);
	tap_check_int(ledger_record(l, &a, &err), 0, "a record queued");
	tap_check_int(ledger_sync(l, &err), 0, "... and written");
	tap_check_int(ledger_by_message_id(l, "msg1@example.org", collect,
	    &g, &err), 0, "found by Message-ID");
	tap_check_int(g.n, 1, "... once");
	tap_check_int(g.a[0].copy, 1, "... as copy 1");
	tap_check(same(&a, &g.a[0]), "... every field as written");
	g.n = 0;
	tap_check_int(ledger_by_patch_id(l, a.patch_id, collect, &g, &err), 0,
	    "found by patch-id");
	tap_check(g.n == 1 && same(&a, &g.a[0]), "... the same record");
	tap_check_int(ledger_by_message_id(l, "msg2@example.org", collect,
	    &g, &err), PA_ENOTFOUND, "another Message-ID: PA_ENOTFOUND");
	tap_check_int(ledger_by_patch_id(l, "not hex", collect, &g, &err),
	    PA_ENOTFOUND, "a patch-id that is none: PA_ENOTFOUND");
	fill(&b, 2, 1700000100);
	b.has_patch = 0;
	ledger_record(l, &b, &err);
	ledger_close(l);
	tap_check_int(ledger_open(&l, at("l.mdb"), 0, 0, 0, 0, &err), 0,
	    "closed (committing what was queued) and opened read-only");
	tap_check_int(ledger_each(l, 1700000000, 1700000101, count, &n, &err),
	    0, "ledger_each over both");
	tap_check_int(n, 2, "... finds both");
	n = 0;
	ledger_each(l, 1700000001, 1700000100, count, &n, &err);
	tap_check_int(n, 0, "... and none in [t+1, t+100)");
	tap_check_int(ledger_by_patch_id(l, b.patch_id, count, &n, &err),
	    PA_ENOTFOUND, "a mail without a patch is not under its patch-id");
	tap_check_int(ledger_record(l, &a, &err), PA_ERROR,
	    "read-only: ledger_record refuses");
	ledger_close(l);
	unlink(at("l.mdb-lock"));
	tap_check_int(ledger_check(at("l.mdb"), &err), 0, "ledger_check");
	tap_check(access(at("l.mdb-lock"), F_OK) != 0,
	    "... makes no lock file");
	tap_check_int(ledger_check(at("none.mdb"), &err), PA_ENOTFOUND,
	    "... of a file not there: PA_ENOTFOUND");
}

static void
test_copies(void)
{
	static char huge[100 * 1024 + 1];
	struct ledger *l;
	struct arrival a;
	struct got g = { .n = 0 };
	struct pa_err err;

	if (!tap_check_int(ledger_open(&l, at("copies.mdb"), 1, 1, 0, 0, &err),
	    0, "a ledger for copies"))
		return;
	fill(&a, 1, 1000);
	ledger_record(l, &a, &err);
	fill(&a, 2, 2000);
	arrival_set_message_id(&a, "msg1@example.org", 16);
	ledger_record(l, &a, &err);
	memset(huge, 'h', sizeof(huge) - 1);
	fill(&a, 3, 3000);
	arrival_set_message_id(&a, huge, sizeof(huge) - 1);
	ledger_record(l, &a, &err);
	huge[sizeof(huge) - 2] = 'H';	/* the same first 511 bytes */
	fill(&a, 4, 4000);
	arrival_set_message_id(&a, huge, sizeof(huge) - 1);
	ledger_record(l, &a, &err);
	fill(&a, 5, 5000);
	arrival_set_message_id(&a, "nul\0byte@example.org", 20);
	ledger_record(l, &a, &err);
	fill(&a, 6, 6000);
	memset(a.message_id_sha256, 0, sizeof(a.message_id_sha256));
	snprintf(a.message_id, sizeof(a.message_id), "plain@example.org");
	ledger_record(l, &a, &err);
	tap_check_int(ledger_sync(l, &err), 0, "written");

	tap_check_int(ledger_by_message_id(l, "msg1@example.org", collect,
	    &g, &err), 0, "a Message-ID that came twice");
	tap_check_int(g.n, 2, "... both copies kept");
	tap_check(g.a[0].copy == 1 && g.a[1].copy == 2 &&
	    strcmp(g.a[0].subject, "[PATCH 1/9] fix 1") == 0 &&
	    strcmp(g.a[1].subject, "[PATCH 2/9] fix 2") == 0,
	    "... copy 1 the first, copy 2 the second, in order");
	g.n = 0;
	tap_check_int(ledger_by_message_id(l, huge, collect, &g, &err), 0,
	    "a Message-ID of 100 KiB");
	tap_check(g.n == 1 && g.a[0].arrived == 4000 && g.a[0].copy == 1,
	    "... found by all of it: not the other with its first bytes");
	tap_check_int((long long)strlen(g.a[0].message_id), 511,
	    "... its first 511 bytes kept");
	g.n = 0;
	tap_check_int(ledger_by_message_id_bytes(l, "nul\0byte@example.org",
	    20, collect, &g, &err), 0, "a Message-ID with a NUL byte");
	tap_check(g.n == 1 && g.a[0].arrived == 5000, "... is itself");
	tap_check_str(g.a[0].message_id, "nul", "... kept up to the NUL");
	tap_check_int(ledger_by_message_id(l, "nul", collect, &g, &err),
	    PA_ENOTFOUND, "... and \"nul\" is another Message-ID");
	g.n = 0;
	tap_check_int(ledger_by_message_id(l, "plain@example.org", collect,
	    &g, &err), 0, "a record whose Message-ID was copied in, unhashed");
	tap_check(g.n == 1 && g.a[0].arrived == 6000, "... is found by it");
	ledger_close(l);
}

/* signed_by - record a patch mail of who, signed with key ("" unsigned) */
static void
patch_of(struct ledger *l, const char *who, const char *key, time_t when)
{
	static int n;
	struct arrival a;
	struct pa_err err;

	fill(&a, 100 + n++, when);
	snprintf(a.identity, sizeof(a.identity), "%s", who);
	snprintf(a.key, sizeof(a.key), "%s", key);
	a.signed_trusted = key[0] != '\0';
	ledger_record(l, &a, &err);
}

static void
test_habit(void)
{
	struct ledger *l;
	struct habit h;
	struct arrival a;
	struct pa_err err;
	int i;

	if (!tap_check_int(ledger_open(&l, at("habit.mdb"), 1, 1, 0, 0, &err),
	    0, "a ledger for habits"))
		return;
	for (i = 0; i < 5; i++)
		patch_of(l, "sig@example.org", "openpgp/K1", 100 + i);
	patch_of(l, "sig@example.org", "", 200);
	fill(&a, 50, 300);
	snprintf(a.identity, sizeof(a.identity), "sig@example.org");
	a.has_patch = 0;	/* a cover letter: not counted */
	ledger_record(l, &a, &err);
	ledger_sync(l, &err);
	tap_check_int(ledger_habit(l, "sig@example.org", &h, &err), 0,
	    "five signed patches, one unsigned, a cover letter");
	tap_check(h.recent == 6 && h.recent_signed == 5 && h.run == 0,
	    "... recent 6, recent_signed 5, run 0 (%u %u %u)", h.recent,
	    h.recent_signed, h.run);
	tap_check_str(h.key, "openpgp/K1", "... key the one it signed with");
	tap_check(h.first_signed == 100 && h.last_signed == 104,
	    "... first and last signed");
	patch_of(l, "sig@example.org", "openpgp/K1", 400);
	patch_of(l, "sig@example.org", "openpgp/K1", 401);
	patch_of(l, "sig@example.org", "ed25519/K2", 402);
	ledger_sync(l, &err);
	ledger_habit(l, "sig@example.org", &h, &err);
	tap_check(h.recent == 9 && h.recent_signed == 8 && h.run == 1,
	    "then K1 twice and K2: recent 9, recent_signed 8, run 1 "
	    "(%u %u %u)", h.recent, h.recent_signed, h.run);
	tap_check_str(h.key, "ed25519/K2", "... key K2");
	for (i = 0; i < 40; i++)
		patch_of(l, "sig@example.org", "ed25519/K2", 500 + i);
	ledger_sync(l, &err);
	ledger_habit(l, "sig@example.org", &h, &err);
	tap_check(h.recent == HABIT_WINDOW && h.recent_signed == HABIT_WINDOW
	    && h.run == 41, "40 more with K2: the window full, run 41 "
	    "(%u %u %u)", h.recent, h.recent_signed, h.run);
	tap_check_int(ledger_habit(l, "nobody@example.org", &h, &err),
	    PA_ENOTFOUND, "an identity never seen: PA_ENOTFOUND");
	ledger_close(l);
}

/* raw_count - entries of the named database in the LMDB file at path */
/*
 * test_lookup - a message's habit and the copies of its Message-ID, in
 * one read (state_lookup() on a ledger file): written ones and one still
 * queued, each part said apart
 */
static void
test_lookup(void)
{
	static struct got g;
	static struct state_lookup out;
	struct state_ask ask = { NULL, 0, "dev7@example.org", NULL, collect,
		&g };
	struct ledger *l;
	struct arrival a;
	struct pa_err err;

	if (!tap_check_int(ledger_open(&l, at("lookup.mdb"), 1, 1, 0, 0,
	    &err), 0, "a ledger for lookups"))
		return;
	fill(&a, 7, 100);
	ledger_record(l, &a, &err);
	ledger_sync(l, &err);
	a.arrived = 200;
	ledger_record(l, &a, &err);	/* a second copy, maybe queued */
	ask.message_id_sha256 = a.message_id_sha256;
	state_lookup(NULL, l, &ask, &out);
	tap_check(out.habit_rc == 0 && out.habit.recent == 1 &&
	    strcmp(out.habit.key, a.key) == 0, "lookup: the habit (%d %u)",
	    out.habit_rc, out.habit.recent);
	tap_check(out.copies_rc == 0 && g.n == 2 && g.a[0].copy == 1 &&
	    g.a[0].arrived == 100 && g.a[1].arrived == 200,
	    "... and both copies, in order (%d %d)", out.copies_rc, g.n);
	g.n = 0;
	ask.author = "nobody@example.org";
	fill(&a, 8, 300);
	ask.message_id_sha256 = a.message_id_sha256;
	state_lookup(NULL, l, &ask, &out);
	tap_check(out.habit_rc == PA_ENOTFOUND &&
	    out.copies_rc == PA_ENOTFOUND && g.n == 0,
	    "... an identity and a Message-ID never seen: PA_ENOTFOUND each");
	ask.author = NULL;
	ask.message_id_sha256 = NULL;
	state_lookup(NULL, l, &ask, &out);
	tap_check(out.habit_rc == PA_ENOTFOUND &&
	    out.copies_rc == PA_ENOTFOUND && g.n == 0,
	    "... nothing asked: nothing read");
	ledger_close(l);
}

static long
raw_count(const char *path, const char *name)
{
	MDB_env *env;
	MDB_txn *txn;
	MDB_dbi dbi;
	MDB_stat st;
	long n = -1;

	if (mdb_env_create(&env) != 0)
		return -1;
	mdb_env_set_maxdbs(env, 8);
	if (mdb_env_open(env, path, MDB_NOSUBDIR | MDB_RDONLY, 0600) == 0 &&
	    mdb_txn_begin(env, NULL, MDB_RDONLY, &txn) == 0) {
		if (mdb_dbi_open(txn, name, 0, &dbi) == 0 &&
		    mdb_stat(txn, dbi, &st) == 0)
			n = (long)st.ms_entries;
		mdb_txn_abort(txn);
	}
	mdb_env_close(env);
	return n;
}

static void
test_retention(void)
{
	struct ledger *l;
	struct arrival a;
	struct pa_err err;
	time_t now = time(NULL);
	int i, n = 0;

	if (!tap_check_int(ledger_open(&l, at("old.mdb"), 1, 1, 0, 0, &err), 0,
	    "a ledger kept for ever"))
		return;
	for (i = 0; i < 10; i++) {
		fill(&a, i, now - (i < 6 ? 500 : 10) * DAY);
		ledger_record(l, &a, &err);
	}
	ledger_close(l);
	tap_check(raw_count(at("old.mdb"), "records") == 10 &&
	    raw_count(at("old.mdb"), "msgid") == 10 &&
	    raw_count(at("old.mdb"), "patchid") == 10,
	    "10 records, 6 of them 500 days old, each in both indexes");
	if (!tap_check_int(ledger_open(&l, at("old.mdb"), 0, 1, 400, 0, &err),
	    0, "opened again keeping 400 days"))
		return;
	fill(&a, 20, now);
	ledger_record(l, &a, &err);
	ledger_sync(l, &err);
	ledger_each(l, 0, now + 1, count, &n, &err);
	tap_check_int(n, 5, "a new record: the 6 old ones are gone");
	tap_check_int(ledger_by_message_id(l, "msg0@example.org", count, &n,
	    &err), PA_ENOTFOUND, "... not found by Message-ID");
	fill(&a, 0, 0);
	tap_check_int(ledger_by_patch_id(l, a.patch_id, count, &n, &err),
	    PA_ENOTFOUND, "... nor by patch-id");
	ledger_close(l);
	tap_check(raw_count(at("old.mdb"), "records") == 5 &&
	    raw_count(at("old.mdb"), "msgid") == 5 &&
	    raw_count(at("old.mdb"), "patchid") == 5,
	    "... and their index entries are gone with them");
}

/* span - a callback: the records' numbers (from their arrival), in order */
struct span {
	time_t	 first, last;
	int	 n, gaps;
};

static int
span(void *arg, const struct arrival *a)
{
	struct span *s = arg;

	if (s->n++ == 0)
		s->first = a->arrived;
	else if (a->arrived != s->last + 1)
		s->gaps++;
	s->last = a->arrived;
	return 0;
}

/*
 * flood - records first..last-1 (fill()'s, a second apart from FLOOD),
 * unsigned, from authors made-up identities in turn: as the milter
 * writes them, a batch each 256
 */
static void
flood(struct ledger *l, int first, int last, int authors)
{
	struct arrival a;
	struct pa_err err;
	int n;

	for (n = first; n < last; n++) {
		fill(&a, n, FLOOD + n);
		snprintf(a.identity, sizeof(a.identity),
		    "made-up%d@example.org", n % authors);
		a.key[0] = '\0';
		a.signed_trusted = 0;
		ledger_record(l, &a, &err);
		if (n % 256 == 255)
			ledger_sync(l, &err);
	}
	ledger_sync(l, &err);
}

static void
test_bound(void)
{
	struct ledger *l;
	struct ledger_size sz;
	struct span s = { 0, 0, 0, 0 };
	struct habit h;
	struct pa_err err;
	uint64_t full;
	int i, n = 0;

	if (!tap_check_int(ledger_open(&l, at("bound.mdb"), 1, 1, 0, BOUND,
	    &err), 0, "a ledger of at most 2 MiB"))
		return;
	for (i = 0; i < 5; i++)
		patch_of(l, "sig@example.org", "openpgp/K1", FLOOD - 100 + i);
	flood(l, 0, 6000, 50);
	tap_check_int(ledger_size(l, &sz), 0, "6000 records: its size");
	tap_check(sz.max == BOUND && sz.used <= BOUND &&
	    sz.used > BOUND / 10 * 9 && sz.file >= sz.used,
	    "... in use up to the bound, no more (%llu of %llu; file %llu)",
	    (unsigned long long)sz.used, (unsigned long long)sz.max,
	    (unsigned long long)sz.file);
	full = sz.file;
	flood(l, 6000, 18000, 50);
	ledger_size(l, &sz);
	tap_check(sz.used <= BOUND && sz.file <= full + full / 20,
	    "12000 more: the file stops growing (%llu bytes, %llu in use; "
	    "%llu when first full)", (unsigned long long)sz.file,
	    (unsigned long long)sz.used, (unsigned long long)full);
	ledger_each(l, 0, FLOOD + 18000, span, &s, &err);
	tap_check(s.n > 1000 && s.n < 18000 && s.gaps == 0 &&
	    s.last == FLOOD + 17999, "the newest %d records are kept, without "
	    "a gap", s.n);
	tap_check_int(ledger_by_message_id(l, "msg17999@example.org", count,
	    &n, &err), 0, "... the last is found by Message-ID");
	tap_check_int(ledger_by_message_id(l, "msg0@example.org", count, &n,
	    &err), PA_ENOTFOUND, "... the first is gone");
	tap_check_int(ledger_habit(l, "sig@example.org", &h, &err), 0,
	    "its author's signing habit is kept");
	tap_check(h.recent == 5 && h.recent_signed == 5,
	    "... as it was: 5 of 5 signed");
	ledger_close(l);
	tap_check(raw_count(at("bound.mdb"), "msgid") == s.n &&
	    raw_count(at("bound.mdb"), "patchid") == s.n,
	    "the index entries of the records removed are gone with them");
}

/* test_made_up - a flood from as many authors as records */
static void
test_made_up(void)
{
	struct ledger *l;
	struct ledger_size sz;
	struct habit h;
	struct pa_err err;
	long habits;
	int i;

	if (!tap_check_int(ledger_open(&l, at("authors.mdb"), 1, 1, 0,
	    BOUND / 2, &err), 0, "a ledger of at most 1 MiB"))
		return;
	for (i = 0; i < 5; i++)
		patch_of(l, "sig@example.org", "openpgp/K1", FLOOD - 100 + i);
	flood(l, 0, 30000, 30000);
	ledger_size(l, &sz);
	tap_check(sz.used <= BOUND / 2, "30000 records from 30000 authors: "
	    "no more in use than the bound (%llu)",
	    (unsigned long long)sz.used);
	tap_check_int(ledger_habit(l, "sig@example.org", &h, &err), 0,
	    "... the signing habit is kept");
	ledger_close(l);
	habits = raw_count(at("authors.mdb"), "habits");
	tap_check(habits > 1 && habits < 30000, "... and some of the made-up "
	    "authors' habits are gone (%ld kept)", habits);
}

/* fixture - tests/fixtures/ledger/name, read whole (NULL: not there) */
static char *
fixture(const char *name, size_t *len)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/tests/fixtures/ledger/%s",
	    tap_srcdir(), name);
	return tap_read_file(path, len);
}

/*
 * test_old_values - a record and a habit as the first version of the
 * codec stored them (tests/fixtures/ledger/README) decode as they were
 * written, and again from today's form, which is smaller
 */
static void
test_old_values(void)
{
	unsigned char key[LEDGER_KEY_LEN];
	struct arrival want, got, again;
	struct habit_state hs;
	struct sbuf sb;
	size_t len, hlen;
	char *v1 = fixture("arrival-v1.val", &len);
	char *h1 = fixture("habit-v1.val", &hlen);

	if (!tap_check(v1 != NULL && h1 != NULL, "the version 1 fixtures")) {
		free(v1);
		free(h1);
		return;
	}
	fill(&want, 1, 1700000000);
	want.copy = 1;
	snprintf(want.algo, sizeof(want.algo), "ed25519-sha256");
	snprintf(want.selector, sizeof(want.selector), "patatt");
	ledger_time_key(key, 1700000000, 7);
	tap_check_int(ledger_decode_arrival(v1, len, key, sizeof(key), &got),
	    0, "a version 1 record decodes");
	tap_check(memcmp(&want, &got, sizeof(want)) == 0,
	    "... every field as it was written");
	sbuf_init(&sb, LEDGER_VALUE_MAX);
	tap_check_int(ledger_encode_arrival(&sb, key, sizeof(key), &got), 0,
	    "... written again");
	tap_check(sb.len > 0 && sb.buf[0] == 2 && sb.len < len * 2 / 3,
	    "... as version 2, %zu bytes (%zu in version 1)", sb.len, len);
	tap_check(ledger_decode_arrival(sb.buf, sb.len, key, sizeof(key),
	    &again) == 0 && memcmp(&want, &again, sizeof(want)) == 0,
	    "... which decodes to the same");
	tap_check_int(ledger_decode_arrival(v1, len, key, sizeof(key) - 1,
	    &got), PA_ERROR, "... and not under another key");
	v1[len / 2] ^= 1;
	tap_check_int(ledger_decode_arrival(v1, len, key, sizeof(key), &got),
	    PA_ERROR, "... nor with a byte changed");
	tap_check_int(ledger_decode_habit(h1, hlen, "dev1@example.org", 16,
	    &hs), 0, "a version 1 habit decodes");
	tap_check(hs.h.recent == 5 && hs.h.recent_signed == 4 &&
	    hs.h.run == 2 && hs.window == 0x1b &&
	    hs.h.first_signed == 1700000000 &&
	    hs.h.last_signed == 1700000004 &&
	    strcmp(hs.h.key, "openpgp/dev1@example.org/default") == 0,
	    "... as it was written");
	sbuf_release(&sb);
	free(v1);
	free(h1);
}

/*
 * test_old_file - a ledger file of version 1 records (four: msg1 twice,
 * msg2, msg3, arrived in 1970; tests/fixtures/ledger/README): read,
 * added to (a third copy of msg1), and its records expired by
 * retention with their index entries
 */
static void
test_old_file(void)
{
	struct ledger *l;
	struct arrival a;
	struct got g = { .n = 0 };
	struct habit h;
	struct pa_err err;
	size_t len;
	char *file;
	int n = 0;

	if (sizeof(size_t) != 8 || *(const unsigned char *)&(int){ 1 } != 1) {
		tap_skip("a version 1 file: LMDB's pages are those of a 64-bit "
		    "little-endian host");
		return;
	}
	if (!tap_check((file = fixture("state-v1.mdb", &len)) != NULL &&
	    tap_write_file(at("v1.mdb"), file, len) == 0,
	    "a copy of the version 1 file")) {
		free(file);
		return;
	}
	free(file);
	if (!tap_check_int(ledger_open(&l, at("v1.mdb"), 0, 1, 0, 0, &err), 0,
	    "... opens"))
		return;
	tap_check_int(ledger_by_message_id(l, "msg1@example.org", collect,
	    &g, &err), 0, "msg1 is found");
	tap_check(g.n == 2 && g.a[0].copy == 1 && g.a[1].copy == 2 &&
	    g.a[0].arrived == 1000 && g.a[1].arrived == 4000 &&
	    strcmp(g.a[1].subject, "[PATCH 4/9] fix 4") == 0,
	    "... its two copies, in order, as written");
	fill(&a, 3, 0);
	g.n = 0;
	tap_check(ledger_by_patch_id(l, a.patch_id, collect, &g, &err) == 0 &&
	    g.n == 1 && strcmp(g.a[0].message_id, "msg3@example.org") == 0,
	    "msg3 is found by its patch-id");
	tap_check_int(ledger_habit(l, "dev2@example.org", &h, &err), 0,
	    "a habit is found");
	tap_check(h.recent == 1 && h.recent_signed == 1,
	    "... as it was learnt");
	fill(&a, 5, time(NULL));
	arrival_set_message_id(&a, "msg1@example.org", 16);
	ledger_record(l, &a, &err);
	tap_check_int(ledger_sync(l, &err), 0, "a new record of msg1");
	g.n = 0;
	ledger_by_message_id(l, "msg1@example.org", collect, &g, &err);
	tap_check(g.n == 3 && g.a[2].copy == 3 &&
	    strcmp(g.a[2].subject, "[PATCH 5/9] fix 5") == 0,
	    "... is its third copy, beside the old two");
	ledger_close(l);
	if (!tap_check_int(ledger_open(&l, at("v1.mdb"), 0, 1, 400, 0, &err),
	    0, "opened again keeping 400 days"))
		return;
	fill(&a, 6, time(NULL));
	ledger_record(l, &a, &err);
	ledger_sync(l, &err);
	ledger_each(l, 0, time(NULL) + 1, count, &n, &err);
	tap_check_int(n, 2, "a new record: the old four are gone");
	ledger_close(l);
	tap_check(raw_count(at("v1.mdb"), "msgid") == 2 &&
	    raw_count(at("v1.mdb"), "patchid") == 2,
	    "... with their index entries");
}

struct writer_arg {
	struct ledger	*l;
	int		 base, failed;
};

static void *
writer(void *arg)
{
	struct writer_arg *w = arg;
	struct arrival a;
	struct pa_err err;
	int i, n;

	for (i = 0; i < 500; i++) {
		fill(&a, w->base + i, 1000 + i);
		w->failed += ledger_record(w->l, &a, &err) != 0;
		n = 0;
		if (i % 50 == 0 && ledger_by_message_id(w->l,
		    "msg1@example.org", count, &n, &err) < PA_ENOTFOUND)
			w->failed++;
	}
	return NULL;
}

static void
test_threads(void)
{
	struct writer_arg w[4];
	pthread_t t[4];
	struct ledger *l;
	struct pa_err err;
	int i, n = 0, failed = 0;

	if (!tap_check_int(ledger_open(&l, at("threads.mdb"), 1, 1, 0, 0, &err),
	    0, "a ledger shared by 4 threads"))
		return;
	for (i = 0; i < 4; i++) {
		w[i] = (struct writer_arg){ l, 10000 * i, 0 };
		pthread_create(&t[i], NULL, writer, &w[i]);
	}
	for (i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		failed += w[i].failed;
	}
	tap_check_int(failed, 0, "each recorded 500 and read, no failure");
	tap_check_int(ledger_sync(l, &err), 0, "... synced");
	ledger_each(l, 0, 2000, count, &n, &err);
	tap_check_int(n, 2000, "... 2000 records");
	ledger_close(l);
}

/* expect_damage - path is no ledger: open and check say so, naming it */
static void
expect_damage(const char *name, const char *what)
{
	struct ledger *l = NULL;
	struct pa_err err = { "" };

	tap_check_int(ledger_open(&l, at(name), 1, 1, 400, 0, &err), PA_ERROR,
	    "%s: PA_ERROR", what);
	tap_check(strstr(err.msg, at(name)) != NULL, "... naming the file: "
	    "%s", err.msg);
	tap_check_int(ledger_check(at(name), &err), PA_ERROR,
	    "... and ledger_check says so");
	ledger_close(l);
}

static void
test_damage(void)
{
	struct ledger *l;
	struct arrival a;
	struct pa_err err;
	char junk[65536];
	struct stat st;
	struct pins *p;
	int i, fd;

	tap_write_file(at("empty.mdb"), "", 0);
	expect_damage("empty.mdb", "an empty file");
	fd = open("/dev/urandom", O_RDONLY);
	if (fd < 0 || read(fd, junk, sizeof(junk)) != (ssize_t)sizeof(junk))
		memset(junk, 'x', sizeof(junk));
	if (fd >= 0)
		close(fd);
	tap_write_file(at("random.mdb"), junk, sizeof(junk));
	expect_damage("random.mdb", "a file of random bytes");
	if (pins_open(&p, at("pins.mdb"), 1, 1, &err) == 0)
		pins_close(p);
	expect_damage("pins.mdb", "an LMDB file of something else (pins)");

	ledger_open(&l, at("cut.mdb"), 1, 1, 0, 0, &err);
	for (i = 0; i < 3000; i++) {
		fill(&a, i, 1000 + i);
		ledger_record(l, &a, &err);
	}
	ledger_close(l);
	stat(at("cut.mdb"), &st);
	tap_check_int(truncate(at("cut.mdb"), st.st_size / 2), 0,
	    "a ledger of 3000 records cut in half");
	expect_damage("cut.mdb", "a truncated file");
}

/*
 * flip - the byte in the middle of the record of (when, seq) flipped, in
 * the LMDB file at path (its text is deflated: not there to be found):
 * 0, or LMDB's error
 */
static int
flip(const char *path, time_t when, uint64_t seq)
{
	unsigned char key[LEDGER_KEY_LEN], val[LEDGER_VALUE_MAX];
	MDB_val k = { sizeof(key), key }, v;
	MDB_env *env;
	MDB_txn *txn;
	MDB_dbi dbi;
	int rc;

	ledger_time_key(key, when, seq);
	if ((rc = mdb_env_create(&env)) != 0)
		return rc;
	mdb_env_set_maxdbs(env, 8);
	if ((rc = mdb_env_open(env, path, MDB_NOSUBDIR, 0600)) == 0 &&
	    (rc = mdb_txn_begin(env, NULL, 0, &txn)) == 0) {
		if ((rc = mdb_dbi_open(txn, "records", 0, &dbi)) == 0 &&
		    (rc = mdb_get(txn, dbi, &k, &v)) == 0 &&
		    v.mv_size <= sizeof(val)) {
			memcpy(val, v.mv_data, v.mv_size);
			val[v.mv_size / 2] ^= 0x20;
			v.mv_data = val;
			rc = mdb_put(txn, dbi, &k, &v, 0);
		}
		if (rc == 0)
			rc = mdb_txn_commit(txn);
		else
			mdb_txn_abort(txn);
	}
	mdb_env_close(env);
	return rc;
}

static void
test_bad_record(void)
{
	struct ledger *l;
	struct arrival a;
	struct pa_err err;
	int i, n = 0;

	if (!tap_check_int(ledger_open(&l, at("flip.mdb"), 1, 1, 0, 0, &err), 0,
	    "a ledger to damage"))
		return;
	for (i = 0; i < 3; i++) {
		fill(&a, i, 1700000000 + i);
		ledger_record(l, &a, &err);
	}
	ledger_close(l);
	tap_check_int(flip(at("flip.mdb"), 1700000001, 1), 0,
	    "a byte of the second record flipped in the file");
	if (!tap_check_int(ledger_open(&l, at("flip.mdb"), 0, 0, 0, 0, &err), 0,
	    "... the file opens"))
		return;
	tap_check_int(ledger_by_message_id(l, "msg1@example.org", count, &n,
	    &err), PA_ERROR, "the damaged record is an error");
	tap_check(strstr(err.msg, "record of 2023-11-14T22:13:21Z "
	    "(number 1) is damaged") != NULL, "... naming it: %s", err.msg);
	tap_check_int(ledger_by_message_id(l, "msg2@example.org", count, &n,
	    &err), 0, "... the others read");
	fill(&a, 1, 0);
	tap_check_int(ledger_by_patch_id(l, a.patch_id, count, &n, &err),
	    PA_ERROR, "... by patch-id too, an error");
	tap_check(strstr(err.msg, "(number 1) is damaged") != NULL,
	    "... naming it: %s", err.msg);
	tap_check_int(ledger_each(l, 0, 1800000000, count, &n, &err),
	    PA_ERROR, "... and a walk over it stops there");
	ledger_close(l);
}

/* fill_disk - a file at path as large as the file system lets it be */
static void
fill_disk(const char *path)
{
	static const char block[4096];
	int fd;

	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600)) < 0)
		return;
	while (write(fd, block, sizeof(block)) == (ssize_t)sizeof(block))
		;
	while (write(fd, block, 1) == 1)
		;
	close(fd);
}

/* full_disk - the records of a ledger on a full file system at mnt */
static void
full_disk(const char *mnt)
{
	char path[512], filler[512];
	struct ledger *l;
	struct arrival a;
	struct got g = { .n = 0 };
	struct pa_err err = { "" }, first = { "" };
	int i, n = 0, accepted = 0, rc;

	snprintf(path, sizeof(path), "%s/l.mdb", mnt);
	snprintf(filler, sizeof(filler), "%s/filler", mnt);
	if (!tap_check_int(ledger_open(&l, path, 1, 1, 0, 0, &err), 0,
	    "a ledger on a small tmpfs"))
		return;
	fill_disk(filler);
	fill(&a, 0, 1000);
	tap_check_int(ledger_record(l, &a, &err), 0, "the disk full: a record "
	    "is queued");
	tap_check_int(ledger_sync(l, &first), PA_ERROR, "... is not written");
	tap_check(strstr(first.msg, "No space left on device") != NULL,
	    "... for want of space: %s", first.msg);
	for (i = 1, rc = 0; i <= QUEUE && rc == 0; i++) {
		fill(&a, i, 1000 + i);
		if ((rc = ledger_record(l, &a, &err)) == 0)
			accepted++;
	}
	tap_check_int(accepted, QUEUE - 1, "... then 4095 more are queued");
	tap_check_int(rc, PA_ERROR, "... and the next refused");
	tap_check(strstr(err.msg, "No space left on device; 4096 waiting") !=
	    NULL && strstr(err.msg, path) != NULL, "... saying why: %s",
	    err.msg);
	unlink(filler);
	for (i = 0, rc = PA_ERROR; i < 10 && rc != 0; i++)
		rc = ledger_sync(l, &err);
	tap_check_int(rc, 0, "space again: the queue is written");
	ledger_each(l, 0, 1000 + QUEUE, count, &n, &err);
	tap_check_int(n, QUEUE, "... all 4096 records, once");
	tap_check_int(ledger_by_message_id(l, "msg4095@example.org", collect,
	    &g, &err), 0, "... the last queued is there");
	tap_check(g.n == 1 && g.a[0].copy == 1, "... once, as copy 1");
	fill(&a, QUEUE, 9000);
	tap_check_int(ledger_record(l, &a, &err), 0, "... and records are "
	    "queued again");
	tap_check_int(ledger_sync(l, &err), 0, "... and written");
	ledger_close(l);
}

static void
test_full_disk(void)
{
	const char *mnt = at("full");

	if (geteuid() != 0) {
		tap_skip("a full disk: mounting a tmpfs needs root");
		return;
	}
	if (mkdir(mnt, 0700) != 0 || mount("tmpfs", mnt, "tmpfs", 0,
	    "size=8m,mode=0700") != 0) {
		tap_skip("a full disk: cannot mount a tmpfs: %s",
		    strerror(errno));
		return;
	}
	full_disk(mnt);
	umount2(mnt, MNT_DETACH);
}

static void
test_grow(void)
{
	struct ledger *l;
	struct arrival a;
	struct pa_err err;
	size_t before;
	int n = 0;

	if (!tap_check_int(ledger_open(&l, at("grow.mdb"), 1, 1, 0, 0, &err), 0,
	    "a ledger whose map grows"))
		return;
	fill(&a, 1, 1000);
	ledger_record(l, &a, &err);
	ledger_sync(l, &err);
	before = lmdb_ledger(l)->mapsize;
	tap_check_int(ledger_grow(lmdb_ledger(l)), 0,
	    "the map grown (as when it is full)");
	tap_check(lmdb_ledger(l)->mapsize == 2 * before,
	    "... to twice its size");
	fill(&a, 2, 2000);
	ledger_record(l, &a, &err);
	tap_check_int(ledger_sync(l, &err), 0, "... records are written");
	ledger_each(l, 0, 3000, count, &n, &err);
	tap_check_int(n, 2, "... and read");
	ledger_close(l);
}

int
main(void)
{
	const char *tmp = getenv("TMPDIR");
	struct pa_err err;

	snprintf(dir, sizeof(dir), "%s/t-ledger.XXXXXX",
	    tmp && tmp[0] ? tmp : "/tmp");
	if (mkdtemp(dir) == NULL)
		tap_skip_all("cannot make a scratch folder");
	if (mapguard_init(&err) != 0)
		tap_skip_all("%s", err.msg);
	test_round_trip();
	test_copies();
	test_habit();
	test_lookup();
	test_retention();
	test_old_values();
	test_old_file();
	test_bound();
	test_made_up();
	test_threads();
	test_damage();
	test_bad_record();
	test_full_disk();
	test_grow();
	tap_rmtree(dir);
	return tap_done();
}
