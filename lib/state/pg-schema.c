/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pg-schema.c - StateDatabase's tables, made and migrated by
 * statedb_init() ("patchattest db init"), checked by statedb_status().
 *
 * patchattest_schema holds the version, one row.  Each migration is the
 * SQL that takes the schema from the version before it to its own; init
 * runs those not yet run, in one transaction under an advisory lock, so
 * that two nodes running it at once make the schema once.  The columns
 * are plain, for other tools to read in SQL (patchattest.conf(5)).  The
 * user StateDatabaseReader names is granted SELECT on every table in
 * the same transaction, at every init: a migration's new tables too.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg-int.h"

#define SCHEMA_LOCK	"7061746368617474"	/* pg_advisory_xact_lock's */

static const char *const migrations[STATEDB_VERSION] = {
	/* 1: pins, arrival records, signing habits */
	"CREATE TABLE patchattest_schema (version integer NOT NULL);"
	"INSERT INTO patchattest_schema VALUES (0);"
	"CREATE TABLE pins ("
	" identity text PRIMARY KEY,"
	" key text NOT NULL,"
	" since timestamptz NOT NULL);"
	"CREATE TABLE arrival ("
	" id bigserial PRIMARY KEY,"
	" record_id text NOT NULL UNIQUE,"
	" message_id text NOT NULL,"
	" message_id_sha256 bytea NOT NULL,"
	" copy integer NOT NULL,"
	" arrived timestamptz NOT NULL,"
	" envelope_from text NOT NULL, author text NOT NULL,"
	" identity text NOT NULL, subject text NOT NULL,"
	" list_id text NOT NULL, has_patch boolean NOT NULL,"
	" i text NOT NULL, m text NOT NULL, p text NOT NULL,"
	" m_core text NOT NULL, patch_id text NOT NULL,"
	" trailers text NOT NULL, result text NOT NULL,"
	" v01 text NOT NULL, patatt text NOT NULL, key text NOT NULL,"
	" signed_trusted boolean NOT NULL, dkim text NOT NULL,"
	" algo text NOT NULL, selector text NOT NULL,"
	" offered text NOT NULL);"
	"CREATE INDEX arrival_message_id ON arrival (message_id);"
	"CREATE INDEX arrival_message_id_sha256 ON arrival "
	" (message_id_sha256, copy);"
	"CREATE INDEX arrival_patch_id ON arrival (patch_id) "
	" WHERE patch_id <> '';"
	"CREATE INDEX arrival_arrived ON arrival (arrived);"
	"CREATE TABLE habit ("
	" identity text PRIMARY KEY,"
	" key text NOT NULL,"
	" recent integer NOT NULL, recent_signed integer NOT NULL,"
	" run integer NOT NULL, window_bits bigint NOT NULL,"
	" first_signed timestamptz, last_signed timestamptz);",
	/* 2: where a copy came from, whether it differs from the first,
	   the copies only counted, what a habit's window holds */
	"ALTER TABLE arrival"
	" ADD COLUMN host text NOT NULL DEFAULT '',"
	" ADD COLUMN queue_id text NOT NULL DEFAULT '',"
	" ADD COLUMN differs boolean NOT NULL DEFAULT false,"
	" ADD COLUMN parts integer NOT NULL DEFAULT 0;"
	"CREATE TABLE arrival_copies ("
	" message_id_sha256 bytea PRIMARY KEY,"
	" arrived integer NOT NULL,"
	" differing integer NOT NULL);"
	"ALTER TABLE habit ADD COLUMN ids bytea;"
};

/* The tables of the schema, all of them, as GRANT lists them. */
static const char reader_tables[] =
	"patchattest_schema, pins, arrival, habit, arrival_copies";

static int	 grant(struct pgdb *, PGconn *, const struct pa_config *,
		    int *, struct pa_err *);
static int	 version_said(const struct pgdb *, int, struct pa_err *);

int
pg_schema_version(struct pgdb *db, PGconn *conn, int *version,
    struct pa_err *err)
{
	PGresult *res;
	int rc, broken;

