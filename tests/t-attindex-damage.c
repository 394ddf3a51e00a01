/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t-attindex-damage - what the index makes of a damaged or replaced
 * file: an emptied data file, a record whose bytes changed, an entry
 * that names the wrong triple, an index of schema 1 (records without
 * checksums) upgraded in place, and a file replaced under an open handle.
 * Damage is an error that says so, never a record.
 *
 * Everything happens in a temporary directory, removed at the end.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lmdb.h>

#include "attindex.h"
#include "patchattest.h"
#include "tap.h"

#define FPR	"0123456789ABCDEF0123456789ABCDEF01234567"

static char base[256];

/* one_doc - a document with one triple, the bytes of each made from seed */
static void
one_doc(struct att_docinfo *d, struct att_triple *t, int seed)
{
	memset(d, 0, sizeof(*d));
	memset(t, 0, sizeof(*t));
	memset(d->docid, seed, 32);
	memset(t->i, seed + 1, 32);
	memset(t->m, seed + 2, 32);
	memset(t->p, seed + 3, 32);
	d->status = PGP_SIG_GOOD;
	d->when = 1700000000;
	snprintf(d->fpr, sizeof(d->fpr), "%s", FPR);
}

/* make_index - an index at dir/name holding one_doc(seed) */
static int
make_index(char *dir, size_t size, const char *name, int seed)
{
	struct att_docinfo d;
	struct att_triple t;
	struct attindex *h;
	struct pa_err err;
	int rc;

	snprintf(dir, size, "%s/%s", base, name);
	one_doc(&d, &t, seed);
	if ((rc = attindex_open(&h, dir, 1, &err)) != 0)
		return rc;
	rc = attindex_begin(h, &err);
	rc = rc ? rc : attindex_put(h, &d, &t, 1, &err);
	rc = rc ? rc : attindex_commit(h, &err);
	attindex_close(h);
	return rc;
}

/* lookup - of one_doc(seed)'s ID in the index at dir: 0, or why not */
static int
lookup(const char *dir, int seed, struct att_hit *hit, struct pa_err *err)
{
	struct att_docinfo d;
	struct att_triple t;
	struct attindex *h;
	char attid[MSGHASH_ATTID_LEN + 1];
	size_t n = 0;
	int rc;

	one_doc(&d, &t, seed);
	msghash_attid(attid, t.i, t.m, t.p);
	if ((rc = attindex_open(&h, dir, 0, err)) != 0)
		return rc;
	rc = attindex_lookup(h, attid, hit, 1, &n, err);
	attindex_close(h);
	if (rc == 0 && n != 1) {
		pa_err_set(err, "%zu hits", n);
		return PA_ENOTFOUND;
	}
	return rc;
}

/*
 * raw - edit the index at dir with LMDB itself: fn gets a write
 * transaction and the named database
 */
static int
raw(const char *dir, const char *db, unsigned flags,
    int (*fn)(MDB_txn *, MDB_dbi, void *), void *arg)
{
	MDB_env *env;
	MDB_txn *txn;
	MDB_dbi dbi;
	int rc;

	if ((rc = mdb_env_create(&env)) != 0)
		return rc;
	mdb_env_set_maxdbs(env, 8);
	if ((rc = mdb_env_open(env, dir, 0, 0600)) == 0 &&
	    (rc = mdb_txn_begin(env, NULL, 0, &txn)) == 0) {
		if ((rc = mdb_dbi_open(txn, db, flags, &dbi)) == 0 &&
		    (rc = fn(txn, dbi, arg)) == 0)
			rc = mdb_txn_commit(txn);
		else
			mdb_txn_abort(txn);
	}
	mdb_env_close(env);
	return rc;
}

