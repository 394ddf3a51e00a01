/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pg-lookup.c - what a message reads of StateDatabase, in one statement
 * (lookup.h): the pins of its signers, its sender's signing habit and
 * the kept copies of its Message-ID, with those of them still in the
 * local journal (sent meanwhile or not: a copy sent right after the
 * first is set beside it all the same).  ledger_by_message_id() is the
 * same statement, asked the copies alone.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg-int.h"

/*
 * $1 the Message-ID's hash (hex), $2..$9 the identities, $10 the author;
 * each NULL when not asked.  The three parts are set side by side by
 * FULL JOINs ON false, which keep every row of each part with the other
 * parts' columns NULL: a row is a pin, a habit or a copy by which part's
 * first column is not NULL.  The copies come first, in copy order.
 */
#define PIN_AT		0	/* identity, key, since */
#define HABIT_AT	3	/* identity, PG_HABIT_COLUMNS */
#define COPY_AT		10	/* PG_ARRIVAL_COLUMNS, record_id,
				   PG_COPIES_COLUMNS */

static const char lookup_sql[] =
	"SELECT p.*, h.*, c.* FROM "
	"(SELECT identity, key, extract(epoch FROM since)::bigint FROM pins "
	"WHERE identity IN ($2, $3, $4, $5, $6, $7, $8, $9)) p "
	"FULL JOIN (SELECT identity, " PG_HABIT_COLUMNS " FROM habit "
	"WHERE identity = $10) h ON false "
	"FULL JOIN (SELECT r.*, " PG_COPIES_COLUMNS " FROM (SELECT "
	PG_ARRIVAL_COLUMNS ", record_id FROM arrival WHERE message_id_sha256 "
	"= decode($1, 'hex')) r, " PG_COPIES_FROM ") c ON false "
	"ORDER BY c.copy";

/*
 * The records of one Message-ID still in the journal, as a read begins:
 * those the database has by then (sent meanwhile) are passed.
 */
#define WAITING_MAX	(LEDGER_COPIES_KEPT + LEDGER_DIFFERING_KEPT)

struct waiting {
	struct journal_entry	*e;		/* WAITING_MAX, or NULL */
	size_t			 n;
	int			 sent[WAITING_MAX];
};

/* waiting_add - fn of journal_each_msgid(): e kept, while there is room */
static int
waiting_add(void *arg, const struct journal_entry *e)
{
	struct waiting *q = arg;

	if (q->n == WAITING_MAX)
		return 0;
	if (q->e == NULL && (q->e = malloc(WAITING_MAX * sizeof(*q->e))) ==
	    NULL)
		return PA_ENOMEM;
	q->sent[q->n] = 0;
	q->e[q->n++] = *e;
	return 0;
}

/* is_copy - row i of res is a copy (neither a pin nor a habit) */
static int
is_copy(const PGresult *res, int i)
{
	return PQgetisnull(res, i, PIN_AT) && PQgetisnull(res, i, HABIT_AT);
}

/*
 * copy_rows - fn on each copy of res (its first rows), marking those of
 * q it holds; into first the first, into *n how many there are
 */
static int
copy_rows(const PGresult *res, struct waiting *q, struct arrival *a,
    struct arrival *first, const struct state_ask *ask, int *n)
{
	int i, stop = 0;
	size_t k;

	for (i = 0; i < PQntuples(res) && is_copy(res, i) && !stop; i++) {
		for (k = 0; k < q->n; k++)
			if (strcmp(q->e[k].record_id, PQgetvalue(res, i,
			    COPY_AT + PG_ARRIVAL_NCOLUMNS)) == 0)
				q->sent[k] = 1;
		pg_arrival_row(res, i, COPY_AT, a);
		if (i == 0)
			*first = *a;
		stop = ask->copy(ask->copy_arg, a);
	}
	for (*n = i; *n < PQntuples(res) && is_copy(res, *n); (*n)++)
		;
	return stop;
}

/*
 * waiting_copies - fn on each record of q the database did not have,
 * after its rows (numbered as the sender will most likely number them,
 * set beside the first copy)
 */
static int
waiting_copies(struct waiting *q, int nrows, struct arrival *first,
    struct ledger_copies *cs, const struct state_ask *ask)
{
	size_t k;
	int stop = 0, has_first = nrows > 0;

	for (k = 0; k < q->n && !stop; k++) {
		if (q->sent[k])
			continue;
		/* one past those kept will not be read once sent */
		if (!copies_next(&q->e[k].a, has_first ? first : NULL, cs))
			continue;
		if (!has_first) {
			*first = q->e[k].a;
			has_first = 1;
		}
		stop = ask->copy(ask->copy_arg, &q->e[k].a);
	}
	return stop;
}

/* copies - the copies of res and of q to ask->copy, into out */
static void
copies(const PGresult *res, struct waiting *q, const struct state_ask *ask,
    struct state_lookup *out)
{
	struct ledger_copies cs;
	struct arrival *a;
	int stop, nrows;

