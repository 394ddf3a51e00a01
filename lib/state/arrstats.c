/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * arrstats.c - the arrival records added up (see arrstats.h).  Rows are
 * found through fixed tables of slots, twice as many as rows, so that a
 * flood of distinct List-Ids or identities costs neither more memory nor
 * a longer search.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrstats.h"

#define GROUP_SLOTS	(2 * ARRSTATS_GROUPS_MAX)
#define SIGNER_SLOTS	(2 * ARRSTATS_SIGNERS_MAX)
#define DAY		86400

_Static_assert((GROUP_SLOTS & (GROUP_SLOTS - 1)) == 0 &&
    (SIGNER_SLOTS & (SIGNER_SLOTS - 1)) == 0, "slots: a power of two");

/* mix - FNV-1a of s and its NUL, continuing from h */
static uint64_t
mix(uint64_t h, const char *s)
{
	do
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	while (*s++ != '\0');
	return h;
}

#define MIX_START	0xcbf29ce484222325ULL

static int
table_init(struct arrstats_table *t)
{
	t->row = calloc(ARRSTATS_SIGNERS_MAX, sizeof(*t->row));
	t->slot = calloc(SIGNER_SLOTS, sizeof(*t->slot));
	return t->row != NULL && t->slot != NULL ? 0 : PA_ENOMEM;
}

int
arrstats_new(struct arrstats **out)
{
	struct arrstats *s;

	if ((*out = s = calloc(1, sizeof(*s))) == NULL)
		return PA_ENOMEM;
	s->group = calloc(ARRSTATS_GROUPS_MAX, sizeof(*s->group));
	s->group_slot = calloc(GROUP_SLOTS, sizeof(*s->group_slot));
	if (s->group == NULL || s->group_slot == NULL ||
	    table_init(&s->nokey) != 0 ||
	    table_init(&s->unsigned_by_signer) != 0 ||
	    table_init(&s->differing) != 0) {
		arrstats_free(s);
		*out = NULL;
		return PA_ENOMEM;
	}
	return 0;
}

void
arrstats_free(struct arrstats *s)
{
	if (s == NULL)
		return;
	free(s->group);
	free(s->group_slot);
	free(s->nokey.row);
	free(s->nokey.slot);
	free(s->unsigned_by_signer.row);
	free(s->unsigned_by_signer.slot);
	free(s->differing.row);
	free(s->differing.slot);
	free(s);
}

/* result_column - the column of result, made if there is room; -1: none */
static int
result_column(struct arrstats *s, const char *result)
{
	size_t i;

	for (i = 0; i < s->nresults; i++)
		if (strcmp(s->results[i], result) == 0)
			return (int)i;
	if (s->nresults == ARRSTATS_RESULTS_MAX)
		return -1;
	memcpy(s->results[s->nresults], result, ARRIVAL_VERDICT_MAX);
	return (int)s->nresults++;
}

/* group_of - the row of a's day and List-Id, made if there is room */
static struct arrstats_group *
group_of(struct arrstats *s, const struct arrival *a)
{
	time_t day = a->arrived - (a->arrived % DAY + DAY) % DAY;
	uint64_t h = mix(MIX_START ^ (uint64_t)(int64_t)day, a->list_id);
	size_t k = (size_t)h & (GROUP_SLOTS - 1);
	struct arrstats_group *g;

	for (; s->group_slot[k] != 0; k = (k + 1) & (GROUP_SLOTS - 1)) {
		g = &s->group[s->group_slot[k] - 1];
		if (g->day == day && strcmp(g->list_id, a->list_id) == 0)
			return g;
	}
	if (s->ngroups == ARRSTATS_GROUPS_MAX)
		return NULL;
	g = &s->group[s->ngroups++];
	s->group_slot[k] = (unsigned)s->ngroups;
	g->day = day;
	memcpy(g->list_id, a->list_id, sizeof(g->list_id));
	return g;
}

/*
 * signer_of - the row of (identity, algo, selector) in t, made if there
 * is room
 */
