/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * attindex-store.c - a document filed in the index's databases and taken
 * out of them (the layout is in attindex.c): its record under the next
 * number, its ID's entry in docids, one attids entry per attestation ID
 * of its triples.  The writes (attindex-ops.c) and the upgrade
 * (attindex-schema.c) file documents through here; the lookups
 * (attindex-read.c) make their keys here.  Each returns 0 or an LMDB or
 * errno code.
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

static int	 next_num(struct attindex *, MDB_txn *, uint32_t *);
static int	 entries(struct attindex *, MDB_txn *, const unsigned char *,
		    size_t, uint32_t, int);

void
idx_prefix(unsigned char out[PREFIX_LEN], const unsigned char *t)
{
	memcpy(out, t, 4);
	memcpy(out + 4, t + 32, 4);
	memcpy(out + 8, t + 64, 4);
}

int
idx_rec_get(struct attindex *h, MDB_txn *txn, uint32_t num, MDB_val *v)
{
	unsigned int key = num;
	MDB_val k;

	k.mv_data = &key;
	k.mv_size = sizeof(key);
	return mdb_get(txn, h->recs, &k, v);
}

/*
 * next_num - a number no document had: past the one the meta database
 * keeps and past the last record, however either was left; the next
 * one kept there.  Numbers are never given twice, so an entry left
 * behind by a record that could not be read leads to no other record.
 */
static int
next_num(struct attindex *h, MDB_txn *txn, uint32_t *num)
{
	unsigned char buf[NUM_LEN];
	unsigned int last = 0;
	MDB_cursor *cur;
	MDB_val k, v;
	int rc;

	k.mv_data = (void *)NEXT_KEY;
	k.mv_size = sizeof(NEXT_KEY) - 1;
	rc = mdb_get(txn, h->meta, &k, &v);
	if (rc == 0 && v.mv_size == NUM_LEN)
		*num = bigend_get32(v.mv_data);
	else if (rc == 0 || rc == MDB_NOTFOUND)
		*num = 1;
	else
		return rc;
	if ((rc = mdb_cursor_open(txn, h->recs, &cur)) != 0)
		return rc;
	rc = mdb_cursor_get(cur, &k, &v, MDB_LAST);
	if (rc == 0 && k.mv_size == sizeof(last))
		memcpy(&last, k.mv_data, sizeof(last));
	mdb_cursor_close(cur);
	if (rc != 0 && rc != MDB_NOTFOUND)
		return rc;
	if (*num <= last)
		*num = last + 1;
	/* Four billion documents filed: the map is full long before, so
	   it is a damaged count; a new index starts again at 1. */
	if (*num == 0 || *num == NUM_MAX)
		return MDB_CORRUPTED;
	bigend_put32(buf, *num + 1);
	k.mv_data = (void *)NEXT_KEY;
	k.mv_size = sizeof(NEXT_KEY) - 1;
	v.mv_data = buf;
	v.mv_size = sizeof(buf);
	return mdb_put(txn, h->meta, &k, &v, 0);
}

/*
 * entries - the attids entries of n triples at t of document num, put
 * (add) or deleted; a triple that shares its ID with another of the
 * same document shares its entry too
 */
static int
entries(struct attindex *h, MDB_txn *txn, const unsigned char *t, size_t n,
    uint32_t num, int add)
{
	unsigned char key[KEY_LEN];
	MDB_val k, v;
	size_t i;
	int rc;

	bigend_put32(key + PREFIX_LEN, num);
	k.mv_data = key;
	k.mv_size = KEY_LEN;
	v.mv_data = key;
	v.mv_size = 0;
	for (i = 0; i < n; i++, t += TRIPLE_LEN) {
		idx_prefix(key, t);
		rc = add ? mdb_put(txn, h->att, &k, &v, 0) :
		    mdb_del(txn, h->att, &k, NULL);
		if (rc != 0 && (add || rc != MDB_NOTFOUND))
			return rc;
	}
	return 0;
}

