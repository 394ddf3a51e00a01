/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pg-conn.c - the pool of connections to StateDatabase, each wait bounded,
 * and the password kept out of every message (see pg-int.h).
 *
 * libpq's own connect_timeout counts whole seconds (two at least), and a
 * message waits on us: the connection is made with PQconnectStart() and
 * PQconnectPoll() under our own deadline, and each statement is sent
 * and its answer read without blocking, under timeout_ms.  A password may
 * come from the connection string or from libpq's passfile (the one of
 * the user the process runs as, named by pg-passfile.c, or PGPASSFILE,
 * or passfile= in the string); libpq does not repeat it, but a message
 * naming the string could, so every message we pass on is scrubbed of
 * it.  A connection refused for want of a password says which passfile
 * was read, as whom, and what libpq made of it.
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pg-int.h"
#include "base.h"

/*
 * While the database is away, one thread at a time tries to connect,
 * RETRY_FIRST_MS after it went, then twice as long after each attempt
 * that failed, up to RETRY_MAX_MS: the first message after it answers
 * again gets a connection within a second, and a host that drops our
 * packets holds one message at a time for connect_ms.
 */
#define RETRY_FIRST_MS		100
#define RETRY_MAX_MS		500

static long	 ms_left(const struct timespec *);
static void	 deadline(struct timespec *, unsigned);
static int	 wait_fd(PGconn *, short, const struct timespec *);
static int	 conn_open(struct pgdb *, PGconn **, struct pa_err *);
static void	 mark_away(struct pgdb *, const char *, int);
static int	 stale(PGconn *);
static PGconn	*idle_take(struct pgdb *);
static void	 parse_conninfo(struct pgdb *, PQconninfoOption *);
static void	 connect_failed(const struct pgdb *, PGconn *,
		    struct pa_err *);

static void
deadline(struct timespec *t, unsigned ms)
{
	clock_gettime(CLOCK_MONOTONIC, t);
	t->tv_sec += ms / 1000;
	t->tv_nsec += (long)(ms % 1000) * 1000000L;
	if (t->tv_nsec >= 1000000000L) {
		t->tv_sec++;
		t->tv_nsec -= 1000000000L;
	}
}

/* ms_left - milliseconds until t, 0 when it is past */
static long
ms_left(const struct timespec *t)
{
	struct timespec now;
	long ms;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (long)(t->tv_sec - now.tv_sec) * 1000 +
	    (t->tv_nsec - now.tv_nsec) / 1000000L;
	return ms > 0 ? ms : 0;
}

/* wait_fd - conn's socket ready for events before t: 0, else -1 */
static int
wait_fd(PGconn *conn, short events, const struct timespec *t)
{
	struct pollfd pfd = { PQsocket(conn), events, 0 };
	int rc;

	if (pfd.fd < 0)
		return -1;
	do
		rc = poll(&pfd, 1, (int)ms_left(t));
	while (rc < 0 && errno == EINTR);
	return rc > 0 ? 0 : -1;
}

void
pgdb_scrub(const struct pgdb *db, char *s)
{
	size_t n = strlen(db->secret);
	char *p;

	if (n == 0)
		return;
	while ((p = strstr(s, db->secret)) != NULL) {
		memcpy(p, "***", 3);
		memmove(p + 3, p + n, strlen(p + n) + 1);
	}
}

int
pgdb_fail(const struct pgdb *db, struct pa_err *err, const char *what,
    const char *reason)
{
	char full[1024], msg[sizeof(err->msg)];
	int n;

	snprintf(full, sizeof(full), "%s", reason);
	pgdb_scrub(db, full);
	n = snprintf(msg, sizeof(msg), "%s the state database (%s): ", what,
	    db->where);
	if (n > 0 && (size_t)n + 4 <= sizeof(msg))
		hdrfmt_clip(msg + n, sizeof(msg) - (size_t)n,
		    full[strspn(full, " \t\r\n")] != '\0' ? full :
		    "no reason given");
	pa_err_set(err, "%s", msg);
	return PA_ERROR;
}

