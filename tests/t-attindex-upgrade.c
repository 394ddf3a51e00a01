/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t-attindex-upgrade - indexes of the schemas before this one, written
 * as their versions wrote them (rawindex.c): a reader refuses them and
 * says to run patchattest index; a writer upgrades them in place, after
 * which every lookup by attestation ID and by i finds what the documents
 * hold, and the archive marks are kept; a program of schema 2 or 3 that
 * still has the index open gets errors, never empty answers; a damaged record
 * stops the upgrade, leaving the index as it was.
 *
 * Everything happens in a temporary directory, removed at the end.
 */
#include "config.h"

#include <sys/wait.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <lmdb.h>

#include "attindex.h"
#include "rawindex.h"
#include "patchattest.h"
#include "tap.h"

#define NDOCS		40
#define MAXT		6		/* triples a document, at most */
#define MAXHITS		64

static char			 base[256];
static struct old_doc		 docs[NDOCS];
static struct att_triple	 triples[NDOCS][MAXT];

/* byte - a byte of the test's data, a function of a and b */
static unsigned char
byte(unsigned a, unsigned b)
{
	uint32_t x = a * 2654435761u ^ (b + 0x9e3779b9u) * 40503u;

	x ^= x >> 15;
	x *= 2246822519u;
	return (unsigned char)(x >> 13);
}

/*
 * gen_docs - NDOCS documents of 1 to MAXT triples; every seventh shares
 * its first triple with the one before (one ID, two documents), every
 * fifth gives its last triple the i of its first (one i, two triples)
 */
static void
gen_docs(void)
{
	struct att_docinfo *d;
	unsigned k, j, b, n;

	memset(triples, 0, sizeof(triples));
	for (k = 0; k < NDOCS; k++) {
		d = &docs[k].d;
		memset(d, 0, sizeof(*d));
		for (b = 0; b < 32; b++)
			d->docid[b] = byte(k, b);
		d->status = k % 3 == 0 ? PGP_SIG_BAD : PGP_SIG_GOOD;
		d->when = 1600000000 + (time_t)k * 3600;
		snprintf(d->fpr, sizeof(d->fpr), k % 2 ? "%040u" : "%038X%02u",
		    k * 2654435761u, k);
		snprintf(d->uids, sizeof(d->uids), "Dev %u <dev%u@example.org>",
		    k, k);
		/* A commit's hex, or a run too short to be kept as bytes. */
		if (k % 4 == 0)
			snprintf(d->where, sizeof(d->where), "git/0.git:%08x"
			    "%08x%08x%08x%08x", k, k * 7, k * 31, k * 131, k);
		else
			snprintf(d->where, sizeof(d->where), "git/0.git:%u", k);
		if (k % 2)
			snprintf(d->msgid, sizeof(d->msgid), "<%u@example.org>",
			    k);
		n = 1 + k % MAXT;
		for (j = 0; j < n; j++)
			for (b = 0; b < 96; b++)
				((unsigned char *)&triples[k][j])[b] =
				    byte(1000 + k * MAXT + j, b);
		if (k % 7 == 0 && k > 0)
			triples[k][0] = triples[k - 1][0];
		if (k % 5 == 0 && n > 1)
			memcpy(triples[k][n - 1].i, triples[k][0].i, 32);
		docs[k].t = triples[k];
		docs[k].n = n;
	}
}

/* want_hits - how many (triple, document) pairs have t's ID, or its i */
static size_t
want_hits(const struct att_triple *t, int by_i)
{
	char a[MSGHASH_ATTID_LEN + 1], b[MSGHASH_ATTID_LEN + 1];
	size_t k, j, n = 0;

	msghash_attid(a, t->i, t->m, t->p);
	for (k = 0; k < NDOCS; k++)
		for (j = 0; j < docs[k].n; j++) {
			msghash_attid(b, docs[k].t[j].i, docs[k].t[j].m,
			    docs[k].t[j].p);
			if (by_i ? memcmp(docs[k].t[j].i, t->i, 32) == 0 :
			    strcmp(a, b) == 0)
				n++;
		}
	return n;
}

