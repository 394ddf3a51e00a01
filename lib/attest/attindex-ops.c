/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * attindex-ops.c - the index's writes, each one function of an LMDB
 * transaction and a journal payload (enum jop in attindex-int.h), so
 * that attindex.c can replay a transaction's writes after growing the
 * map.  Each returns 0 or an LMDB or errno code; MDB_MAP_FULL means
 * "grow and replay".
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <lmdb.h>

#include "attindex.h"
#include "attindex-int.h"
#include "attrec.h"
#include "base.h"

/*
 * The two entries one triple of a document makes: att (attid ->
 * i|m|p|docid) and byi (i -> m|p|docid).  The MDB_vals point into it.
 */
struct entries {
	unsigned char	 val[ATT_VLEN];
	char		 attid[ATTID_LEN + 1];	/* the key: without its NUL */
	MDB_val		 katt, vatt, kbyi, vbyi;
};

static void	 entries_of(struct entries *, const unsigned char *,
		    const unsigned char *);
static int	 doc_get(struct attindex *, MDB_txn *, const unsigned char *,
		    MDB_val *, MDB_val *);
static int	 do_setup(struct attindex *, MDB_txn *);
static int	 upgrade(struct attindex *, MDB_txn *);
static int	 do_put(struct attindex *, MDB_txn *, const unsigned char *,
		    const unsigned char *, size_t);
static int	 do_remove(struct attindex *, MDB_txn *,
		    const unsigned char *);
static int	 do_marks(struct attindex *, MDB_txn *, const unsigned char *,
		    size_t);

/*
 * do_setup - the writer's first transaction: check the schema stamp,
 * upgrade an index of schema 1, make the databases.  An environment
 * with data but not our stamp is refused (h->foreign), not emptied.
 */
static int
do_setup(struct attindex *h, MDB_txn *txn)
{
	static const char stamp[] = ATTINDEX_SCHEMA;
	MDB_val k, v;
	MDB_dbi main, meta;
	MDB_stat st;
	int rc, same = 0, old = 0;

	h->foreign = 0;
	h->upgraded = 0;
	snprintf(h->oldstamp, sizeof(h->oldstamp), "%s", "");
	if ((rc = mdb_dbi_open(txn, NULL, 0, &main)) != 0 ||
	    (rc = mdb_stat(txn, main, &st)) != 0)
		return rc;
	rc = mdb_dbi_open(txn, "meta", 0, &meta);
	if (rc == 0) {
		k.mv_data = (void *)SCHEMA_KEY;
		k.mv_size = sizeof(SCHEMA_KEY) - 1;
		rc = mdb_get(txn, meta, &k, &v);
		if (rc == 0) {
			same = v.mv_size == sizeof(stamp) - 1 &&
			    memcmp(v.mv_data, stamp, v.mv_size) == 0;
			old = v.mv_size == sizeof(SCHEMA_1) - 1 &&
			    memcmp(v.mv_data, SCHEMA_1, v.mv_size) == 0;
			hdrfmt_printable(h->oldstamp, sizeof(h->oldstamp),
			    v.mv_data, v.mv_size);
		}
	}
	if (rc != 0 && rc != MDB_NOTFOUND && rc != MDB_INCOMPATIBLE)
		return rc;
	if (!same && !old && st.ms_entries > 0) {
		h->foreign = 1;
		return MDB_INCOMPATIBLE;
	}
	if ((rc = mdb_dbi_open(txn, "meta", MDB_CREATE, &h->meta)) != 0 ||
	    (rc = mdb_dbi_open(txn, "docs", MDB_CREATE, &h->docs)) != 0 ||
	    (rc = mdb_dbi_open(txn, "att",
	    MDB_CREATE | MDB_DUPSORT | MDB_DUPFIXED, &h->att)) != 0 ||
	    (rc = mdb_dbi_open(txn, "byi",
	    MDB_CREATE | MDB_DUPSORT | MDB_DUPFIXED, &h->byi)) != 0)
		return rc;
	if (same)
		return 0;
	if (old && (rc = upgrade(h, txn)) != 0)
		return rc;
	k.mv_data = (void *)SCHEMA_KEY;
	k.mv_size = sizeof(SCHEMA_KEY) - 1;
	v.mv_data = (void *)stamp;
	v.mv_size = sizeof(stamp) - 1;
	return mdb_put(txn, h->meta, &k, &v, 0);
}

/*
 * upgrade - every document record of schema 1 rewritten with its
 * checksum; one that cannot be read stays as it is, and reads as damaged
 */
