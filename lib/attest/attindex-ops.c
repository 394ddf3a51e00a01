/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * attindex-ops.c - the index's writes, each one function of an LMDB
 * transaction and a journal payload (enum jop in attindex-int.h), so
 * that attindex-write.c can replay a transaction's writes after growing
 * the map.  Each returns 0 or an LMDB or errno code; MDB_MAP_FULL means
 * "grow and replay".
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <lmdb.h>

#include "attindex.h"
#include "attindex-int.h"
#include "attrec.h"
#include "base.h"

static int	 do_put(struct attindex *, MDB_txn *, const unsigned char *,
		    size_t);
static int	 do_marks(struct attindex *, MDB_txn *, const unsigned char *,
		    size_t);

/*
 * do_put - a document record (its ID inside): a no-op when stored alike,
 * else it replaces the one stored
 */
static int
do_put(struct attindex *h, MDB_txn *txn, const unsigned char *rec,
    size_t len)
{
	const unsigned char *docid, *t;
	uint32_t num;
	MDB_val v;
	size_t n;
	int rc;

	if (attrec_decode(rec, len, NULL, &docid, &t, &n) != 0)
		return MDB_CORRUPTED;
	rc = idx_doc_find(h, txn, docid, &num, &v);
	if (rc == 0 && v.mv_size == len && memcmp(v.mv_data, rec, len) == 0)
		return 0;
	if (rc == 0)
		rc = idx_doc_del(h, txn, docid);
	if (rc != 0 && rc != MDB_NOTFOUND)
		return rc;
	return idx_doc_add(h, txn, rec, len);
}

/* do_marks - replace every mark by the encoded list p */
static int
do_marks(struct attindex *h, MDB_txn *txn, const unsigned char *p,
    size_t len)
{
	char key[MARK_PREFIX_LEN + 256];
	MDB_cursor *cur;
	MDB_val k, v;
	size_t off, nlen, vlen;
	int rc;

	if ((rc = mdb_cursor_open(txn, h->meta, &cur)) != 0)
		return rc;
	for (;;) {
		k.mv_data = (void *)MARK_PREFIX;
		k.mv_size = MARK_PREFIX_LEN;
		rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE);
		if (rc != 0 || k.mv_size < MARK_PREFIX_LEN ||
		    memcmp(k.mv_data, MARK_PREFIX, MARK_PREFIX_LEN) != 0)
			break;
		if ((rc = mdb_cursor_del(cur, 0)) != 0)
			break;
	}
	mdb_cursor_close(cur);
	if (rc != 0 && rc != MDB_NOTFOUND)
		return rc;
	memcpy(key, MARK_PREFIX, MARK_PREFIX_LEN);
	for (off = 0; off + 2 <= len; off += 2 + nlen + vlen) {
		nlen = p[off];
		vlen = p[off + 1 + nlen];
		memcpy(key + MARK_PREFIX_LEN, p + off + 1, nlen);
		k.mv_data = key;
		k.mv_size = MARK_PREFIX_LEN + nlen;
		v.mv_data = (void *)(p + off + 2 + nlen);
		v.mv_size = vlen;
		if ((rc = mdb_put(txn, h->meta, &k, &v, 0)) != 0)
			return rc;
	}
	return 0;
}

int
idx_apply(struct attindex *h, int op, const unsigned char *p, size_t len)
{
	switch (op) {
	case J_SETUP:
		return idx_setup(h, h->wtxn);
	case J_PUT:
		return do_put(h, h->wtxn, p, len);
	case J_REMOVE:
		return idx_doc_del(h, h->wtxn, p);
	case J_MARKS:
		return do_marks(h, h->wtxn, p, len);
	}
	return EINVAL;
}
