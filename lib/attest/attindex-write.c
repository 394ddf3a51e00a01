/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * attindex-write.c - the index's write transactions (see attindex.h):
 * begun, committed or aborted, the writes of the API turned into journal
 * operations (attindex-ops.c applies them), and the map grown.
 *
 * Map size: a new index maps 1 GiB; an existing one what it last had.  A
 * write that finds the map full aborts the LMDB transaction, doubles the
 * map (up to 64 GiB), and replays the writes of the caller's transaction
 * from a journal kept since attindex_begin().  A read transaction that
 * finds the file grown past its map by another process adopts the new
 * size (attindex-txn.c).  Resizing needs every transaction of this
 * process ended, so read transactions hold maplock shared and a resize
 * holds it exclusively.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <lmdb.h>

#include "attindex.h"
#include "attindex-int.h"
#include "attrec.h"
#include "base.h"

static int	 wbegin(struct attindex *, struct pa_err *);
static int	 grow(struct attindex *, struct pa_err *);

static int
wbegin(struct attindex *h, struct pa_err *err)
{
	int rc, tries;

	if (idx_intact(h, err) != 0)
		return PA_ERROR;
	for (tries = 0;; tries++) {
		rc = mdb_txn_begin(h->env, NULL, 0, &h->wtxn);
		if (rc != MDB_MAP_RESIZED || tries == 3)
			break;
		pthread_rwlock_wrlock(&h->maplock);
		rc = mdb_env_set_mapsize(h->env, 0);
		idx_watch(h);
		pthread_rwlock_unlock(&h->maplock);
		if (rc != 0)
			break;
	}
	if (rc != 0) {
		h->wtxn = NULL;
		idx_mdb_err(h, err, "cannot write to", rc);
		return PA_ERROR;
	}
	return 0;
}

/*
 * grow - after MDB_MAP_FULL: end LMDB's transaction, double the map, and
 * redo the journal in a new one, doubling again while it does not fit.
 */
static int
grow(struct attindex *h, struct pa_err *err)
{
	const unsigned char *j, *end;
	MDB_envinfo info;
	uint64_t size;
	uint32_t len;
	int rc;

	for (;;) {
		if (h->wtxn != NULL)
			mdb_txn_abort(h->wtxn);
		h->wtxn = NULL;
		mdb_env_info(h->env, &info);
		size = (uint64_t)info.me_mapsize;
		if (size >= IDX_MAP_MAX) {
			pa_err_set(err, "index at %s is full: its map reached "
			    "%llu MiB", h->path,
			    (unsigned long long)(size >> 20));
			return PA_ERROR;
		}
		size = size * 2 > IDX_MAP_MAX ? IDX_MAP_MAX : size * 2;
		pthread_rwlock_wrlock(&h->maplock);
		rc = mdb_env_set_mapsize(h->env, (size_t)size);
		idx_watch(h);
		pthread_rwlock_unlock(&h->maplock);
		if (rc != 0) {
			idx_mdb_err(h, err, "cannot grow", rc);
			return PA_ERROR;
		}
		if (wbegin(h, err) != 0)
			return PA_ERROR;
		j = (const unsigned char *)h->journal.buf;
		end = j + h->journal.len;
		for (rc = 0; rc == 0 && j < end; j += 5 + len) {
			memcpy(&len, j + 1, 4);
			rc = idx_apply(h, j[0], j + 5, len);
		}
		if (rc == 0)
			return 0;
		if (rc != MDB_MAP_FULL) {
			idx_mdb_err(h, err, "cannot write to", rc);
			return PA_ERROR;
		}
	}
}

int
idx_wapply(struct attindex *h, int op, const void *p, size_t len,
    struct pa_err *err)
{
	unsigned char hdr[5];
	uint32_t len32 = (uint32_t)len;
	int rc;

	while ((rc = idx_apply(h, op, p, len)) == MDB_MAP_FULL) {
		if (grow(h, err) != 0) {
			h->wfailed = 1;
			return PA_ERROR;
		}
	}
	if (rc == MDB_NOTFOUND)
		return PA_ENOTFOUND;		/* nothing changed */
	if (rc != 0) {
		h->wfailed = 1;
		idx_mdb_err(h, err, "cannot write to", rc);
		return PA_ERROR;
	}
	hdr[0] = (unsigned char)op;
	memcpy(hdr + 1, &len32, 4);
	sbuf_add(&h->journal, hdr, sizeof(hdr));
	sbuf_add(&h->journal, p, len);
	if ((rc = sbuf_failed(&h->journal)) != 0) {
		h->wfailed = 1;
		pa_err_set(err, "index at %s: a write transaction over %zu MiB "
		    "(commit more often): %s", h->path, IDX_JOURNAL_MAX >> 20,
		    pa_strerror(rc));
		return rc;
	}
	return 0;
}

