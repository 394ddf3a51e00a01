/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pg-schema.c - StateDatabase's tables, made and migrated by
 * statedb_init() ("patchattest db init"), checked by statedb_status().
 *
 * patchattest_schema holds the version, one row.  Each migration is the
 * SQL that takes the schema from the version before it to its own; init
 * runs those not yet run, in one transaction under an advisory lock, so
 * that two nodes running it at once make the schema once.  The columns
 * are plain, for other tools to read in SQL (patchattest.conf(5)).
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
statedb_init(const struct pa_config *cf, int *was, struct pa_err *err)
{
	struct pgdb *db;
	PGconn *conn;
	int rc, broken = 0;

	*was = 0;
	if ((rc = pgdb_new(&db, cf, NULL, err)) != 0)
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
	if ((rc = pgdb_new(&db, cf, NULL, err)) != 0)
		return rc;
	if ((rc = pgdb_get(db, &conn, err)) == 0) {
		rc = pg_schema_version(db, conn, version, err);
		pgdb_put(db, conn, rc != 0);
	}
	if (rc == 0 && *version != STATEDB_VERSION) {
		pa_err_set(err, "the state database (%s) has schema version "
		    "%d, and this program reads version %d (patchattest db "
		    "init makes or migrates it)", db->where, *version,
		    STATEDB_VERSION);
		rc = PA_ENOTFOUND;
	}
	pgdb_free(db);
	return rc;
}
