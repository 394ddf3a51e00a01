/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * attindex-txn - the bottom of the index: its map, watched for faults
 * and checked against the file's size, its transactions begun and
 * checked, and LMDB's codes in words.  attindex.c (opening, the write
 * API), attindex-ops.c (the writes) and attindex-read.c (the lookups) all
 * stand on it, and it on none of them.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <lmdb.h>

#include "attindex.h"
#include "attindex-int.h"

/* LMDB and system codes in words for a system administrator. */
static const struct {
	int		 rc;
	const char	*text;
	const char	*hint;
} idx_errors[] = {
	{ MDB_VERSION_MISMATCH, "it was made by an incompatible LMDB version",
	    "remove it and run patchattest index" },
	{ MDB_INVALID, "data.mdb is not an LMDB file",
	    "remove it and run patchattest index" },
	{ MDB_CORRUPTED, "the index file is damaged",
	    "remove it and run patchattest index" },
	{ MDB_PANIC, "LMDB hit a fatal error", "restart the program" },
	{ MDB_READERS_FULL, "too many readers at once (512)", NULL },
	{ MDB_MAP_FULL, "the index is full", NULL },
	{ MDB_INCOMPATIBLE, "a database has the wrong kind",
	    "remove it and run patchattest index" },
	{ EACCES, "permission denied",
	    "readers need write access to lock.mdb" },
	{ EROFS, "read-only file system", NULL },
	{ ENOSPC, "no space left on the file system", NULL },
	{ ENOMEM, "out of memory or address space", NULL },
	{ EAGAIN, "the lock file is busy", NULL },
};

/* idx_mdb_err - "WHAT index at PATH: REASON[ (HINT)]" */
void
idx_mdb_err(const struct attindex *h, struct pa_err *err, const char *what,
    int rc)
{
	size_t i;

	for (i = 0; i < sizeof(idx_errors) / sizeof(idx_errors[0]); i++)
		if (idx_errors[i].rc == rc)
			break;
	if (i == sizeof(idx_errors) / sizeof(idx_errors[0]))
		pa_err_set(err, "%s index at %s: %s", what, h->path,
		    mdb_strerror(rc));
	else if (idx_errors[i].hint == NULL ||
	    (rc == EACCES && h->writable))
		pa_err_set(err, "%s index at %s: %s", what, h->path,
		    idx_errors[i].text);
	else
		pa_err_set(err, "%s index at %s: %s (%s)", what, h->path,
		    idx_errors[i].text, idx_errors[i].hint);
}

int
idx_intact(struct attindex *h, struct pa_err *err)
{
	struct stat st;
	off_t seen;
	int fd;

	/* What was seen before this fstat() is what it may not be under. */
	seen = atomic_load(&h->size_seen);
	if (!atomic_load(&h->damaged) &&
	    mdb_env_get_fd(h->env, &fd) == 0 && fstat(fd, &st) == 0) {
		if (st.st_size < seen)
			atomic_store(&h->damaged, 1);
		while (st.st_size > seen && !atomic_compare_exchange_weak(
		    &h->size_seen, &seen, st.st_size))
			;
	}
	if (!atomic_load(&h->damaged))
		return 0;
	pa_err_set(err, "index at %s is damaged: its file is shorter than "
	    "the pages it holds (cut by something else?); remove it and run "
	    "patchattest index", h->path);
	return PA_ERROR;
}

int
attindex_damaged(struct attindex *h)
{
	return h != NULL && atomic_load(&h->damaged);
}

int
attindex_file(char *buf, size_t size, const char *path)
{
	int n = snprintf(buf, size, "%s/data.mdb", path);

	return n < 0 || (size_t)n >= size ? PA_ETOOBIG : 0;
}

int
attindex_replaced(struct attindex *h)
{
	char data[PATH_MAX];
	struct stat st;

	if (h == NULL || attindex_file(data, sizeof(data), h->path) != 0)
		return 0;
	return stat(data, &st) != 0 || st.st_dev != h->dev ||
	    st.st_ino != h->ino;
}

void
idx_watch(struct attindex *h)
{
	mdb_filehandle_t fd;
	void *base;
	size_t len;

	/* me_mapaddr of mdb_env_info() is NULL but with MDB_FIXEDMAP. */
	if (mdb_env_get_fd(h->env, &fd) != 0 ||
	    mapfind_file(fd, &base, &len) != 0)
		return;
	if (h->guard != NULL)
		mapguard_move(h->guard, base, len);
	else
		(void)mapguard_add(&h->guard, base, len, &h->damaged);
}

/* rbegin - a read transaction, with maplock held shared until rend() */
int
rbegin(struct attindex *h, MDB_txn **txn, struct pa_err *err)
{
	int rc, tries;

	*txn = NULL;
	if (idx_intact(h, err) != 0)
		return PA_ERROR;
	pthread_rwlock_rdlock(&h->maplock);
	for (tries = 0;; tries++) {
		rc = mdb_txn_begin(h->env, NULL, MDB_RDONLY, txn);
		if (rc != MDB_MAP_RESIZED || tries == 3)
			break;
		/* Another process grew the file past our map: adopt. */
		pthread_rwlock_unlock(&h->maplock);
		pthread_rwlock_wrlock(&h->maplock);
		rc = mdb_env_set_mapsize(h->env, 0);
		idx_watch(h);
		pthread_rwlock_unlock(&h->maplock);
		pthread_rwlock_rdlock(&h->maplock);
		if (rc != 0)
			break;
	}
	if (rc != 0) {
		pthread_rwlock_unlock(&h->maplock);
		*txn = NULL;
		idx_mdb_err(h, err, "cannot read", rc);
		return PA_ERROR;
	}
	return 0;
}

void
rend(struct attindex *h, MDB_txn *txn)
{
	mdb_txn_abort(txn);
	pthread_rwlock_unlock(&h->maplock);
}

int
wcheck(struct attindex *h, struct pa_err *err)
{
	if (!h->intxn) {
		pa_err_set(err, "index at %s: no write transaction is open",
		    h->path);
		return PA_ERROR;
	}
	if (h->wfailed || h->wtxn == NULL) {
		pa_err_set(err, "index at %s: an earlier write in this "
		    "transaction failed; abort it", h->path);
		return PA_ERROR;
	}
	return 0;
}

