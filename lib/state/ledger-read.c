/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ledger-read.c - the arrival records by Message-ID, by patch-id and by
 * time, and the signing habits, each in a read of their own (see
 * ledger.h); a message's habit and the copies of its Message-ID in one
 * (the ledger's part of state_lookup(), lookup.h).  Each read walks in
 * ledger-walk.c's transactions.
 */
#include "config.h"

#include <errno.h>
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

struct resume;
static int	 index_chunk(struct walk *, MDB_dbi, const MDB_val *, size_t,
		    const struct resume *, struct resume *, int *);
struct habit_get;
static void	 habit_read(struct walk *, struct habit_get *);
static int	 by_index(struct ledger_lmdb *, MDB_dbi, MDB_val *, size_t,
		    struct waiting *, struct habit_get *,
		    int (*)(void *, const struct arrival *), void *,
		    struct pa_err *);
static int	 time_chunk(struct walk *, const unsigned char *,
		    const unsigned char *, unsigned char *, int *, int *);

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
 * index_chunk - in w's transaction, to ledger_walk_visit(): the records
 * that the index dbi lists under key, whose values hold the record's key
 * at off, from the value after r's; next says where to go on.  What a
 * visit returned, with LMDB's code in *rc.
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
	for (; *rc == 0 && !stop && !ledger_walk_full(w) &&
	    !ledger_walk_moved(w);
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
			stop = ledger_walk_visit(w, &rk, &rv);
		else if (*rc != MDB_NOTFOUND)
			break;
	}
	/* the loop ended on a dup not yet read: a chunk full or moved */
	next->more = *rc == 0 && stop == 0;
	mdb_cursor_close(cur);
	return stop;
}

/*
 * The signing habit a read looks up in its first chunk's transaction,
 * beside the records: into out, rc 0, PA_ENOTFOUND, or a fault (err);
 * read once the chunk settled.
 */
struct habit_get {
	const char	*identity;
	struct habit	*out;
	int		 rc;
	int		 read;
	struct pa_err	*err;
};

/* habit_read - in w's transaction, hg's habit */
static void
habit_read(struct walk *w, struct habit_get *hg)
{
	struct habit_state hs;
	MDB_val k = { strlen(hg->identity), (void *)hg->identity }, v;
	int rc;

	if ((rc = mdb_get(w->txn, w->l->habits, &k, &v)) != 0) {
		hg->rc = rc == MDB_NOTFOUND ? PA_ENOTFOUND :
		    ledger_fail(w->l, hg->err, "reading", rc);
		return;
	}
	if (v.mv_size > LEDGER_VALUE_MAX || ledger_decode_habit(v.mv_data,
	    v.mv_size, hg->identity, k.mv_size, &hs) != 0) {
		pa_err_set(hg->err, "the arrival records at %s: the signing "
		    "habit of an identity is damaged", w->l->path);
		hg->rc = PA_ERROR;
		return;
	}
	*hg->out = hs.h;
	hg->rc = 0;
}

/*
 * by_index - fn on each record that the index dbi lists under key (NULL:
 * none), whose values hold the record's key at off, then on those of q
 * not yet written; hg's habit (NULL: none) in the same read
 */
static int
by_index(struct ledger_lmdb *l, MDB_dbi dbi, MDB_val *key, size_t off,
    struct waiting *q, struct habit_get *hg,
    int (*fn)(void *, const struct arrival *), void *arg, struct pa_err *err)
{
	struct resume r = { .len = 0 }, next;
	struct walk w;
	int rc, stop, first;

	ledger_walk_init(&w, l, fn, arg, err);
	do {
		if ((rc = ledger_walk_begin(&w)) != 0)
			break;
		if ((first = hg != NULL && r.len == 0))
			habit_read(&w, hg);
		next = r;
		stop = key == NULL ? 0 :
		    index_chunk(&w, dbi, key, off, &r, &next, &rc);
		if (q != NULL && stop == 0 && !next.more &&
		    (rc == 0 || rc == MDB_NOTFOUND))
			stop = waiting_visit(&w, key, q);
		if ((rc = ledger_walk_end(&w, stop, rc)) == 0 && !w.again)
			r = next;
		if (first && !w.again) {
			/* settled, and read from a file still whole */
			hg->read = 1;
			if (ledger_intact(l, hg->err) != 0)
				hg->rc = PA_ERROR;
		}
	} while (ledger_walk_again(&w, &rc) || (rc == 0 && r.more));
	free(w.held);
	if (hg != NULL && !hg->read) {
		hg->rc = rc;		/* the read failed: why is in err */
		if (hg->err != err)
			*hg->err = *err;
	}
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
	    &q, NULL, fn, arg, err);
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
	return by_index(l, l->patchid, &k, 0, NULL, NULL, fn, arg, err);
}

