/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t-copies - what the ledger remembers of copies, on real LMDB files:
 * each copy of a Message-ID set beside the first as it is written (the
 * parts that differ, trailers added among them), the first 16 kept and
 * 4 more that differ, the rest counted, whoever comes first; the watcher
 * told of each copy once it is written, a bounded number a batch; mail
 * without a Message-ID never a copy; a copy read before it is written
 * (read your own writes), never twice; a habit that counts patches, not
 * mails: replays, re-sends and a forged copy sent first.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "patchattest.h"
#include "base.h"
#include "state.h"
#include "tap.h"

static char dir[256];

static const char *
at(const char *name)
{
	static char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

/* patch - a patch mail n under Message-ID id, patch-id of its own */
static void
patch(struct arrival *a, const char *id, int n, time_t when)
{
	memset(a, 0, sizeof(*a));
	arrival_set_message_id(a, id, strlen(id));
	a->arrived = when;
	a->has_patch = 1;
	snprintf(a->author, sizeof(a->author), "Dev <dev@example.org>");
	snprintf(a->identity, sizeof(a->identity), "dev@example.org");
	snprintf(a->subject, sizeof(a->subject), "[PATCH] fix %d", n);
	snprintf(a->i, sizeof(a->i), "%064x", n);
	snprintf(a->m, sizeof(a->m), "%064x", n);
	snprintf(a->m_core, sizeof(a->m_core), "%064x", n);
	snprintf(a->p, sizeof(a->p), "%064x", n);
	/* as a SHA-1 is: its first bytes its own */
	snprintf(a->patch_id, sizeof(a->patch_id), "%08x%08x%08x%08x%08x", n,
	    n, n, n, n);
	snprintf(a->result, sizeof(a->result), "none");
}

/* signed_with - a signed with a trusted key */
static void
signed_with(struct arrival *a, const char *key)
{
	snprintf(a->key, sizeof(a->key), "%s", key);
	snprintf(a->result, sizeof(a->result), "pass");
	a->signed_trusted = 1;
}

struct heard {
	unsigned	 events, differing, untold, untold_differing;
	unsigned	 last_copy, last_parts, first_copy;
	int		 last_kept;
};

static void
watcher(void *arg, const struct ledger_copy_event *ev)
{
	struct heard *h = arg;

	h->events++;
	h->differing += ev->copy->differs != 0;
	h->untold += ev->untold;
	h->untold_differing += ev->untold_differing;
	h->last_copy = ev->copy->copy;
	h->last_parts = ev->copy->parts;
	h->last_kept = ev->kept;
	h->first_copy = ev->first != NULL ? ev->first->copy : 0;
}

struct got {
	unsigned	 n, differs, last_copy;
	time_t		 first_arrived;
};

static int
collect(void *arg, const struct arrival *a)
{
	struct got *g = arg;

	if (g->n++ == 0)
		g->first_arrived = a->arrived;
	g->differs += a->differs != 0;
	g->last_copy = a->copy;
	return 0;
}

static struct got
copies_of(struct ledger *l, const char *id)
{
	struct got g = { 0, 0, 0, 0 };
	struct pa_err err;

	if (ledger_by_message_id(l, id, collect, &g, &err) < 0)
		tap_diag("reading %s: %s", id, err.msg);
	return g;
}

static void
test_differ(void)
{
	struct ledger *l;
	struct arrival a;
	struct ledger_copies c;
	struct heard h = { 0 };
	struct pa_err err;
	struct got g;

	if (!tap_check_int(ledger_open(&l, at("differ.mdb"), 1, 1, 0, 0,
	    &err), 0, "a ledger"))
		return;
	ledger_watch(l, watcher, &h);
	patch(&a, "one@example.org", 1, 100);
	ledger_record(l, &a, &err);
	ledger_sync(l, &err);
	tap_check_int(h.events, 0, "a first copy: the watcher hears nothing");
	ledger_record(l, &a, &err);
	ledger_sync(l, &err);
	tap_check(h.events == 1 && h.differing == 0 && h.last_copy == 2 &&
	    h.first_copy == 1 && h.last_kept, "the same again: copy 2, the "
	    "same as copy 1, kept");
	snprintf(a.p, sizeof(a.p), "%064x", 999);
	ledger_record(l, &a, &err);
	ledger_sync(l, &err);
	tap_check(h.events == 2 && h.differing == 1 && h.last_copy == 3 &&
	    h.last_parts == ARRIVAL_PART_P, "its diff changed: copy 3 "
	    "differs in the diff (parts %u)", h.last_parts);
	patch(&a, "one@example.org", 1, 400);
	snprintf(a.m, sizeof(a.m), "%064x", 5);
	snprintf(a.trailers, sizeof(a.trailers), "Reviewed-by: X <x@y>\n");
	ledger_record(l, &a, &err);
	ledger_sync(l, &err);
	tap_check(h.differing == 2 && h.last_parts == ARRIVAL_PART_M,
	    "a trailer added to one Message-ID: it differs, in the commit "
	    "message");
	g = copies_of(l, "one@example.org");
	tap_check(g.n == 4 && g.differs == 2 && g.last_copy == 4,
	    "the four copies read back, two marked as differing");
	tap_check_int(ledger_copies(l, "one@example.org", 15, &c, &err), 0,
	    "its copies counted");
	tap_check(c.arrived == 4 && c.kept == 4 && c.differing == 2,
	    "... 4 arrived, 4 kept, 2 differ (%u %u %u)", c.arrived, c.kept,
	    c.differing);
	tap_check_int(ledger_copies(l, "two@example.org", 15, &c, &err),
	    PA_ENOTFOUND, "a Message-ID that never came: PA_ENOTFOUND");
	ledger_close(l);
}

static void
test_bounded(void)
{
	struct ledger *l;
	struct arrival a;
	struct ledger_copies c;
	struct heard h = { 0 };
	struct pa_err err;
	struct got g;
	int i;

	if (!tap_check_int(ledger_open(&l, at("bounded.mdb"), 1, 1, 0, 0,
	    &err), 0, "a ledger for a replay flood"))
		return;
	ledger_watch(l, watcher, &h);
	patch(&a, "flood@example.org", 7, 100);
	for (i = 0; i < 5000; i++) {
		/* every 1,000th with its diff changed */
		snprintf(a.p, sizeof(a.p), "%064x", i % 1000 == 999 ? i : 7);
		if (i % 1000 == 0)
			ledger_sync(l, &err);	/* the queue never full */
		ledger_record(l, &a, &err);
	}
	ledger_sync(l, &err);
	tap_check_int(ledger_copies(l, "flood@example.org", 17, &c, &err), 0,
	    "5,000 copies of one Message-ID");
	tap_check(c.arrived == 5000 && c.kept == 16 + 4 && c.differing == 5,
	    "... all counted, 16 kept and the 4 first that differ, 5 "
	    "differing (%u %u %u)", c.arrived, c.kept, c.differing);
	g = copies_of(l, "flood@example.org");
	tap_check(g.n == 20 && g.differs == 4, "... 20 read back, 4 of them "
	    "differing (%u %u)", g.n, g.differs);
	tap_check(h.events + h.untold == 4999 && h.differing +
	    h.untold_differing == 5, "the watcher told of every copy after "
	    "the first, or counted it (%u told, %u counted, %u + %u "
	    "differing)", h.events, h.untold, h.differing, h.untold_differing);
	tap_check(h.untold > 0, "... a bounded number told a batch");

	/* the forged copy first, the genuine one after 16 more forged */
	memset(&h, 0, sizeof(h));
	patch(&a, "early@example.org", 8, 200);
	snprintf(a.p, sizeof(a.p), "%064x", 666);
	for (i = 0; i < 17; i++)
		ledger_record(l, &a, &err);
	patch(&a, "early@example.org", 8, 300);
	signed_with(&a, "ed25519/K");
	ledger_record(l, &a, &err);
	ledger_sync(l, &err);
	ledger_copies(l, "early@example.org", 17, &c, &err);
	g = copies_of(l, "early@example.org");
	tap_check(c.arrived == 18 && c.differing == 1 && g.n == 17 &&
	    g.differs == 1, "17 forged copies first, then the genuine one: "
	    "it is kept, differing (%u arrived, %u differ; %u kept)",
	    c.arrived, c.differing, g.n);

	memset(&h, 0, sizeof(h));
	patch(&a, "", 9, 400);
	for (i = 0; i < 30; i++)
		ledger_record(l, &a, &err);
	ledger_sync(l, &err);
	tap_check_int(h.events, 0, "30 mails without a Message-ID: no copies");
	ledger_close(l);
}

static void
test_own_writes(void)
{
	struct ledger *l;
	struct arrival a;
	struct pa_err err;
	struct got g;
	int i;

	if (!tap_check_int(ledger_open(&l, at("own.mdb"), 1, 1, 0, 0, &err),
	    0, "a ledger for reads before writes"))
		return;
	patch(&a, "soon@example.org", 3, 100);
	ledger_record(l, &a, &err);
	g = copies_of(l, "soon@example.org");
	tap_check(g.n == 1 && g.last_copy == 1, "a record read before it is "
	    "written (the writer gathers for 100 ms): found as copy 1");
	snprintf(a.m, sizeof(a.m), "%064x", 33);
	ledger_record(l, &a, &err);
	g = copies_of(l, "soon@example.org");
	tap_check(g.n == 2 && g.last_copy == 2 && g.differs == 1,
	    "a second one right after: copy 2, differing from the first");
	/* reads while the writer commits: each record once, never twice */
	for (i = 0; i < 200; i++) {
		ledger_record(l, &a, &err);
		g = copies_of(l, "soon@example.org");
		if (g.n != (unsigned)(i < 18 ? i + 3 : 20) || g.n > 20)
			break;
	}
	tap_check_int(i, 200, "200 more, each read at once: every copy kept "
	    "read once, as it is written and before");
	ledger_sync(l, &err);
	g = copies_of(l, "soon@example.org");
	tap_check_int(g.n, 20, "... 20 kept once written");
	ledger_close(l);
}

/* habit_of - the habit of dev@example.org */
static struct habit
habit_of(struct ledger *l)
{
	struct habit h;
	struct pa_err err;

	ledger_sync(l, &err);
	if (ledger_habit(l, "dev@example.org", &h, &err) != 0)
		memset(&h, 0, sizeof(h));
	return h;
}

static void
test_habit(void)
{
	struct ledger *l;
	struct arrival a;
	struct habit h;
	struct pa_err err;
	char id[64];
	int i;

	if (!tap_check_int(ledger_open(&l, at("habit.mdb"), 1, 1, 0, 0,
	    &err), 0, "a ledger for habits"))
		return;
	patch(&a, "signed@example.org", 10, 100);
	signed_with(&a, "ed25519/K");
	for (i = 0; i < 40; i++)
		ledger_record(l, &a, &err);
	h = habit_of(l);
	tap_check(h.recent == 1 && h.recent_signed == 1, "one signed patch "
	    "replayed 40 times: one patch of the habit (%u of %u)",
	    h.recent_signed, h.recent);
	for (i = 0; i < 3; i++) {
		snprintf(id, sizeof(id), "resend%d@example.org", i);
		patch(&a, id, 10, 200 + i);
		ledger_record(l, &a, &err);
	}
	h = habit_of(l);
	tap_check(h.recent == 1 && h.recent_signed == 1, "the same patch "
	    "re-sent unsigned under 3 new Message-IDs: still one (%u of %u)",
	    h.recent_signed, h.recent);
	/* an attacker's unsigned copy first, the genuine signed one after */
	patch(&a, "race@example.org", 11, 300);
	ledger_record(l, &a, &err);
	h = habit_of(l);
	tap_check(h.recent == 2 && h.recent_signed == 1, "a forged unsigned "
	    "copy first: one more patch, unsigned");
	signed_with(&a, "ed25519/K");
	ledger_record(l, &a, &err);
	h = habit_of(l);
	tap_check(h.recent == 2 && h.recent_signed == 2, "... the genuine "
	    "signed copy after it marks that patch signed (%u of %u)",
	    h.recent_signed, h.recent);
	patch(&a, "race@example.org", 11, 400);
	ledger_record(l, &a, &err);
	h = habit_of(l);
	tap_check(h.recent == 2 && h.recent_signed == 2, "... and an "
	    "unsigned copy after that takes nothing away");
	/* 40 distinct patches push the replayed one out of the window */
	for (i = 0; i < 40; i++) {
		snprintf(id, sizeof(id), "p%d@example.org", i);
		patch(&a, id, 100 + i, 500 + i);
		ledger_record(l, &a, &err);
	}
	patch(&a, "signed@example.org", 10, 600);
	signed_with(&a, "ed25519/K");
	ledger_record(l, &a, &err);
	h = habit_of(l);
	tap_check(h.recent == HABIT_WINDOW && h.recent_signed == 0,
	    "the signed mail replayed once it left the window: nothing "
	    "(%u of %u)", h.recent_signed, h.recent);
	ledger_close(l);
}

int
main(void)
{
	const char *tmp = getenv("TMPDIR");
	struct pa_err err;

	snprintf(dir, sizeof(dir), "%s/t-copies.XXXXXX",
	    tmp && tmp[0] ? tmp : "/tmp");
	if (mkdtemp(dir) == NULL)
		tap_skip_all("cannot make a scratch folder");
	if (mapguard_init(&err) != 0)
		tap_skip_all("%s", err.msg);
	test_differ();
	test_bounded();
	test_own_writes();
	test_habit();
	tap_rmtree(dir);
	return tap_done();
}
