/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ledger-txn.c - the bottom of the ledger's files (ledger-int.h): its
 * error sentences, its transactions and the map's size around them, and
 * the forms of its keys.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "ledger-codec.h"
#include "ledger-int.h"

#define LEDGER_MAPSIZE_MAX	((size_t)1 << 36)

static int	 last_txnid(struct ledger_lmdb *, size_t *);
static int	 map_adopt(struct ledger_lmdb *);

int
ledger_fail(const struct ledger_lmdb *l, struct pa_err *err, const char *what,
    int rc)
{
	if (ledger_intact(l, err) != 0)
		return PA_ERROR;
	if (rc == LEDGER_UNSETTLED) {
		pa_err_set(err, "%s the arrival records at %s: they changed "
		    "under each of %d reads without the lock file (%s-lock, "
		    "which only the milter's user may write); read them "
		    "again, or as that user", what, l->path,
		    LEDGER_READ_TRIES, l->path);
		return PA_ERROR;
	}
	pa_err_set(err, "%s the arrival records at %s: %s", what, l->path,
	    rc == MDB_INVALID ? "not a ledger (damaged or another file)" :
	    rc == MDB_CORRUPTED ? "the file is damaged" : mdb_strerror(rc));
	return rc == ENOMEM ? PA_ENOMEM : PA_ERROR;
}

int
ledger_intact(const struct ledger_lmdb *l, struct pa_err *err)
{
	if (!atomic_load(&l->damaged))
		return 0;
	if (l->unlocked)
		pa_err_set(err, "the arrival records at %s changed under a "
		    "read without the lock file (%s-lock); read them again",
		    l->path, l->path);
	else
		pa_err_set(err, "the arrival records at %s are damaged: the "
		    "file was cut while in use (restore it, or remove it to "
		    "start again, and reload)", l->path);
	return PA_ERROR;
}

/* last_txnid - the last transaction committed to the file */
static int
last_txnid(struct ledger_lmdb *l, size_t *id)
{
	MDB_envinfo info;
	int rc;

	if ((rc = mdb_env_info(l->env, &info)) == 0)
		*id = info.me_last_txnid;
	return rc;
}

/*
 * map_adopt - the map as large as another process made the file (its
 * meta page says), and unlocked LEDGER_MAP_SLACK more; maplock held for
 * writing
 */
static int
map_adopt(struct ledger_lmdb *l)
{
	MDB_envinfo info;
	int rc;

	if ((rc = mdb_env_set_mapsize(l->env, 0)) != 0 || !l->unlocked)
		return rc;
	if ((rc = mdb_env_info(l->env, &info)) == 0)
		rc = mdb_env_set_mapsize(l->env, info.me_mapsize +
		    LEDGER_MAP_SLACK);
	return rc;
}

/*
 * begin - a transaction; unlocked, one whose snapshot is the last commit
 * already seen before it began: the meta page it starts from was then
 * written whole (its transaction number is its last field)
 */
static int
begin(struct ledger_lmdb *l, unsigned int flags, MDB_txn **txn)
{
	size_t before;
	int rc, tries;

	if (!l->unlocked)
		return mdb_txn_begin(l->env, NULL, flags, txn);
	for (tries = 0; tries < LEDGER_READ_TRIES; tries++) {
		if ((rc = last_txnid(l, &before)) != 0 ||
		    (rc = mdb_txn_begin(l->env, NULL, flags, txn)) != 0)
			return rc;
		if (mdb_txn_id(*txn) == before)
			return 0;
		mdb_txn_abort(*txn);
	}
	*txn = NULL;
	return LEDGER_UNSETTLED;
}

int
ledger_txn_begin(struct ledger_lmdb *l, unsigned int flags, MDB_txn **txn)
{
	int rc;

	pthread_rwlock_rdlock(&l->maplock);
	if ((rc = begin(l, flags, txn)) != MDB_MAP_RESIZED)
		goto out;
	/* another process grew the file: adopt its size, then again */
	pthread_rwlock_unlock(&l->maplock);
	pthread_rwlock_wrlock(&l->maplock);
	rc = map_adopt(l);
	pthread_rwlock_unlock(&l->maplock);
	pthread_rwlock_rdlock(&l->maplock);
	if (rc == 0)
		rc = begin(l, flags, txn);
out:
	if (rc != 0) {
		*txn = NULL;
		pthread_rwlock_unlock(&l->maplock);
	}
	return rc;
}

