/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ledger-walk.c - the read transactions the reads of the LMDB store walk
 * in (ledger-int.h's struct walk).  A record that does not decode is an
 * error naming it (its arrival time and sequence number), never another
 * record.
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
#include <time.h>

#include "ledger-codec.h"
#include "ledger-int.h"

#define CHUNK_MAX	64	/* records an unlocked read holds */

static int	 damaged(struct walk *, const unsigned char *);

void
ledger_walk_init(struct walk *w, struct ledger_lmdb *l,
    int (*fn)(void *, const struct arrival *), void *arg, struct pa_err *err)
{
	*w = (struct walk){ .l = l, .fn = fn, .arg = arg, .err = err };
}

int
ledger_walk_begin(struct walk *w)
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

int
ledger_walk_end(struct walk *w, int stop, int rc)
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

int
ledger_walk_again(struct walk *w, int *rc)
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

int
ledger_walk_full(const struct walk *w)
{
	return w->l->unlocked && w->nheld == CHUNK_MAX;
}

int
ledger_walk_moved(struct walk *w)
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

int
ledger_walk_visit(struct walk *w, const MDB_val *k, const MDB_val *v)
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

