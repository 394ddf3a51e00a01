/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * attindex-read.c - reading the index: documents, marks, lookups, counts.
 * Outside a write transaction every read runs in a read transaction of
 * its own, so threads never share one.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "attindex.h"
#include "attindex-int.h"
#include "attrec.h"

int
attindex_has(struct attindex *h, const unsigned char docid[32])
{
	MDB_txn *txn;
	MDB_val k, v;
	int rc;

	k.mv_data = (void *)docid;
	k.mv_size = 32;
	if (h->intxn) {
		if (h->wtxn == NULL)
			return PA_ERROR;
		rc = mdb_get(h->wtxn, h->docs, &k, &v);
	} else {
		if (rbegin(h, &txn, NULL) != 0)
			return PA_ERROR;
		rc = mdb_get(txn, h->docs, &k, &v);
		rend(h, txn);
	}
	if (rc == MDB_NOTFOUND)
		return 0;
	return rc == 0 ? 1 : PA_ERROR;
}

int
attindex_get_marks(struct attindex *h, struct archive_mark *marks,
    size_t max, size_t *n, struct pa_err *err)
{
	MDB_cursor *cur;
	MDB_txn *txn;
	MDB_val k, v;
	size_t nlen;
	int rc;

	*n = 0;
	if (h->intxn && wcheck(h, err) != 0)
		return PA_ERROR;
	if (h->intxn)
		txn = h->wtxn;
	else if (rbegin(h, &txn, err) != 0)
		return PA_ERROR;
	if ((rc = mdb_cursor_open(txn, h->meta, &cur)) != 0)
		goto out;
	k.mv_data = (void *)MARK_PREFIX;
	k.mv_size = MARK_PREFIX_LEN;
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE); rc == 0;
	    rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
		if (k.mv_size < MARK_PREFIX_LEN ||
		    memcmp(k.mv_data, MARK_PREFIX, MARK_PREFIX_LEN) != 0)
			break;
		nlen = k.mv_size - MARK_PREFIX_LEN;
		if (*n == max) {
			rc = PA_ETOOBIG;
			break;
		}
		if (nlen >= sizeof(marks->name) ||
		    v.mv_size >= sizeof(marks->value)) {
			rc = MDB_CORRUPTED;
			break;
		}
		memcpy(marks[*n].name, (char *)k.mv_data + MARK_PREFIX_LEN,
		    nlen);
		marks[*n].name[nlen] = '\0';
		memcpy(marks[*n].value, v.mv_data, v.mv_size);
		marks[*n].value[v.mv_size] = '\0';
		(*n)++;
	}
	mdb_cursor_close(cur);
	if (rc == MDB_NOTFOUND)
		rc = 0;
out:
	if (!h->intxn)
		rend(h, txn);
	if (rc == PA_ETOOBIG) {
		pa_err_set(err, "index at %s holds more than %zu archive marks",
		    h->path, max);
		return PA_ETOOBIG;
	}
	if (rc != 0) {
		idx_mdb_err(h, err, "cannot read", rc);
		return PA_ERROR;
	}
	return 0;
}

/*
 * attested - the record (checked by its checksum) holds the triple that
 * the entry named, and an att entry is stored under that triple's ID
 */
static int
attested(struct attindex *h, MDB_dbi dbi, const void *key,
    const struct att_hit *hit, const unsigned char *t, size_t n)
{
	char attid[ATTID_LEN + 1];

	if (dbi == h->att) {
		msghash_attid(attid, hit->t.i, hit->t.m, hit->t.p);
		if (memcmp(attid, key, ATTID_LEN) != 0)
			return 0;
	}
	for (; n > 0; n--, t += TRIPLE_LEN)
		if (memcmp(t, &hit->t, TRIPLE_LEN) == 0)
			return 1;
	return 0;
}

/* lookup - every duplicate of key in dbi (att or byi) as hits */
static int
lookup(struct attindex *h, MDB_dbi dbi, const void *key, size_t klen,
    struct att_hit *hits, size_t max, size_t *n, struct pa_err *err)
{
	const unsigned char *d, *t;
	struct att_hit *hit;
	MDB_cursor *cur;
	MDB_txn *txn;
	MDB_val k, v, dk, dv;
	size_t vlen, nt;
	int rc, damaged = 0;