/* flip_record - one byte of the fingerprint in document arg's record */
static int
flip_record(MDB_txn *txn, MDB_dbi dbi, void *arg)
{
	unsigned char rec[1024], *at;
	MDB_val k = { 32, arg }, v;
	int rc;

	if ((rc = mdb_get(txn, dbi, &k, &v)) != 0 || v.mv_size > sizeof(rec))
		return rc ? rc : MDB_CORRUPTED;
	memcpy(rec, v.mv_data, v.mv_size);
	if ((at = memmem(rec, v.mv_size, FPR, 40)) == NULL)
		return MDB_NOTFOUND;
	at[5] ^= 0x01;
	v.mv_data = rec;
	return mdb_put(txn, dbi, &k, &v, 0);
}

/* change_m - the att entry of arg's ID names another m (a "fail") */
static int
change_m(MDB_txn *txn, MDB_dbi dbi, void *arg)
{
	unsigned char val[128];
	MDB_val k = { MSGHASH_ATTID_LEN, arg }, v;
	int rc;

	if ((rc = mdb_get(txn, dbi, &k, &v)) != 0 || v.mv_size != sizeof(val))
		return rc ? rc : MDB_CORRUPTED;
	memcpy(val, v.mv_data, sizeof(val));
	if ((rc = mdb_del(txn, dbi, &k, NULL)) != 0)
		return rc;
	val[40] ^= 0xff;		/* inside m, past the ID's 4 bytes */
	v.mv_data = val;
	return mdb_put(txn, dbi, &k, &v, 0);
}

static void
t_empty(void)
{
	struct attindex *h;
	struct pa_err err;
	struct stat sb;
	char dir[512], data[600];
	int rc;

	if (!tap_check_int(make_index(dir, sizeof(dir), "empty", 1), 0,
	    "an index"))
		return;
	attindex_file(data, sizeof(data), dir);
	if (!tap_check_int(truncate(data, 0), 0, "its file emptied"))
		return;
	rc = attindex_open(&h, dir, 1, &err);
	tap_check(rc == PA_ERROR && h == NULL && strstr(err.msg, "damaged"),
	    "a writer refuses an empty file: %s", err.msg);
	tap_check(stat(data, &sb) == 0 && sb.st_size == 0,
	    "  and leaves it as it is (not a new index)");
	rc = attindex_open(&h, dir, 0, &err);
	tap_check(rc == PA_ERROR && h == NULL && strstr(err.msg, "damaged"),
	    "a reader too: %s", err.msg);
}

static void
t_record(void)
{
	struct att_docinfo d;
	struct att_triple t;
	struct att_hit hit;
	struct pa_err err;
	char dir[512], attid[MSGHASH_ATTID_LEN + 1];

	if (!tap_check_int(make_index(dir, sizeof(dir), "record", 1), 0,
	    "an index"))
		return;
	tap_check_int(lookup(dir, 1, &hit, &err), 0, "its document is found");
	tap_check_str(hit.doc.fpr, FPR, "  with its fingerprint");
	one_doc(&d, &t, 1);
	tap_check_int(raw(dir, "docs", 0, flip_record, d.docid), 0,
	    "one bit of its record flipped");
	tap_check_int(lookup(dir, 1, &hit, &err), PA_ERROR,
	    "the lookup fails");
	tap_check(strstr(err.msg, "is damaged: a record does not match its "
	    "checksum") != NULL, "  and says why: %s", err.msg);

	if (!tap_check_int(make_index(dir, sizeof(dir), "entry", 1), 0,
	    "another index"))
		return;
	msghash_attid(attid, t.i, t.m, t.p);
	tap_check_int(raw(dir, "att", MDB_DUPSORT | MDB_DUPFIXED, change_m,
	    attid), 0, "its entry names another commit message");
	tap_check_int(lookup(dir, 1, &hit, &err), PA_ERROR,
	    "the lookup fails, it is no record of another message");
	tap_check(strstr(err.msg, "damaged") != NULL, "  and says why: %s",
	    err.msg);
}

