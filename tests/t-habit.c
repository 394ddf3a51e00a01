/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t-habit - two stores' signing habits of one identity merged
 * (ledger_habit_merge(), what patchattest db import does with a file's
 * habit): into an empty one, the file's as it was; into one that holds
 * it, nothing; the milter's mails after the switch kept as the latest,
 * the file's newer ones above those both hold; another node's after the
 * database's own; a full window left as it is; a mail both hold signed
 * when either says so; mails of unknown ids left out; and every merge,
 * done again, a no-op.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "patchattest.h"
#include "state.h"
#include "ledger-codec.h"
#include "tap.h"

#define KEY_A	"ed25519/example.org/dev/a"
#define KEY_B	"ed25519/example.org/dev/b"

/*
 * learn - mail n (its Message-ID and patch-id made of n) added to hs as
 * the milter adds it, signed with key (NULL: unsigned), at time n
 */
static void
learn(struct habit_state *hs, int n, const char *key)
{
	struct arrival a;
	char id[64];

	memset(&a, 0, sizeof(a));
	snprintf(id, sizeof(id), "m%d@example.org", n);
	arrival_set_message_id(&a, id, strlen(id));
	snprintf(a.patch_id, sizeof(a.patch_id), "%040x", n);
	snprintf(a.identity, sizeof(a.identity), "dev@example.org");
	a.has_patch = 1;
	a.copy = 1;
	a.arrived = 1700000000 + n;
	if (key != NULL) {
		snprintf(a.key, sizeof(a.key), "%s", key);
		a.signed_trusted = 1;
	}
	ledger_habit_add(hs, &a);
}

/* mails - hs learnt mails from..to (in that order), signed with key */
static void
mails(struct habit_state *hs, int from, int to, const char *key)
{
	int n;

	for (n = from; n <= to; n++)
		learn(hs, n, key);
}

static void
fresh(struct habit_state *hs)
{
	memset(hs, 0, sizeof(*hs));
	snprintf(hs->h.identity, sizeof(hs->h.identity), "dev@example.org");
}

/* again - merging from into into a second time changes nothing */
static void
again(struct habit_state *into, const struct habit_state *from,
    const char *what)
{
	struct habit_state was = *into;

	tap_check(!ledger_habit_merge(into, from) &&
	    ledger_habit_same(into, &was),
	    "%s: merged again, nothing changes", what);
}

static void
test_empty(void)
{
	struct habit_state file, db;

	fresh(&file);
	mails(&file, 1, 3, KEY_A);
	learn(&file, 4, NULL);
	fresh(&db);
	tap_check_int(ledger_habit_merge(&db, &file), 1,
	    "a habit new to the database: merged");
	tap_check(ledger_habit_same(&db, &file) && strcmp(db.h.identity,
	    "dev@example.org") == 0, "... as the file has it (%u of %u "
	    "signed, key %s)", db.h.recent_signed, db.h.recent, db.h.key);
	again(&db, &file, "a habit new to the database");
}

/*
 * test_switch - what the milter learnt after the switch stays the latest;
 * what the file learnt after the first import (before the switch) comes
 * after it and before what both hold
 */
static void
test_switch(void)
{
	struct habit_state file, db, want;

	fresh(&file);
	mails(&file, 1, 5, KEY_A);
	fresh(&db);
	ledger_habit_merge(&db, &file);		/* the first import */
	learn(&file, 6, NULL);			/* before the switch */
	learn(&db, 7, NULL);			/* the milter, after it */
	learn(&db, 8, KEY_B);
	fresh(&want);
	mails(&want, 1, 5, KEY_A);
	learn(&want, 6, NULL);
	learn(&want, 7, NULL);
	learn(&want, 8, KEY_B);
	tap_check_int(ledger_habit_merge(&db, &file), 1,
	    "the file's mail of before the switch: merged");
	tap_check(ledger_habit_same(&db, &want), "... placed before the "
	    "milter's of after it, as they arrived (%u of %u signed, key %s, "
	    "run %u)",
	    db.h.recent_signed, db.h.recent, db.h.key, db.h.run);
	again(&db, &file, "a habit the milter learnt more of");
}