/* held - hit is a triple of its document, with the document's facts */
static int
held(const struct att_hit *hit)
{
	const struct att_docinfo *d;
	size_t k, j;

	for (k = 0; k < NDOCS; k++) {
		d = &docs[k].d;
		if (memcmp(hit->doc.docid, d->docid, 32) != 0)
			continue;
		for (j = 0; j < docs[k].n; j++)
			if (memcmp(&hit->t, &docs[k].t[j], 96) == 0)
				return hit->doc.status == d->status &&
				    hit->doc.when == d->when &&
				    strcmp(hit->doc.fpr, d->fpr) == 0 &&
				    strcmp(hit->doc.uids, d->uids) == 0 &&
				    strcmp(hit->doc.where, d->where) == 0 &&
				    strcmp(hit->doc.msgid, d->msgid) == 0;
	}
	return 0;
}

/*
 * wrong_lookups - of every triple's ID and i, the lookups at dir that do
 * not find just the documents that hold it; -1 when it cannot be read
 */
static int
wrong_lookups(const char *dir)
{
	static struct att_hit hits[MAXHITS];
	struct attindex *h;
	struct pa_err err;
	char attid[MSGHASH_ATTID_LEN + 1];
	const struct att_triple *t;
	size_t k, j, n, x;
	int bad = 0;

	if (attindex_open(&h, dir, 0, &err) != 0) {
		tap_diag("%s", err.msg);
		return -1;
	}
	for (k = 0; k < NDOCS; k++)
		for (j = 0; j < docs[k].n; j++) {
			t = &docs[k].t[j];
			msghash_attid(attid, t->i, t->m, t->p);
			if (attindex_lookup(h, attid, hits, MAXHITS, &n,
			    &err) != 0 || n != want_hits(t, 0))
				bad++;
			for (x = 0; x < n; x++)
				bad += !held(&hits[x]);
			if (attindex_lookup_i(h, t->i, hits, MAXHITS, &n,
			    &err) != 0 || n != want_hits(t, 1))
				bad++;
			for (x = 0; x < n; x++)
				bad += !held(&hits[x]) ||
				    memcmp(hits[x].t.i, t->i, 32) != 0;
		}
	attindex_close(h);
	return bad;
}

/* kind - the flags of database name at dir and its entries; 0 or an error */
static int
kind(const char *dir, const char *name, unsigned *flags, size_t *entries)
{
	MDB_env *env;
	MDB_txn *txn;
	MDB_dbi dbi;
	MDB_stat st;
	int rc;

	if ((rc = mdb_env_create(&env)) != 0)
		return rc;
	mdb_env_set_maxdbs(env, 16);
	if ((rc = mdb_env_open(env, dir, MDB_RDONLY, 0600)) == 0 &&
	    (rc = mdb_txn_begin(env, NULL, MDB_RDONLY, &txn)) == 0) {
		if ((rc = mdb_dbi_open(txn, name, 0, &dbi)) == 0 &&
		    (rc = mdb_dbi_flags(txn, dbi, flags)) == 0 &&
		    (rc = mdb_stat(txn, dbi, &st)) == 0)
			*entries = st.ms_entries;
		mdb_txn_abort(txn);
	}
	mdb_env_close(env);
	return rc;
}