/* parse_conninfo - db's password (to scrub) and where, from opts */
static void
parse_conninfo(struct pgdb *db, PQconninfoOption *opts)
{
	PQconninfoOption *o;
	const char *dbname = NULL, *host = NULL;

	for (o = opts; o->keyword != NULL; o++) {
		if (o->val == NULL || o->val[0] == '\0')
			continue;
		if (strcmp(o->keyword, "password") == 0)
			snprintf(db->secret, sizeof(db->secret), "%s",
			    o->val);
		else if (strcmp(o->keyword, "dbname") == 0)
			dbname = o->val;
		else if (strcmp(o->keyword, "host") == 0)
			host = o->val;
	}
	snprintf(db->where, sizeof(db->where), "database %.60s on %.80s",
	    dbname ? dbname : "(default)", host ? host : "(default host)");
	pgdb_passfile(db, opts);
}

int
pgdb_new(struct pgdb **out, const struct pa_config *cf, int writable,
    const struct statedb_notice *notice, struct pa_err *err)
{
	const char *key = "StateDatabase", *conninfo = cf->state_database;
	struct pgdb *db;
	char *why = NULL;
	PQconninfoOption *opts;

	*out = NULL;
	if (!writable && cf->state_database_reader != NULL) {
		key = "StateDatabaseReader";
		conninfo = cf->state_database_reader;
	}
	if ((opts = PQconninfoParse(conninfo, &why)) == NULL) {
		/* why may quote the string, and so the password */
		PQfreemem(why);
		pa_err_set(err, "%s is not a connection string or a "
		    "postgresql:// URI that libpq reads", key);
		return PA_ERROR;
	}
	if ((db = calloc(1, sizeof(*db))) == NULL ||
	    (db->conninfo = strdup(conninfo)) == NULL) {
		PQconninfoFree(opts);
		free(db);
		pa_err_set(err, "%s", pa_strerror(PA_ENOMEM));
		return PA_ENOMEM;
	}
	db->key = key;
	parse_conninfo(db, opts);
	PQconninfoFree(opts);
	db->connect_ms = (unsigned)cf->state_database_connect_ms;
	db->timeout_ms = (unsigned)cf->state_database_timeout_ms;
	if (notice != NULL)
		db->notice = *notice;
	pthread_mutex_init(&db->lock, NULL);
	*out = db;
	return 0;
}

void
pgdb_free(struct pgdb *db)
{
	if (db == NULL)
		return;
	while (db->n_idle > 0)
		PQfinish(db->idle[--db->n_idle]);
	pthread_mutex_destroy(&db->lock);
	explicit_bzero(db->secret, sizeof(db->secret));
	explicit_bzero(db->conninfo, strlen(db->conninfo));
	free(db->conninfo);
	free(db);
}

/*
 * mark_away - the database counts as away for why (db->lock not held):
 * the next attempt to connect waits, longer after a failed one (probe)
 */
static void
mark_away(struct pgdb *db, const char *why, int probe)
{
	int was;

	pthread_mutex_lock(&db->lock);
	was = db->away;
	if (!was || probe) {
		db->retry_ms = !was ? RETRY_FIRST_MS : db->retry_ms * 2 >
		    RETRY_MAX_MS ? RETRY_MAX_MS : db->retry_ms * 2;
		deadline(&db->retry_at, db->retry_ms);
		snprintf(db->why, sizeof(db->why), "%s", why);
	}
	db->away = 1;
	if (probe)
		db->probing = 0;
	while (db->n_idle > 0)
		PQfinish(db->idle[--db->n_idle]);
	pthread_mutex_unlock(&db->lock);
	if (!was && db->notice.fn != NULL)
		db->notice.fn(db->notice.arg, 0, why);
}

/*
 * stale - whether the server spoke to idle conn: to an idle connection it
 * only says that it ends it (it stopped or restarted, or closed it)
 */
static int
stale(PGconn *conn)
{
	struct pollfd pfd = { PQsocket(conn), POLLIN, 0 };

	return pfd.fd < 0 || poll(&pfd, 1, 0) != 0;
}