int
ledger_txn_moved(struct ledger_lmdb *l, MDB_txn *txn)
{
	size_t last;

	return l->unlocked && (last_txnid(l, &last) != 0 ||
	    last > mdb_txn_id(txn));
}

int
ledger_txn_settled(struct ledger_lmdb *l, MDB_txn *txn)
{
	size_t last;

	if (!l->unlocked)
		return 1;
	return last_txnid(l, &last) == 0 && last <= mdb_txn_id(txn) + 1;
}

void
ledger_txn_end(struct ledger_lmdb *l, MDB_txn *txn)
{
	if (txn != NULL)
		mdb_txn_abort(txn);
	pthread_rwlock_unlock(&l->maplock);
}

int
ledger_grow(struct ledger_lmdb *l)
{
	MDB_envinfo info;
	int rc;

	pthread_rwlock_wrlock(&l->maplock);
	if ((rc = mdb_env_info(l->env, &info)) == 0 &&
	    (rc = info.me_mapsize >= LEDGER_MAPSIZE_MAX ? MDB_MAP_FULL :
	    mdb_env_set_mapsize(l->env, info.me_mapsize * 2)) == 0)
		l->mapsize = info.me_mapsize * 2;
	pthread_rwlock_unlock(&l->maplock);
	return rc;
}

int
ledger_used(const struct ledger_lmdb *l, MDB_txn *txn, uint64_t *bytes)
{
	const MDB_dbi dbs[] = { l->meta, l->records, l->msgid, l->patchid,
	    l->habits, l->copies };
	MDB_stat st;
	uint64_t pages = 0;
	size_t i;
	int rc;

	*bytes = 0;
	for (i = 0; i < sizeof(dbs) / sizeof(dbs[0]) - !l->has_copies; i++) {
		if ((rc = mdb_stat(txn, dbs[i], &st)) != 0)
			return rc;
		pages += (uint64_t)st.ms_branch_pages + st.ms_leaf_pages +
		    st.ms_overflow_pages;
		*bytes = pages * st.ms_psize;
	}
	return 0;
}

void
ledger_time_key(unsigned char key[LEDGER_KEY_LEN], time_t t, uint64_t seq)
{
	uint64_t v = (uint64_t)(int64_t)t ^ (uint64_t)1 << 63;
	int i;

	for (i = 0; i < 8; i++) {
		key[i] = (unsigned char)(v >> (56 - 8 * i));
		key[8 + i] = (unsigned char)(seq >> (56 - 8 * i));
	}
}

time_t
ledger_key_time(const unsigned char key[LEDGER_KEY_LEN])
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < 8; i++)
		v = v << 8 | key[i];
	return (time_t)(int64_t)(v ^ (uint64_t)1 << 63);
}

int
ledger_msgid_hash(const struct arrival *a, unsigned char out[32])
{
	static const unsigned char zero[32];

	if (memcmp(a->message_id_sha256, zero, sizeof(zero)) == 0)
		return digest_sha256(out, a->message_id, strlen(a->message_id));
	memcpy(out, a->message_id_sha256, 32);
	return 0;
}

int
ledger_meta_get(struct ledger_lmdb *l, MDB_txn *txn, const char *name,
    uint64_t *out)
{
	MDB_val k = { strlen(name), (void *)name }, v;
	const unsigned char *p;
	int rc, i;

	*out = 0;
	if ((rc = mdb_get(txn, l->meta, &k, &v)) == MDB_NOTFOUND)
		return 0;
	if (rc != 0)
		return rc;
	if (v.mv_size != 8)
		return MDB_CORRUPTED;
	for (p = v.mv_data, i = 0; i < 8; i++)
		*out = *out << 8 | p[i];
	return 0;
}

int
ledger_meta_put(struct ledger_lmdb *l, MDB_txn *txn, const char *name,
    uint64_t n)
{
	unsigned char buf[8];
	MDB_val k = { strlen(name), (void *)name }, v = { 8, buf };
	int i;

	for (i = 0; i < 8; i++)
		buf[i] = (unsigned char)(n >> (56 - 8 * i));
	return mdb_put(txn, l->meta, &k, &v, 0);
}