int
idx_doc_add(struct attindex *h, MDB_txn *txn, const unsigned char *rec,
    size_t len)
{
	const unsigned char *docid, *t;
	unsigned char numbuf[NUM_LEN];
	unsigned int key;
	uint32_t num;
	MDB_val k, v;
	size_t n;
	int rc;

	if (attrec_decode(rec, len, NULL, &docid, &t, &n) != 0)
		return MDB_CORRUPTED;
	if ((rc = next_num(h, txn, &num)) != 0)
		return rc;
	key = num;
	k.mv_data = &key;
	k.mv_size = sizeof(key);
	v.mv_data = (void *)rec;
	v.mv_size = len;
	/* Numbers only grow: records fill their pages, none is split. */
	if ((rc = mdb_put(txn, h->recs, &k, &v, MDB_APPEND)) != 0)
		return rc == MDB_KEYEXIST ? MDB_CORRUPTED : rc;
	bigend_put32(numbuf, num);
	k.mv_data = (void *)docid;
	k.mv_size = DOCKEY_LEN;
	v.mv_data = numbuf;
	v.mv_size = NUM_LEN;
	if ((rc = mdb_put(txn, h->ids, &k, &v, 0)) != 0)
		return rc;
	return entries(h, txn, t, n, num, 1);
}

/*
 * idx_doc_find - the docids entries of docid's first bytes, each the
 * number of a record: the one whose ID is docid.  Two documents may
 * share those bytes (someone would have had to look for such a pair:
 * 2^64 tries), so each is read.  A record that cannot be read is its
 * document's all the same when no other is; one of another ID that
 * does not even share those bytes is damage.
 */
int
idx_doc_find(struct attindex *h, MDB_txn *txn, const unsigned char *docid,
    uint32_t *num, MDB_val *rec)
{
	const unsigned char *id;
	MDB_cursor *cur;
	MDB_val k, v, r;
	int rc, unread = 0;

	if ((rc = mdb_cursor_open(txn, h->ids, &cur)) != 0)
		return rc;
	k.mv_data = (void *)docid;
	k.mv_size = DOCKEY_LEN;
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_SET_KEY); rc == 0;
	    rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT_DUP)) {
		if (v.mv_size != NUM_LEN) {
			rc = MDB_CORRUPTED;
			break;
		}
		if ((rc = idx_rec_get(h, txn, bigend_get32(v.mv_data),
		    &r)) != 0) {
			rc = rc == MDB_NOTFOUND ? MDB_CORRUPTED : rc;
			break;
		}
		if (attrec_decode(r.mv_data, r.mv_size, NULL, &id, NULL,
		    NULL) != 0) {
			if (!unread++) {
				*num = bigend_get32(v.mv_data);
				*rec = r;
			}
			continue;
		}
		if (memcmp(id, docid, DOCKEY_LEN) != 0) {
			rc = MDB_CORRUPTED;
			break;
		}
		if (memcmp(id, docid, 32) == 0) {
			*num = bigend_get32(v.mv_data);
			*rec = r;
			break;
		}
	}
	mdb_cursor_close(cur);
	return rc == MDB_NOTFOUND && unread ? 0 : rc;
}

int
idx_doc_del(struct attindex *h, MDB_txn *txn, const unsigned char *docid)
{
	const unsigned char *id, *t;
	unsigned char numbuf[NUM_LEN];
	unsigned int key;
	uint32_t num;
	MDB_val k, v;
	size_t n;
	int rc;

	if ((rc = idx_doc_find(h, txn, docid, &num, &v)) != 0)
		return rc;
	/* Data from the map is only valid until the next update: copy. */
	sbuf_reset(&h->scratch);
	if (attrec_decode(v.mv_data, v.mv_size, NULL, &id, &t, &n) == 0 &&
	    sbuf_add(&h->scratch, t, n * TRIPLE_LEN) != 0)
		return ENOMEM;
	key = num;
	k.mv_data = &key;
	k.mv_size = sizeof(key);
	if ((rc = mdb_del(txn, h->recs, &k, NULL)) != 0)
		return rc;
	bigend_put32(numbuf, num);
	k.mv_data = (void *)docid;
	k.mv_size = DOCKEY_LEN;
	v.mv_data = numbuf;
	v.mv_size = NUM_LEN;
	if ((rc = mdb_del(txn, h->ids, &k, &v)) != 0)
		return rc;
	/* An unreadable record only loses its document: its entries lead
	   to no record, and its number is never given again. */
	return entries(h, txn, (const unsigned char *)h->scratch.buf,
	    h->scratch.len / TRIPLE_LEN, num, 0);
}
