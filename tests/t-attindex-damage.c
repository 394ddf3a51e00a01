/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t-attindex-damage - what the index makes of a damaged or replaced
 * file: an emptied data file, a record whose bytes changed, an entry
 * that leads to another document's record (by attestation ID, by
 * document ID), and a file replaced under an open handle.  Damage is an
 * error that says so, never a record.  (t-attindex-upgrade: indexes of
 * earlier schemas.)
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
#include "rawindex.h"
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

/* flip_record - one byte of the fingerprint in the record numbered 1 */
static int
flip_record(MDB_txn *txn, MDB_dbi dbi, void *arg)
{
	/* FPR as the record keeps it: the bytes its digits spell. */
	static const unsigned char fpr[] = {
		0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0x01, 0x23,
		0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0x01, 0x23, 0x45, 0x67,
	};
	unsigned char rec[1024], *at;
	unsigned int num = 1;
	MDB_val k = { sizeof(num), &num }, v;
	int rc;

	(void)arg;
	if ((rc = mdb_get(txn, dbi, &k, &v)) != 0 || v.mv_size > sizeof(rec))
		return rc ? rc : MDB_CORRUPTED;
	memcpy(rec, v.mv_data, v.mv_size);
	if ((at = memmem(rec, v.mv_size, fpr, sizeof(fpr))) == NULL)
		return MDB_NOTFOUND;
	at[5] ^= 0x01;
	v.mv_data = rec;
	return mdb_put(txn, dbi, &k, &v, 0);
}

/* to_doc2 - the attids entry of document 1 (number 1) leads to number 2 */
static int
to_doc2(MDB_txn *txn, MDB_dbi dbi, void *arg)
{
	unsigned char key[16];
	MDB_val k = { sizeof(key), key }, v = { 0, key };
	int rc;

	memcpy(key, arg, 12);
	memset(key + 12, 0, 4);
	key[15] = 1;
	if ((rc = mdb_del(txn, dbi, &k, NULL)) != 0)
		return rc;
	key[15] = 2;
	return mdb_put(txn, dbi, &k, &v, 0);
}

/* id_to_doc2 - the docids entry of document arg leads to number 2 */
static int
id_to_doc2(MDB_txn *txn, MDB_dbi dbi, void *arg)
{
	unsigned char num[4] = { 0, 0, 0, 2 };
	MDB_val k = { 16, arg }, v = { sizeof(num), num };
	int rc;

	if ((rc = mdb_del(txn, dbi, &k, NULL)) != 0)
		return rc;
	return mdb_put(txn, dbi, &k, &v, 0);
}

/* prefix - the 12 bytes of the attestation ID of one_doc(seed) */
static void
prefix(unsigned char out[12], int seed)
{
	memset(out, seed + 1, 4);
	memset(out + 4, seed + 2, 4);
	memset(out + 8, seed + 3, 4);
}

/* add_doc - one_doc(seed) into the index at dir */
static int
add_doc(const char *dir, int seed, struct pa_err *err)
{
	struct att_docinfo d;
	struct att_triple t;
	struct attindex *h;
	int rc;

	one_doc(&d, &t, seed);
	if ((rc = attindex_open(&h, dir, 1, err)) != 0)
		return rc;
	rc = attindex_begin(h, err);
	rc = rc ? rc : attindex_put(h, &d, &t, 1, err);
	rc = rc ? rc : attindex_commit(h, err);
	attindex_close(h);
	return rc;
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
	struct attindex *h;
	struct pa_err err;
	unsigned char key[12];
	char dir[512];
	size_t n;
	int rc;

	if (!tap_check_int(make_index(dir, sizeof(dir), "record", 1), 0,
	    "an index"))
		return;
	tap_check_int(lookup(dir, 1, &hit, &err), 0, "its document is found");
	tap_check_str(hit.doc.fpr, FPR, "  with its fingerprint");
	tap_check_int(rawindex_edit(dir, "records4", flip_record, NULL),
	    0, "one bit of its record flipped");
	tap_check_int(lookup(dir, 1, &hit, &err), PA_ERROR,
	    "the lookup fails");
	tap_check(strstr(err.msg, "is damaged: a record does not match its "
	    "checksum") != NULL, "  and says why: %s", err.msg);
	one_doc(&d, &t, 1);
	n = 1;
	if (attindex_open(&h, dir, 0, &err) == 0) {
		rc = attindex_lookup_i(h, t.i, &hit, 1, &n, &err);
		attindex_close(h);
		tap_check(rc == PA_ERROR && n == 0 && strstr(err.msg,
		    "damaged"), "  so does the lookup by i: %s", err.msg);
	} else
		tap_check(0, "open it: %s", err.msg);

	if (!tap_check(make_index(dir, sizeof(dir), "entry", 1) == 0 &&
	    add_doc(dir, 5, &err) == 0, "another index, of two documents"))
		return;
	prefix(key, 1);
	tap_check_int(rawindex_edit(dir, "attids4", to_doc2, key), 0,
	    "the first one's entry leads to the second one's record");
	tap_check_int(lookup(dir, 1, &hit, &err), PA_ERROR,
	    "the lookup fails, it is no record of another document");
	tap_check(strstr(err.msg, "damaged") != NULL, "  and says why: %s",
	    err.msg);
	tap_check_int(lookup(dir, 5, &hit, &err), 0,
	    "the second one is found as it was");

	if (!tap_check(make_index(dir, sizeof(dir), "docid", 1) == 0 &&
	    add_doc(dir, 5, &err) == 0, "a third index, of two documents"))
		return;
	tap_check_int(rawindex_edit(dir, "docids4", id_to_doc2, d.docid), 0,
	    "the first one's ID leads to the second one's record");
	if (attindex_open(&h, dir, 1, &err) != 0) {
		tap_check(0, "open it: %s", err.msg);
		return;
	}
	rc = attindex_begin(h, &err);
	rc = rc ? rc : attindex_remove(h, d.docid, &err);
	tap_check(rc == PA_ERROR && strstr(err.msg, "damaged"),
	    "removing the first one fails: %s", err.msg);
	attindex_abort(h);
	attindex_close(h);
	tap_check_int(lookup(dir, 5, &hit, &err), 0,
	    "  and leaves the second one alone");
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
	t_replaced();
	tap_rmtree(base);
	return tap_done();
}
