/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t-attindex - the LMDB index: storing, looking up, removing, marks,
 * persistence, the schema stamp, map growth, a reader beside a writer in
 * another process, and a writer killed in the middle of a transaction.
 *
 * Everything happens in a temporary directory, removed at the end.
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <lmdb.h>

#include "attindex.h"
#include "patchattest.h"
#include "tap.h"

#define NTRIPLES	10	/* per generated document */
#define TINY_MAP	(256 * 1024)
#define NREADERS	4	/* threads sharing one handle */

/* One lookup thread of t_concurrent. */
struct reader {
	pthread_t		 tid;
	struct attindex		*h;
	atomic_int		*done;
	uint64_t		 seed;
	unsigned long		 lookups, found, partial, failed;
};

static char base[256];

static uint64_t	 mix(uint64_t);
static void	 fill(unsigned char *, size_t, uint64_t);
static void	 gen_doc(struct att_docinfo *, struct att_triple *, unsigned,
		    const char *);
static void	 attid_of(char *, const struct att_triple *);
static int	 put_docs(struct attindex *, unsigned, unsigned, const char *,
		    struct pa_err *);
static int	 same_doc(const struct att_docinfo *,
		    const struct att_docinfo *);
static int	 doc_state(struct attindex *, unsigned, const char *, int);
static void	 subdir(char *, size_t, const char *);
static void	 tiny_env(const char *);
static void	 t_basic(void);
static void	 t_persist(void);
static void	 t_schema(void);
static void	 t_missing(void);
static void	 t_growth(void);
static void	*reader_main(void *);
static void	 t_concurrent(void);
static void	 t_kill(void);
static void	 t_kill_random(void);
static void	 t_truncated(void);

/* mix - splitmix64's finaliser: deterministic test bytes */
static uint64_t
mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static void
fill(unsigned char *p, size_t len, uint64_t seed)
{
	uint64_t r = 0;
	size_t i;

	for (i = 0; i < len; i++) {
		if (i % 8 == 0)
			r = mix(seed * 131 + i);
		p[i] = (unsigned char)(r >> (8 * (i % 8)));
	}
}

/*
 * gen_doc - document k of a run tagged tag: NTRIPLES triples sharing one
 * attestation ID (the same first four bytes of i, m and p), so that a
 * lookup of that ID sees the whole document or nothing (and the
 * counts of attindex_stats() one attestation a document).
 */
