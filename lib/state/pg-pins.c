/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pg-pins.c - the first-use pins in StateDatabase's table pins (see
 * pins.h): the identity is its primary key, so that of two nodes pinning
 * one identity at once the database lets exactly one in.
 *
 * pins_first_use() is one statement: an INSERT ... ON CONFLICT DO
 * NOTHING that returns the row it made, and beside it the row that was
 * there.  The one case that costs a second statement is a race lost to a
 * pin committed while ours ran: its row is not in our statement's
 * snapshot, and the next statement sees it.
 *
 * state_lookup() is one statement too (pg-lookup.c): the pins asked and,
 * when the ledger is the same database's, the author's habit and the
 * copies of the Message-ID.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg-int.h"
#include "sig.h"

struct pins_pg {
	struct pins	 base;		/* first: the handle */
	struct pgdb	*db;
};

#define pg_pins(base)	((struct pins_pg *)(void *)(base))

static const char first_use_sql[] =
	"WITH made AS (INSERT INTO pins (identity, key, since) "
	"VALUES ($1, $2, to_timestamp($3)) ON CONFLICT (identity) DO NOTHING "
	"RETURNING key, since) "
	"SELECT 1, key, extract(epoch FROM since)::bigint FROM made "
	"UNION ALL SELECT 0, key, extract(epoch FROM since)::bigint "
	"FROM pins WHERE identity = $1 AND NOT EXISTS (SELECT FROM made)";

/* canon - identity's canonical form into name: 0, PA_ENOTFOUND */
static int
canon(const char *identity, char *name, struct pa_err *err)
{
	if (patatt_identity_canon(name, PIN_IDENTITY_MAX, identity) == 0)
		return 0;
	pa_err_set(err, "an identity is an address of printable ASCII, with "
	    "an @, under %d bytes", PIN_IDENTITY_MAX);
	return PA_ENOTFOUND;
}

/* row - the pin of row i of res (identity, key, since at col) into out */
static void
row(const PGresult *res, int i, int col, const char *identity,
    struct pin *out)
{
	snprintf(out->identity, sizeof(out->identity), "%s", identity ?
	    identity : PQgetvalue(res, i, col - 2));
	snprintf(out->key, sizeof(out->key), "%s",
	    PQgetvalue(res, i, col - 1));
	out->since = (time_t)strtoll(PQgetvalue(res, i, col), NULL, 10);
}

static int
first_use(struct pins *base, const char *identity, const char *key,
    time_t now, enum pin_seen *seen, struct pin *pinned, struct pa_err *err)
{
	struct pins_pg *p = pg_pins(base);
	char name[PIN_IDENTITY_MAX], when[24];
	const char *params[3] = { name, key, when };
	PGresult *res = NULL;
	int rc, tries;

	if ((rc = canon(identity, name, err)) != 0)
		return rc;
	if (key[0] == '\0' || strlen(key) >= PIN_KEY_MAX) {
		pa_err_set(err, "a key to pin is 1 to %d bytes",
		    PIN_KEY_MAX - 1);
		return PA_ENOTFOUND;
	}
	snprintf(when, sizeof(when), "%lld", (long long)now);
	for (tries = 0; tries < 2; tries++) {
		if ((rc = pgdb_query(p->db, first_use_sql, 3, params, &res,
		    err)) != 0)
			return rc;
		if (PQntuples(res) == 1)
			break;
		PQclear(res);	/* lost a race to a pin not yet in view */
		res = NULL;
	}
	if (res == NULL)
		return pgdb_fail(p->db, err, "reading", "a pin was made and "
		    "then not found");
	row(res, 0, 2, name, pinned);
	*seen = strcmp(PQgetvalue(res, 0, 0), "1") == 0 ? PIN_NEW :
	    strcmp(pinned->key, key) == 0 ? PIN_SAME : PIN_OTHER;
	PQclear(res);
	return 0;
}

static int
get(struct pins *base, const char *identity, struct pin *out,
    struct pa_err *err)
{
	struct pins_pg *p = pg_pins(base);
	char name[PIN_IDENTITY_MAX];
	const char *params[1] = { name };
	PGresult *res;
	int rc;

	if ((rc = canon(identity, name, err)) != 0)
		return rc;
	if ((rc = pgdb_query(p->db, "SELECT key, extract(epoch FROM since)"
	    "::bigint FROM pins WHERE identity = $1", 1, params, &res,
	    err)) != 0)
		return rc;
	if (PQntuples(res) == 1)
		row(res, 0, 1, name, out);
	else
		rc = PA_ENOTFOUND;
	PQclear(res);
	return rc;
}

static void
lookup(struct pins *base, struct ledger *l, const struct state_ask *ask,
    struct state_lookup *out)
{
	struct pins_pg *p = pg_pins(base);
	char names[LOOKUP_PINS_MAX][PIN_IDENTITY_MAX];
	const char *canonical[LOOKUP_PINS_MAX] = { NULL };
	struct pa_err ignored;
	size_t k;

	for (k = 0; k < out->n; k++)
		if (canon(ask->identities[k], names[k], &ignored) == 0)
			canonical[k] = names[k];	/* else can have no pin */
	pg_lookup(p->db, l != NULL ? pg_ledger(l)->journal : NULL, canonical,
	    1, ask, out);
}

static int
forget(struct pins *base, const char *identity, struct pa_err *err)
{
	struct pins_pg *p = pg_pins(base);
	char name[PIN_IDENTITY_MAX];
	const char *params[1] = { name };
	PGresult *res;
	int rc;

	if ((rc = canon(identity, name, err)) != 0)
		return rc;
	if ((rc = pgdb_query(p->db, "DELETE FROM pins WHERE identity = $1",
	    1, params, &res, err)) != 0)
		return rc;
	if (strcmp(PQcmdTuples(res), "0") == 0) {
		pa_err_set(err, "%s has no first-use pin", name);
		rc = PA_ENOTFOUND;
	}
	PQclear(res);
	return rc;
}

static int
each(struct pins *base, int (*fn)(void *, const struct pin *), void *arg,
    struct pa_err *err)
{
	struct pins_pg *p = pg_pins(base);
	struct pin pin;
	PGresult *res;
	int i, rc, stop = 0;

	if ((rc = pgdb_query(p->db, "SELECT identity, key, extract(epoch "
	    "FROM since)::bigint FROM pins ORDER BY identity COLLATE \"C\"",
	    0, (const char *const[]){ NULL }, &res, err)) != 0)
		return rc;
	for (i = 0; i < PQntuples(res) && !stop; i++) {
		row(res, i, 2, NULL, &pin);
		stop = fn(arg, &pin);
	}
	PQclear(res);
	return stop;
}

static void
close_pins(struct pins *base)
{
	struct pins_pg *p = pg_pins(base);

	pgdb_free(p->db);
	free(p);
}

static const struct pins_ops pg_ops = {
	.first_use = first_use,
	.get = get,
	.forget = forget,
	.each = each,
	.lookup = lookup,
	.close = close_pins
};

int
pg_pins_open(struct pins **out, const struct pa_config *cf, int writable,
    const struct statedb_notice *notice, struct pa_err *err)
{
	struct pins_pg *p;
	int rc;

	*out = NULL;
	if ((p = calloc(1, sizeof(*p))) == NULL) {
		pa_err_set(err, "%s", pa_strerror(PA_ENOMEM));
		return PA_ENOMEM;
	}
	p->base.ops = &pg_ops;
	if ((rc = pgdb_new(&p->db, cf, writable, notice, err)) != 0) {
		free(p);
		return rc;
	}
	*out = &p->base;
	return 0;
}
