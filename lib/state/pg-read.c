/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pg-read.c - the arrival records by patch-id and by time, the signing
 * habits and the copies of a Message-ID, from StateDatabase (see
 * ledger.h): each one statement, one round trip (by Message-ID: the
 * message's lookup, pg-lookup.c); and how each reads its rows.
 */
#include "config.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg-int.h"

#define COLUMNS	"SELECT " PG_ARRIVAL_COLUMNS " FROM arrival "

void
pg_text(char *out, size_t size, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0, len, k;

	while (*p != '\0' && o + 5 < size) {
		len = *p < 0x80 ? 1 : (*p & 0xe0) == 0xc0 && *p >= 0xc2 ? 2 :
		    (*p & 0xf0) == 0xe0 ? 3 : (*p & 0xf8) == 0xf0 &&
		    *p <= 0xf4 ? 4 : 0;
		for (k = 1; k < len; k++)
			if ((p[k] & 0xc0) != 0x80)
				len = 0;
		if (len == 0) {
			out[o++] = '?';
			p++;
			continue;
		}
		memcpy(out + o, p, len);
		o += len;
		p += len;
	}
	out[o] = '\0';
}

/* field - column c of row i into dst */
static void
field(char *dst, size_t size, const PGresult *res, int i, int c)
{
	snprintf(dst, size, "%s", PQgetvalue(res, i, c));
}

void
pg_unhex(void *out, size_t n, const char *h)
{
	unsigned char *o = out;
	size_t i;
	int hi, lo;

	if (strlen(h) != 2 * n)
		return;
	for (i = 0; i < n; i++) {
		if ((hi = codec_hexval(h[2 * i])) < 0 ||
		    (lo = codec_hexval(h[2 * i + 1])) < 0)
			return;
		o[i] = (unsigned char)(hi << 4 | lo);
	}
}

void
pg_arrival_row(const PGresult *res, int i, int col, struct arrival *a)
{
	static const struct {
		size_t	 off, size;
	} text[] = {
#define T(f)	{ offsetof(struct arrival, f), sizeof(((struct arrival *)0)->f) }
		T(message_id), { 0, 0 }, { 0, 0 }, { 0, 0 }, T(envelope_from),
		T(author), T(identity), T(subject), T(list_id), { 0, 0 }, T(i),
		T(m), T(p), T(m_core), T(patch_id), T(trailers), T(result),
		T(v01), T(patatt), T(key), { 0, 0 }, T(dkim), T(algo),
		T(selector), T(offered), T(host), T(queue_id)
#undef T
	};
	size_t c;

	memset(a, 0, sizeof(*a));
	for (c = 0; c < sizeof(text) / sizeof(text[0]); c++)
		if (text[c].size > 0)
			field((char *)a + text[c].off, text[c].size, res, i,
			    col + (int)c);
	pg_unhex(a->message_id_sha256, sizeof(a->message_id_sha256),
	    PQgetvalue(res, i, col + 1));
	a->copy = (unsigned)strtoul(PQgetvalue(res, i, col + 2), NULL, 10);
	a->arrived = (time_t)strtoll(PQgetvalue(res, i, col + 3), NULL, 10);
	a->has_patch = PQgetvalue(res, i, col + 9)[0] == 't';
	a->signed_trusted = PQgetvalue(res, i, col + 20)[0] == 't';
	a->differs = PQgetvalue(res, i, col + 27)[0] == 't';
	a->parts = (unsigned)strtoul(PQgetvalue(res, i, col + 28), NULL, 10);
}

/*
 * walk - fn on each row that sql (COLUMNS ...) with n params finds, until
 * it returns non-zero: that, or 0, or PA_ENOTFOUND when none (empty_ok:
 * 0)
 */
static int
walk(struct ledger *base, const char *sql, int n, const char *const *p,
    int (*fn)(void *, const struct arrival *), void *arg, int empty_ok,
    struct pa_err *err)
{
	struct ledger_pg *l = pg_ledger(base);
	struct arrival *a;
	PGresult *res;
	int i, rc, stop = 0;

	if ((a = malloc(sizeof(*a))) == NULL) {
		pa_err_set(err, "%s", pa_strerror(PA_ENOMEM));
		return PA_ENOMEM;
	}
	if ((rc = pgdb_query(l->db, sql, n, p, &res, err)) != 0) {
		free(a);
		return rc;
	}
	for (i = 0; i < PQntuples(res) && !stop; i++) {
		pg_arrival_row(res, i, 0, a);
		stop = fn(arg, a);
	}
	rc = stop ? stop : PQntuples(res) > 0 || empty_ok ? 0 : PA_ENOTFOUND;
	PQclear(res);
	free(a);
	return rc;
}

int
pg_ledger_by_patch_id(struct ledger *base, const char *patch_id,
    int (*fn)(void *, const struct arrival *), void *arg, struct pa_err *err)
{
	const char *p[1] = { patch_id };
	size_t i;

	for (i = 0; patch_id[i] != '\0'; i++)
		if (!((patch_id[i] >= '0' && patch_id[i] <= '9') ||
		    (patch_id[i] >= 'a' && patch_id[i] <= 'f')))
			break;
	if (i != 40 || patch_id[i] != '\0') {
		pa_err_set(err, "a patch-id is 40 lower-case hex digits");
		return PA_ENOTFOUND;
	}
	return walk(base, COLUMNS "WHERE patch_id = $1 AND patch_id <> '' "
	    "ORDER BY arrived, id", 1, p, fn, arg, 0, err);
}

int
pg_ledger_each(struct ledger *base, time_t since, time_t until,
    int (*fn)(void *, const struct arrival *), void *arg, struct pa_err *err)
{
	char from[24], to[24];
	const char *p[2] = { from, to };

	snprintf(from, sizeof(from), "%lld", (long long)since);
	snprintf(to, sizeof(to), "%lld", (long long)until);
	return walk(base, COLUMNS "WHERE arrived >= to_timestamp($1) AND "
	    "arrived < to_timestamp($2) ORDER BY arrived, id", 2, p, fn, arg,
	    1, err);
}

void
pg_habit_row(const PGresult *res, int i, int col, const char *identity,
    struct habit *out)
{
	memset(out, 0, sizeof(*out));
	snprintf(out->identity, sizeof(out->identity), "%s", identity);
	field(out->key, sizeof(out->key), res, i, col);
	out->recent = (unsigned)strtoul(PQgetvalue(res, i, col + 1), NULL,
	    10);
	out->recent_signed = (unsigned)strtoul(PQgetvalue(res, i, col + 2),
	    NULL, 10);
	out->run = (unsigned)strtoul(PQgetvalue(res, i, col + 3), NULL, 10);
	out->first_signed = (time_t)strtoll(PQgetvalue(res, i, col + 4),
	    NULL, 10);
	out->last_signed = (time_t)strtoll(PQgetvalue(res, i, col + 5), NULL,
	    10);
}

int
pg_ledger_habit(struct ledger *base, const char *identity, struct habit *out,
    struct pa_err *err)
{
	struct ledger_pg *l = pg_ledger(base);
	const char *p[1] = { identity };
	PGresult *res;
	int rc;

	if (identity[0] == '\0' || strlen(identity) >= sizeof(out->identity))
		return PA_ENOTFOUND;
	if ((rc = pgdb_query(l->db, "SELECT " PG_HABIT_COLUMNS " FROM habit "
	    "WHERE identity = $1", 1, p, &res, err)) != 0)
		return rc;
	if (PQntuples(res) == 1)
		pg_habit_row(res, 0, 0, identity, out);
	else
		rc = PA_ENOTFOUND;
	PQclear(res);
	return rc;
}

/* the copies of a Message-ID: those kept (its rows), those counted */
static const char copies_sql[] =
	"SELECT " PG_COPIES_COLUMNS " FROM " PG_COPIES_FROM;

int
pg_ledger_copies(struct ledger *base, const char *message_id, size_t len,
    struct ledger_copies *out, struct pa_err *err)
{
	struct ledger_pg *l = pg_ledger(base);
	unsigned char hash[32];
	char hex[65];
	const char *p[1] = { hex };
	PGresult *res;
	int rc;

	memset(out, 0, sizeof(*out));
	if (digest_sha256(hash, message_id, len) != 0) {
		pa_err_set(err, "%s", pa_strerror(PA_ENOMEM));
		return PA_ENOMEM;
	}
	codec_hex(hex, hash, sizeof(hash), 0);
	if ((rc = pgdb_query(l->db, copies_sql, 1, p, &res, err)) != 0)
		return rc;
	if (PQntuples(res) == 1)
		pg_copies_row(res, 0, 0, out);
	PQclear(res);
	return out->arrived > 0 ? 0 : PA_ENOTFOUND;
}

void
pg_copies_row(const PGresult *res, int i, int col, struct ledger_copies *out)
{
	unsigned top, counted;

	out->kept = (unsigned)strtoul(PQgetvalue(res, i, col), NULL, 10);
	top = (unsigned)strtoul(PQgetvalue(res, i, col + 1), NULL, 10);
	counted = (unsigned)strtoul(PQgetvalue(res, i, col + 2), NULL, 10);
	out->differing = (unsigned)strtoul(PQgetvalue(res, i, col + 3), NULL,
	    10);
	out->arrived = top > out->kept ? top : out->kept;
	if (counted > out->arrived)
		out->arrived = counted;
}