/*
 * test_newer - a file still written after an import: its newer mails
 * come first (the database learnt none of its own)
 */
static void
test_newer(void)
{
	struct habit_state file, db;

	fresh(&file);
	mails(&file, 1, 3, NULL);
	fresh(&db);
	ledger_habit_merge(&db, &file);
	mails(&file, 4, 7, KEY_A);
	tap_check_int(ledger_habit_merge(&db, &file), 1,
	    "the file's newer mails: merged");
	tap_check(ledger_habit_same(&db, &file), "... the database's habit "
	    "the file's (%u of %u signed, run %u)", db.h.recent_signed,
	    db.h.recent, db.h.run);
	again(&db, &file, "newer mails");
}

/* in_order - whether hs's window holds mails ns[0..n), latest first */
static int
in_order(const struct habit_state *hs, const int *ns, size_t n)
{
	struct arrival a;
	char id[64];
	size_t k;

	if (hs->h.recent != n)
		return 0;
	for (k = 0; k < n; k++) {
		snprintf(id, sizeof(id), "m%d@example.org", ns[k]);
		arrival_set_message_id(&a, id, strlen(id));
		if (memcmp(hs->ids[k].msgid, a.message_id_sha256, 8) != 0)
			return 0;
	}
	return 1;
}

/* test_nodes - another node's mails after the database's own */
static void
test_nodes(void)
{
	static const int want[] = { 3, 2, 1, 12, 11, 10 };
	struct habit_state a, b;

	fresh(&a);
	mails(&a, 1, 3, KEY_A);
	fresh(&b);
	mails(&b, 10, 11, KEY_A);
	learn(&b, 12, NULL);
	learn(&b, 2, NULL);	/* a copy of one of a's, unsigned here */
	tap_check_int(ledger_habit_merge(&a, &b), 1,
	    "another node's habit: merged");
	tap_check(a.h.recent == 6 && a.h.recent_signed == 5 &&
	    strcmp(a.h.key, KEY_A) == 0, "... each mail once, a mail both "
	    "hold signed where one says so (%u of %u signed)",
	    a.h.recent_signed, a.h.recent);
	tap_check(in_order(&a, want, 6), "... the database's own first, "
	    "then the other node's");
	tap_check(a.h.run == 3 && a.h.first_signed == 1700000001 &&
	    a.h.last_signed == 1700000011, "... the run, the first and last "
	    "signature of both (run %u)", a.h.run);
	again(&a, &b, "another node's habit");
}

/* test_full - a full window: the other's older mails do not fit */
static void
test_full(void)
{
	struct habit_state db, file, was;

	fresh(&db);
	mails(&db, 100, 100 + HABIT_WINDOW - 1, KEY_A);
	fresh(&file);
	mails(&file, 1, 5, NULL);
	was = db;
	tap_check(!ledger_habit_merge(&db, &file) &&
	    ledger_habit_same(&db, &was),
	    "a full window: the other store's older mails left out");
	mails(&file, 100, 101, NULL);	/* two mails both hold, unsigned */
	tap_check(!ledger_habit_merge(&db, &file) &&
	    ledger_habit_same(&db, &was),
	    "... and mails both hold, signed in one, stay signed");
}

/* test_unknown - a habit of before ids: its mails cannot be told apart */
static void
test_unknown(void)
{
	struct habit_state db, file;

	fresh(&file);
	mails(&file, 1, 3, KEY_A);
	memset(file.ids, 0, sizeof(file.ids));
	fresh(&db);
	learn(&db, 9, NULL);
	tap_check(ledger_habit_merge(&db, &file) && db.h.recent == 1 &&
	    db.h.recent_signed == 0, "mails of unknown ids: left out of a "
	    "habit with mails (%u of %u)", db.h.recent_signed, db.h.recent);
	fresh(&db);
	ledger_habit_merge(&db, &file);
	tap_check(db.h.recent == 3 && db.h.recent_signed == 3,
	    "... and taken whole by one without");
}

int
main(void)
{
	test_empty();
	test_switch();
	test_newer();
	test_nodes();
	test_full();
	test_unknown();
	return tap_done();
}
