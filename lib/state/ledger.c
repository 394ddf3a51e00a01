/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ledger.c - opening, checking and closing the arrival records' LMDB
 * file (the layout is in ledger-int.h), and what its other files share.
 *
 * A file that is there must be a ledger: empty, not LMDB, LMDB without
 * the format entry, or cut short is damage (PA_ERROR naming the file),
 * never a fresh start that would forget what arrived.  As for the pins,
 * every call that reads the map catches its thread's SIGBUS
 * (mapguard_catch), so a file cut under us is an error, not a crash.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ledger-int.h"
#include "statefile.h"

#define NOUN		"the arrival records"
#define LEDGER_MAPSIZE		((size_t)1 << 30)
#define LEDGER_READERS		512
#define LEDGER_DBS		6

static void	 lmdb_close(struct ledger *);
static int	 lmdb_unlocked(const struct ledger *);

static const struct ledger_ops lmdb_ops = {
	.record = lmdb_ledger_record,
	.sync = lmdb_ledger_sync,
	.pending = lmdb_ledger_pending,
	.by_message_id = lmdb_ledger_by_message_id_bytes,
	.by_patch_id = lmdb_ledger_by_patch_id,
	.each = lmdb_ledger_each,
	.habit = lmdb_ledger_habit,
	.lookup = lmdb_ledger_lookup,
	.copies = lmdb_ledger_copies,
	.watch = lmdb_ledger_watch,
	.size = lmdb_ledger_size,
	.habits = lmdb_ledger_habits,
	.close = lmdb_close,
	.unlocked = lmdb_unlocked,
	.local = 1
};

static int	 ledger_new(struct ledger_lmdb **, const char *, unsigned,
		    uint64_t, struct pa_err *);
static int	 lmdb_open(struct ledger_lmdb *, unsigned int, MDB_envinfo *);
static int	 env_open(struct ledger_lmdb *, int, unsigned int, struct pa_err *);
static int	 dbs_read(struct ledger_lmdb *, int, int, struct pa_err *);
static int	 dbs_open(struct ledger_lmdb *, int, int, struct pa_err *);
static int	 copies_open(struct ledger_lmdb *, MDB_txn *, int);
static int	 check_format(struct ledger_lmdb *, MDB_txn *, struct pa_err *);
static int	 check_size(struct ledger_lmdb *, const MDB_envinfo *,
		    struct pa_err *);
static void	 group_readable(struct ledger_lmdb *);
static void	 unreadable(const char *, struct pa_err *);

static int
ledger_new(struct ledger_lmdb **out, const char *path, unsigned retention_days,
    uint64_t max_size, struct pa_err *err)
{
	struct ledger_lmdb *l;

	if ((l = calloc(1, sizeof(*l))) == NULL ||
	    (l->path = strdup(path)) == NULL) {
		free(l);
		pa_err_set(err, "%s", pa_strerror(PA_ENOMEM));
		return PA_ENOMEM;
	}
	l->base.ops = &lmdb_ops;
	l->retention_days = retention_days;
	copy_news_init(&l->news);
	l->max_size = max_size;
	pthread_rwlock_init(&l->maplock, NULL);
	pthread_mutex_init(&l->lock, NULL);
	pthread_cond_init(&l->wake, NULL);
	pthread_cond_init(&l->done, NULL);
	*out = l;
	return 0;
}

/* unreadable - the error of a file this user may not read */
static void
unreadable(const char *path, struct pa_err *err)
{
	pa_err_set(err, "cannot read the arrival records at %s: %s (the "
	    "milter's group may: is this user in it, and the file, if an "
	    "earlier version made it, mode 0640?)", path, strerror(EACCES));
}

/*
 * lmdb_open - l->env made and opened with flags; unlocked, mapped
 * LEDGER_MAP_SLACK past the file (ledger-txn.c).  LMDB's code.
 */
static int
lmdb_open(struct ledger_lmdb *l, unsigned int flags, MDB_envinfo *info)
{
	size_t mapsize = LEDGER_MAPSIZE;
	struct stat st;
	int rc;

	if ((rc = mdb_env_create(&l->env)) != 0) {
		l->env = NULL;
		return rc;
	}
	l->unlocked = (flags & MDB_NOLOCK) != 0;
	if (l->unlocked && stat(l->path, &st) == 0)
		mapsize = ((uint64_t)st.st_size > mapsize ?
		    (size_t)st.st_size : mapsize) + LEDGER_MAP_SLACK;
	if ((rc = mdb_env_set_mapsize(l->env, mapsize)) == 0 &&
	    (rc = mdb_env_set_maxreaders(l->env, LEDGER_READERS)) == 0 &&
	    (rc = mdb_env_set_maxdbs(l->env, LEDGER_DBS)) == 0 &&
	    (rc = mdb_env_open(l->env, l->path, MDB_NOSUBDIR | MDB_NOTLS |
	    flags, 0600)) == 0)
		rc = mdb_env_info(l->env, info);
	return rc;
}

