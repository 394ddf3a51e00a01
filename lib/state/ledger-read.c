/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ledger-read.c - the arrival records by Message-ID, by patch-id and by
 * time, and the signing habits, each in a read transaction of its own
 * (see ledger.h).  A record that does not decode is an error naming it
 * (its arrival time and sequence number), never another record.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ledger-codec.h"
#include "ledger-int.h"

/*
 * The records of one Message-ID that wait in the queue, copied as a read
 * begins, each with its number among the records ever accepted (see
 * ledger-int.h's "accepted": those the read's snapshot holds are passed).
 */
#define WAITING_MAX	(LEDGER_COPIES_KEPT + LEDGER_DIFFERING_KEPT)

struct waiting {
	struct arrival	*a;		/* WAITING_MAX, or NULL: none */
	uint64_t	 num[WAITING_MAX];
	size_t		 n;
};

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
		    struct waiting *, int (*)(void *, const struct arrival *),
		    void *, struct pa_err *);
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
 * waiting_take - the queued records of the Message-ID hashed in hash
 * into *q (at most WAITING_MAX: those past it would not be kept): 0, or
 * PA_ENOMEM
 */
static int
waiting_take(struct ledger_lmdb *l, const unsigned char hash[32],
    struct waiting *q)
{
	const struct arrival *a;
	size_t i;
	int rc = 0;

	q->n = 0;
	q->a = NULL;
	if (l->queue == NULL)
		return 0;
	pthread_mutex_lock(&l->lock);
	for (i = 0; i < l->count && q->n < WAITING_MAX; i++) {
		a = &l->queue[(l->head + i) % LEDGER_QUEUE_MAX];
		if (memcmp(a->message_id_sha256, hash, 32) != 0)
			continue;
		if (q->a == NULL && (q->a = malloc(WAITING_MAX *
		    sizeof(*q->a))) == NULL) {
			rc = PA_ENOMEM;
			break;
		}
		q->a[q->n] = *a;
		q->num[q->n++] = l->accepted + i + 1;
	}
	pthread_mutex_unlock(&l->lock);
	return rc;
}

/*
 * waiting_visit - fn on each record of q that w's snapshot does not hold,
 * numbered and set beside the first copy as the writer will: fn's value,
 * or PA_ERROR
 */
static int
waiting_visit(struct walk *w, const MDB_val *hk, struct waiting *q)
{
	struct ledger_copies cs;
	struct arrival *first;
	uint64_t accepted;
	size_t i;
	int rc, has_first, stop = 0;

	if (q->n == 0)
		return 0;
	if ((first = malloc(sizeof(*first))) == NULL)
		return ledger_fail(w->l, w->err, "reading", ENOMEM);
	if ((rc = ledger_meta_get(w->l, w->txn, LEDGER_META_ACCEPTED,
	    &accepted)) != 0 || (rc = ledger_copies_get(w->l, w->txn, hk,
	    &cs, first)) < 0) {
		free(first);
		return ledger_fail(w->l, w->err, "reading", rc < 0 ? -rc : rc);
	}
	has_first = rc;
	for (i = 0; i < q->n && stop == 0; i++) {
		if (q->num[i] <= accepted)
			continue;
		/* one past those kept will not be read once written */
		if (!copies_next(&q->a[i], has_first ? first : NULL, &cs))
			continue;
		if (!has_first) {
			*first = q->a[i];
			has_first = 1;
		}
		w->found++;
		stop = w->fn(w->arg, &q->a[i]);
	}
	free(first);
	return stop;
}

/*
 * by_index - fn on each record that the index dbi lists under key, whose
 * values hold the record's key at off, then on those of q not yet written
 */
static int
by_index(struct ledger_lmdb *l, MDB_dbi dbi, MDB_val *key, size_t off,
    struct waiting *q, int (*fn)(void *, const struct arrival *), void *arg,
    struct pa_err *err)
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
	if (q != NULL && stop == 0 && (rc == 0 || rc == MDB_NOTFOUND))
		stop = waiting_visit(&w, key, q);
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
	struct waiting q;
	int rc;

	if (digest_sha256(hash, message_id, len) != 0 ||
	    waiting_take(l, hash, &q) != 0) {
		pa_err_set(err, "%s", pa_strerror(PA_ENOMEM));
		return PA_ENOMEM;
	}
	rc = by_index(l, l->msgid, &k, LEDGER_MSGID_VAL_LEN - LEDGER_KEY_LEN,
	    &q, fn, arg, err);
	free(q.a);
	return rc;
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
	return by_index(l, l->patchid, &k, 0, NULL, fn, arg, err);
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

/*
 * lmdb_ledger_habits - ledger_habit_states() of the LMDB store, in one
 * read transaction (fn must not wait on the ledger)
 */
int
lmdb_ledger_habits(struct ledger *base, const char *after,
    int (*fn)(void *, const char *, const struct habit_state *), void *arg,
    struct pa_err *err)
{
	struct ledger_lmdb *l = lmdb_ledger(base);
	struct habit_state hs;
	char identity[ARRIVAL_TEXT_MAX];
	struct walk w;
	MDB_cursor *cur;
	MDB_val k = { strlen(after), (void *)after }, v;
	int rc, stop = 0, op = MDB_SET_RANGE;

	if ((rc = walk_begin(&w, l, NULL, NULL, err)) != 0)
		return rc;
	if ((rc = mdb_cursor_open(w.txn, l->habits, &cur)) != 0)
		return walk_end(&w, 0, rc);
	if (k.mv_size == 0)
		op = MDB_FIRST;
	for (rc = mdb_cursor_get(cur, &k, &v, op); rc == 0 && !stop;
	    rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
		/* an identity no longer than a record keeps */
		if (k.mv_size == 0 || k.mv_size >= sizeof(identity) ||
		    (k.mv_size == strlen(after) &&
		    memcmp(k.mv_data, after, k.mv_size) == 0))
			continue;
		memcpy(identity, k.mv_data, k.mv_size);
		identity[k.mv_size] = '\0';
		w.found++;
		stop = fn(arg, identity, ledger_decode_habit(v.mv_data,
		    v.mv_size, identity, k.mv_size, &hs) == 0 ? &hs : NULL);
	}
	mdb_cursor_close(cur);
	rc = walk_end(&w, stop, rc);
	return rc == PA_ENOTFOUND ? 0 : rc;
}