/*
 * time_chunk - in w's transaction, to ledger_walk_visit(): the records
 * from the key from to the one before to, until the chunk is full
 * (*more, and next the key to go on from).  What a visit returned, with
 * LMDB's code in *rc.
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
		if (ledger_walk_full(w) || ledger_walk_moved(w)) {
			memcpy(next, k.mv_data, LEDGER_KEY_LEN);
			*more = 1;
			break;
		}
		stop = ledger_walk_visit(w, &k, &v);
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
	ledger_walk_init(&w, l, fn, arg, err);
	do {
		if ((rc = ledger_walk_begin(&w)) != 0)
			break;
		stop = time_chunk(&w, from, to, next, &more, &rc);
		if ((rc = ledger_walk_end(&w, stop, rc)) == 0 && !w.again &&
		    more)
			memcpy(from, next, sizeof(from));
	} while (ledger_walk_again(&w, &rc) || (rc == 0 && more));
	free(w.held);
	return rc;
}

int
lmdb_ledger_habit(struct ledger *base, const char *identity,
    struct habit *out, struct pa_err *err)
{
	struct habit_get hg = { identity, out, PA_ENOTFOUND, 0, err };

	if (identity[0] == '\0' || strlen(identity) >= sizeof(out->identity))
		return PA_ENOTFOUND;
	(void)by_index(lmdb_ledger(base), 0, NULL, 0, NULL, &hg, NULL, NULL,
	    err);
	return hg.rc;
}

void
lmdb_ledger_lookup(struct ledger *base, const struct state_ask *ask,
    struct state_lookup *out)
{
	struct ledger_lmdb *l = lmdb_ledger(base);
	struct habit_get hg = { ask->author, &out->habit, PA_ENOTFOUND, 0,
		&out->habit_why }, *habit = NULL;
	MDB_val k = { 32, (void *)ask->message_id_sha256 }, *key = NULL;
	struct waiting q = { .a = NULL };
	int rc;

	if (ask->author != NULL && ask->author[0] != '\0' &&
	    strlen(ask->author) < sizeof(out->habit.identity))
		habit = &hg;
	if (ask->message_id_sha256 != NULL &&
	    waiting_take(l, ask->message_id_sha256, &q) == 0)
		key = &k;
	else if (ask->message_id_sha256 != NULL) {
		pa_err_set(&out->copies_why, "%s", pa_strerror(PA_ENOMEM));
		out->copies_rc = PA_ENOMEM;
	}
	if (habit == NULL && key == NULL)
		return;
	rc = by_index(l, l->msgid, key, LEDGER_MSGID_VAL_LEN -
	    LEDGER_KEY_LEN, key != NULL ? &q : NULL, habit, ask->copy,
	    ask->copy_arg, &out->copies_why);
	if (key != NULL)
		out->copies_rc = rc;
	if (habit != NULL)
		out->habit_rc = hg.rc;
	free(q.a);
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

	ledger_walk_init(&w, l, NULL, NULL, err);
	if ((rc = ledger_walk_begin(&w)) != 0)
		return rc;
	if ((rc = mdb_cursor_open(w.txn, l->habits, &cur)) != 0)
		return ledger_walk_end(&w, 0, rc);
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
	rc = ledger_walk_end(&w, stop, rc);
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