	*version = 0;
	rc = pgdb_exec(db, conn, "SELECT to_regclass('patchattest_schema') "
	    "IS NOT NULL", 0, NULL, db->timeout_ms, &res, &broken, err);
	if (rc == 0 && strcmp(PQgetvalue(res, 0, 0), "t") == 0) {
		PQclear(res);
		rc = pgdb_exec(db, conn, "SELECT max(version) FROM "
		    "patchattest_schema", 0, NULL, db->timeout_ms, &res,
		    &broken, err);
		if (rc == 0 && PQntuples(res) == 1)
			*version = (int)strtol(PQgetvalue(res, 0, 0), NULL, 10);
	}
	PQclear(res);
	return rc == 0 ? 0 : broken ? PA_ERROR : rc;
}

/* migrate - the migrations after was run on conn, in its transaction */
static int
migrate(struct pgdb *db, PGconn *conn, int was, struct pa_err *err)
{
	char set[64];
	PGresult *res;
	int v, rc = 0, broken;

	for (v = was; v < STATEDB_VERSION && rc == 0; v++) {
		rc = pgdb_exec(db, conn, migrations[v], 0, NULL,
		    db->timeout_ms * 100, &res, &broken, err);
		PQclear(res);
		snprintf(set, sizeof(set), "UPDATE patchattest_schema SET "
		    "version = %d", v + 1);
		if (rc == 0)
			rc = pgdb_exec(db, conn, set, 0, NULL, db->timeout_ms,
			    &res, &broken, err);
		PQclear(res);
	}
	return rc;
}

/* run - sql on conn, its result dropped */
static int
run(struct pgdb *db, PGconn *conn, const char *sql, int *broken,
    struct pa_err *err)
{
	PGresult *res;
	int rc;

	rc = pgdb_exec(db, conn, sql, 0, NULL, db->timeout_ms * 100, &res,
	    broken, err);
	PQclear(res);
	return rc;
}

int
statedb_reader(const struct pa_config *cf, char *out, size_t size)
{
	PQconninfoOption *opts, *o;

	out[0] = '\0';
	if (cf->state_database_reader == NULL || (opts =
	    PQconninfoParse(cf->state_database_reader, NULL)) == NULL)
		return 0;
	for (o = opts; o->keyword != NULL; o++)
		if (strcmp(o->keyword, "user") == 0 && o->val != NULL)
			snprintf(out, size, "%s", o->val);
	PQconninfoFree(opts);
	return out[0] != '\0';
}

/* grant - SELECT on every table to StateDatabaseReader's user, if any */
static int
grant(struct pgdb *db, PGconn *conn, const struct pa_config *cf,
    int *broken, struct pa_err *err)
{
	char user[256], sql[512];
	const char *why;
	char *id;
	int rc;

	if (!statedb_reader(cf, user, sizeof(user)))
		return 0;
	if ((id = PQescapeIdentifier(conn, user, strlen(user))) == NULL) {
		pa_err_set(err, "%s", pa_strerror(PA_ENOMEM));
		return PA_ENOMEM;
	}
	snprintf(sql, sizeof(sql), "GRANT SELECT ON %s TO %s", reader_tables,
	    id);
	PQfreemem(id);
	if ((rc = run(db, conn, sql, broken, err)) != 0 && !*broken) {
		why = PQerrorMessage(conn);
		pa_err_set(err, "StateDatabaseReader's user %.64s cannot be "
		    "granted SELECT, and nothing was changed: %.*s (a role "
		    "made with createuser -P %.64s can)", user,
		    (int)strcspn(why, "\n"), why, user);
		pgdb_scrub(db, err->msg);
	}
	return rc;
}
int
statedb_init(const struct pa_config *cf, int *was, struct pa_err *err)
{
	struct pgdb *db;
	PGconn *conn;
	int rc, broken = 0;

	*was = 0;
	if ((rc = pgdb_new(&db, cf, 1, NULL, err)) != 0)
		return rc;
	if ((rc = pgdb_get(db, &conn, err)) != 0) {
		pgdb_free(db);
		return rc;
	}
	if ((rc = run(db, conn, "BEGIN", &broken, err)) == 0 &&
	    (rc = run(db, conn, "SELECT pg_advisory_xact_lock(x'"
	    SCHEMA_LOCK "'::bigint)", &broken, err)) == 0 &&
	    (rc = pg_schema_version(db, conn, was, err)) == 0) {
		if (*was > STATEDB_VERSION) {
			pa_err_set(err, "the state database (%s) has schema "
			    "version %d, newer than this program's %d",
			    db->where, *was, STATEDB_VERSION);
			rc = PA_ERROR;
		} else
			rc = migrate(db, conn, *was, err);
	}
	if (rc == 0)
		rc = grant(db, conn, cf, &broken, err);
	if (rc == 0)
		rc = run(db, conn, "COMMIT", &broken, err);
	else if (!broken)
		run(db, conn, "ROLLBACK", &broken, &(struct pa_err){ 0 });
	pgdb_put(db, conn, broken);
	pgdb_free(db);
	return rc;
}

