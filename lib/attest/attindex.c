/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * attindex - the persistent index of attestations, on LMDB (see
 * attindex.h): opening it.
 *
 * One environment (a directory) with four named databases (schema 4):
 *   meta     "schema" -> ATTINDEX_SCHEMA; "next" -> the number the next
 *            document gets (4 bytes, big-endian); "mark:<name>" -> mark
 *            value (earlier versions kept first-use keys here as
 *            "tofu:<identity>"; they are left alone and no longer read)
 *   records4 number (unsigned int, MDB_INTEGERKEY) -> document record
 *            (attrec.c: its docid, facts, triples and checksum)
 *   docids4  a docid's first 16 bytes -> number (4 bytes, big-endian;
 *            duplicates, each record read to find the docid's own)
 *   attids4  i[0..4] m[0..4] p[0..4] number (16 bytes) -> nothing
 * Documents are numbered in the order they are stored, and a number is
 * never given twice, so records are appended and fill their pages.  An
 * attestation ID is 12 bytes of the triple; a lookup reads the records its
 * keys name and takes from them the triples of that ID, each record
 * checked by its checksum, so a key that leads to a record without such a
 * triple is damage (attindex-read.c).  The records of an i are the attids
 * keys that begin with its first 4 bytes, checked the same way.  Keys
 * are binary and short: some 60 bytes a document and its first triple,
 * 26 each further one, with the triples themselves kept once, in their
 * record.  At a million documents the records are four fifths of the
 * file, so they are kept small too (attrec.c).
 *
 * Schemas 1 and 2 (docs, att and byi: keys in hexadecimal and the
 * triples kept thrice) and 3 (this layout with wider keys, and records
 * with their text as it is) are upgraded in place by a writer
 * (attindex-schema.c).  The writes are in attindex-ops.c, through
 * attindex-store.c; the transactions in attindex-write.c.
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
#include "base.h"

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

/*
 * stamp_check - a reader's look at the stamp, read in txn: 0 when it is
 * this schema's, else PA_ERROR with err saying what to do
 */
static int
stamp_check(struct attindex *h, MDB_txn *txn, struct pa_err *err)
{
	char have[80];
	MDB_val k, v;
	MDB_dbi main;
	MDB_stat st;
	int rc;

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
	hdrfmt_printable(have, sizeof(have), v.mv_data, v.mv_size);
	if (strcmp(have, ATTINDEX_SCHEMA) == 0)
		return 0;
	if (strcmp(have, SCHEMA_1) == 0 || strcmp(have, SCHEMA_2) == 0 ||
	    strcmp(have, SCHEMA_3) == 0)
		pa_err_set(err, "index at %s has schema %s, this program needs "
		    "%s: run patchattest index, which upgrades it in place",
		    h->path, have, ATTINDEX_SCHEMA);
	else
		pa_err_set(err, "index at %s has schema %s, which this program "
		    "(%s) cannot read or upgrade; remove it and run patchattest "
		    "index", h->path, have, ATTINDEX_SCHEMA);
	return PA_ERROR;
fail:
	idx_mdb_err(h, err, "cannot read", rc);
	return PA_ERROR;
}

/* reader_setup - check the stamp and open the databases, read-only */
static int
reader_setup(struct attindex *h, struct pa_err *err)
{
	MDB_txn *txn;
	int rc;

	if (rbegin(h, &txn, err) != 0)
		return PA_ERROR;
	if (stamp_check(h, txn, err) != 0) {
		rend(h, txn);
		return PA_ERROR;
	}
	if ((rc = idx_open_dbs(h, txn, 0)) == MDB_NOTFOUND) {
		rend(h, txn);
		pa_err_set(err, "index at %s lacks one of its databases: run "
		    "patchattest index", h->path);
		return PA_ERROR;
	}
	/* Committing a read transaction keeps its database handles. */
	if (rc == 0)
		rc = mdb_txn_commit(txn);
	else
		mdb_txn_abort(txn);
	pthread_rwlock_unlock(&h->maplock);
	if (rc != 0) {
		idx_mdb_err(h, err, "cannot read", rc);
		return PA_ERROR;
	}
	return 0;
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
 * writer_setup - stamp a new index, or upgrade one of schema 1 to 3 in
 * place, and open the databases; an upgrade is told in err though it
 * succeeds.  Anything else in the file is not ours to empty.
 */
static int
writer_setup(struct attindex *h, struct pa_err *err)
{
	if (attindex_begin(h, err) == 0 &&
	    idx_wapply(h, J_SETUP, "", 0, err) == 0 &&
	    attindex_commit(h, err) == 0) {
		if (h->oldstamp[0] != '\0' &&
		    strcmp(h->oldstamp, ATTINDEX_SCHEMA) != 0)
			pa_err_set(err, "index at %s upgraded in place from %s "
			    "to %s; documents filed anew: %zu", h->path,
			    h->oldstamp, ATTINDEX_SCHEMA, h->upgraded);
		return 0;
	}
	attindex_abort(h);
	if (h->oldrec)
		pa_err_set(err, "index at %s is damaged: a document record of "
		    "%s does not match its checksum, so it cannot be upgraded "
		    "to %s; remove it and run patchattest index", h->path,
		    h->oldstamp, ATTINDEX_SCHEMA);
	else if (h->foreign && h->oldstamp[0] != '\0')
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