/*
 * env_open - l's file opened with flags (MDB_*), this thread catching.
 * A reader that may not write the lock file (PATH-lock, the milter's
 * user's alone) reads without it (ledger-int.h).
 */
static int
env_open(struct ledger_lmdb *l, int fresh, unsigned int flags,
    struct pa_err *err)
{
	MDB_envinfo info;
	int rc;

	mapguard_catch(&l->damaged);
	rc = lmdb_open(l, flags, &info);
	if (rc == EACCES && (flags & MDB_RDONLY) && !(flags & MDB_NOLOCK)) {
		mdb_env_close(l->env);
		rc = lmdb_open(l, flags | MDB_NOLOCK, &info);
	}
	if (rc == EACCES)
		unreadable(l->path, err);
	else if (rc != 0)
		rc = ledger_fail(l, err, "opening", rc);
	else if ((rc = check_size(l, &info, err)) == 0) {
		l->mapsize = info.me_mapsize;
		rc = dbs_open(l, fresh, !(flags & MDB_RDONLY), err);
	}
	mapguard_catch(NULL);
	if (rc == EACCES)
		return PA_ERROR;
	return rc == 0 ? ledger_intact(l, err) : rc;
}

/*
 * check_size - the file holds every page that LMDB's last commit used:
 * 0, or PA_ERROR when it was cut short (its first pages may still open)
 */
static int
check_size(struct ledger_lmdb *l, const MDB_envinfo *info, struct pa_err *err)
{
	struct stat st;
	MDB_stat ms;
	int fd, rc;

	if ((rc = mdb_env_get_fd(l->env, &fd)) != 0 ||
	    (rc = mdb_env_stat(l->env, &ms)) != 0)
		return ledger_fail(l, err, "opening", rc);
	if (fstat(fd, &st) != 0)
		return ledger_fail(l, err, "opening", errno);
	atomic_store(&l->file_bytes, (uint64_t)st.st_size);
	if ((uintmax_t)st.st_size >= ((uintmax_t)info->me_last_pgno + 1) *
	    ms.ms_psize)
		return 0;
	pa_err_set(err, "the arrival records at %s: the file is cut short "
	    "(%jd bytes of %ju; restore it, or remove it to start again)",
	    l->path, (intmax_t)st.st_size, ((uintmax_t)info->me_last_pgno +
	    1) * ms.ms_psize);
	return PA_ERROR;
}

/*
 * dbs_read - the named databases, made with the format entry (fresh);
 * copies, which a file made before it lacks, made when writable; and the
 * bytes in use.  LEDGER_UNSETTLED when an unlocked read did not settle.
 */
static int
dbs_read(struct ledger_lmdb *l, int fresh, int writable, struct pa_err *err)
{
	static const char *const names[] = {
		"meta", "records", "msgid", "patchid", "habits"
	};
	static const unsigned int flags[] = {
		0, 0, MDB_DUPSORT, MDB_DUPSORT, 0
	};
	MDB_dbi *dbi[] = { &l->meta, &l->records, &l->msgid, &l->patchid,
		&l->habits };
	MDB_val k = { 6, "format" }, v = { strlen(LEDGER_FORMAT),
		LEDGER_FORMAT };
	MDB_txn *txn;
	uint64_t used;
	size_t i;
	int rc = 0, bad = 0;

	if ((rc = ledger_txn_begin(l, fresh || writable ? 0 : MDB_RDONLY,
	    &txn)) != 0)
		return rc == LEDGER_UNSETTLED ? rc : ledger_fail(l, err,
		    "opening", rc);
	for (i = 0; i < sizeof(names) / sizeof(names[0]) && rc == 0; i++)
		rc = mdb_dbi_open(txn, names[i], flags[i] |
		    (fresh ? MDB_CREATE : 0), dbi[i]);
	if (rc == MDB_NOTFOUND || rc == MDB_INCOMPATIBLE)
		rc = MDB_INVALID;
	if (rc == 0 && fresh)
		rc = mdb_put(txn, l->meta, &k, &v, 0);
	if (rc == 0 && !fresh)
		bad = check_format(l, txn, err);
	if (rc == 0 && bad == 0)
		rc = copies_open(l, txn, fresh || writable);
	if (rc == 0 && bad == 0 && (rc = ledger_used(l, txn, &used)) == 0)
		atomic_store(&l->used, used);
	if (!ledger_txn_settled(l, txn)) {
		ledger_txn_end(l, txn);
		return LEDGER_UNSETTLED;
	}
	if (rc != 0 || bad != 0) {
		ledger_txn_end(l, txn);
		return bad != 0 ? bad : ledger_fail(l, err, "opening", rc);
	}
	rc = mdb_txn_commit(txn);
	ledger_txn_end(l, NULL);
	if (rc != 0 || (fresh && (rc = mdb_env_sync(l->env, 1)) != 0))
		return ledger_fail(l, err, "making", rc);
	return 0;
}