/* idle_take - an idle connection that is not stale, or NULL (db->lock) */
static PGconn *
idle_take(struct pgdb *db)
{
	PGconn *conn;

	while (db->n_idle > 0) {
		conn = db->idle[--db->n_idle];
		if (!stale(conn))
			return conn;
		PQfinish(conn);
	}
	return NULL;
}

/*
 * connect_failed - why conn failed, into err: for want of a password,
 * or with a password that was refused, which passfile libpq read (as
 * whom), first, as libpq's own words may be long
 */
static void
connect_failed(const struct pgdb *db, PGconn *conn, struct pa_err *err)
{
	char line[sizeof(err->msg)], state[PGDB_PASSFILE_MAX + 128];
	enum pgdb_pass pass = pgdb_passfile_state(db, state, sizeof(state));

	hdrfmt_clip(line, sizeof(line), PQerrorMessage(conn));
	if (pass == PGDB_PASS_READ && PQconnectionNeedsPassword(conn))
		pa_err_set(err, "cannot connect to the state database (%s) "
		    "as %s: no line for it in %s: %s", db->where, db->as,
		    state, line);
	else if (pass != PGDB_PASS_GIVEN && PQconnectionNeedsPassword(conn))
		pa_err_set(err, "cannot connect to the state database (%s) "
		    "as %s: %s: %s", db->where, db->as, state, line);
	else if (pass == PGDB_PASS_READ && PQconnectionUsedPassword(conn))
		pa_err_set(err, "cannot connect to the state database (%s) "
		    "as %s, with the password from %s: %s", db->where,
		    db->as, state, line);
	else
		pa_err_set(err, "cannot connect to the state database (%s): "
		    "%s", db->where, line);
	pgdb_scrub(db, err->msg);
}

/*
 * conn_open - a new connection, within connect_ms; named patchattest in
 * pg_stat_activity and the server's log unless the string names it.  The
 * passfile we name goes before the string, whose own passfile= wins.
 */
static int
conn_open(struct pgdb *db, PGconn **out, struct pa_err *err)
{
	const char *keys[4], *values[4];
	PostgresPollingStatusType st = PGRES_POLLING_WRITING;
	struct timespec t;
	PGconn *conn;
	int n = 0;

	if (db->pass_ours) {
		keys[n] = "passfile";
		values[n++] = db->passfile;
	}
	keys[n] = "dbname";
	values[n++] = db->conninfo;
	keys[n] = "fallback_application_name";
	values[n++] = "patchattest";
	keys[n] = values[n] = NULL;
	deadline(&t, db->connect_ms);
	if ((conn = PQconnectStartParams(keys, values, 1)) == NULL) {
		pa_err_set(err, "%s", pa_strerror(PA_ENOMEM));
		return PA_ENOMEM;
	}
	while (PQstatus(conn) != CONNECTION_BAD && st != PGRES_POLLING_OK &&
	    st != PGRES_POLLING_FAILED) {
		if (wait_fd(conn, st == PGRES_POLLING_READING ? POLLIN :
		    POLLOUT, &t) != 0) {
			PQfinish(conn);
			pa_err_set(err, "cannot reach the state database (%s) "
			    "within %u ms", db->where, db->connect_ms);
			return PA_ERROR;
		}
		st = PQconnectPoll(conn);
	}
	if (st != PGRES_POLLING_OK || PQsetnonblocking(conn, 1) != 0) {
		connect_failed(db, conn, err);
		PQfinish(conn);
		return PA_ERROR;
	}
	*out = conn;
	return 0;
}