int
statedb_status(const struct pa_config *cf, int *version, struct pa_err *err)
{
	struct pgdb *db;
	PGconn *conn;
	int rc;

	*version = 0;
	if ((rc = pgdb_new(&db, cf, 1, NULL, err)) != 0)
		return rc;
	if ((rc = pgdb_get(db, &conn, err)) == 0) {
		rc = pg_schema_version(db, conn, version, err);
		pgdb_put(db, conn, rc != 0);
	}
	if (rc == 0)
		rc = version_said(db, *version, err);
	pgdb_free(db);
	return rc;
}

/* version_said - 0 when version is this program's, else PA_ENOTFOUND */
static int
version_said(const struct pgdb *db, int version, struct pa_err *err)
{
	if (version == STATEDB_VERSION)
		return 0;
	pa_err_set(err, "the state database (%s) has schema version %d, and "
	    "this program reads version %d (patchattest db init makes or "
	    "migrates it)", db->where, version, STATEDB_VERSION);
	return PA_ENOTFOUND;
}

/* how_reached - how conn was made, into out->how */
static void
how_reached(const struct pgdb *db, PGconn *conn, enum pgdb_pass pass,
    const char *passfile, struct statedb_seen *out)
{
	const char *role = PQuser(conn);

	if (!PQconnectionUsedPassword(conn))
		snprintf(out->how, sizeof(out->how), "as %s (database user "
		    "%s), without a password", db->as, role);
	else if (pass == PGDB_PASS_READ)
		snprintf(out->how, sizeof(out->how), "as %s (database user "
		    "%s), with the password from %s", db->as, role, passfile);
	else
		snprintf(out->how, sizeof(out->how), "as %s (database user "
		    "%s), with the password given in %s or PGPASSWORD",
		    db->as, role, db->key);
}

void
statedb_look(const struct pa_config *cf, struct statedb_seen *out)
{
	char passfile[PGDB_PASSFILE_MAX + 128];
	enum pgdb_pass pass;
	struct pgdb *db;
	PGconn *conn;

	memset(out, 0, sizeof(*out));
	if ((out->rc = pgdb_new(&db, cf, 1, NULL, &out->err)) != 0)
		return;
	/* one libpq ignores is wrong whether or not a password is needed */
	if ((pass = pgdb_passfile_state(db, passfile, sizeof(passfile))) ==
	    PGDB_PASS_IGNORED)
		pa_err_set(&out->passfile, "%s", passfile);
	if ((out->rc = pgdb_get(db, &conn, &out->err)) == 0) {
		how_reached(db, conn, pass, passfile, out);
		out->rc = pg_schema_version(db, conn, &out->version,
		    &out->err);
		pgdb_put(db, conn, out->rc != 0);
	}
	if (out->rc == 0)
		out->rc = version_said(db, out->version, &out->err);
	pgdb_free(db);
}