static void
gen_doc(struct att_docinfo *d, struct att_triple *t, unsigned k,
    const char *tag)
{
	unsigned j;

	memset(d, 0, sizeof(*d));
	fill(d->docid, 32, 1000000u + k);
	d->status = k % 2 ? PGP_SIG_NOKEY : PGP_SIG_GOOD;
	d->when = 1600000000 + (time_t)k;
	snprintf(d->fpr, sizeof(d->fpr), "%040u", k);
	snprintf(d->uids, sizeof(d->uids), "Dev %u <dev%u@example.org>\n"
	    "Dev <d%u@example.com>", k, k, k);
	snprintf(d->where, sizeof(d->where), "git/0.git:%s-%u", tag, k);
	snprintf(d->msgid, sizeof(d->msgid), "<%u.%s@example.org>", k, tag);
	for (j = 0; j < NTRIPLES; j++) {
		fill(t[j].i, 32, 3000000u + k * 64 + j);
		fill(t[j].m, 32, 5000000u + k * 64 + j);
		fill(t[j].p, 32, 7000000u + k * 64 + j);
		memcpy(t[j].i, t[0].i, 4);
		memcpy(t[j].m, t[0].m, 4);
		memcpy(t[j].p, t[0].p, 4);
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

/* put_docs - documents from to to-1, in the open write transaction */
static int
put_docs(struct attindex *h, unsigned from, unsigned to, const char *tag,
    struct pa_err *err)
{
	struct att_docinfo d;
	struct att_triple t[NTRIPLES];
	unsigned k;
	int rc;

	for (k = from; k < to; k++) {
		gen_doc(&d, t, k, tag);
		if ((rc = attindex_put(h, &d, t, NTRIPLES, err)) != 0)
			return rc;
	}
	return 0;
}

/* same_doc - the hit's document is d */
static int
same_doc(const struct att_docinfo *got, const struct att_docinfo *d)
{
	return memcmp(got->docid, d->docid, 32) == 0 &&
	    got->status == d->status && got->when == d->when &&
	    strcmp(got->fpr, d->fpr) == 0 && strcmp(got->uids, d->uids) == 0 &&
	    strcmp(got->where, d->where) == 0 &&
	    strcmp(got->msgid, d->msgid) == 0;
}

/*
 * doc_state - 1 when document k is found complete by its attestation ID,
 * 0 when not at all, -1 when partly, -2 on an error.  Each lookup by i
 * must also find its record whole or not at all; with strict (nothing
 * writing meanwhile) they must also agree with the lookup by ID.
 */
static int
doc_state(struct attindex *h, unsigned k, const char *tag, int strict)
{
	struct att_docinfo d;
	struct att_triple t[NTRIPLES];
	struct att_hit hits[NTRIPLES + 2];
	struct pa_err err;
	char attid[MSGHASH_ATTID_LEN + 1];
	size_t n, i, j, seen = 0;

	gen_doc(&d, t, k, tag);
	attid_of(attid, &t[0]);
	if (attindex_lookup(h, attid, hits, NTRIPLES + 2, &n, &err) != 0)
		return -2;
	if (n != 0 && n != NTRIPLES)
		return -1;
	for (i = 0; i < n; i++) {
		if (!same_doc(&hits[i].doc, &d))
			return -1;
		for (j = 0; j < NTRIPLES; j++)
			if (memcmp(&hits[i].t, &t[j], sizeof(t[j])) == 0)
				break;
		if (j == NTRIPLES)
			return -1;
	}
	for (j = 0; j < NTRIPLES; j++) {
		if (attindex_lookup_i(h, t[j].i, hits, 2, &i, &err) != 0)
			return -2;
		if (i > 1 || (i == 1 && (!same_doc(&hits[0].doc, &d) ||
		    memcmp(&hits[0].t, &t[j], sizeof(t[j])) != 0)))
			return -1;
		seen += i;
	}
	/* Documents are only added meanwhile: found once, found after. */
	if (n != 0 && seen != NTRIPLES)
		return -1;
	if (strict && n == 0 && seen != 0)
		return -1;
	return n != 0;
}

static void
subdir(char *out, size_t len, const char *name)
{
	snprintf(out, len, "%s/%s", base, name);
}

/* tiny_env - an empty LMDB environment at dir with a very small map */
static void
tiny_env(const char *dir)
{
	MDB_env *env;

	mkdir(dir, 0700);
	if (mdb_env_create(&env) != 0)
		return;
	mdb_env_set_mapsize(env, TINY_MAP);
	if (mdb_env_open(env, dir, 0, 0600) != 0)
		tap_diag("cannot make a tiny environment at %s", dir);
	mdb_env_close(env);
}

/* stat_mode - the permission bits of dir/name, or -1 */
static int
stat_mode(const char *dir, const char *name)
{
	char path[1024];
	struct stat sb;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return stat(path, &sb) == 0 ? (int)(sb.st_mode & 0777) : -1;
}

static void
t_basic(void)
{
	struct attindex *h;
	struct att_docinfo a, b, c, d;
	struct att_triple x[7], ta[3], tb[2], tc[1], gen[NTRIPLES];
	struct att_hit hits[8];
	struct archive_mark mk[3], got[4];
	struct pa_err err;
	struct stat sb;
	char dir[512], id[MSGHASH_ATTID_LEN + 1], up[MSGHASH_ATTID_LEN + 1];
	size_t n, docs, atts, i;
	int rc;

	subdir(dir, sizeof(dir), "basic");
	rc = attindex_open(&h, dir, 1, &err);
	tap_check_int(rc, 0, "open a fresh index for writing");
	if (rc != 0) {
		tap_diag("%s", err.msg);
		return;
	}
	tap_check_str(err.msg, "", "a fresh index says nothing");
	tap_check(stat(dir, &sb) == 0 && (sb.st_mode & 0777) == 0750,
	    "its directory is made 0750, for the group to read");
	tap_check(stat_mode(dir, "data.mdb") == 0640 &&
	    stat_mode(dir, "lock.mdb") == 0660,
	    "its file is the group's to read, the readers' slots to write");

	/* A: 3 triples; B shares A's first triple; C shares A's second ID. */
	for (i = 0; i < 7; i++)
		fill((unsigned char *)&x[i], sizeof(x[i]), 99 + i);
	gen_doc(&a, gen, 1, "basic");
	gen_doc(&b, gen, 2, "basic");
	gen_doc(&c, gen, 3, "basic");
	gen_doc(&d, gen, 4, "basic");
	ta[0] = x[0];
	ta[1] = x[1];
	ta[2] = x[2];
	tb[0] = x[0];
	tb[1] = x[3];
	tc[0] = x[4];
	memcpy(tc[0].i, ta[1].i, 4);
	memcpy(tc[0].m, ta[1].m, 4);
	memcpy(tc[0].p, ta[1].p, 4);
	tap_check_int(attindex_put(h, &a, ta, 3, &err), PA_ERROR,
	    "put outside a transaction fails");
	tap_check(strstr(err.msg, "no write transaction") != NULL,
	    "and says why: %s", err.msg);
	tap_check_int(attindex_begin(h, &err), 0, "begin");
	tap_check_int(attindex_begin(h, &err), PA_ERROR, "begin twice fails");
	tap_check_int(attindex_put(h, &a, ta, 3, &err), 0, "put A");
	tap_check_int(attindex_put(h, &b, tb, 2, &err), 0, "put B");
	tap_check_int(attindex_put(h, &c, tc, 1, &err), 0, "put C");
	tap_check_int(attindex_has(h, b.docid), 1, "has B inside the txn");
	tap_check_int(attindex_commit(h, &err), 0, "commit");
	attindex_stats(h, &docs, &atts, &err);
	tap_check(docs == 3 && atts == 6, "stats: 3 documents, 6 records "
	    "(got %zu, %zu)", docs, atts);

	attid_of(id, &ta[0]);
	tap_check_int(attindex_lookup(h, id, hits, 8, &n, &err), 0,
	    "lookup a shared triple");
	tap_check_int(n, 2, "two documents carry it");
	tap_check(n == 2 && memcmp(&hits[0].t, &ta[0], sizeof(ta[0])) == 0 &&
	    memcmp(&hits[1].t, &ta[0], sizeof(ta[0])) == 0,
	    "both hits have the triple");
	for (i = 0; i < n && memcmp(hits[i].doc.docid, a.docid, 32); i++)
		;
	tap_check(i < n && hits[i].doc.status == a.status &&
	    hits[i].doc.when == a.when &&
	    strcmp(hits[i].doc.fpr, a.fpr) == 0 &&
	    strcmp(hits[i].doc.uids, a.uids) == 0 &&
	    strcmp(hits[i].doc.where, a.where) == 0 &&
	    strcmp(hits[i].doc.msgid, a.msgid) == 0,
	    "the document's fields come back");
	for (i = 0; i < sizeof(id); i++)
		up[i] = (char)(id[i] >= 'a' && id[i] <= 'f' ? id[i] - 32 :
		    id[i]);
	attindex_lookup(h, up, hits, 8, &n, &err);
	tap_check_int(n, 2, "lookup in upper case");
	attindex_lookup(h, id, hits, 1, &n, &err);
	tap_check_int(n, 1, "at most max hits");

	attid_of(id, &tc[0]);
	attindex_lookup(h, id, hits, 8, &n, &err);
	tap_check_int(n, 2, "A's second ID: two records");
	for (i = 0; i < n && memcmp(hits[i].doc.docid, c.docid, 32); i++)
		;
	tap_check(i < n && memcmp(&hits[i].t, &tc[0], sizeof(tc[0])) == 0,
	    "one is C's own triple");
	tap_check_int(attindex_lookup(h, "zz", hits, 8, &n, &err), 0,
	    "a malformed ID is no error");
	tap_check_int(n, 0, "and has no records");
	attindex_lookup(h, "00000000-00000000-00000000", hits, 8, &n, &err);
	tap_check_int(n, 0, "an unknown ID has no records");

	tap_check_int(attindex_lookup_i(h, ta[0].i, hits, 8, &n, &err), 0,
	    "lookup by i");
	tap_check(n == 2 && memcmp(hits[0].t.m, ta[0].m, 32) == 0 &&
	    memcmp(hits[0].t.p, ta[0].p, 32) == 0 &&
	    memcmp(hits[1].t.p, ta[0].p, 32) == 0, "both records of that i");
	tap_check_int(attindex_has(h, a.docid), 1, "has A");
	tap_check_int(attindex_has(h, x[6].i), 0, "has not an unknown doc");

	/* Idempotent; a changed status replaces the record. */
	a.status = PGP_SIG_BAD;
	attindex_begin(h, &err);
	tap_check(attindex_put(h, &a, ta, 3, &err) == 0 &&
	    attindex_put(h, &b, tb, 2, &err) == 0 &&
	    attindex_put(h, &b, tb, 2, &err) == 0, "put A and B again");
	tap_check_int(attindex_commit(h, &err), 0, "commit");
	attindex_stats(h, &docs, &atts, &err);
	tap_check(docs == 3 && atts == 6, "stats unchanged (%zu, %zu)", docs,
	    atts);
	attid_of(id, &ta[2]);
	attindex_lookup(h, id, hits, 8, &n, &err);
	tap_check(n == 1 && hits[0].doc.status == PGP_SIG_BAD,
	    "the new status is stored");

	attindex_begin(h, &err);
	tap_check_int(attindex_remove(h, b.docid, &err), 0, "remove B");
	tap_check_int(attindex_remove(h, b.docid, &err), PA_ENOTFOUND,
	    "remove B again: not found");
	tap_check_int(attindex_commit(h, &err), 0, "commit");
	attindex_stats(h, &docs, &atts, &err);
	tap_check(docs == 2 && atts == 4, "stats after removal (%zu, %zu)",
	    docs, atts);
	attid_of(id, &ta[0]);
	attindex_lookup(h, id, hits, 8, &n, &err);
	tap_check(n == 1 && memcmp(hits[0].doc.docid, a.docid, 32) == 0,
	    "the shared triple now only in A");
	attid_of(id, &tb[1]);
	attindex_lookup(h, id, hits, 8, &n, &err);
	tap_check_int(n, 0, "B's own triple is gone");
	attindex_lookup_i(h, tb[1].i, hits, 8, &n, &err);
	tap_check_int(n, 0, "also by i");
	tap_check_int(attindex_has(h, b.docid), 0, "has not B");

	attindex_begin(h, &err);
	attindex_put(h, &d, x + 5, 2, &err);
	tap_check_int(attindex_has(h, d.docid), 1, "D inside its txn");
	attindex_abort(h);
	tap_check_int(attindex_has(h, d.docid), 0, "gone after abort");

	tap_check(attindex_get_marks(h, got, 4, &n, &err) == 0 && n == 0,
	    "no marks yet");
	memset(mk, 0, sizeof(mk));
	snprintf(mk[0].name, sizeof(mk[0].name), "epoch-1");
	snprintf(mk[0].value, sizeof(mk[0].value), "%040d", 1);
	snprintf(mk[1].name, sizeof(mk[1].name), "epoch-0");
	snprintf(mk[1].value, sizeof(mk[1].value), "%040d", 0);
	snprintf(mk[2].name, sizeof(mk[2].name), "maildir");
	snprintf(mk[2].value, sizeof(mk[2].value), "new/1234.x");
	tap_check_int(attindex_set_marks(h, mk, 2, &err), PA_ERROR,
	    "marks outside a transaction fail");
	attindex_begin(h, &err);
	tap_check_int(attindex_set_marks(h, mk, 3, &err), 0, "set 3 marks");
	tap_check_int(attindex_commit(h, &err), 0, "commit");
	tap_check_int(attindex_get_marks(h, got, 4, &n, &err), 0,
	    "get the marks");
	tap_check(n == 3 && strcmp(got[0].name, "epoch-0") == 0 &&
	    strcmp(got[0].value, mk[1].value) == 0 &&
	    strcmp(got[1].name, "epoch-1") == 0 &&
	    strcmp(got[2].value, "new/1234.x") == 0,
	    "marks round trip, in name order");
	tap_check_int(attindex_get_marks(h, got, 2, &n, &err), PA_ETOOBIG,
	    "more marks than room");
	attindex_begin(h, &err);
	attindex_set_marks(h, mk + 2, 1, &err);
	attindex_commit(h, &err);
	attindex_get_marks(h, got, 4, &n, &err);
	tap_check(n == 1 && strcmp(got[0].name, "maildir") == 0,
	    "setting marks replaces them all");
	attindex_close(h);
}

static void
t_persist(void)
{
	struct attindex *h;
	struct att_hit hits[4];
	struct archive_mark got[4];
	struct pa_err err;
	char dir[512];
	size_t n, docs, atts;

	subdir(dir, sizeof(dir), "basic");
	tap_check_int(attindex_open(&h, dir, 0, &err), 0,
	    "reopen read-only");
	if (h == NULL) {
		tap_diag("%s", err.msg);
		return;
	}
	tap_check_str(err.msg, "", "no message");
	attindex_stats(h, &docs, &atts, &err);
	tap_check(docs == 2 && atts == 4, "documents persisted (%zu, %zu)",
	    docs, atts);
	attindex_get_marks(h, got, 4, &n, &err);
	tap_check(n == 1 && strcmp(got[0].value, "new/1234.x") == 0,
	    "marks persisted");
	attindex_lookup(h, "00000000-00000000-00000000", hits, 4, &n, &err);
	tap_check_int(n, 0, "lookup on a reader");
	tap_check_int(attindex_begin(h, &err), PA_ERROR,
	    "a reader cannot write");
	tap_check(strstr(err.msg, "read-only") != NULL, "%s", err.msg);
	attindex_close(h);
	tap_check_int(attindex_open(&h, dir, 1, &err), 0,
	    "reopen for writing");
	tap_check_str(err.msg, "", "no message");
	attindex_close(h);
}

static void
t_schema(void)
{
	struct attindex *h;
	struct att_docinfo d;
	struct att_triple t[NTRIPLES];
	struct pa_err err;
	MDB_env *env;
	MDB_txn *txn;
	MDB_dbi dbi;
	MDB_val k, v;
	MDB_stat st;
	char dir[512], want[1024];

	subdir(dir, sizeof(dir), "schema");
	if (attindex_open(&h, dir, 1, &err) != 0) {
		tap_check(0, "make an index: %s", err.msg);
		return;
	}
	gen_doc(&d, t, 1, "schema");
	attindex_begin(h, &err);
	attindex_put(h, &d, t, NTRIPLES, &err);
	attindex_commit(h, &err);
	attindex_close(h);

	/* Another program's stamp and a database this one does not know. */
	mdb_env_create(&env);
	mdb_env_set_maxdbs(env, 8);
	tap_check(mdb_env_open(env, dir, 0, 0600) == 0 &&
	    mdb_txn_begin(env, NULL, 0, &txn) == 0 &&
	    mdb_dbi_open(txn, "meta", 0, &dbi) == 0, "open it with LMDB");
	k.mv_data = "schema";
	k.mv_size = 6;
	v.mv_data = "patchattest-index 0";
	v.mv_size = strlen(v.mv_data);
	mdb_put(txn, dbi, &k, &v, 0);
	mdb_dbi_open(txn, "junk", MDB_CREATE, &dbi);
	mdb_put(txn, dbi, &k, &v, 0);
	tap_check_int(mdb_txn_commit(txn), 0, "write an old stamp");
	mdb_env_close(env);

	tap_check_int(attindex_open(&h, dir, 0, &err), PA_ERROR,
	    "a reader refuses another schema");
	snprintf(want, sizeof(want), "index at %s has schema "
	    "patchattest-index 0, which this program (%s) cannot read or "
	    "upgrade; remove it and run patchattest index", dir,
	    ATTINDEX_SCHEMA);
	tap_check_str(err.msg, want, "and says so");
	tap_check_int(attindex_open(&h, dir, 1, &err), PA_ERROR,
	    "a writer refuses it too, rather than empty it");
	tap_check_str(err.msg, want, "and says so");
	mdb_env_create(&env);
	mdb_env_set_maxdbs(env, 8);
	mdb_env_open(env, dir, MDB_RDONLY, 0600);
	mdb_txn_begin(env, NULL, MDB_RDONLY, &txn);
	mdb_dbi_open(txn, NULL, 0, &dbi);
	mdb_stat(txn, dbi, &st);
	tap_check_int((long long)st.ms_entries, 5,
	    "its 5 databases are all there");
	mdb_txn_abort(txn);
	mdb_env_close(env);

	/* No stamp at all, in an environment that is not empty. */
	subdir(dir, sizeof(dir), "nostamp");
	mkdir(dir, 0700);
	mdb_env_create(&env);
	mdb_env_set_maxdbs(env, 8);
	mdb_env_open(env, dir, 0, 0600);
	mdb_txn_begin(env, NULL, 0, &txn);
	mdb_dbi_open(txn, NULL, 0, &dbi);
	mdb_put(txn, dbi, &k, &v, 0);		/* a plain key in main */
	mdb_dbi_open(txn, "foo", MDB_CREATE, &dbi);
	mdb_put(txn, dbi, &k, &v, 0);
	mdb_txn_commit(txn);
	mdb_env_close(env);
	snprintf(want, sizeof(want), "index at %s is damaged or not ours: its "
	    "file holds data but no schema stamp; remove it and run "
	    "patchattest index", dir);
	tap_check_int(attindex_open(&h, dir, 0, &err), PA_ERROR,
	    "a reader refuses an index without a stamp");
	tap_check_str(err.msg, want, "and says so");
	tap_check_int(attindex_open(&h, dir, 1, &err), PA_ERROR,
	    "a writer refuses it too");
	tap_check_str(err.msg, want, "and says so");
}

static void
t_missing(void)
{
	struct attindex *h;
	struct pa_err err;
	char dir[512], want[1024];

	subdir(dir, sizeof(dir), "nothere");
	tap_check_int(attindex_open(&h, dir, 0, &err), PA_ENOTFOUND,
	    "a reader on a missing index: not found");
	snprintf(want, sizeof(want), "no index at %s: run patchattest index",
	    dir);
	tap_check_str(err.msg, want, "and says what to do");
	tap_check(h == NULL, "no handle");
	mkdir(dir, 0700);
	tap_check_int(attindex_open(&h, dir, 0, &err), PA_ENOTFOUND,
	    "likewise on an empty directory");
	tap_check_str(err.msg, want, "with the same words");
	subdir(dir, sizeof(dir), "no/such/dir");
	tap_check_int(attindex_open(&h, dir, 1, &err), PA_ERROR,
	    "a writer needs the parent directory");
	tap_check(strstr(err.msg, "cannot make index directory") != NULL,
	    "%s", err.msg);
}

static void
t_growth(void)
{
	struct attindex *h;
	struct pa_err err;
	struct stat sb;
	MDB_env *env;
	MDB_envinfo info;
	char dir[512], data[600];
	size_t docs, atts;
	unsigned k, bad = 0;
	int rc = 0;

	subdir(dir, sizeof(dir), "growth");
	tiny_env(dir);
	if (attindex_open(&h, dir, 1, &err) != 0) {
		tap_check(0, "open an index with a %d KiB map: %s",
		    TINY_MAP / 1024, err.msg);
		return;
	}
	tap_check_str(err.msg, "", "an empty environment is no rebuild");
	/* 500 documents a batch (~2 MB) do not fit: grow inside the txn. */
	for (k = 0; k < 3000 && rc == 0; k += 500) {
		if ((rc = attindex_begin(h, &err)) == 0 &&
		    (rc = put_docs(h, k, k + 500, "grow", &err)) == 0)
			rc = attindex_commit(h, &err);
	}
	tap_check_int(rc, 0, "3000 documents through a %d KiB map%s%s",
	    TINY_MAP / 1024, rc ? ": " : "", rc ? err.msg : "");
	attindex_stats(h, &docs, &atts, &err);
	tap_check(docs == 3000 && atts == 3000, "all stored (%zu, %zu)", docs,
	    atts);
	for (k = 0; k < 3000; k += 7)
		bad += doc_state(h, k, "grow", 1) != 1;
	tap_check_int(bad, 0, "every sampled document complete");
	attindex_close(h);

	snprintf(data, sizeof(data), "%s/data.mdb", dir);
	mdb_env_create(&env);
	mdb_env_set_maxdbs(env, 8);
	mdb_env_open(env, dir, MDB_RDONLY, 0600);
	mdb_env_info(env, &info);
	mdb_env_close(env);
	if (stat(data, &sb) != 0)
		sb.st_size = 0;
	tap_check(info.me_mapsize >= 8 * TINY_MAP && sb.st_size > TINY_MAP,
	    "the map grew to %zu KiB, the file to %lld KiB",
	    info.me_mapsize / 1024, (long long)sb.st_size / 1024);
}

/* reader_main - random documents looked up until told to stop */
static void *
reader_main(void *arg)
{
	struct reader *rd = arg;
	int s;

	while (!atomic_load(rd->done)) {
		rd->seed = mix(rd->seed);
		s = doc_state(rd->h, (unsigned)(rd->seed % 2000), "conc", 0);
		rd->lookups++;
		rd->found += s == 1;
		rd->partial += s == -1;
		rd->failed += s == -2;
	}
	return NULL;
}

/*
 * t_concurrent - a child process writes 2000 documents in 20 commits,
 * growing the map from a tiny one, while threads of this process look
 * documents up through one shared read-only handle (and so adopt the
 * grown map under each other's feet).
 */
static void
t_concurrent(void)
{
	struct reader rd[NREADERS];
	struct attindex *h;
	struct pa_err err;
	atomic_int done;
	char dir[512];
	unsigned long lookups = 0, found = 0, partial = 0, failed = 0;
	unsigned k, bad = 0, nthreads = 0;
	pid_t pid;
	int status = 0;

	subdir(dir, sizeof(dir), "concurrent");
	tiny_env(dir);
	if (attindex_open(&h, dir, 1, &err) != 0) {
		tap_check(0, "make the index: %s", err.msg);
		return;
	}
	attindex_close(h);
	fflush(stdout);
	if ((pid = fork()) == -1) {
		tap_check(0, "fork: %s", strerror(errno));
		return;
	}
	if (pid == 0) {
		if (attindex_open(&h, dir, 1, &err) != 0)
			_exit(2);
		for (k = 0; k < 2000; k += 100)
			if (attindex_begin(h, &err) != 0 ||
			    put_docs(h, k, k + 100, "conc", &err) != 0 ||
			    attindex_commit(h, &err) != 0) {
				fprintf(stderr, "child: %s\n", err.msg);
				_exit(1);
			}
		attindex_close(h);
		_exit(0);
	}
	if (attindex_open(&h, dir, 0, &err) != 0) {
		tap_check(0, "open a reader: %s", err.msg);
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		return;
	}
	atomic_init(&done, 0);
	for (k = 0; k < NREADERS; k++) {
		memset(&rd[k], 0, sizeof(rd[k]));
		rd[k].h = h;
		rd[k].done = &done;
		rd[k].seed = 42 + k;
		if (pthread_create(&rd[k].tid, NULL, reader_main, &rd[k]) != 0)
			break;
		nthreads++;
	}
	waitpid(pid, &status, 0);
	atomic_store(&done, 1);
	for (k = 0; k < nthreads; k++) {
		pthread_join(rd[k].tid, NULL);
		lookups += rd[k].lookups;
		found += rd[k].found;
		partial += rd[k].partial;
		failed += rd[k].failed;
	}
	tap_check_int(nthreads, NREADERS, "%d lookup threads on one handle",
	    NREADERS);
	tap_check(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "the child wrote 2000 documents in 20 commits");
	tap_check_int((long long)failed, 0, "%lu documents looked up beside "
	    "the writer, %lu found: no lookup failed", lookups, found);
	tap_check_int((long long)partial, 0,
	    "no lookup saw part of a document");
	for (k = 0; k < 2000; k++)
		bad += doc_state(h, k, "conc", 1) != 1;
	tap_check_int(bad, 0, "afterwards every document is complete");
	attindex_close(h);
}

/* t_kill - kill -9 a writer inside a transaction */
static void
t_kill(void)
{
	struct attindex *h;
	struct pa_err err;
	char dir[512], c;
	size_t docs, atts;
	unsigned k, bad = 0, commits = 0;
	pid_t pid;
	int fd[2], status;

	subdir(dir, sizeof(dir), "kill");
	if (pipe(fd) != 0 || (pid = fork()) == -1) {
		tap_check(0, "pipe or fork: %s", strerror(errno));
		return;
	}
	if (pid == 0) {
		close(fd[0]);
		if (attindex_open(&h, dir, 1, &err) != 0)
			_exit(2);
		for (k = 0; k < 300; k += 100) {
			if (attindex_begin(h, &err) != 0 ||
			    put_docs(h, k, k + 100, "kill", &err) != 0 ||
			    attindex_commit(h, &err) != 0)
				_exit(1);
			if (write(fd[1], "c", 1) != 1)
				_exit(1);
		}
		if (attindex_begin(h, &err) != 0 ||
		    put_docs(h, 300, 350, "kill", &err) != 0)
			_exit(1);
		if (write(fd[1], "m", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(fd[1]);
	while (read(fd[0], &c, 1) == 1 && c == 'c')
		commits++;
	close(fd[0]);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	tap_check(c == 'm' && commits == 3 && WIFSIGNALED(status),
	    "killed a writer after 3 commits, in its 4th transaction");
	tap_check_int(attindex_open(&h, dir, 1, &err), 0,
	    "the index opens for writing after it");
	if (h == NULL) {
		tap_diag("%s", err.msg);
		return;
	}
	attindex_stats(h, &docs, &atts, &err);
	tap_check(docs == 300 && atts == 300,
	    "exactly the committed batches (%zu, %zu)", docs, atts);
	for (k = 0; k < 350; k++)
		bad += doc_state(h, k, "kill", 1) != (k < 300);
	tap_check_int(bad, 0, "committed documents whole, the rest absent");
	tap_check(attindex_begin(h, &err) == 0 &&
	    put_docs(h, 300, 350, "kill", &err) == 0 &&
	    attindex_commit(h, &err) == 0, "and takes new writes");
	attindex_stats(h, &docs, &atts, &err);
	tap_check_int((long long)docs, 350, "350 documents now");
	attindex_close(h);
}

/* t_kill_random - kill -9 a writer at some moment of its work */
static void
t_kill_random(void)
{
	struct attindex *h;
	struct pa_err err;
	struct timespec ts;
	char dir[512], c;
	size_t docs, atts;
	unsigned k, bad = 0, commits = 0;
	pid_t pid;
	int fd[2], status;

	subdir(dir, sizeof(dir), "kill2");
	if (pipe(fd) != 0 || (pid = fork()) == -1) {
		tap_check(0, "pipe or fork: %s", strerror(errno));
		return;
	}
	if (pid == 0) {
		close(fd[0]);
		if (attindex_open(&h, dir, 1, &err) != 0)
			_exit(2);
		for (k = 0;; k += 100) {
			if (attindex_begin(h, &err) != 0 ||
			    put_docs(h, k, k + 100, "kill2", &err) != 0 ||
			    attindex_commit(h, &err) != 0)
				_exit(1);
			if (write(fd[1], "c", 1) != 1)
				_exit(1);
		}
	}
	close(fd[1]);
	while (commits < 3 && read(fd[0], &c, 1) == 1)
		commits++;
	ts.tv_sec = 0;
	ts.tv_nsec = (long)(mix((uint64_t)time(NULL)) % 20000000);
	nanosleep(&ts, NULL);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	while (read(fd[0], &c, 1) == 1)
		commits++;
	close(fd[0]);
	tap_check(WIFSIGNALED(status), "killed a busy writer after %u commits",
	    commits);
	if (attindex_open(&h, dir, 0, &err) != 0) {
		tap_check(0, "open after the kill: %s", err.msg);
		return;
	}
	attindex_stats(h, &docs, &atts, &err);
	/* Its last commit may have landed before it could say so. */
	tap_check(docs % 100 == 0 && (docs / 100 == commits ||
	    docs / 100 == commits + 1) && atts == docs,
	    "whole batches: %zu documents for %u reported commits", docs,
	    commits);
	for (k = 0; k < docs + 100; k++)
		bad += doc_state(h, k, "kill2", 1) != (k < docs);
	tap_check_int(bad, 0, "every committed document whole");
	attindex_close(h);
}

/*
 * t_truncated - the index's file cut to half under an open reader, and
 * then opened: errors that say so, never a SIGBUS (the handler of
 * pa_global_init() catches what a check would miss)
 */
static void
t_truncated(void)
{
	struct attindex *h, *w;
	struct att_hit hits[4];
	struct pa_err err;
	struct stat sb;
	char dir[512], data[600];
	size_t n, docs, atts;
	int rc;

	subdir(dir, sizeof(dir), "cut");
	snprintf(data, sizeof(data), "%s/data.mdb", dir);
	if (pa_global_init(&err) != 0 || attindex_open(&w, dir, 1, &err) != 0) {
		tap_check(0, "a writable index to cut: %s", err.msg);
		return;
	}
	rc = attindex_begin(w, &err);
	rc = rc ? rc : put_docs(w, 0, 2000, "cut", &err);
	rc = rc ? rc : attindex_commit(w, &err);
	attindex_close(w);
	if (!tap_check(rc == 0 && stat(data, &sb) == 0, "2000 documents stored"))
		return;
	if (attindex_open(&h, dir, 0, &err) != 0) {
		tap_check(0, "open it to read: %s", err.msg);
		return;
	}
	tap_check(attindex_stats(h, &docs, &atts, &err) == 0 && docs == 2000,
	    "read before the cut");
	if (truncate(data, sb.st_size / 2) != 0) {
		tap_check(0, "cut the file");
		attindex_close(h);
		return;
	}
	rc = attindex_lookup(h, "00000000-00000000-00000000", hits, 4, &n,
	    &err);
	tap_check_int(rc, PA_ERROR, "a lookup after the cut fails");
	tap_check(strstr(err.msg, "damaged") != NULL, "  and says why: %s",
	    err.msg);
	tap_check(attindex_damaged(h), "  the handle knows it is damaged");
	tap_check_int(attindex_stats(h, &docs, &atts, &err), PA_ERROR,
	    "  and keeps failing");
	attindex_close(h);
	rc = attindex_open(&h, dir, 0, &err);
	tap_check(rc == PA_ERROR && h == NULL && strstr(err.msg, "damaged"),
	    "opening the cut index to read fails: %s", err.msg);
	rc = attindex_open(&h, dir, 1, &err);
	tap_check(rc == PA_ERROR && h == NULL && strstr(err.msg, "damaged"),
	    "  and to write: %s", err.msg);
}

int
main(void)
{
	tap_tmpdir(base, sizeof(base), "t-attindex");
	t_basic();
	t_persist();
	t_schema();
	t_missing();
	t_growth();
	t_concurrent();
	t_kill();
	t_kill_random();
	t_truncated();
	tap_rmtree(base);
	return tap_done();
}
