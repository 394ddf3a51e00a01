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
	MDB_val rec;
	uint32_t num;
	int rc;

	if (h->intxn) {
		if (h->wtxn == NULL)
			return PA_ERROR;
		rc = idx_doc_find(h, h->wtxn, docid, &num, &rec);
	} else {
		if (rbegin(h, &txn, NULL) != 0)
			return PA_ERROR;
		rc = idx_doc_find(h, txn, docid, &num, &rec);
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
 * A lookup: the attids keys from key (an ID's 12 bytes, or an i's first
 * 4) that begin with its want bytes, each the number of a record; of the
 * record, the triples whose ID is the key's and, by i, whose i is i.
 */
struct look {
	unsigned char		 key[PREFIX_LEN];
	size_t			 want;		/* bytes of key to match */
	const unsigned char	*i;		/* by i: the whole i */
	struct att_hit		*hits;
	size_t			 max;
	size_t			*n;
};

/*
 * take - the hits of the record rec (numbered by the attids key k) into
 * l; MDB_CORRUPTED when the record is damaged or holds no triple of the
 * key's ID.  A triple the record holds twice is one hit.
 */
static int
take(struct look *l, const unsigned char *k, const MDB_val *rec)
{
	unsigned char prefix[PREFIX_LEN];
	struct att_docinfo *doc = NULL;
	const unsigned char *docid, *t;
	size_t nt, first = *l->n, j;
	int found = 0;

	if (attrec_decode(rec->mv_data, rec->mv_size, &l->hits[first].doc,
	    &docid, &t, &nt) != 0)
		return MDB_CORRUPTED;
	for (; nt > 0 && *l->n < l->max; nt--, t += TRIPLE_LEN) {
		idx_prefix(prefix, t);
		if (memcmp(prefix, k, PREFIX_LEN) != 0)
			continue;
		found = 1;
		if (l->i != NULL && memcmp(t, l->i, 32) != 0)
			continue;
		for (j = first; j < *l->n; j++)
			if (memcmp(&l->hits[j].t, t, TRIPLE_LEN) == 0)
				break;
		if (j < *l->n)
			continue;
		if (doc == NULL)
			doc = &l->hits[first].doc;
		else
			l->hits[*l->n].doc = *doc;
		memcpy(&l->hits[*l->n].t, t, TRIPLE_LEN);
		(*l->n)++;
	}
	/* Stopped at max: the ID's triple may lie further on. */
	return found || *l->n == l->max ? 0 : MDB_CORRUPTED;
}

/* scan - every attids key of l as hits; an LMDB code */
static int
scan(struct attindex *h, MDB_txn *txn, struct look *l)
{
	MDB_cursor *cur;
	MDB_val k, v, rec;
	size_t seen = 0;
	int rc;

	if ((rc = mdb_cursor_open(txn, h->att, &cur)) != 0)
		return rc;
	k.mv_data = l->key;
	k.mv_size = l->want;
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE);
	    rc == 0 && *l->n < l->max && seen < IDX_SCAN_MAX;
	    rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT), seen++) {
		if (k.mv_size != KEY_LEN) {
			rc = MDB_CORRUPTED;
			break;
		}
		if (memcmp(k.mv_data, l->key, l->want) != 0)
			break;
		rc = idx_rec_get(h, txn, bigend_get32((const unsigned char *)
		    k.mv_data + PREFIX_LEN), &rec);
		if (rc == MDB_NOTFOUND)
			continue;	/* its record was unreadable: gone */
		if (rc != 0 || (rc = take(l, k.mv_data, &rec)) != 0)
			break;
	}
	mdb_cursor_close(cur);
	return rc == MDB_NOTFOUND ? 0 : rc;
}

/* lookup - the hits of l, in a read transaction of their own */
static int
lookup(struct attindex *h, struct look *l, struct pa_err *err)
{
	MDB_txn *txn;
	int rc;

	if (rbegin(h, &txn, err) != 0)
		return PA_ERROR;
	rc = scan(h, txn, l);
	rend(h, txn);
	if (rc == 0)
		return 0;
	*l->n = 0;
	if (rc == MDB_CORRUPTED)
		pa_err_set(err, "index at %s is damaged: a record does not "
		    "match its checksum or its entry; remove it and run "
		    "patchattest index", h->path);
	else
		idx_mdb_err(h, err, "cannot read", rc);
	return PA_ERROR;
}

int
attindex_lookup(struct attindex *h, const char *attid, struct att_hit *hits,
    size_t max, size_t *n, struct pa_err *err)
{
	struct look l = { .want = PREFIX_LEN, .hits = hits, .max = max,
		.n = n };
	size_t i, b;
	int c, x;

	*n = 0;
	if (strnlen(attid, ATTID_LEN + 1) != ATTID_LEN || max == 0)
		return 0;
	/* Only "xxxxxxxx-xxxxxxxx-xxxxxxxx" can be stored; any case. */
	for (i = 0, b = 0; i < ATTID_LEN; i++) {
		c = ascii_lower(attid[i]);
		if (i == 8 || i == 17) {
			if (c != '-')
				return 0;
			continue;
		}
		if (c >= '0' && c <= '9')
			x = c - '0';
		else if (c >= 'a' && c <= 'f')
			x = c - 'a' + 10;
		else
			return 0;
		l.key[b / 2] = (unsigned char)(b % 2 ? l.key[b / 2] | x :
		    x << 4);
		b++;
	}
	return lookup(h, &l, err);
}

int
attindex_lookup_i(struct attindex *h, const unsigned char i[32],
    struct att_hit *hits, size_t max, size_t *n, struct pa_err *err)
{
	struct look l = { .want = 4, .i = i, .hits = hits, .max = max,
		.n = n };

	*n = 0;
	if (max == 0)
		return 0;
	memcpy(l.key, i, 4);
	return lookup(h, &l, err);
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
	if ((rc = mdb_stat(txn, h->recs, &sd)) == 0 &&
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