/* dbs_open - dbs_read(), read again while an unlocked read unsettles */
static int
dbs_open(struct ledger_lmdb *l, int fresh, int writable, struct pa_err *err)
{
	int rc, tries = 0;

	while ((rc = dbs_read(l, fresh, writable, err)) == LEDGER_UNSETTLED &&
	    ++tries < LEDGER_READ_TRIES)
		;
	return rc == LEDGER_UNSETTLED ? ledger_fail(l, err, "opening", rc) :
	    rc;
}

/* copies_open - the copies database, made when create; 0 without it */
static int
copies_open(struct ledger_lmdb *l, MDB_txn *txn, int create)
{
	int rc;

	rc = mdb_dbi_open(txn, "copies", create ? MDB_CREATE : 0,
	    &l->copies);
	l->has_copies = rc == 0;
	return rc == MDB_NOTFOUND ? 0 : rc == MDB_INCOMPATIBLE ?
	    MDB_INVALID : rc;
}

/* check_format - the file is a ledger of this format: 0, else PA_ERROR */
static int
check_format(struct ledger_lmdb *l, MDB_txn *txn, struct pa_err *err)
{
	MDB_val k = { 6, "format" }, v;
	int rc;

	if ((rc = mdb_get(txn, l->meta, &k, &v)) != 0 && rc != MDB_NOTFOUND)
		return ledger_fail(l, err, "reading", rc);
	if (rc == 0 && v.mv_size == strlen(LEDGER_FORMAT) &&
	    memcmp(v.mv_data, LEDGER_FORMAT, v.mv_size) == 0)
		return 0;
	pa_err_set(err, "the arrival records at %s: not a ledger of this "
	    "version (damaged or another file; restore it, or remove it to "
	    "start again)", l->path);
	return PA_ERROR;
}

int
ledger_open(struct ledger **out, const char *path, int create, int writable,
    unsigned retention_days, uint64_t max_size, struct pa_err *err)
{
	struct ledger_lmdb *l;
	struct stat st;
	int rc, fresh;

	*out = NULL;
	if ((rc = statefile_there(path, create, NOUN, err)) < 0) {
		if (rc == PA_ERROR && stat(path, &st) != 0 && errno == EACCES)
			unreadable(path, err);
		return rc;
	}
	fresh = rc == 0;
	if ((rc = ledger_new(&l, path, retention_days, max_size, err)) != 0)
		return rc;
	if ((rc = env_open(l, fresh, writable || fresh ? MDB_NOSYNC :
	    MDB_RDONLY, err)) != 0 ||
	    (writable && (rc = ledger_writer_start(l, err)) != 0)) {
		lmdb_close(&l->base);
		return rc;
	}
	if (fresh)
		group_readable(l);
	*out = &l->base;
	return 0;
}

/*
 * group_readable - a file just made, for the milter's group to read
 * (patchattest arrived and stats by a maintainer) whatever the umask;
 * its lock file stays its owner's (ledger-int.h).  Best effort: a
 * failure leaves the file to its owner, and a reader says so.
 */
static void
group_readable(struct ledger_lmdb *l)
{
	int fd;

	if (mdb_env_get_fd(l->env, &fd) == 0)
		(void)fchmod(fd, 0640);
}

int
ledger_check(const char *path, struct pa_err *err)
{
	struct ledger_lmdb *l;
	int rc;

	if ((rc = statefile_there(path, 0, NOUN, err)) < 0)
		return rc;
	if ((rc = ledger_new(&l, path, 0, 0, err)) != 0)
		return rc;
	rc = env_open(l, 0, MDB_RDONLY | MDB_NOLOCK, err);
	lmdb_close(&l->base);
	return rc;
}

/* lmdb_ledger_size - ledger_size() of the LMDB store */
int
lmdb_ledger_size(struct ledger *base, struct ledger_size *out)
{
	struct ledger_lmdb *l = lmdb_ledger(base);

	out->file = atomic_load(&l->file_bytes);
	out->used = atomic_load(&l->used);
	out->max = l->max_size;
	return 0;
}

/* lmdb_unlocked - ledger_reads_unlocked() of the LMDB store */
static int
lmdb_unlocked(const struct ledger *base)
{
	return ((const struct ledger_lmdb *)(const void *)base)->unlocked;
}

/* lmdb_close - ledger_close() of the LMDB store */
static void
lmdb_close(struct ledger *base)
{
	struct ledger_lmdb *l = lmdb_ledger(base);

	ledger_writer_stop(l);
	if (l->env != NULL)
		mdb_env_close(l->env);
	pthread_cond_destroy(&l->done);
	pthread_cond_destroy(&l->wake);
	pthread_mutex_destroy(&l->lock);
	pthread_rwlock_destroy(&l->maplock);
	copy_news_release(&l->news);
	free(l->path);
	free(l);
}
