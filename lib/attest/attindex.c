/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * attindex - the persistent index of attestations, on LMDB (see
 * attindex.h).
 *
 * One environment (a directory) with four named databases:
 *   meta  "schema" -> ATTINDEX_SCHEMA; "mark:<name>" -> mark value
 *         (earlier versions kept first-use keys here as "tofu:<identity>";
 *         they are left alone and no longer read)
 *   docs  docid (32 bytes) -> document record (below)
 *   att   attid (26 characters) -> i|m|p|docid (128 bytes), duplicates
 *   byi   i (32 bytes) -> m|p|docid (96 bytes), duplicates
 * Duplicates are sorted and fixed-size (MDB_DUPSORT|MDB_DUPFIXED), so one
 * attestation ID carries any number of documents and storing a pair twice
 * is a no-op (MDB_NODUPDATA).
 *
 * A document record (attrec.c) keeps the document's triples too, so a
 * removal finds them without a scan.  The writes themselves are in
 * attindex-ops.c; this file opens the index and runs its transactions.
 *
 * Map size: a new index maps 1 GiB; an existing one what it last had.  A
 * write that finds the map full aborts the LMDB transaction, doubles the
 * map (up to 64 GiB), and replays the writes of the caller's transaction
 * from a journal kept since attindex_begin().  A read transaction that
 * finds the file grown past its map by another process adopts the new
 * size.  Resizing needs every transaction of this process ended, so read
 * transactions hold maplock shared and a resize holds it exclusively.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lmdb.h>

#include "attindex.h"
#include "attindex-int.h"
#include "attrec.h"
#include "base.h"

static int	 wbegin(struct attindex *, struct pa_err *);
static int	 grow(struct attindex *, struct pa_err *);
static int	 wapply(struct attindex *, int, const void *, size_t,
		    struct pa_err *);
static int	 check_size(struct attindex *, const char *,
		    struct pa_err *);
static int	 reader_setup(struct attindex *, struct pa_err *);
static int	 locate(const char *, int, char *, size_t, int *,
		    struct pa_err *);
static int	 handle_new(struct attindex **, const char *, int,
		    struct pa_err *);
static int	 env_open(struct attindex *, const char *, int,
		    struct pa_err *);
static int	 writer_setup(struct attindex *, struct pa_err *);

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

