/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * habit.c - a signing habit's window (ledger-codec.h): what a patch mail
 * adds to it, and what two stores' habits of one identity make together.
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "ledger-codec.h"

/* habit_id - what a's place in a habit's window remembers of it */
static void
habit_id(struct habit_id *id, const struct arrival *a)
{
	unsigned char pid[LEDGER_PATCHID_LEN];

	memset(id, 0, sizeof(*id));
	memcpy(id->msgid, a->message_id_sha256, sizeof(id->msgid));
	if (ledger_patch_id(pid, a->patch_id) == 0)
		memcpy(id->patch, pid, sizeof(id->patch));
}

/* habit_find - the place in hs's window of the mail or patch id: its
   bit, or -1 */
static int
habit_find(const struct habit_state *hs, const struct habit_id *id)
{
	static const unsigned char none[8];
	unsigned k;

	for (k = 0; k < hs->h.recent && k < HABIT_WINDOW; k++)
		if (memcmp(hs->ids[k].msgid, id->msgid, 8) == 0 ||
		    (memcmp(id->patch, none, 8) != 0 &&
		    memcmp(hs->ids[k].patch, id->patch, 8) == 0))
			return (int)k;
	return -1;
}

/* signed_by - a, the latest signed mail of hs, signed with its key */
static void
signed_by(struct habit_state *hs, const struct arrival *a, int latest)
{
	if (latest && hs->h.run > 0 && strcmp(hs->h.key, a->key) == 0)
		hs->h.run++;
	else if (latest)
		hs->h.run = 1;
	if (latest || hs->h.key[0] == '\0')
		memcpy(hs->h.key, a->key, sizeof(hs->h.key));
	if (hs->h.first_signed == 0)
		hs->h.first_signed = a->arrived;
	if (a->arrived > hs->h.last_signed)
		hs->h.last_signed = a->arrived;
}

static void
count_signed(struct habit_state *hs)
{
	uint32_t w;

	for (hs->h.recent_signed = 0, w = hs->window; w != 0; w &= w - 1)
		hs->h.recent_signed++;
}

/* ledger_habit_add - see ledger-codec.h */
int
ledger_habit_add(struct habit_state *hs, const struct arrival *a)
{
	struct habit_id id;
	int k;

	habit_id(&id, a);
	if ((k = habit_find(hs, &id)) >= 0) {
		if (!a->signed_trusted || (hs->window >> k & 1) != 0)
			return 0;
		hs->window |= (uint32_t)1 << k;
		count_signed(hs);
		signed_by(hs, a, k == 0);
		return 1;
	}
	if (a->copy > 1)
		return 0;
	if (hs->h.recent < HABIT_WINDOW)
		hs->h.recent++;
	hs->window = hs->window << 1 | (a->signed_trusted != 0);
	if (hs->h.recent < HABIT_WINDOW)
		hs->window &= ((uint32_t)1 << hs->h.recent) - 1;
	memmove(&hs->ids[1], &hs->ids[0], sizeof(hs->ids) - sizeof(id));
	hs->ids[0] = id;
	count_signed(hs);
	if (a->signed_trusted)
		signed_by(hs, a, 1);
	else
		hs->h.run = 0;
	return 1;
}

/*
 * One place of a merged window: what it remembers, whether it counts as
 * signed, and whether it is in the run of into's key or of from's (the
 * latest ones in a row signed with that store's key).
 */
struct place {
	struct habit_id	 id;
	int		 sig;		/* signed with a trusted key */
	int		 own;		/* into counted it signed */
	int		 run_into, run_from;
};

struct merge {
	struct place	 p[2 * HABIT_WINDOW];
	size_t		 n;
};

/* known - whether id names a mail (a habit older than ids has none) */
static int
known(const struct habit_id *id)
{
	static const struct habit_id none;

	return memcmp(id, &none, sizeof(none)) != 0;
}

int
ledger_habit_same(const struct habit_state *a, const struct habit_state *b)
{
	return strcmp(a->h.key, b->h.key) == 0 &&
	    a->h.recent == b->h.recent &&
	    a->h.recent_signed == b->h.recent_signed &&
	    a->h.run == b->h.run && a->h.first_signed == b->h.first_signed &&
	    a->h.last_signed == b->h.last_signed && a->window == b->window &&
	    memcmp(a->ids, b->ids, sizeof(a->ids)) == 0;
}