static int
upgrade(struct attindex *h, MDB_txn *txn)
{
	unsigned char docid[32];
	MDB_cursor *cur;
	MDB_val k, v;
	int rc;

	if ((rc = mdb_cursor_open(txn, h->docs, &cur)) != 0)
		return rc;
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0;
	    rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
		if (k.mv_size != sizeof(docid))
			continue;
		memcpy(docid, k.mv_data, sizeof(docid));
		sbuf_reset(&h->scratch);
		if (attrec_upgrade(&h->scratch, docid, v.mv_data,
		    v.mv_size) != 0)
			continue;
		if (sbuf_failed(&h->scratch) != 0) {
			rc = ENOMEM;
			break;
		}
		k.mv_data = docid;
		v.mv_data = h->scratch.buf;
		v.mv_size = h->scratch.len;
		if ((rc = mdb_cursor_put(cur, &k, &v, MDB_CURRENT)) != 0)
			break;
		h->upgraded++;
	}
	mdb_cursor_close(cur);
	return rc == MDB_NOTFOUND ? 0 : rc;
}

static void
entries_of(struct entries *e, const unsigned char *t,
    const unsigned char *docid)
{
	memcpy(e->val, t, TRIPLE_LEN);
	memcpy(e->val + TRIPLE_LEN, docid, 32);
	msghash_attid(e->attid, t, t + 32, t + 64);
	e->katt.mv_data = e->attid;
	e->katt.mv_size = ATTID_LEN;
	e->vatt.mv_data = e->val;
	e->vatt.mv_size = ATT_VLEN;
	e->kbyi.mv_data = e->val;
	e->kbyi.mv_size = 32;
	e->vbyi.mv_data = e->val + 32;
	e->vbyi.mv_size = BYI_VLEN;
}

/* doc_get - the record of document docid, with k its key */
static int
doc_get(struct attindex *h, MDB_txn *txn, const unsigned char *docid,
    MDB_val *k, MDB_val *v)
{
	k->mv_data = (void *)docid;
	k->mv_size = 32;
	return mdb_get(txn, h->docs, k, v);
}

/* do_put - a document: a no-op when stored alike, else replaces it */
static int
do_put(struct attindex *h, MDB_txn *txn, const unsigned char *docid,
    const unsigned char *rec, size_t len)
{
	const unsigned char *t;
	struct entries e;
	MDB_val k, v;
	size_t n, i;
	int rc;

	rc = doc_get(h, txn, docid, &k, &v);
	if (rc == 0 && v.mv_size == len && memcmp(v.mv_data, rec, len) == 0)
		return 0;
	if (rc == 0)
		rc = do_remove(h, txn, docid);
	if (rc != 0 && rc != MDB_NOTFOUND)
		return rc;
	v.mv_data = (void *)rec;
	v.mv_size = len;
	if ((rc = mdb_put(txn, h->docs, &k, &v, 0)) != 0)
		return rc;
	if (attrec_decode(rec, len, docid, NULL, &t, &n) != 0)
		return MDB_CORRUPTED;
	for (i = 0; i < n; i++, t += TRIPLE_LEN) {
		entries_of(&e, t, docid);
		rc = mdb_put(txn, h->att, &e.katt, &e.vatt, MDB_NODUPDATA);
		if (rc != 0 && rc != MDB_KEYEXIST)
			return rc;
		rc = mdb_put(txn, h->byi, &e.kbyi, &e.vbyi, MDB_NODUPDATA);
		if (rc != 0 && rc != MDB_KEYEXIST)
			return rc;
	}
	return 0;
}

/* do_remove - a document and its triples; MDB_NOTFOUND when absent */
static int
do_remove(struct attindex *h, MDB_txn *txn, const unsigned char *docid)
{
	const unsigned char *t;
	struct entries e;
	MDB_val k, v;
	size_t n, i;
	int rc;

	if ((rc = doc_get(h, txn, docid, &k, &v)) != 0)
		return rc;
	/* Data from the map is only valid until the next update: copy. */
	sbuf_reset(&h->scratch);
	if (attrec_decode(v.mv_data, v.mv_size, docid, NULL, &t,
	    &n) == 0 &&
	    sbuf_add(&h->scratch, t, n * TRIPLE_LEN) != 0)
		return ENOMEM;
	if ((rc = mdb_del(txn, h->docs, &k, NULL)) != 0)
		return rc;
	/* An undecodable record only loses its document. */
	t = (const unsigned char *)h->scratch.buf;
	n = h->scratch.len / TRIPLE_LEN;
	for (i = 0; i < n; i++, t += TRIPLE_LEN) {
		entries_of(&e, t, docid);
		rc = mdb_del(txn, h->att, &e.katt, &e.vatt);
		if (rc != 0 && rc != MDB_NOTFOUND)
			return rc;
		rc = mdb_del(txn, h->byi, &e.kbyi, &e.vbyi);
		if (rc != 0 && rc != MDB_NOTFOUND)
			return rc;
	}
	return 0;
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
		return do_setup(h, h->wtxn);
	case J_PUT:
		return do_put(h, h->wtxn, p, p + 32, len - 32);
	case J_REMOVE:
		return do_remove(h, h->wtxn, p);
	case J_MARKS:
		return do_marks(h, h->wtxn, p, len);
	}
	return EINVAL;
}
