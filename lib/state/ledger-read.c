/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ledger-read.c - the arrival records by Message-ID, by patch-id and by
 * time, and the signing habits, each in read transactions of their own
 * (see ledger.h).  A record that does not decode is an error naming it
 * (its arrival time and sequence number), never another record.
 *
 * A handle read without the lock file (unlocked, ledger-int.h) reads in
 * chunks of at most CHUNK_MAX records, each in a transaction of its own
 * that ends early at the writer's first commit after its snapshot:
 * what a chunk finds is held, and passed on (or its damage said) only
 * once the chunk settled; one that did not is read again from where it
 * began, LEDGER_READ_TRIES times at most.  A walk then sees the records
 * of several snapshots, one after the other, in order.  With the lock
 * file, a walk is one transaction and fn is called as it goes.
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
#define CHUNK_MAX	64	/* records an unlocked read holds */

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
	/* unlocked: the chunk's records, for fn once it settled */
	struct arrival	 *held;		/* CHUNK_MAX, made at the first */
	size_t		  nheld;
	int		  again;	/* the chunk did not settle */
	int		  tries;	/* of this chunk */
};

static void	 walk_init(struct walk *, struct ledger_lmdb *,
		    int (*)(void *, const struct arrival *), void *,
		    struct pa_err *);
static int	 walk_begin(struct walk *);
static int	 walk_end(struct walk *, int, int);
static int	 walk_again(struct walk *, int *);
static int	 walk_full(const struct walk *);
static int	 walk_moved(struct walk *);
static int	 visit(struct walk *, const MDB_val *, const MDB_val *);
struct resume;
static int	 index_chunk(struct walk *, MDB_dbi, const MDB_val *, size_t,
		    const struct resume *, struct resume *, int *);
static int	 by_index(struct ledger_lmdb *, MDB_dbi, MDB_val *, size_t,
		    struct waiting *, int (*)(void *, const struct arrival *),
		    void *, struct pa_err *);
static int	 time_chunk(struct walk *, const unsigned char *,
		    const unsigned char *, unsigned char *, int *, int *);
static int	 damaged(struct walk *, const unsigned char *);

static void
walk_init(struct walk *w, struct ledger_lmdb *l,
    int (*fn)(void *, const struct arrival *), void *arg, struct pa_err *err)
{
	*w = (struct walk){ .l = l, .fn = fn, .arg = arg, .err = err };
}

/* walk_begin - a chunk's transaction (the whole walk's with the lock) */
static int
walk_begin(struct walk *w)
{
	int rc;

	w->nheld = 0;
	w->again = 0;
	if (ledger_intact(w->l, w->err) != 0)
		return PA_ERROR;
	mapguard_catch(&w->l->damaged);
	if ((rc = ledger_txn_begin(w->l, MDB_RDONLY, &w->txn)) != 0) {
		mapguard_catch(NULL);
		return ledger_fail(w->l, w->err, "reading", rc);
	}
	return 0;
}

/*
 * walk_end - the transaction ended.  Unlocked, a chunk that did not
 * settle drops what it found, sets again and gives 0; one that did
 * passes its records to fn.  Then: stop (what fn returned, or an error
 * of ours) when not 0, else LMDB's rc as an error when it is one
 * (MDB_NOTFOUND is none), else 0.
 */
static int
walk_end(struct walk *w, int stop, int rc)
{
	int settled = ledger_txn_settled(w->l, w->txn), told = 0;
	size_t i;

	ledger_txn_end(w->l, w->txn);
	mapguard_catch(NULL);
	if (!settled && !atomic_load(&w->l->damaged)) {
		w->nheld = 0;
		w->again = 1;
		return 0;
	}
	if (ledger_intact(w->l, w->err) != 0)
		return PA_ERROR;
	for (i = 0; i < w->nheld && told == 0; i++) {
		w->found++;
		told = w->fn(w->arg, &w->held[i]);
	}
	w->nheld = 0;
	if (told != 0)
		return told;
	if (stop != 0)
		return stop;
	if (rc != 0 && rc != MDB_NOTFOUND)
		return ledger_fail(w->l, w->err, "reading", rc);
	return 0;
}

/*
 * walk_again - after walk_end(), whether the chunk is to be read again;
 * past LEDGER_READ_TRIES it is not, and *rc says why
 */