/* place_from - from's mail k placed next */
static void
place_from(struct merge *m, const struct habit_state *from, unsigned k)
{
	struct place *p = &m->p[m->n++];

	memset(p, 0, sizeof(*p));
	p->id = from->ids[k];
	p->sig = (from->window >> k & 1) != 0;
	p->run_from = k < from->h.run;
}

/*
 * in_run - whether place p is signed with key: in the run of a store
 * whose key it is
 */
static int
in_run(const struct place *p, const char *key, const struct habit_state *into,
    const struct habit_state *from)
{
	return (p->run_into && strcmp(into->h.key, key) == 0) ||
	    (p->run_from && strcmp(from->h.key, key) == 0);
}

/* settle - into made of the first HABIT_WINDOW places of m */
static void
settle(struct habit_state *into, const struct habit_state *from,
    const struct merge *m)
{
	struct habit_state was = *into;
	const char *key = NULL;
	size_t k, n = m->n < HABIT_WINDOW ? m->n : HABIT_WINDOW;

	into->window = 0;
	memset(into->ids, 0, sizeof(into->ids));
	for (k = 0; k < n; k++) {
		into->ids[k] = m->p[k].id;
		into->window |= (uint32_t)(m->p[k].sig != 0) << k;
		if (key == NULL && m->p[k].sig)
			key = m->p[k].own ? was.h.key : from->h.key;
	}
	into->h.recent = (unsigned)n;
	count_signed(into);
	if (key == NULL)	/* none signed in the window: into's stays */
		key = was.h.key;
	memmove(into->h.key, key, sizeof(into->h.key));
	for (into->h.run = 0; into->h.run < n &&
	    in_run(&m->p[into->h.run], into->h.key, &was, from);)
		into->h.run++;
	if (from->h.first_signed != 0 && (into->h.first_signed == 0 ||
	    from->h.first_signed < into->h.first_signed))
		into->h.first_signed = from->h.first_signed;
	if (from->h.last_signed > into->h.last_signed)
		into->h.last_signed = from->h.last_signed;
}

/* ledger_habit_merge - see ledger-codec.h */
int
ledger_habit_merge(struct habit_state *into, const struct habit_state *from)
{
	struct habit_state was = *into;
	struct merge m;
	int at[HABIT_WINDOW], first;
	unsigned char placed[HABIT_WINDOW] = { 0 };
	unsigned i, k, nf = from->h.recent < HABIT_WINDOW ? from->h.recent :
	    HABIT_WINDOW;

	if (into->h.recent == 0) {
		/* nothing of its own: from's, as it is (ids unknown too) */
		*into = *from;
		memcpy(into->h.identity, was.h.identity,
		    sizeof(into->h.identity));
		return !ledger_habit_same(&was, into);
	}
	/* where into holds each of from's mails (-1: not); one whose ids
	   are not known cannot be told apart from into's, and is left out */
	for (k = 0; k < nf; k++) {
		at[k] = known(&from->ids[k]) ? habit_find(into, &from->ids[k]) :
		    -1;
		placed[k] = !known(&from->ids[k]);
	}
	m.n = 0;
	for (i = 0; i < into->h.recent && i < HABIT_WINDOW; i++) {
		for (first = -1, k = 0; k < nf && first < 0; k++)
			if (at[k] == (int)i)
				first = (int)k;
		/* from's own mails newer than one both hold come before it,
		   after into's own: into learnt them later (the milter's,
		   after the switch), or they are from's only */
		for (k = 0; first >= 0 && k < (unsigned)first; k++)
			if (at[k] < 0 && !placed[k]) {
				place_from(&m, from, k);
				placed[k] = 1;
			}
		memset(&m.p[m.n], 0, sizeof(m.p[m.n]));
		m.p[m.n].id = into->ids[i];
		m.p[m.n].own = (into->window >> i & 1) != 0;
		m.p[m.n].sig = m.p[m.n].own;
		m.p[m.n].run_into = i < into->h.run;
		for (k = 0; k < nf; k++)
			if (at[k] == (int)i) {
				m.p[m.n].sig |= (from->window >> k & 1) != 0;
				m.p[m.n].run_from |= k < from->h.run;
				placed[k] = 1;
			}
		m.n++;
	}
	for (k = 0; k < nf; k++)
		if (!placed[k])
			place_from(&m, from, k);
	settle(into, from, &m);
	return !ledger_habit_same(&was, into);
}