/* upgrade - an index of schema at dir: refused by a reader, upgraded */
static void
upgrade(int schema, const char *name)
{
	struct archive_mark marks[2], got[4];
	struct attindex *h;
	struct pa_err err;
	char dir[512], want[1024];
	size_t n, ndocs, atts, entries;
	unsigned flags;
	int bad, i;

	snprintf(dir, sizeof(dir), "%s/%s", base, name);
	memset(marks, 0, sizeof(marks));
	snprintf(marks[0].name, sizeof(marks[0].name), "epoch-0");
	snprintf(marks[0].value, sizeof(marks[0].value), "%040d", 7);
	snprintf(marks[1].name, sizeof(marks[1].name), "maildir");
	snprintf(marks[1].value, sizeof(marks[1].value), "new/12.x");
	if (!tap_check_int(rawindex_old(dir, schema, docs, NDOCS, marks, 2),
	    0, "an index of schema %d, %d documents, as it was written",
	    schema, NDOCS))
		return;
	tap_check_int(attindex_open(&h, dir, 0, &err), PA_ERROR,
	    "schema %d: a reader refuses it", schema);
	snprintf(want, sizeof(want), "index at %s has schema patchattest-index "
	    "%d, this program needs %s: run patchattest index, which upgrades "
	    "it in place", dir, schema, ATTINDEX_SCHEMA);
	tap_check_str(err.msg, want, "  and says what to do");

	tap_check_int(attindex_open(&h, dir, 1, &err), 0,
	    "schema %d: a writer upgrades it", schema);
	snprintf(want, sizeof(want), "index at %s upgraded in place from "
	    "patchattest-index %d to %s; documents filed anew: %d", dir,
	    schema, ATTINDEX_SCHEMA, NDOCS);
	tap_check_str(err.msg, want, "  and says so");
	if (h == NULL)
		return;
	tap_check(attindex_get_marks(h, got, 4, &n, &err) == 0 && n == 2 &&
	    strcmp(got[0].value, marks[0].value) == 0 &&
	    strcmp(got[1].value, marks[1].value) == 0,
	    "  keeping the archive marks");
	if (attindex_stats(h, &ndocs, &atts, &err) != 0)
		ndocs = 0;
	tap_check_int((long long)ndocs, NDOCS, "  and every document");
	attindex_close(h);
	bad = wrong_lookups(dir);
	tap_check_int(bad, 0, "schema %d upgraded: each ID and i finds the "
	    "documents that hold it", schema);
	for (i = 0, bad = 0; i < 3; i++) {
		const char *old[] = { "docs", "att", "byi", "records",
			"docids", "attids" };
		const char *db = old[i + (schema == 3 ? 3 : 0)];

		bad += kind(dir, db, &flags, &entries) != 0 ||
		    flags != (schema == 3 ? MDB_INTEGERKEY | MDB_DUPSORT :
		    MDB_INTEGERKEY) || entries != 0;
	}
	tap_check_int(bad, 0, "  its old databases are left empty, of "
	    "another kind");
	tap_check(attindex_open(&h, dir, 1, &err) == 0 && err.msg[0] == '\0',
	    "  a writer then opens it as it is: %s", err.msg);
	attindex_close(h);
}

/* old_reader_main - the child: the writer that upgrades the index */
static int
old_reader_main(const char *dir)
{
	struct attindex *h;
	struct pa_err err;

	if (attindex_open(&h, dir, 1, &err) != 0 || err.msg[0] == '\0')
		return 1;
	attindex_close(h);
	return 0;
}

/*
 * t_old_reader - a program of schema 2 or 3 with the index open (its
 * three databases, as it opened them) while another upgrades it: its
 * next reads fail, none reads as empty
 */