static int
walk_again(struct walk *w, int *rc)
{
	if (!w->again) {
		w->tries = 0;
		return 0;
	}
	if (++w->tries < LEDGER_READ_TRIES)
		return 1;
	*rc = ledger_fail(w->l, w->err, "reading", LEDGER_UNSETTLED);
	return 0;
}

/* walk_full - an unlocked chunk holds all it may: it ends there */
static int
walk_full(const struct walk *w)
{
	return w->l->unlocked && w->nheld == CHUNK_MAX;
}

/*
 * walk_moved - an unlocked chunk that holds a record, once the writer
 * committed after its snapshot: it ends there (one record at least, so
 * that a walk goes on however often the writer commits)
 */
static int
walk_moved(struct walk *w)
{
	return w->nheld > 0 && ledger_txn_moved(w->l, w->txn);
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

/*
 * visit - the record v under k to fn (fn's value), or held for it when
 * unlocked (0); PA_ERROR when it is damaged.  A value longer than any
 * record is damage, not read.
 */
static int
visit(struct walk *w, const MDB_val *k, const MDB_val *v)
{
	struct arrival a, *to = &a;

	if (k->mv_size != LEDGER_KEY_LEN)
		return ledger_fail(w->l, w->err, "reading", MDB_CORRUPTED);
	if (w->l->unlocked) {
		if (w->held == NULL && (w->held = malloc(CHUNK_MAX *
		    sizeof(*w->held))) == NULL)
			return ledger_fail(w->l, w->err, "reading", ENOMEM);
		to = &w->held[w->nheld];
	}
	if (v->mv_size > LEDGER_VALUE_MAX ||
	    ledger_decode_arrival(v->mv_data, v->mv_size, k->mv_data,
	    k->mv_size, to) != 0)
		return damaged(w, k->mv_data);
	if (w->l->unlocked) {
		w->nheld++;
		return 0;
	}
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
		a = l->queue[(l->head + i) % LEDGER_QUEUE_MAX];
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

/* Where a walk over the values of one index key goes on. */
struct resume {
	unsigned char	 last[LEDGER_MSGID_VAL_LEN];	/* after this value */
	size_t		 len;		/* 0: from the first */
	int		 more;		/* the chunk ended full */
};

/*
 * index_chunk - in w's transaction, to visit(): the records that the
 * index dbi lists under key, whose values hold the record's key at off,
 * from the value after r's; next says where to go on.  What a visit
 * returned, with LMDB's code in *rc.
 */
static int
index_chunk(struct walk *w, MDB_dbi dbi, const MDB_val *key, size_t off,
    const struct resume *r, struct resume *next, int *rc)
{
	MDB_cursor *cur;
	MDB_val k = *key, v = { r->len, (void *)r->last }, rk, rv;
	int stop = 0;

	*next = *r;
	if ((*rc = mdb_cursor_open(w->txn, dbi, &cur)) != 0)
		return 0;
	*rc = mdb_cursor_get(cur, &k, &v, r->len > 0 ? MDB_GET_BOTH_RANGE :
	    MDB_SET_KEY);
	if (*rc == 0 && r->len > 0 && v.mv_size == r->len &&
	    memcmp(v.mv_data, r->last, r->len) == 0)
		*rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT_DUP);
	for (; *rc == 0 && !stop && !walk_full(w) && !walk_moved(w);
	    *rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT_DUP)) {
		if (v.mv_size != off + LEDGER_KEY_LEN) {
			stop = ledger_fail(w->l, w->err, "reading",
			    MDB_CORRUPTED);
			break;
		}
		memcpy(next->last, v.mv_data, v.mv_size);
		next->len = v.mv_size;
		rk.mv_size = LEDGER_KEY_LEN;
		rk.mv_data = (unsigned char *)v.mv_data + off;
		/* gone: removed as too old, its index entry with it soon */
		if ((*rc = mdb_get(w->txn, w->l->records, &rk, &rv)) == 0)
			stop = visit(w, &rk, &rv);
		else if (*rc != MDB_NOTFOUND)
			break;
	}
	/* the loop ended on a dup not yet read: a chunk full or moved */
	next->more = *rc == 0 && stop == 0;
	mdb_cursor_close(cur);
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
	struct resume r = { .len = 0 }, next;
	struct walk w;
	int rc, stop;

	walk_init(&w, l, fn, arg, err);
	do {
		if ((rc = walk_begin(&w)) != 0)
			break;
		stop = index_chunk(&w, dbi, key, off, &r, &next, &rc);
		if (q != NULL && stop == 0 && !next.more &&
		    (rc == 0 || rc == MDB_NOTFOUND))
			stop = waiting_visit(&w, key, q);
		if ((rc = walk_end(&w, stop, rc)) == 0 && !w.again)
			r = next;
	} while (walk_again(&w, &rc) || (rc == 0 && r.more));
	free(w.held);
	return rc != 0 ? rc : w.found > 0 ? 0 : PA_ENOTFOUND;
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

/*
 * time_chunk - in w's transaction, to visit(): the records from the key
 * from to the one before to, until the chunk is full (*more, and next
 * the key to go on from).  What a visit returned, with LMDB's code in
 * *rc.
 */
static int
time_chunk(struct walk *w, const unsigned char *from, const unsigned char *to,
    unsigned char *next, int *more, int *rc)
{
	MDB_cursor *cur;
	MDB_val k = { LEDGER_KEY_LEN, (void *)from }, v;
	int stop = 0;

	*more = 0;
	if ((*rc = mdb_cursor_open(w->txn, w->l->records, &cur)) != 0)
		return 0;
	for (*rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE); *rc == 0 &&
	    !stop && k.mv_size == LEDGER_KEY_LEN &&
	    memcmp(k.mv_data, to, LEDGER_KEY_LEN) < 0;
	    *rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
		if (walk_full(w) || walk_moved(w)) {
			memcpy(next, k.mv_data, LEDGER_KEY_LEN);
			*more = 1;
			break;
		}
		stop = visit(w, &k, &v);
	}
	mdb_cursor_close(cur);
	return stop;
}

