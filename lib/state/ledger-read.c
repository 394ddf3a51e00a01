/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ledger-read.c - the arrival records by Message-ID, by patch-id and by
 * time, and the signing habits, each in a read transaction of its own
 * (see ledger.h).  A record that does not decode is an error naming it
 * (its arrival time and sequence number), never another record.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "ledger-codec.h"
#include "ledger-int.h"

/* One walk over records: the function to call, and what came of it. */
struct walk {
	struct ledger_lmdb	 *l;
	MDB_txn		 *txn;
	int		(*fn)(void *, const struct arrival *);
	void		 *arg;
	struct pa_err	 *err;
	size_t		  found;
};

static int	 walk_begin(struct walk *, struct ledger_lmdb *,
		    int (*)(void *, const struct arrival *), void *,
		    struct pa_err *);
static int	 walk_end(struct walk *, int, int);
static int	 visit(struct walk *, const MDB_val *, const MDB_val *);
static int	 by_index(struct ledger_lmdb *, MDB_dbi, MDB_val *, size_t,
		    int (*)(void *, const struct arrival *), void *,
		    struct pa_err *);
static int	 damaged(struct walk *, const unsigned char *);

static int
walk_begin(struct walk *w, struct ledger_lmdb *l,
    int (*fn)(void *, const struct arrival *), void *arg, struct pa_err *err)
{
	int rc;

	*w = (struct walk){ .l = l, .fn = fn, .arg = arg, .err = err };
	if (ledger_intact(l, err) != 0)
		return PA_ERROR;
	mapguard_catch(&l->damaged);
	if ((rc = ledger_txn_begin(l, MDB_RDONLY, &w->txn)) != 0) {
		mapguard_catch(NULL);
		return ledger_fail(l, err, "reading", rc);
	}
	return 0;
}

/*
 * walk_end - the transaction ended: stop (what fn returned, or an error
 * of ours) when not 0, else LMDB's rc as an error when it is one, else
 * whether anything was found
 */
static int
walk_end(struct walk *w, int stop, int rc)
{
	ledger_txn_end(w->l, w->txn);
	mapguard_catch(NULL);
	if (ledger_intact(w->l, w->err) != 0)
		return PA_ERROR;
	if (stop != 0)
		return stop;
	if (rc != 0 && rc != MDB_NOTFOUND)
		return ledger_fail(w->l, w->err, "reading", rc);
	return w->found > 0 ? 0 : PA_ENOTFOUND;
}

/* damaged - the error of the record under key; PA_ERROR */
static int
damaged(struct walk *w, const unsigned char *key)
{
	char when[32];
	uint64_t seq = 0;
	time_t t = ledger_key_time(key);
	struct tm tm;
	int i;

	for (i = 8; i < LEDGER_KEY_LEN; i++)
		seq = seq << 8 | key[i];
	if (gmtime_r(&t, &tm) == NULL ||
	    strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(when, sizeof(when), "%lld", (long long)t);
	pa_err_set(w->err, "the arrival records at %s: the record of %s "
	    "(number %" PRIu64 ") is damaged", w->l->path, when, seq);
	return PA_ERROR;
}

/* visit - fn on the record v under k: fn's value, or PA_ERROR */
static int
visit(struct walk *w, const MDB_val *k, const MDB_val *v)
{
	struct arrival a;

	if (k->mv_size != LEDGER_KEY_LEN)
		return ledger_fail(w->l, w->err, "reading", MDB_CORRUPTED);
	if (ledger_decode_arrival(v->mv_data, v->mv_size, k->mv_data,
	    k->mv_size, &a) != 0)
		return damaged(w, k->mv_data);
	w->found++;
	return w->fn(w->arg, &a);
}

/*
 * by_index - fn on each record that the index dbi lists under key, whose
 * values hold the record's key at off
 */
static int
by_index(struct ledger_lmdb *l, MDB_dbi dbi, MDB_val *key, size_t off,
    int (*fn)(void *, const struct arrival *), void *arg, struct pa_err *err)
{
	struct walk w;
	MDB_cursor *cur;
	MDB_val k = *key, v, rk, rv;
	int rc, stop = 0;

	if ((rc = walk_begin(&w, l, fn, arg, err)) != 0)
		return rc;
	if ((rc = mdb_cursor_open(w.txn, dbi, &cur)) != 0)
		return walk_end(&w, 0, rc);
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_SET_KEY); rc == 0 && !stop;
	    rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT_DUP)) {
		if (v.mv_size != off + LEDGER_KEY_LEN) {
			stop = ledger_fail(l, err, "reading", MDB_CORRUPTED);
			break;
		}
		rk.mv_size = LEDGER_KEY_LEN;
		rk.mv_data = (unsigned char *)v.mv_data + off;
		/* gone: removed as too old, its index entry with it soon */
		if ((rc = mdb_get(w.txn, l->records, &rk, &rv)) == 0)
			stop = visit(&w, &rk, &rv);
		else if (rc != MDB_NOTFOUND)
			break;
	}
	mdb_cursor_close(cur);
	return walk_end(&w, stop, rc);
}