	vlen = dbi == h->att ? ATT_VLEN : BYI_VLEN;
	if (rbegin(h, &txn, err) != 0)
		return PA_ERROR;
	if ((rc = mdb_cursor_open(txn, dbi, &cur)) != 0)
		goto out;
	k.mv_data = (void *)key;
	k.mv_size = klen;
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_SET); rc == 0 && *n < max;
	    rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT_DUP)) {
		if (v.mv_size != vlen) {
			rc = MDB_CORRUPTED;
			break;
		}
		d = v.mv_data;
		hit = &hits[*n];
		if (dbi == h->att) {
			memcpy(hit->t.i, d, 32);
			d += 32;
		} else
			memcpy(hit->t.i, key, 32);
		memcpy(hit->t.m, d, 32);
		memcpy(hit->t.p, d + 32, 32);
		dk.mv_data = (void *)(d + 64);
		dk.mv_size = 32;
		if ((rc = mdb_get(txn, h->docs, &dk, &dv)) == MDB_NOTFOUND)
			continue;	/* being removed: not a hit */
		if (rc != 0)
			break;
		memcpy(hit->doc.docid, d + 64, 32);
		if (attrec_decode(dv.mv_data, dv.mv_size, d + 64, &hit->doc,
		    &t, &nt) != 0 || !attested(h, dbi, key, hit, t, nt)) {
			rc = MDB_CORRUPTED;
			damaged = 1;
			break;
		}
		(*n)++;
	}
	mdb_cursor_close(cur);
	if (rc == MDB_NOTFOUND || rc == 0)
		rc = 0;
out:
	rend(h, txn);
	if (rc != 0) {
		*n = 0;
		if (damaged)
			pa_err_set(err, "index at %s is damaged: a record does "
			    "not match its checksum or its entry; remove it and "
			    "run patchattest index", h->path);
		else
			idx_mdb_err(h, err, "cannot read", rc);
		return PA_ERROR;
	}
	return 0;
}

int
attindex_lookup(struct attindex *h, const char *attid, struct att_hit *hits,
    size_t max, size_t *n, struct pa_err *err)
{
	char key[ATTID_LEN];
	size_t i;
	int c;

	*n = 0;
	if (strnlen(attid, ATTID_LEN + 1) != ATTID_LEN || max == 0)
		return 0;
	/* Only "xxxxxxxx-xxxxxxxx-xxxxxxxx" can be stored; any case. */
	for (i = 0; i < ATTID_LEN; i++) {
		c = (unsigned char)ascii_lower(attid[i]);
		if ((i == 8 || i == 17) ? c != '-' :
		    !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
			return 0;
		key[i] = (char)c;
	}
	return lookup(h, h->att, key, ATTID_LEN, hits, max, n, err);
}

int
attindex_lookup_i(struct attindex *h, const unsigned char i[32],
    struct att_hit *hits, size_t max, size_t *n, struct pa_err *err)
{
	*n = 0;
	if (max == 0)
		return 0;
	return lookup(h, h->byi, i, 32, hits, max, n, err);
}

int
attindex_stats(struct attindex *h, size_t *docs, size_t *atts,
    struct pa_err *err)
{
	MDB_stat sd, sa;
	MDB_txn *txn;
	int rc;

	*docs = *atts = 0;
	if (h->intxn && wcheck(h, err) != 0)
		return PA_ERROR;
	if (h->intxn)
		txn = h->wtxn;
	else if (rbegin(h, &txn, err) != 0)
		return PA_ERROR;
	if ((rc = mdb_stat(txn, h->docs, &sd)) == 0 &&
	    (rc = mdb_stat(txn, h->att, &sa)) == 0) {
		*docs = sd.ms_entries;
		*atts = sa.ms_entries;
	}
	if (!h->intxn)
		rend(h, txn);
	if (rc != 0) {
		idx_mdb_err(h, err, "cannot read", rc);
		return PA_ERROR;
	}
	return 0;
}
