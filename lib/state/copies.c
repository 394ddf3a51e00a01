/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * copies.c - numbering copies of a Message-ID, choosing those kept, and
 * telling the watcher (see copies.h)
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "arrival.h"
#include "copies.h"

int
copies_known(const unsigned char hash[32])
{
	return memcmp(hash, digest_empty, DIGEST_LEN) != 0;
}

int
copies_next(struct arrival *rec, const struct arrival *first,
    struct ledger_copies *cs)
{
	enum arrival_match match;
	int kept;

	rec->copy = cs->arrived + 1;
	rec->parts = 0;
	rec->differs = 0;
	/* one Message-ID is one mail: trailers added are a change too */
	if (first != NULL && (match = arrival_compare(rec, first,
	    &rec->parts)) != ARRIVAL_SAME) {
		rec->differs = 1;
		if (match == ARRIVAL_SAME_TRAILERS)
			rec->parts = ARRIVAL_PART_M;
	}
	/* the first ones, then some that differ: one replayed mail takes
	   no more room at its 5,000th copy than at its 16th */
	kept = cs->kept < LEDGER_COPIES_KEPT || (rec->differs &&
	    cs->kept < LEDGER_COPIES_KEPT + LEDGER_DIFFERING_KEPT);
	cs->arrived++;
	cs->kept += kept != 0;
	cs->differing += rec->differs != 0;
	return kept;
}

void
copy_news_init(struct copy_news *cn)
{
	memset(cn, 0, sizeof(*cn));
	pthread_mutex_init(&cn->lock, NULL);
}

void
copy_news_release(struct copy_news *cn)
{
	pthread_mutex_destroy(&cn->lock);
	free(cn->told);
	cn->told = NULL;
}

void
copy_news_watch(struct copy_news *cn,
    void (*fn)(void *, const struct ledger_copy_event *), void *arg)
{
	pthread_mutex_lock(&cn->lock);
	cn->next_watch = fn;
	cn->next_arg = arg;
	pthread_mutex_unlock(&cn->lock);
}

void
copy_news_clear(struct copy_news *cn)
{
	pthread_mutex_lock(&cn->lock);
	cn->watch = cn->next_watch;
	cn->arg = cn->next_arg;
	pthread_mutex_unlock(&cn->lock);
	cn->n = 0;
	cn->untold = cn->untold_differing = 0;
}

int
copy_news_add(struct copy_news *cn, const struct arrival *rec,
    const struct arrival *first, const struct ledger_copies *cs, int kept)
{
	struct copy_told *t;

	if (cn->watch == NULL)
		return 0;
	if (cn->told == NULL && (cn->told = malloc(COPY_NEWS_MAX *
	    sizeof(*cn->told))) == NULL)
		return PA_ENOMEM;
	if (cn->n == COPY_NEWS_MAX) {
		cn->untold++;
		cn->untold_differing += rec->differs != 0;
		return 0;
	}
	t = &cn->told[cn->n++];
	t->copy = *rec;
	t->has_first = first != NULL;
	if (first != NULL)
		t->first = *first;
	t->copies = *cs;
	t->kept = kept;
	return 0;
}

void
copy_news_tell(struct copy_news *cn)
{
	struct ledger_copy_event ev;
	size_t i;

	for (i = 0; i < cn->n && cn->watch != NULL; i++) {
		memset(&ev, 0, sizeof(ev));
		ev.copy = &cn->told[i].copy;
		ev.first = cn->told[i].has_first ? &cn->told[i].first : NULL;
		ev.copies = cn->told[i].copies;
		ev.kept = cn->told[i].kept;
		if (i + 1 == cn->n) {
			ev.untold = cn->untold;
			ev.untold_differing = cn->untold_differing;
		}
		cn->watch(cn->arg, &ev);
	}
	cn->n = 0;
	cn->untold = cn->untold_differing = 0;
}