static struct arrstats_signer *
signer_of(struct arrstats_table *t, const char *identity, const char *algo,
    const char *selector)
{
	uint64_t h = mix(mix(mix(MIX_START, identity), algo), selector);
	size_t k = (size_t)h & (SIGNER_SLOTS - 1);
	struct arrstats_signer *r;

	for (; t->slot[k] != 0; k = (k + 1) & (SIGNER_SLOTS - 1)) {
		r = &t->row[t->slot[k] - 1];
		if (strcmp(r->identity, identity) == 0 &&
		    strcmp(r->algo, algo) == 0 &&
		    strcmp(r->selector, selector) == 0)
			return r;
	}
	if (t->n == ARRSTATS_SIGNERS_MAX)
		return NULL;
	r = &t->row[t->n++];
	t->slot[k] = (unsigned)t->n;
	/* algo and selector may be shorter literals ("" for a habit) */
	snprintf(r->identity, sizeof(r->identity), "%s", identity);
	snprintf(r->algo, sizeof(r->algo), "%s", algo);
	snprintf(r->selector, sizeof(r->selector), "%s", selector);
	return r;
}

/*
 * count_signer - one more record of a in t, under name (its identity, or
 * for the differing copies its Message-ID); key: its key, or NULL
 */
static void
count_signer(struct arrstats_table *t, const struct arrival *a,
    const char *name, const char *algo, const char *selector,
    const char *key)
{
	struct arrstats_signer *r;

	if ((r = signer_of(t, name, algo, selector)) == NULL) {
		t->dropped++;
		return;
	}
	r->count++;
	if (a->arrived >= r->last) {
		r->last = a->arrived;
		/* key may be a shorter literal ("-": no host) */
		if (key != NULL && key[0] != '\0')
			snprintf(r->key, sizeof(r->key), "%s", key);
	}
}

int
arrstats_add(void *arg, const struct arrival *a)
{
	struct arrstats *s = arg;
	struct arrstats_group *g;
	int col;

	if (s->records++ == 0 || a->arrived < s->first)
		s->first = a->arrived;
	if (a->arrived > s->last || s->records == 1)
		s->last = a->arrived;
	if ((g = group_of(s, a)) == NULL)
		s->groups_dropped++;
	else {
		g->total++;
		if ((col = result_column(s, a->result)) < 0)
			s->results_dropped++;
		else
			g->n[col]++;
	}
	if (strcmp(a->patatt, "nokey") == 0)
		count_signer(&s->nokey, a, a->identity, a->algo, a->selector,
		    a->offered);
	if (strcmp(a->result, "unsigned-by-signer") == 0)
		count_signer(&s->unsigned_by_signer, a, a->identity, "", "",
		    NULL);
	if (a->differs)
		count_signer(&s->differing, a, a->message_id, "", "",
		    a->host[0] ? a->host : "-");
	return 0;
}

static int
by_day_list(const void *pa, const void *pb)
{
	const struct arrstats_group *a = pa, *b = pb;

	if (a->day != b->day)
		return a->day < b->day ? -1 : 1;
	return strcmp(a->list_id, b->list_id);
}

static int
by_count(const void *pa, const void *pb)
{
	const struct arrstats_signer *a = pa, *b = pb;
	int c;

	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	if ((c = strcmp(a->identity, b->identity)) != 0)
		return c;
	if ((c = strcmp(a->algo, b->algo)) != 0)
		return c;
	return strcmp(a->selector, b->selector);
}

void
arrstats_sort(struct arrstats *s)
{
	qsort(s->group, s->ngroups, sizeof(*s->group), by_day_list);
	qsort(s->nokey.row, s->nokey.n, sizeof(*s->nokey.row), by_count);
	qsort(s->unsigned_by_signer.row, s->unsigned_by_signer.n,
	    sizeof(*s->unsigned_by_signer.row), by_count);
	qsort(s->differing.row, s->differing.n, sizeof(*s->differing.row),
	    by_count);
}