/* to_v1 - the record of document arg in the first format, as was */
static int
to_v1(MDB_txn *txn, MDB_dbi dbi, void *arg)
{
	struct att_docinfo d;
	struct att_triple t;
	unsigned char rec[256], *p = rec;
	MDB_val k = { 32, arg }, v;

	one_doc(&d, &t, 1);
	*p++ = 1;					/* version */
	*p++ = 1, *p++ = 1, *p++ = 1;			/* status: good */
	*p++ = 2, *p++ = 8;				/* when */
	memcpy(p, "\0\0\0\0\x65\x53\xf1\x00", 8), p += 8;
	*p++ = 3, *p++ = 40;				/* fingerprint */
	memcpy(p, FPR, 40), p += 40;
	*p++ = 7, *p++ = 96;				/* one triple */
	memcpy(p, &t, 96), p += 96;
	v.mv_data = rec;
	v.mv_size = (size_t)(p - rec);
	return mdb_put(txn, dbi, &k, &v, 0);
}

static int
stamp_v1(MDB_txn *txn, MDB_dbi dbi, void *arg)
{
	MDB_val k = { 6, "schema" }, v = { 19, "patchattest-index 1" };

	(void)arg;
	return mdb_put(txn, dbi, &k, &v, 0);
}

static void
t_upgrade(void)
{
	struct att_docinfo d;
	struct att_triple t;
	struct att_hit hit;
	struct attindex *h;
	struct pa_err err;
	char dir[512], want[1024];

	if (!tap_check_int(make_index(dir, sizeof(dir), "v1", 1), 0,
	    "an index"))
		return;
	one_doc(&d, &t, 1);
	tap_check(raw(dir, "docs", 0, to_v1, d.docid) == 0 &&
	    raw(dir, "meta", 0, stamp_v1, NULL) == 0,
	    "made one of schema 1, as the previous version wrote it");
	tap_check_int(lookup(dir, 1, &hit, &err), PA_ERROR,
	    "a reader refuses it");
	snprintf(want, sizeof(want), "index at %s has schema patchattest-index "
	    "1, this program needs %s: run patchattest index, which upgrades "
	    "it in place", dir, ATTINDEX_SCHEMA);
	tap_check_str(err.msg, want, "  and says what to do");
	tap_check_int(attindex_open(&h, dir, 1, &err), 0,
	    "a writer upgrades it");
	snprintf(want, sizeof(want), "index at %s upgraded from "
	    "patchattest-index 1 to %s: 1 document records now carry a "
	    "checksum", dir, ATTINDEX_SCHEMA);
	tap_check_str(err.msg, want, "  and says so");
	attindex_close(h);
	tap_check_int(lookup(dir, 1, &hit, &err), 0,
	    "then its document is found");
	tap_check(strcmp(hit.doc.fpr, FPR) == 0 &&
	    hit.doc.status == PGP_SIG_GOOD && hit.doc.when == 1700000000 &&
	    memcmp(&hit.t, &t, sizeof(t)) == 0, "  as it was stored");
}

static void
t_replaced(void)
{
	struct attindex *h;
	struct pa_err err;
	char dir[512], other[512], data[600], odata[600];

	if (make_index(dir, sizeof(dir), "replaced", 1) != 0 ||
	    make_index(other, sizeof(other), "other", 2) != 0 ||
	    attindex_open(&h, dir, 0, &err) != 0) {
		tap_check(0, "two indexes");
		return;
	}
	attindex_file(data, sizeof(data), dir);
	attindex_file(odata, sizeof(odata), other);
	tap_check_int(attindex_replaced(h), 0, "an index just opened is "
	    "not replaced");
	tap_check_int(rename(odata, data), 0, "another file moved over it");
	tap_check_int(attindex_replaced(h), 1, "  is seen");
	tap_check_int(unlink(data), 0, "the file removed");
	tap_check_int(attindex_replaced(h), 1, "  is seen");
	attindex_close(h);
}

int
main(void)
{
	tap_tmpdir(base, sizeof(base), "t-attindex-damage");
	t_empty();
	t_record();
	t_upgrade();
	t_replaced();
	tap_rmtree(base);
	return tap_done();
}