int
attindex_begin(struct attindex *h, struct pa_err *err)
{
	if (!h->writable) {
		pa_err_set(err, "index at %s is open read-only", h->path);
		return PA_ERROR;
	}
	if (h->intxn) {
		pa_err_set(err, "index at %s: a write transaction is already "
		    "open", h->path);
		return PA_ERROR;
	}
	if (wbegin(h, err) != 0)
		return PA_ERROR;
	sbuf_reset(&h->journal);
	h->intxn = 1;
	h->wfailed = 0;
	return 0;
}

int
attindex_commit(struct attindex *h, struct pa_err *err)
{
	int rc;

	if ((rc = wcheck(h, err)) != 0) {
		attindex_abort(h);
		return rc;
	}
	for (;;) {
		rc = mdb_txn_commit(h->wtxn);
		h->wtxn = NULL;
		if (rc != MDB_MAP_FULL)
			break;
		if (grow(h, err) != 0) {
			attindex_abort(h);
			return PA_ERROR;
		}
	}
	h->intxn = 0;
	sbuf_reset(&h->journal);
	if (rc != 0) {
		idx_mdb_err(h, err, "cannot write to", rc);
		return PA_ERROR;
	}
	return 0;
}

void
attindex_abort(struct attindex *h)
{
	if (h->wtxn != NULL)
		mdb_txn_abort(h->wtxn);
	h->wtxn = NULL;
	h->intxn = 0;
	h->wfailed = 0;
	sbuf_reset(&h->journal);
}

int
attindex_put(struct attindex *h, const struct att_docinfo *d,
    const struct att_triple *t, size_t n, struct pa_err *err)
{
	int rc;

	if ((rc = wcheck(h, err)) != 0)
		return rc;
	if (n > IDX_MAX_TRIPLES) {
		pa_err_set(err, "index at %s: a document with %zu attestations, "
		    "over the limit of %u", h->path, n, IDX_MAX_TRIPLES);
		return PA_ETOOBIG;
	}
	sbuf_reset(&h->rec);
	if ((rc = attrec_encode(&h->rec, d, t, n)) != 0) {
		pa_err_set(err, "index at %s: %s", h->path, pa_strerror(rc));
		return rc;
	}
	return idx_wapply(h, J_PUT, h->rec.buf, h->rec.len, err);
}

int
attindex_remove(struct attindex *h, const unsigned char docid[32],
    struct pa_err *err)
{
	int rc;

	if ((rc = wcheck(h, err)) != 0)
		return rc;
	return idx_wapply(h, J_REMOVE, docid, 32, err);
}

int
attindex_set_marks(struct attindex *h, const struct archive_mark *marks,
    size_t n, struct pa_err *err)
{
	struct sbuf *sb = &h->rec;
	size_t i, nlen, vlen;
	int rc;

	if ((rc = wcheck(h, err)) != 0)
		return rc;
	sbuf_reset(sb);
	for (i = 0; i < n; i++) {
		nlen = strnlen(marks[i].name, sizeof(marks[i].name));
		vlen = strnlen(marks[i].value, sizeof(marks[i].value));
		if (nlen == 0 || nlen == sizeof(marks[i].name) ||
		    vlen == sizeof(marks[i].value)) {
			pa_err_set(err, "index at %s: archive mark %zu has an "
			    "empty or unterminated name or value", h->path, i);
			return PA_ERROR;
		}
		sbuf_addch(sb, (int)nlen);
		sbuf_add(sb, marks[i].name, nlen);
		sbuf_addch(sb, (int)vlen);
		sbuf_add(sb, marks[i].value, vlen);
	}
	if ((rc = sbuf_failed(sb)) != 0) {
		pa_err_set(err, "index at %s: %s", h->path, pa_strerror(rc));
		return rc;
	}
	return idx_wapply(h, J_MARKS, sb->buf, sb->len, err);
}