	if ((a = malloc(2 * sizeof(*a))) == NULL) {
		pa_err_set(&out->copies_why, "%s", pa_strerror(PA_ENOMEM));
		out->copies_rc = PA_ENOMEM;
		return;
	}
	memset(&cs, 0, sizeof(cs));
	if (PQntuples(res) > 0 && is_copy(res, 0))
		pg_copies_row(res, 0, COPY_AT + PG_ARRIVAL_NCOLUMNS + 1, &cs);
	stop = copy_rows(res, q, &a[0], &a[1], ask, &nrows);
	if (!stop)
		stop = waiting_copies(q, nrows, &a[1], &cs, ask);
	out->copies_rc = stop ? stop : nrows > 0 || q->n > 0 ? 0 :
	    PA_ENOTFOUND;
	free(a);
}

/* pins_habit - the pins (to each of names that a row is) and the habit */
static void
pins_habit(const PGresult *res, const char *const *names,
    const struct state_ask *ask, struct state_lookup *out)
{
	const char *identity;
	size_t k;
	int i;

	for (i = 0; i < PQntuples(res); i++) {
		if (!PQgetisnull(res, i, HABIT_AT)) {
			pg_habit_row(res, i, HABIT_AT + 1, ask->author,
			    &out->habit);
			out->habit_rc = 0;
		}
		if (PQgetisnull(res, i, PIN_AT))
			continue;
		identity = PQgetvalue(res, i, PIN_AT);
		for (k = 0; k < out->n; k++) {
			if (names[k] == NULL ||
			    strcmp(names[k], identity) != 0)
				continue;
			snprintf(out->pin[k].pin.identity,
			    sizeof(out->pin[k].pin.identity), "%s", identity);
			snprintf(out->pin[k].pin.key,
			    sizeof(out->pin[k].pin.key), "%s",
			    PQgetvalue(res, i, PIN_AT + 1));
			out->pin[k].pin.since = (time_t)strtoll(PQgetvalue(res,
			    i, PIN_AT + 2), NULL, 10);
			out->pin[k].rc = 0;
		}
	}
}

/* failed - the statement failed (rc, why): said in each part asked */
static void
failed(int rc, const struct pa_err *why, const struct state_ask *ask,
    int with_pins, struct state_lookup *out)
{
	if (with_pins) {
		out->pins_rc = rc;
		out->pins_why = *why;
	}
	if (ask->author != NULL) {
		out->habit_rc = rc;
		out->habit_why = *why;
	}
	if (ask->message_id_sha256 != NULL) {
		out->copies_rc = rc;
		out->copies_why = *why;
	}
}

void
pg_lookup(struct pgdb *db, struct journal *j, const char *const *names,
    int with_pins, const struct state_ask *ask, struct state_lookup *out)
{
	const char *params[LOOKUP_PINS_MAX + 2] = { NULL };
	struct waiting q = { NULL, 0, { 0 } };
	struct pa_err why;
	char hex[65];
	PGresult *res;
	size_t k;
	int rc;

	for (k = 0; k < out->n; k++) {
		out->pin[k].rc = PA_ENOTFOUND;
		params[1 + k] = names[k];
	}
	params[LOOKUP_PINS_MAX + 1] = ask->author;
	if (ask->message_id_sha256 != NULL) {
		/* the journal first: a record sent meanwhile is in the rows */
		if (j != NULL && journal_each_msgid(j, ask->message_id_sha256,
		    waiting_add, &q, &why) != 0) {
			pa_err_set(&why, "%s", pa_strerror(PA_ENOMEM));
			failed(PA_ENOMEM, &why, ask, with_pins, out);
			free(q.e);
			return;
		}
		codec_hex(hex, ask->message_id_sha256, 32, 0);
		params[0] = hex;
	}
	if ((rc = pgdb_query(db, lookup_sql, LOOKUP_PINS_MAX + 2, params,
	    &res, &why)) != 0) {
		failed(rc, &why, ask, with_pins, out);
		free(q.e);
		return;
	}
	pins_habit(res, names, ask, out);
	if (ask->message_id_sha256 != NULL)
		copies(res, &q, ask, out);
	PQclear(res);
	free(q.e);
}

/* pg_ledger_lookup - the ledger's part of state_lookup() (ledger_ops) */
void
pg_ledger_lookup(struct ledger *base, const struct state_ask *ask,
    struct state_lookup *out)
{
	struct ledger_pg *l = pg_ledger(base);

	pg_lookup(l->db, l->journal, NULL, 0, ask, out);
}

int
pg_ledger_by_message_id(struct ledger *base, const char *message_id,
    size_t len, int (*fn)(void *, const struct arrival *), void *arg,
    struct pa_err *err)
{
	struct state_ask ask = { NULL, 0, NULL, NULL, fn, arg };
	struct state_lookup *out;
	unsigned char hash[32];
	int rc;

	if (digest_sha256(hash, message_id, len) != 0 ||
	    (out = calloc(1, sizeof(*out))) == NULL) {
		pa_err_set(err, "%s", pa_strerror(PA_ENOMEM));
		return PA_ENOMEM;
	}
	ask.message_id_sha256 = hash;
	pg_ledger_lookup(base, &ask, out);
	if ((rc = out->copies_rc) < 0)
		*err = out->copies_why;
	free(out);
	return rc;
}