/* wapply - apply an operation, growing the map as needed; journal it */
static int
wapply(struct attindex *h, int op, const void *p, size_t len,
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

/*
 * check_size - the file at data holds every page its last commit uses,
 * before anything reads them through the map (where a missing one would
 * fault); it is the size the file may not fall under
 */
static int
check_size(struct attindex *h, const char *data, struct pa_err *err)
{
	MDB_envinfo info;
	MDB_stat st;
	struct stat sb;
	long page = sysconf(_SC_PAGESIZE);

	if (stat(data, &sb) != 0) {
		pa_err_set(err, "cannot open index at %s: %s", h->path,
		    strerror(errno));
		return PA_ERROR;
	}
	/* The two meta pages, then the pages they say are in use. */
	if (sb.st_size > 0 && (page <= 0 || sb.st_size < 2 * (off_t)page ||
	    mdb_env_info(h->env, &info) != 0 ||
	    mdb_env_stat(h->env, &st) != 0 ||
	    (uint64_t)sb.st_size < ((uint64_t)info.me_last_pgno + 1) *
	    st.ms_psize)) {
		pa_err_set(err, "index at %s is damaged: its file (%lld "
		    "bytes) is shorter than the pages it holds; remove it "
		    "and run patchattest index", h->path,
		    (long long)sb.st_size);
		return PA_ERROR;
	}
	atomic_store(&h->size_seen, sb.st_size);
	return 0;
}

/* reader_setup - check the stamp and open the databases, read-only */
static int
reader_setup(struct attindex *h, struct pa_err *err)
{
	static const struct {
		const char	*name;
		unsigned	 flags;
	} dbs[] = {
		{ "docs", 0 },
		{ "att", MDB_DUPSORT | MDB_DUPFIXED },
		{ "byi", MDB_DUPSORT | MDB_DUPFIXED },
	};
	MDB_dbi *dbi[] = { &h->docs, &h->att, &h->byi };
	char have[80];
	MDB_txn *txn;
	MDB_val k, v;
	MDB_dbi main;
	MDB_stat st;
	size_t i;
	int rc;

	if (rbegin(h, &txn, err) != 0)
		return PA_ERROR;
	if ((rc = mdb_dbi_open(txn, NULL, 0, &main)) != 0 ||
	    (rc = mdb_stat(txn, main, &st)) != 0)
		goto fail;
	rc = mdb_dbi_open(txn, "meta", 0, &h->meta);
	if (rc == 0) {
		k.mv_data = (void *)SCHEMA_KEY;
		k.mv_size = sizeof(SCHEMA_KEY) - 1;
		rc = mdb_get(txn, h->meta, &k, &v);
	}
	if (rc == MDB_NOTFOUND || rc == MDB_INCOMPATIBLE) {
		rend(h, txn);
		if (st.ms_entries == 0)
			pa_err_set(err, "no index at %s: run patchattest index",
			    h->path);
		else
			pa_err_set(err, "index at %s is damaged or not ours: its "
			    "file holds data but no schema stamp; remove it and "
			    "run patchattest index", h->path);
		return PA_ERROR;
	}
	if (rc != 0)
		goto fail;
	if (v.mv_size != sizeof(ATTINDEX_SCHEMA) - 1 ||
	    memcmp(v.mv_data, ATTINDEX_SCHEMA, v.mv_size) != 0) {
		hdrfmt_printable(have, sizeof(have), v.mv_data, v.mv_size);
		rend(h, txn);
		if (strcmp(have, SCHEMA_1) == 0)
			pa_err_set(err, "index at %s has schema %s, this "
			    "program needs %s: run patchattest index, which "
			    "upgrades it in place", h->path, have,
			    ATTINDEX_SCHEMA);
		else
			pa_err_set(err, "index at %s has schema %s, which this "
			    "program (%s) cannot read or upgrade; remove it and "
			    "run patchattest index", h->path, have,
			    ATTINDEX_SCHEMA);
		return PA_ERROR;
	}
	for (i = 0; i < sizeof(dbs) / sizeof(dbs[0]); i++) {
		rc = mdb_dbi_open(txn, dbs[i].name, dbs[i].flags, dbi[i]);
		if (rc == MDB_NOTFOUND) {
			rend(h, txn);
			pa_err_set(err, "index at %s lacks its %s database: run "
			    "patchattest index", h->path, dbs[i].name);
			return PA_ERROR;
		}
		if (rc != 0)
			goto fail;
	}
	/* Committing a read transaction keeps its database handles. */
	rc = mdb_txn_commit(txn);
	pthread_rwlock_unlock(&h->maplock);
	if (rc != 0) {
		idx_mdb_err(h, err, "cannot read", rc);
		return PA_ERROR;
	}
	return 0;
fail:
	rend(h, txn);
	idx_mdb_err(h, err, "cannot read", rc);
	return PA_ERROR;
}

/*
 * locate - the data file of the index at path, made a folder first when
 * writable; *newenv says there is no index there yet.  Only a missing
 * file is a new index: one too short for LMDB's two meta pages (emptied,
 * cut) would be taken by LMDB for a new one, and is damaged.
 */
static int
locate(const char *path, int writable, char *data, size_t datasize,
    int *newenv, struct pa_err *err)
{
	struct stat sb;
	long page = sysconf(_SC_PAGESIZE);

	*newenv = 0;
	if (attindex_file(data, datasize, path) != 0) {
		pa_err_set(err, "index path too long: %.64s...", path);
		return PA_ERROR;
	}
	/* The group may read it whatever the umask (group_readable()). */
	if (writable && mkdir(path, 0750) == 0)
		(void)chmod(path, 0750);
	else if (writable && errno != EEXIST) {
		pa_err_set(err, "cannot make index directory %s: %s", path,
		    strerror(errno));
		return PA_ERROR;
	}
	if (stat(path, &sb) == 0 && stat(data, &sb) == 0) {
		if (page > 0 && sb.st_size >= 2 * (off_t)page)
			return 0;
		pa_err_set(err, "index at %s is damaged: its file has %lld "
		    "bytes, too few for an index; remove it and run "
		    "patchattest index", path, (long long)sb.st_size);
		return PA_ERROR;
	}
	if (errno != ENOENT) {
		pa_err_set(err, "cannot open index at %s: %s", path,
		    strerror(errno));
		return PA_ERROR;
	}
	if (!writable) {
		pa_err_set(err, "no index at %s: run patchattest index", path);
		return PA_ENOTFOUND;
	}
	*newenv = 1;
	return 0;
}

/* handle_new - an index handle with its buffers and map lock, no LMDB yet */
static int
handle_new(struct attindex **hp, const char *path, int writable,
    struct pa_err *err)
{
	struct attindex *h;
	pthread_rwlockattr_t attr;
	int rc;

	if ((h = calloc(1, sizeof(*h))) == NULL) {
		pa_err_set(err, "index at %s: %s", path, pa_strerror(PA_ENOMEM));
		return PA_ENOMEM;
	}
	snprintf(h->path, sizeof(h->path), "%s", path);
	h->writable = writable;
	sbuf_init(&h->journal, IDX_JOURNAL_MAX);
	sbuf_init(&h->rec, SBUF_NOMAX);
	sbuf_init(&h->scratch, SBUF_NOMAX);
	pthread_rwlockattr_init(&attr);
#ifdef __GLIBC__
	/* A resize must not wait behind an endless stream of lookups. */
	pthread_rwlockattr_setkind_np(&attr,
	    PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
#endif
	rc = pthread_rwlock_init(&h->maplock, &attr);
	pthread_rwlockattr_destroy(&attr);
	if (rc != 0) {
		free(h);
		pa_err_set(err, "index at %s: cannot make a lock", path);
		return PA_ERROR;
	}
	*hp = h;
	return 0;
}

/*
 * group_readable - the files of an index just made, for its group to read
 * whatever the umask: a maintainer in the milter's group may run
 * patchattest check.  LMDB readers take a slot in the lock file, so that
 * one is the group's to write.  Best effort: a failure leaves the
 * files to their owner, and a reader then says it cannot open them.
 */
static void
group_readable(const struct attindex *h, const char *data)
{
	char lock[PATH_MAX];

	(void)chmod(data, 0640);
	if (snprintf(lock, sizeof(lock), "%s/lock.mdb", h->path) <
	    (int)sizeof(lock))
		(void)chmod(lock, 0660);
}

/*
 * env_open - open the LMDB environment of h and watch its map; an existing
 * file must hold every page it uses
 */
static int
env_open(struct attindex *h, const char *data, int newenv,
    struct pa_err *err)
{
	struct stat sb;
	int rc, fd, sized = 0;

	if ((rc = mdb_env_create(&h->env)) != 0) {
		h->env = NULL;
		idx_mdb_err(h, err, "cannot open", rc);
		return PA_ERROR;
	}
	mdb_env_set_maxdbs(h->env, IDX_MAXDBS);
	mdb_env_set_maxreaders(h->env, IDX_MAXREADERS);
	/* An existing index keeps the map size it has grown to. */
	if (newenv)
		mdb_env_set_mapsize(h->env, (size_t)IDX_MAP_INITIAL);
	/* LMDB maps the file and reads it before idx_watch() knows where:
	   a file cut meanwhile is caught all the same, as damaged. */
	mapguard_catch(&h->damaged);
	rc = mdb_env_open(h->env, h->path,
	    MDB_NOTLS | (h->writable ? 0 : MDB_RDONLY), 0600);
	if (rc == 0 && !newenv)
		sized = check_size(h, data, err);
	if (rc == 0 && newenv)
		group_readable(h, data);
	if (rc == 0 && sized == 0)
		idx_watch(h);
	mapguard_catch(NULL);
	if (atomic_load(&h->damaged)) {
		pa_err_set(err, "index at %s is damaged: its file was cut while "
		    "it was opened; remove it and run patchattest index",
		    h->path);
		return PA_ERROR;
	}
	if (rc == ENOENT && !h->writable) {
		pa_err_set(err, "no index at %s: run patchattest index",
		    h->path);
		return PA_ENOTFOUND;
	}
	if (rc != 0) {
		idx_mdb_err(h, err, "cannot open", rc);
		return PA_ERROR;
	}
	if (sized != 0)			/* check_size() said why */
		return sized;
	if (mdb_env_get_fd(h->env, &fd) == 0 && fstat(fd, &sb) == 0) {
		h->dev = sb.st_dev;
		h->ino = sb.st_ino;
	}
	/* Free the reader slots of processes that died holding them. */
	mdb_reader_check(h->env, NULL);
	return 0;
}

/*
 * writer_setup - stamp a new index, or upgrade one of schema 1 in place,
 * and open the databases; an upgrade is told in err though it succeeds.
 * Anything else in the file is not ours to empty.
 */
static int
writer_setup(struct attindex *h, struct pa_err *err)
{
	if (attindex_begin(h, err) == 0 && wapply(h, J_SETUP, "", 0, err) == 0 &&
	    attindex_commit(h, err) == 0) {
		if (h->upgraded > 0 || strcmp(h->oldstamp, SCHEMA_1) == 0)
			pa_err_set(err, "index at %s upgraded from %s to %s: "
			    "%zu document records now carry a checksum",
			    h->path, SCHEMA_1, ATTINDEX_SCHEMA, h->upgraded);
		return 0;
	}
	attindex_abort(h);
	if (h->foreign && h->oldstamp[0] != '\0')
		pa_err_set(err, "index at %s has schema %s, which this program "
		    "(%s) cannot read or upgrade; remove it and run patchattest "
		    "index", h->path, h->oldstamp, ATTINDEX_SCHEMA);
	else if (h->foreign)
		pa_err_set(err, "index at %s is damaged or not ours: its file "
		    "holds data but no schema stamp; remove it and run "
		    "patchattest index", h->path);
	return PA_ERROR;
}

int
attindex_open(struct attindex **hp, const char *path, int writable,
    struct pa_err *err)
{
	struct attindex *h;
	char data[PATH_MAX];
	int rc, newenv;

	*hp = NULL;
	if (err != NULL)
		err->msg[0] = '\0';
	if ((rc = locate(path, writable, data, sizeof(data), &newenv,
	    err)) != 0)
		return rc;
	if ((rc = handle_new(&h, path, writable, err)) != 0)
		return rc;
	if ((rc = env_open(h, data, newenv, err)) == 0)
		rc = writable ? writer_setup(h, err) : reader_setup(h, err);
	if (rc != 0) {
		attindex_close(h);
		return rc;
	}
	*hp = h;
	return 0;
}

void
attindex_close(struct attindex *h)
{
	if (h == NULL)
		return;
	attindex_abort(h);
	mapguard_remove(h->guard);
	if (h->env != NULL)
		mdb_env_close(h->env);
	pthread_rwlock_destroy(&h->maplock);
	sbuf_release(&h->journal);
	sbuf_release(&h->rec);
	sbuf_release(&h->scratch);
	free(h);
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
	sbuf_add(&h->rec, d->docid, 32);
	if ((rc = attrec_encode(&h->rec, d, t, n)) != 0) {
		pa_err_set(err, "index at %s: %s", h->path, pa_strerror(rc));
		return rc;
	}
	return wapply(h, J_PUT, h->rec.buf, h->rec.len, err);
}

int
attindex_remove(struct attindex *h, const unsigned char docid[32],
    struct pa_err *err)
{
	int rc;

	if ((rc = wcheck(h, err)) != 0)
		return rc;
	return wapply(h, J_REMOVE, docid, 32, err);
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
	return wapply(h, J_MARKS, sb->buf, sb->len, err);
}

