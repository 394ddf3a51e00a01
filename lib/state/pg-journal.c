/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pg-journal.c - the local journal of arrival records on their way to
 * StateDatabase (see pg-int.h): one LMDB file, key the 8-byte big-endian
 * sequence number, value the record id (32 hex digits) and the record in
 * the ledger's stored form (ledger-codec.h, sealed under its key).
 *
 * A put is a local write that waits on no disk (MDB_NOSYNC): the sender
 * syncs the file once per batch (journal_sync(), LEDGER_GATHER_MS after
 * the batch's first put, the database there or not), and again when it
 * removes a batch the database committed.  A record therefore stays
 * until the database has it, across an outage, a restart or a power
 * loss once its batch is synced, and a record sent twice (the process
 * ended between the commit and the removal) is stored once by its
 * record id.
 */
#include "config.h"

#include <sys/random.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lmdb.h>

#include "ledger-codec.h"
#include "pg-int.h"
#include "statefile.h"

#define JOURNAL_MAPSIZE	((size_t)256 << 20)	/* some 50,000 records */
#define ID_HEX		32

struct journal {
	MDB_env		*env;
	MDB_dbi		 dbi;
	char		*path;
	pthread_mutex_t	 lock;		/* around puts: the sequence */
	uint64_t	 next_seq;
};

static int
jfail(const struct journal *j, struct pa_err *err, const char *what, int rc)
{
	pa_err_set(err, "%s the journal of arrival records at %s: %s", what,
	    j->path, rc == MDB_MAP_FULL ? "it is full (the state database "
	    "has been away too long)" : mdb_strerror(rc));
	return rc == ENOMEM ? PA_ENOMEM : PA_ERROR;
}

static void
put_seq(unsigned char *k, uint64_t seq)
{
	int i;

	for (i = 0; i < 8; i++)
		k[i] = (unsigned char)(seq >> (56 - 8 * i));
}

static uint64_t
get_seq(const unsigned char *k)
{
	uint64_t seq = 0;
	int i;

	for (i = 0; i < 8; i++)
		seq = seq << 8 | k[i];
	return seq;
}

/* last_seq - the sequence after the journal's last entry into next_seq */
static int
last_seq(struct journal *j)
{
	MDB_txn *txn;
	MDB_cursor *cur;
	MDB_val k, v;
	int rc;

	j->next_seq = 1;
	if ((rc = mdb_txn_begin(j->env, NULL, MDB_RDONLY, &txn)) != 0)
		return rc;
	if ((rc = mdb_cursor_open(txn, j->dbi, &cur)) == 0) {
		if ((rc = mdb_cursor_get(cur, &k, &v, MDB_LAST)) == 0 &&
		    k.mv_size == 8)
			j->next_seq = get_seq(k.mv_data) + 1;
		mdb_cursor_close(cur);
	}
	mdb_txn_abort(txn);
	return rc == MDB_NOTFOUND ? 0 : rc;
}

int
journal_open(struct journal **out, const char *path, struct pa_err *err)
{
	struct journal *j;
	MDB_txn *txn;
	int rc;

	*out = NULL;
	if ((j = calloc(1, sizeof(*j))) == NULL ||
	    (j->path = strdup(path)) == NULL) {
		free(j);
		pa_err_set(err, "%s", pa_strerror(PA_ENOMEM));
		return PA_ENOMEM;
	}
	pthread_mutex_init(&j->lock, NULL);
	if ((rc = mdb_env_create(&j->env)) != 0)
		j->env = NULL;
	else if ((rc = mdb_env_set_mapsize(j->env, JOURNAL_MAPSIZE)) == 0 &&
	    (rc = mdb_env_open(j->env, path, MDB_NOSUBDIR | MDB_NOTLS |
	    MDB_NOSYNC, 0600)) == 0 &&
	    (rc = mdb_txn_begin(j->env, NULL, 0, &txn)) == 0) {
		if ((rc = mdb_dbi_open(txn, NULL, 0, &j->dbi)) == 0)
			rc = mdb_txn_commit(txn);
		else
			mdb_txn_abort(txn);
		if (rc == 0)
			rc = last_seq(j);
	}
	if (rc != 0) {
		jfail(j, err, "opening", rc);
		journal_close(j);
		return PA_ERROR;
	}
	*out = j;
	return 0;
}

void
journal_left(struct journal *j, uint64_t *put, uint64_t *sent)
{
	MDB_stat st;
	MDB_txn *txn;
	uint64_t left = 0;

	if (mdb_txn_begin(j->env, NULL, MDB_RDONLY, &txn) == 0) {
		if (mdb_stat(txn, j->dbi, &st) == 0)
			left = st.ms_entries;
		mdb_txn_abort(txn);
	}
	pthread_mutex_lock(&j->lock);
	*put = j->next_seq - 1;
	pthread_mutex_unlock(&j->lock);
	*sent = *put > left ? *put - left : 0;
}

void
journal_close(struct journal *j)
{
	if (j == NULL)
		return;
	if (j->env != NULL) {
		mdb_env_sync(j->env, 1);
		mdb_env_close(j->env);
	}
	pthread_mutex_destroy(&j->lock);
	free(j->path);
	free(j);
}

/* record_id - 16 random bytes in hex into id */
static int
record_id(char id[ID_HEX + 1])
{
	static const char hex[] = "0123456789abcdef";
	unsigned char r[ID_HEX / 2];
	size_t i;

	if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
		return -1;
	for (i = 0; i < sizeof(r); i++) {
		id[2 * i] = hex[r[i] >> 4];
		id[2 * i + 1] = hex[r[i] & 15];
	}
	id[ID_HEX] = '\0';
	return 0;
}

int
journal_put(struct journal *j, const struct arrival *a, uint64_t *seq,
    struct pa_err *err)
{
	unsigned char key[8];
	char id[ID_HEX + 1];
	struct sbuf sb;
	MDB_val k = { sizeof(key), key }, v;
	MDB_txn *txn;
	int rc;

	if (record_id(id) != 0) {
		pa_err_set(err, "no random bytes for a record id: %s",
		    strerror(errno));
		return PA_ERROR;
	}
	sbuf_init(&sb, LEDGER_VALUE_MAX + ID_HEX);
	pthread_mutex_lock(&j->lock);
	put_seq(key, j->next_seq);
	if (sbuf_add(&sb, id, ID_HEX) != 0 ||
	    ledger_encode_arrival(&sb, key, sizeof(key), a) != 0)
		rc = ENOMEM;
	else if ((rc = mdb_txn_begin(j->env, NULL, 0, &txn)) == 0) {
		v.mv_size = sb.len;
		v.mv_data = sb.buf;
		if ((rc = mdb_put(txn, j->dbi, &k, &v, MDB_APPEND)) == 0)
			rc = mdb_txn_commit(txn);
		else
			mdb_txn_abort(txn);
	}
	if (rc == 0)
		*seq = j->next_seq++;
	pthread_mutex_unlock(&j->lock);
	sbuf_release(&sb);
	return rc == 0 ? 0 : jfail(j, err, "cannot write to", rc);
}

int
journal_sync(struct journal *j, struct pa_err *err)
{
	int rc;

	if ((rc = mdb_env_sync(j->env, 1)) != 0)
		return jfail(j, err, "cannot sync", rc);
	return 0;
}

int
journal_take(struct journal *j, struct journal_entry *e, size_t max,
    size_t *n, struct pa_err *err)
{
	MDB_txn *txn;
	MDB_cursor *cur;
	MDB_val k, v;
	int rc;

	*n = 0;
	/* what is sent is on the disk first: a record is never in the
	   database and lost here, which a crash could otherwise do */
	if ((rc = journal_sync(j, err)) != 0)
		return rc;
	if ((rc = mdb_txn_begin(j->env, NULL, MDB_RDONLY, &txn)) != 0)
		return jfail(j, err, "cannot read", rc);
	if ((rc = mdb_cursor_open(txn, j->dbi, &cur)) != 0) {
		mdb_txn_abort(txn);
		return jfail(j, err, "cannot read", rc);
	}
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0 &&
	    *n < max; rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
		if (k.mv_size != 8 || v.mv_size < ID_HEX ||
		    ledger_decode_arrival((char *)v.mv_data + ID_HEX,
		    v.mv_size - ID_HEX, k.mv_data, k.mv_size,
		    &e[*n].a) != 0) {
			rc = MDB_CORRUPTED;
			break;
		}
		e[*n].seq = get_seq(k.mv_data);
		memcpy(e[*n].record_id, v.mv_data, ID_HEX);
		e[*n].record_id[ID_HEX] = '\0';
		(*n)++;
	}
	mdb_cursor_close(cur);
	mdb_txn_abort(txn);
	if (rc != 0 && rc != MDB_NOTFOUND)
		return jfail(j, err, "cannot read", rc);
	return 0;
}

int
journal_remove(struct journal *j, const struct journal_entry *e, size_t n,
    struct pa_err *err)
{
	unsigned char key[8];
	MDB_val k = { sizeof(key), key };
	MDB_txn *txn;
	size_t i;
	int rc;

	if ((rc = mdb_txn_begin(j->env, NULL, 0, &txn)) != 0)
		return jfail(j, err, "cannot write to", rc);
	for (i = 0; i < n && rc == 0; i++) {
		put_seq(key, e[i].seq);
		if ((rc = mdb_del(txn, j->dbi, &k, NULL)) == MDB_NOTFOUND)
			rc = 0;
	}
	if (rc != 0) {
		mdb_txn_abort(txn);
		return jfail(j, err, "cannot write to", rc);
	}
	if ((rc = mdb_txn_commit(txn)) != 0 ||
	    (rc = mdb_env_sync(j->env, 1)) != 0)
		return jfail(j, err, "cannot write to", rc);
	return 0;
}
