/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pg-read.c - the arrival records by Message-ID, by patch-id and by time,
 * and the signing habits, from StateDatabase (see ledger.h): each one
 * statement, one round trip.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg-int.h"

#define COLUMNS \
	"SELECT message_id, encode(message_id_sha256, 'hex'), copy, " \
	"extract(epoch FROM arrived)::bigint, envelope_from, author, " \
	"identity, subject, list_id, has_patch, i, m, p, m_core, patch_id, " \
	"trailers, result, v01, patatt, key, signed_trusted, dkim, algo, " \
	"selector, offered " \
	"FROM arrival "

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

/* unhex - 64 hex digits into 32 bytes */
static void
unhex(unsigned char *out, const char *h)
{
	size_t i;
	int hi, lo;

	for (i = 0; i < 32 && h[2 * i] && h[2 * i + 1]; i++) {
		hi = h[2 * i] <= '9' ? h[2 * i] - '0' : h[2 * i] - 'a' + 10;
		lo = h[2 * i + 1] <= '9' ? h[2 * i + 1] - '0' :
		    h[2 * i + 1] - 'a' + 10;
		out[i] = (unsigned char)(hi << 4 | lo);
	}
}

/* row - row i of res (COLUMNS) into a */
static void
row(const PGresult *res, int i, struct arrival *a)
{
	memset(a, 0, sizeof(*a));
	field(a->message_id, sizeof(a->message_id), res, i, 0);
	unhex(a->message_id_sha256, PQgetvalue(res, i, 1));
	a->copy = (unsigned)strtoul(PQgetvalue(res, i, 2), NULL, 10);
	a->arrived = (time_t)strtoll(PQgetvalue(res, i, 3), NULL, 10);
	field(a->envelope_from, sizeof(a->envelope_from), res, i, 4);
	field(a->author, sizeof(a->author), res, i, 5);
	field(a->identity, sizeof(a->identity), res, i, 6);
	field(a->subject, sizeof(a->subject), res, i, 7);
	field(a->list_id, sizeof(a->list_id), res, i, 8);
	a->has_patch = PQgetvalue(res, i, 9)[0] == 't';
	field(a->i, sizeof(a->i), res, i, 10);
	field(a->m, sizeof(a->m), res, i, 11);
	field(a->p, sizeof(a->p), res, i, 12);
	field(a->m_core, sizeof(a->m_core), res, i, 13);
	field(a->patch_id, sizeof(a->patch_id), res, i, 14);
	field(a->trailers, sizeof(a->trailers), res, i, 15);
	field(a->result, sizeof(a->result), res, i, 16);
	field(a->v01, sizeof(a->v01), res, i, 17);
	field(a->patatt, sizeof(a->patatt), res, i, 18);
	field(a->key, sizeof(a->key), res, i, 19);
	a->signed_trusted = PQgetvalue(res, i, 20)[0] == 't';
	field(a->dkim, sizeof(a->dkim), res, i, 21);
	field(a->algo, sizeof(a->algo), res, i, 22);
	field(a->selector, sizeof(a->selector), res, i, 23);
	field(a->offered, sizeof(a->offered), res, i, 24);
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
		row(res, i, a);
		stop = fn(arg, a);
	}
	rc = stop ? stop : PQntuples(res) > 0 || empty_ok ? 0 : PA_ENOTFOUND;
	PQclear(res);
	free(a);
	return rc;
}

int
pg_ledger_by_message_id(struct ledger *base, const char *message_id,
    size_t len, int (*fn)(void *, const struct arrival *), void *arg,
    struct pa_err *err)
{
	unsigned char hash[32];
	char hex[65];
	const char *p[1] = { hex };
	size_t i;

	if (digest_sha256(hash, message_id, len) != 0) {
		pa_err_set(err, "%s", pa_strerror(PA_ENOMEM));
		return PA_ENOMEM;
	}
	for (i = 0; i < sizeof(hash); i++)
		snprintf(hex + 2 * i, 3, "%02x", hash[i]);
	return walk(base, COLUMNS "WHERE message_id_sha256 = decode($1, "
	    "'hex') ORDER BY copy", 1, p, fn, arg, 0, err);
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