int
lmdb_ledger_each(struct ledger *base, time_t since, time_t until,
    int (*fn)(void *, const struct arrival *), void *arg, struct pa_err *err)
{
	struct ledger_lmdb *l = lmdb_ledger(base);
	unsigned char from[LEDGER_KEY_LEN], to[LEDGER_KEY_LEN],
	    next[LEDGER_KEY_LEN];
	struct walk w;
	int rc, stop, more = 0;

	ledger_time_key(from, since, 0);
	ledger_time_key(to, until, 0);
	walk_init(&w, l, fn, arg, err);
	do {
		if ((rc = walk_begin(&w)) != 0)
			break;
		stop = time_chunk(&w, from, to, next, &more, &rc);
		if ((rc = walk_end(&w, stop, rc)) == 0 && !w.again && more)
			memcpy(from, next, sizeof(from));
	} while (walk_again(&w, &rc) || (rc == 0 && more));
	free(w.held);
	return rc;
}

int
lmdb_ledger_habit(struct ledger *base, const char *identity,
    struct habit *out, struct pa_err *err)
{
	struct ledger_lmdb *l = lmdb_ledger(base);
	struct habit_state hs;
	struct walk w;
	MDB_val k = { strlen(identity), (void *)identity }, v;
	int rc, bad, found;

	if (k.mv_size == 0 || k.mv_size >= sizeof(out->identity))
		return PA_ENOTFOUND;
	walk_init(&w, l, NULL, NULL, err);
	do {
		if ((rc = walk_begin(&w)) != 0)
			return rc;
		bad = 0;
		if ((rc = mdb_get(w.txn, l->habits, &k, &v)) == 0 &&
		    (v.mv_size > LEDGER_VALUE_MAX ||
		    ledger_decode_habit(v.mv_data, v.mv_size, identity,
		    k.mv_size, &hs) != 0)) {
			pa_err_set(err, "the arrival records at %s: the "
			    "signing habit of an identity is damaged",
			    l->path);
			bad = PA_ERROR;
		}
		found = rc == 0 && bad == 0;
		rc = walk_end(&w, bad, rc);
	} while (walk_again(&w, &rc));
	if (rc != 0)
		return rc;
	if (!found)
		return PA_ENOTFOUND;
	*out = hs.h;
	return 0;
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

	walk_init(&w, l, NULL, NULL, err);
	if ((rc = walk_begin(&w)) != 0)
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
	/* fn saw them as they were read: a walk without the lock file
	   that did not settle cannot take them back */
	if (rc == 0 && w.again) {
		pa_err_set(err, "%s changed while its signing habits were read "
		    "without its lock file: run it again as the milter's user",
		    l->path);
		return PA_ERROR;
	}
	return rc == PA_ENOTFOUND ? 0 : rc;
}