static void
t_old_reader(int schema)
{
	static const char *names2[] = { "docs", "att", "byi" };
	static const char *names3[] = { "records", "docids", "attids" };
	const char **names = schema == 3 ? names3 : names2;
	const unsigned flags2[] = { 0, MDB_DUPSORT | MDB_DUPFIXED,
		MDB_DUPSORT | MDB_DUPFIXED };
	const unsigned flags3[] = { MDB_INTEGERKEY, 0, 0 };
	const unsigned *flags = schema == 3 ? flags3 : flags2;
	MDB_env *env;
	MDB_txn *txn;
	MDB_dbi dbi[3];
	MDB_cursor *cur;
	MDB_val k, v;
	char dir[512];
	pid_t pid;
	int i, st, rc[3] = { -1, -1, -1 };

	snprintf(dir, sizeof(dir), "%s/running%d", base, schema);
	if (rawindex_old(dir, schema, docs, NDOCS, NULL, 0) != 0 ||
	    mdb_env_create(&env) != 0) {
		tap_check(0, "an index of schema %d", schema);
		return;
	}
	mdb_env_set_maxdbs(env, 8);
	if (mdb_env_open(env, dir, MDB_NOTLS | MDB_RDONLY, 0600) != 0 ||
	    mdb_txn_begin(env, NULL, MDB_RDONLY, &txn) != 0) {
		tap_check(0, "open it as schema %d did", schema);
		mdb_env_close(env);
		return;
	}
	for (i = 0; i < 3; i++)
		mdb_dbi_open(txn, names[i], flags[i], &dbi[i]);
	mdb_txn_commit(txn);
	fflush(stdout);
	if ((pid = fork()) == 0)
		_exit(old_reader_main(dir));
	tap_check(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	    WEXITSTATUS(st) == 0, "another process upgrades it meanwhile");
	if (mdb_txn_begin(env, NULL, MDB_RDONLY, &txn) == 0) {
		for (i = 0; i < 3; i++) {
			if ((rc[i] = mdb_cursor_open(txn, dbi[i], &cur)) != 0)
				continue;
			rc[i] = mdb_cursor_get(cur, &k, &v, MDB_FIRST);
			mdb_cursor_close(cur);
		}
		mdb_txn_abort(txn);
	}
	mdb_env_close(env);
	for (i = 0; i < 3; i++)
		tap_check(rc[i] != 0 && rc[i] != MDB_NOTFOUND,
		    "  schema %d's next read of %s is an error: %s", schema,
		    names[i], mdb_strerror(rc[i]));
}

/* flip - one byte of the fingerprint of the first record in docs */
static int
flip(MDB_txn *txn, MDB_dbi dbi, void *arg)
{
	unsigned char rec[2048], *at;
	MDB_cursor *cur;
	MDB_val k, v;
	int rc;

	(void)arg;
	if ((rc = mdb_cursor_open(txn, dbi, &cur)) != 0)
		return rc;
	rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST);
	mdb_cursor_close(cur);
	if (rc != 0)
		return rc;
	if (v.mv_size > sizeof(rec) ||
	    (at = memmem(v.mv_data, v.mv_size, "0000000000", 10)) == NULL)
		return MDB_NOTFOUND;
	memcpy(rec, v.mv_data, v.mv_size);
	rec[at - (unsigned char *)v.mv_data] ^= 0x01;
	v.mv_data = rec;
	return mdb_put(txn, dbi, &k, &v, 0);
}

/* t_damaged - a record of schema 2 that fails its checksum */
static void
t_damaged(void)
{
	struct attindex *h;
	struct pa_err err;
	char dir[512], want[1024];

	snprintf(dir, sizeof(dir), "%s/damaged", base);
	if (!tap_check(rawindex_old(dir, 2, docs, NDOCS, NULL, 0) == 0 &&
	    rawindex_edit(dir, "docs", flip, NULL) == 0,
	    "an index of schema 2 with a record damaged"))
		return;
	tap_check_int(attindex_open(&h, dir, 1, &err), PA_ERROR,
	    "a writer does not upgrade it");
	snprintf(want, sizeof(want), "index at %s is damaged: a document "
	    "record of patchattest-index 2 does not match its checksum, so it "
	    "cannot be upgraded to %s; remove it and run patchattest index",
	    dir, ATTINDEX_SCHEMA);
	tap_check_str(err.msg, want, "  and says why");
	tap_check_int(attindex_open(&h, dir, 0, &err), PA_ERROR,
	    "it is left as it was: a reader still refuses it");
	tap_check(strstr(err.msg, "has schema patchattest-index 2") != NULL,
	    "  for its schema: %s", err.msg);
}

int
main(void)
{
	tap_tmpdir(base, sizeof(base), "t-attindex-upgrade");
	gen_docs();
	upgrade(3, "v3");
	upgrade(2, "v2");
	upgrade(1, "v1");
	t_old_reader(3);
	t_old_reader(2);
	t_damaged();
	tap_rmtree(base);
	return tap_done();
}