int
pgdb_get(struct pgdb *db, PGconn **out, struct pa_err *err)
{
	int rc, was, probe;

	pthread_mutex_lock(&db->lock);
	if (db->away && (db->probing || ms_left(&db->retry_at) > 0)) {
		pa_err_set(err, "%s", db->why);
		pthread_mutex_unlock(&db->lock);
		return PA_ERROR;
	}
	if ((probe = db->away))
		db->probing = 1;
	else if ((*out = idle_take(db)) != NULL) {
		pthread_mutex_unlock(&db->lock);
		return 0;
	}
	pthread_mutex_unlock(&db->lock);
	if ((rc = conn_open(db, out, err)) != 0) {
		mark_away(db, err->msg, probe);
		return rc;
	}
	pthread_mutex_lock(&db->lock);
	was = db->away;
	db->away = 0;
	if (probe)
		db->probing = 0;
	pthread_mutex_unlock(&db->lock);
	if (was && db->notice.fn != NULL)
		db->notice.fn(db->notice.arg, 1, db->where);
	return 0;
}

void
pgdb_put(struct pgdb *db, PGconn *conn, int broken)
{
	char why[256];

	if (conn == NULL)
		return;
	if (broken || PQstatus(conn) != CONNECTION_OK ||
	    PQtransactionStatus(conn) != PQTRANS_IDLE) {
		snprintf(why, sizeof(why), "the state database (%s) stopped "
		    "answering", db->where);
		PQfinish(conn);
		if (broken)
			mark_away(db, why, 0);
		return;
	}
	pthread_mutex_lock(&db->lock);
	if (db->n_idle < PGDB_POOL_MAX) {
		db->idle[db->n_idle++] = conn;
		conn = NULL;
	}
	pthread_mutex_unlock(&db->lock);
	PQfinish(conn);
}

/* collect - the answer to what was sent, read before t into *res */
static int
collect(PGconn *conn, const struct timespec *t, PGresult **res)
{
	PGresult *r;
	int rc;

	while ((rc = PQflush(conn)) > 0)
		if (wait_fd(conn, POLLOUT | POLLIN, t) != 0 ||
		    PQconsumeInput(conn) == 0)
			return -1;
	if (rc < 0)
		return -1;
	*res = NULL;
	for (;;) {
		while (PQisBusy(conn))
			if (wait_fd(conn, POLLIN, t) != 0 ||
			    PQconsumeInput(conn) == 0)
				return -1;
		if ((r = PQgetResult(conn)) == NULL)
			return 0;
		if (*res == NULL)
			*res = r;
		else
			PQclear(r);
	}
}

int
pgdb_exec(struct pgdb *db, PGconn *conn, const char *sql, int n,
    const char *const *params, unsigned timeout_ms, PGresult **res,
    int *broken, struct pa_err *err)
{
	struct timespec t;
	ExecStatusType st;

	*res = NULL;
	*broken = 0;
	deadline(&t, timeout_ms);
	/* without parameters, the simple protocol: several statements */
	if ((params == NULL ? PQsendQuery(conn, sql) :
	    PQsendQueryParams(conn, sql, n, NULL, params, NULL, NULL, 0)) ==
	    0 || collect(conn, &t, res) != 0) {
		PQclear(*res);
		*res = NULL;
		*broken = 1;
		if (PQstatus(conn) == CONNECTION_OK && ms_left(&t) == 0)
			pa_err_set(err, "the state database (%s) did not "
			    "answer within %u ms", db->where, timeout_ms);
		else
			pgdb_fail(db, err, "lost", PQerrorMessage(conn));
		return PA_ERROR;
	}
	st = *res ? PQresultStatus(*res) : PGRES_FATAL_ERROR;
	if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK)
		return 0;
	pgdb_fail(db, err, "an error from", *res ?
	    PQresultErrorMessage(*res) : PQerrorMessage(conn));
	PQclear(*res);
	*res = NULL;
	return PA_ERROR;
}

int
pgdb_query(struct pgdb *db, const char *sql, int n,
    const char *const *params, PGresult **res, struct pa_err *err)
{
	PGconn *conn;
	int rc, broken;

	*res = NULL;
	if ((rc = pgdb_get(db, &conn, err)) != 0)
		return rc;
	rc = pgdb_exec(db, conn, sql, n, params, db->timeout_ms, res,
	    &broken, err);
	pgdb_put(db, conn, broken);
	return rc;
}