int
lmdb_ledger_by_message_id_bytes(struct ledger *base, const char *message_id,
    size_t len, int (*fn)(void *, const struct arrival *), void *arg,
    struct pa_err *err)
{
	struct ledger_lmdb *l = lmdb_ledger(base);
	unsigned char hash[32];
	MDB_val k = { sizeof(hash), hash };

	if (digest_sha256(hash, message_id, len) != 0) {
		pa_err_set(err, "%s", pa_strerror(PA_ENOMEM));
		return PA_ENOMEM;
	}
	return by_index(l, l->msgid, &k, LEDGER_MSGID_VAL_LEN - LEDGER_KEY_LEN,
	    fn, arg, err);
}

int
lmdb_ledger_by_patch_id(struct ledger *base, const char *patch_id,
    int (*fn)(void *, const struct arrival *), void *arg, struct pa_err *err)
{
	struct ledger_lmdb *l = lmdb_ledger(base);
	unsigned char pid[LEDGER_PATCHID_LEN];
	MDB_val k = { sizeof(pid), pid };

	if (ledger_patch_id(pid, patch_id) != 0) {
		pa_err_set(err, "a patch-id is 40 lower-case hex digits");
		return PA_ENOTFOUND;
	}
	return by_index(l, l->patchid, &k, 0, fn, arg, err);
}

int
lmdb_ledger_each(struct ledger *base, time_t since, time_t until,
    int (*fn)(void *, const struct arrival *), void *arg, struct pa_err *err)
{
	struct ledger_lmdb *l = lmdb_ledger(base);
	unsigned char from[LEDGER_KEY_LEN], to[LEDGER_KEY_LEN];
	struct walk w;
	MDB_cursor *cur;
	MDB_val k = { sizeof(from), from }, v;
	int rc, stop = 0;

	ledger_time_key(from, since, 0);
	ledger_time_key(to, until, 0);
	if ((rc = walk_begin(&w, l, fn, arg, err)) != 0)
		return rc;
	if ((rc = mdb_cursor_open(w.txn, l->records, &cur)) != 0)
		return walk_end(&w, 0, rc);
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE); rc == 0 &&
	    !stop && k.mv_size == LEDGER_KEY_LEN &&
	    memcmp(k.mv_data, to, LEDGER_KEY_LEN) < 0;
	    rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT))
		stop = visit(&w, &k, &v);
	mdb_cursor_close(cur);
	rc = walk_end(&w, stop, rc);
	return rc == PA_ENOTFOUND ? 0 : rc;
}

int
lmdb_ledger_habit(struct ledger *base, const char *identity,
    struct habit *out, struct pa_err *err)
{
	struct ledger_lmdb *l = lmdb_ledger(base);
	struct habit_state hs;
	struct walk w;
	MDB_val k = { strlen(identity), (void *)identity }, v;
	int rc;

	if (k.mv_size == 0 || k.mv_size >= sizeof(out->identity))
		return PA_ENOTFOUND;
	if ((rc = walk_begin(&w, l, NULL, NULL, err)) != 0)
		return rc;
	if ((rc = mdb_get(w.txn, l->habits, &k, &v)) == 0) {
		if (ledger_decode_habit(v.mv_data, v.mv_size, identity,
		    k.mv_size, &hs) != 0) {
			pa_err_set(err, "the arrival records at %s: the "
			    "signing habit of an identity is damaged",
			    l->path);
			return walk_end(&w, PA_ERROR, 0);
		}
		*out = hs.h;
		w.found = 1;
	}
	return walk_end(&w, 0, rc);
}
