/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pg-batch.c - arrival records written to StateDatabase a batch at a
 * time (see pg-int.h): the journal's, which the sender sends
 * (pg-send.c), and a StateFile's, which the import brings (pg-import.c),
 * through the same statements; and the transactions and habit rows that
 * both use.
 *
 * A batch (up to PG_BATCH_MAX records) is one transaction: each record
 * inserted unless its record id is there already, the habit of each one
 * inserted updated (the habit's row locked, so two nodes learning one
 * identity at once take turns), records older than the retention
 * removed.  A record's copy number is the Message-ID's highest plus one:
 * the batch first takes a lock on each of its Message-IDs (advisory, for
 * the transaction, in one order so that two batches never wait on each
 * other in a circle), so that two nodes recording one Message-ID at once
 * number their copies in turn.
 *
 * A StateFile's records teach no habit here: the file's habits come
 * whole (ledger_habit_merge()), those of records long removed with
 * them.  Its copies keep the numbers they had, unless the database had
 * more copies of that Message-ID (another node's); a copy the database
 * does not keep is not counted either, since nothing would tell a second
 * import that it was, and the file's count of copies only counted is
 * brought with its last kept copy, as the larger of the two counts.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base.h"
#include "ledger-codec.h"
#include "ledger-int.h"	/* ledger_msgid_hash() */
#include "pg-int.h"

#define PRUNE_MAX	256
#define DAY		86400

struct batch {
	struct ledger_pg	*l;
	struct pg_txn		 t;
	char			(*text)[ARRIVAL_TRAILERS_MAX * 3];
	/* the record being put, its first kept copy, its copies */
	struct arrival		 rec, first;
	int			 has_first, kept;
	struct ledger_copies	 cs;
};

#define TEXT_FIELDS	23
#define PARAMS		(4 + TEXT_FIELDS + 3)

static const char insert_sql[] =
	"INSERT INTO arrival (record_id, message_id, message_id_sha256, "
	"arrived, envelope_from, author, identity, subject, list_id, "
	"has_patch, i, m, p, m_core, patch_id, trailers, result, v01, patatt, "
	"key, signed_trusted, dkim, algo, selector, offered, host, queue_id, "
	"copy, differs, parts) VALUES ($1, $2, decode($3, 'hex'), "
	"to_timestamp($4), $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, "
	"$16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, "
	"$29, $30) ON CONFLICT (record_id) DO NOTHING RETURNING copy";

/*
 * Before a record is put: whether its record id is there (sent before,
 * the process ended before the journal knew), its Message-ID's copies,
 * and the first kept one (NULLs when none).
 */
static const char copies_sql[] =
	"SELECT (SELECT count(*) FROM arrival WHERE record_id = $2), "
	PG_COPIES_COLUMNS ", f.* FROM " PG_COPIES_FROM " LEFT JOIN LATERAL "
	"(SELECT " PG_ARRIVAL_COLUMNS " FROM arrival WHERE message_id_sha256 "
	"= decode($1, 'hex') ORDER BY copy LIMIT 1) f ON true";

static const char counted_sql[] =
	"INSERT INTO arrival_copies VALUES (decode($1, 'hex'), $2, $3) "
	"ON CONFLICT (message_id_sha256) DO UPDATE SET arrived = $2, "
	"differing = $3";

/* a file's counts, never lowering the database's */
static const char at_least_sql[] =
	"INSERT INTO arrival_copies VALUES (decode($1, 'hex'), $2, $3) "
	"ON CONFLICT (message_id_sha256) DO UPDATE SET arrived = "
	"greatest(arrival_copies.arrived, $2), differing = "
	"greatest(arrival_copies.differing, $3)";

int
pg_txn_begin(struct pg_txn *t, struct pgdb *db, unsigned timeout_ms,
    struct pa_err *err)
{
	int rc;

	*t = (struct pg_txn){ .db = db, .timeout_ms = timeout_ms,
	    .err = err };
	if ((rc = pgdb_get(db, &t->conn, err)) != 0)
		return rc;
	if ((rc = pg_txn_exec(t, "BEGIN", 0, NULL, NULL)) != 0) {
		pgdb_put(db, t->conn, t->broken);
		t->conn = NULL;
	}
	return rc;
}

int
pg_txn_exec(struct pg_txn *t, const char *sql, int n,
    const char *const *params, PGresult **res)
{
	PGresult *r;
	int rc;

	rc = pgdb_exec(t->db, t->conn, sql, n, params, t->timeout_ms, &r,
	    &t->broken, t->err);
	if (res != NULL)
		*res = r;
	else
		PQclear(r);
	return rc;
}

int
pg_txn_end(struct pg_txn *t, int rc)
{
	if (t->conn == NULL)
		return rc;
	if (rc == 0)
		rc = pg_txn_exec(t, "COMMIT", 0, NULL, NULL);
	else if (!t->broken)
		pg_txn_exec(t, "ROLLBACK", 0, NULL, NULL);
	pgdb_put(t->db, t->conn, t->broken);
	t->conn = NULL;
	return rc;
}

#define HABIT_LOCKED	"SELECT " PG_HABIT_COLUMNS ", window_bits, " \
	"coalesce(encode(ids, 'hex'), '') FROM habit WHERE identity = $1 " \
	"FOR UPDATE"
#define HABIT_LOCK_CLASS "1885430900"	/* the class of habits' advisory locks */

int
pg_habit_lock(struct pg_txn *t, const char *identity, struct habit_state *hs,
    int *found)
{
	char ident[ARRIVAL_TEXT_MAX * 3];
	const char *p[1] = { ident };
	PGresult *res;
	int rc;

	pg_text(ident, sizeof(ident), identity);
	if ((rc = pg_txn_exec(t, HABIT_LOCKED, 1, p, &res)) != 0)
		return rc;
	/*
	 * No row to lock: two transactions would both write the identity's
	 * first habit, the later one over the other's.  The identity's
	 * advisory lock (held to the end of the transaction) puts them one
	 * after the other, and the second reads what the first wrote.
	 */
	if (PQntuples(res) == 0) {
		PQclear(res);
		if ((rc = pg_txn_exec(t, "SELECT pg_advisory_xact_lock("
		    HABIT_LOCK_CLASS ", hashtext($1))", 1, p, NULL)) != 0 ||
		    (rc = pg_txn_exec(t, HABIT_LOCKED, 1, p, &res)) != 0)
			return rc;
	}
	memset(hs, 0, sizeof(*hs));
	if ((*found = PQntuples(res) == 1)) {
		pg_habit_row(res, 0, 0, identity, &hs->h);
		hs->window = (uint32_t)strtoull(PQgetvalue(res, 0, 6), NULL,
		    10);
		pg_unhex(hs->ids, sizeof(hs->ids), PQgetvalue(res, 0, 7));
	}
	snprintf(hs->h.identity, sizeof(hs->h.identity), "%s", identity);
	PQclear(res);
	return 0;
}

int
pg_habit_write(struct pg_txn *t, const struct habit_state *hs)
{
	char ident[ARRIVAL_TEXT_MAX * 3], win[24], num[3][16], tm[2][24],
	    ids[2 * sizeof(hs->ids) + 1];
	const char *p[9];

	pg_text(ident, sizeof(ident), hs->h.identity);
	snprintf(num[0], sizeof(num[0]), "%u", hs->h.recent);
	snprintf(num[1], sizeof(num[1]), "%u", hs->h.recent_signed);
	snprintf(num[2], sizeof(num[2]), "%u", hs->h.run);
	snprintf(win, sizeof(win), "%" PRIu32, hs->window);
	snprintf(tm[0], sizeof(tm[0]), "%lld", (long long)hs->h.first_signed);
	snprintf(tm[1], sizeof(tm[1]), "%lld", (long long)hs->h.last_signed);
	codec_hex(ids, hs->ids, sizeof(hs->ids), 0);
	p[0] = ident;
	p[1] = hs->h.key;
	p[2] = num[0];
	p[3] = num[1];
	p[4] = num[2];
	p[5] = win;
	p[6] = hs->h.first_signed ? tm[0] : NULL;
	p[7] = hs->h.last_signed ? tm[1] : NULL;
	p[8] = ids;
	return pg_txn_exec(t, "INSERT INTO habit VALUES ($1, $2, $3, $4, $5, "
	    "$6, to_timestamp($7), to_timestamp($8), decode($9, 'hex')) ON "
	    "CONFLICT (identity) DO UPDATE SET key = $2, recent = $3, "
	    "recent_signed = $4, run = $5, window_bits = $6, first_signed = "
	    "to_timestamp($7), last_signed = to_timestamp($8), ids = "
	    "decode($9, 'hex')", 9, p, NULL);
}

/* learn - a's patch mail added to its identity's habit, when it adds */
static int
learn(struct batch *b, const struct arrival *a)
{
	struct habit_state hs;
	int rc, found;

	if ((rc = pg_habit_lock(&b->t, a->identity, &hs, &found)) != 0)
		return rc;
	if (!ledger_habit_add(&hs, a))
		return 0;
	return pg_habit_write(&b->t, &hs);
}

/* texts - a's fields as PostgreSQL text, into the params from 4 */
static void
texts(char (*buf)[ARRIVAL_TRAILERS_MAX * 3], const char **p,
    const struct arrival *a)
{
	const char *f[] = { a->envelope_from, a->author, a->identity,
		a->subject, a->list_id, NULL, a->i, a->m, a->p, a->m_core,
		a->patch_id, a->trailers, a->result, a->v01, a->patatt,
		a->key, NULL, a->dkim, a->algo, a->selector, a->offered,
		a->host, a->queue_id };
	size_t i;

	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (f[i] != NULL) {
			pg_text(buf[i], sizeof(buf[i]), f[i]);
			p[4 + i] = buf[i];
		}
	p[9] = a->has_patch ? "t" : "f";
	p[20] = a->signed_trusted ? "t" : "f";
}

/* MSGID_LOCKS - the advisory locks' first key: "patt" */
#define MSGID_LOCKS	"1885434996"

static int
cmp_key(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return (x > y) - (x < y);
}

/*
 * lock_message_ids - the lock of each Message-ID of e[0..n), taken in
 * the order of their keys (the first 4 bytes of its hash: two that share
 * one only take turns)
 */
static int
lock_message_ids(struct batch *b, const struct journal_entry *e, size_t n)
{
	int32_t keys[PG_BATCH_MAX];
	char list[PG_BATCH_MAX * 12 + 3];
	const char *p[1] = { list };
	unsigned char hash[32];
	size_t i, k, m = 0, o = 0;

	for (i = 0; i < n && i < PG_BATCH_MAX; i++) {
		if (ledger_msgid_hash(&e[i].a, hash) != 0) {
			pa_err_set(b->t.err, "%s", pa_strerror(PA_ENOMEM));
			return PA_ENOMEM;
		}
		keys[m++] = (int32_t)bigend_get32(hash);
	}
	qsort(keys, m, sizeof(*keys), cmp_key);
	list[o++] = '{';
	for (k = 0; k < m; k++)
		if (k == 0 || keys[k] != keys[k - 1])
			o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%"
			    PRId32, o > 1 ? "," : "", keys[k]);
	snprintf(list + o, sizeof(list) - o, "}");
	return pg_txn_exec(&b->t, "SELECT pg_advisory_xact_lock("
	    MSGID_LOCKS ", k) FROM unnest($1::integer[]) WITH ORDINALITY AS "
	    "u(k, n) ORDER BY n", 1, p, NULL);
}

/* counts - sql (counted_sql, at_least_sql) with sha and cs */
static int
counts(struct batch *b, const char *sql, const char *sha,
    const struct ledger_copies *cs)
{
	char n[2][16];
	const char *p[3] = { sha, n[0], n[1] };

	snprintf(n[0], sizeof(n[0]), "%u", cs->arrived);
	snprintf(n[1], sizeof(n[1]), "%u", cs->differing);
	return pg_txn_exec(&b->t, sql, 3, p, NULL);
}

/*
 * number - rec numbered as the next copy of its Message-ID (sha: its
 * hash in hex), after imp's before at least, set beside the first kept
 * one (b->first), and counted: whether it is kept (b->kept), or 0 when
 * it was sent before (*dup)
 */
static int
number(struct batch *b, const char *sha, const char *record_id,
    struct arrival *rec, const struct pg_import_put *imp, int *dup)
{
	const char *p[2] = { sha, record_id };
	PGresult *res;
	int rc;

	*dup = 0;
	memset(&b->cs, 0, sizeof(b->cs));
	b->has_first = 0;
	if (!copies_known(rec->message_id_sha256)) {
		b->kept = copies_next(rec, NULL, &b->cs);
		return 0;
	}
	if ((rc = pg_txn_exec(&b->t, copies_sql, 2, p, &res)) != 0)
		return rc;
	*dup = PQntuples(res) != 1 || PQgetvalue(res, 0, 0)[0] != '0';
	if (!*dup) {
		pg_copies_row(res, 0, 1, &b->cs);
		if ((b->has_first = !PQgetisnull(res, 0, 5)))
			pg_arrival_row(res, 0, 5, &b->first);
	}
	PQclear(res);
	if (*dup)
		return 0;
	if (imp != NULL && imp->before > b->cs.arrived)
		b->cs.arrived = imp->before;
	b->kept = copies_next(rec, b->has_first ? &b->first : NULL, &b->cs);
	/* an import's copy not kept is not counted: see above */
	if (rec->copy == 1 || (imp != NULL && !b->kept))
		return 0;
	return counts(b, counted_sql, sha, &b->cs);
}

/* insert - rec, kept, under record_id (sha: its Message-ID's hash) */
static int
insert(struct batch *b, const char *record_id, const char *sha,
    const struct arrival *rec, int *dup)
{
	char msgid[ARRIVAL_MSGID_MAX * 3], when[24], num[3][16];
	const char *p[PARAMS];
	PGresult *res;
	int rc;

	pg_text(msgid, sizeof(msgid), rec->message_id);
	snprintf(when, sizeof(when), "%lld", (long long)rec->arrived);
	snprintf(num[0], sizeof(num[0]), "%u", rec->copy);
	snprintf(num[1], sizeof(num[1]), "%s", rec->differs ? "t" : "f");
	snprintf(num[2], sizeof(num[2]), "%u", rec->parts);
	p[0] = record_id;
	p[1] = msgid;
	p[2] = sha;
	p[3] = when;
	texts(b->text, p, rec);
	p[27] = num[0];
	p[28] = num[1];
	p[29] = num[2];
	if ((rc = pg_txn_exec(&b->t, insert_sql, PARAMS, p, &res)) != 0)
		return rc;
	/* there already: sent before the process ended */
	*dup = PQntuples(res) != 1;
	PQclear(res);
	return 0;
}

/*
 * put - e's record when it is kept, counted, and learnt into its habit
 * (imp: an import's, what came of it in imp->result)
 */
static int
put(struct batch *b, const struct journal_entry *e, struct pg_import_put *imp)
{
	struct arrival *rec = &b->rec;
	unsigned char hash[32];
	char sha[65];
	int rc, dup;

	if (ledger_msgid_hash(&e->a, hash) != 0) {
		pa_err_set(b->t.err, "%s", pa_strerror(PA_ENOMEM));
		return PA_ENOMEM;
	}
	*rec = e->a;
	memcpy(rec->message_id_sha256, hash, sizeof(hash));
	codec_hex(sha, hash, sizeof(hash), 0);
	if ((rc = number(b, sha, e->record_id, rec, imp, &dup)) == 0 &&
	    !dup && b->kept)
		rc = insert(b, e->record_id, sha, rec, &dup);
	if (rc != 0)
		return rc;
	if (imp != NULL) {
		imp->result = dup ? PG_PUT_THERE : b->kept ? PG_PUT_NEW :
		    PG_PUT_UNKEPT;
		return imp->file.arrived > 0 ? counts(b, at_least_sql, sha,
		    &imp->file) : 0;
	}
	if (dup)
		return 0;
	if (rec->copy > 1 && copy_news_add(&b->l->news, rec, b->has_first ?
	    &b->first : NULL, &b->cs, b->kept) != 0) {
		pa_err_set(b->t.err, "%s", pa_strerror(PA_ENOMEM));
		return PA_ENOMEM;
	}
	if (rec->has_patch && rec->identity[0] != '\0')
		return learn(b, rec);
	return 0;
}

/*
 * prune - a bounded number of records older than the retention removed,
 * and the counts of Message-IDs none of whose copies is left
 */
static int
prune(struct batch *b, time_t now)
{
	char cut[24], max[16];
	const char *p[2] = { cut, max };
	PGresult *res;
	int rc, some;

	if (b->l->retention_days == 0)
		return 0;
	snprintf(cut, sizeof(cut), "%lld", (long long)(now -
	    (time_t)b->l->retention_days * DAY));
	snprintf(max, sizeof(max), "%d", PRUNE_MAX);
	if ((rc = pg_txn_exec(&b->t, "DELETE FROM arrival WHERE id IN "
	    "(SELECT id FROM arrival WHERE arrived < to_timestamp($1) LIMIT "
	    "$2)", 2, p, &res)) != 0)
		return rc;
	some = strcmp(PQcmdTuples(res), "0") != 0;
	PQclear(res);
	if (!some)
		return 0;
	return pg_txn_exec(&b->t, "DELETE FROM arrival_copies s WHERE NOT "
	    "EXISTS (SELECT 1 FROM arrival a WHERE a.message_id_sha256 = "
	    "s.message_id_sha256)", 0, NULL, NULL);
}

int
pg_batch_send(struct ledger_pg *l, const struct journal_entry *e, size_t n,
    struct pg_import_put *imp, struct pa_err *err)
{
	struct batch *b;
	size_t i;
	int rc;

	if ((b = calloc(1, sizeof(*b))) == NULL ||
	    (b->text = malloc(TEXT_FIELDS * sizeof(*b->text))) == NULL) {
		free(b);
		pa_err_set(err, "%s", pa_strerror(PA_ENOMEM));
		return PA_ENOMEM;
	}
	b->l = l;
	copy_news_clear(&l->news);
	if ((rc = pg_txn_begin(&b->t, l->db, l->db->timeout_ms * 10,
	    err)) == 0) {
		rc = lock_message_ids(b, e, n);
		for (i = 0; i < n && rc == 0; i++)
			rc = put(b, &e[i], imp != NULL ? &imp[i] : NULL);
		if (rc == 0)
			rc = prune(b, time(NULL));
		rc = pg_txn_end(&b->t, rc);
	}
	free(b->text);
	free(b);
	if (rc == 0)
		copy_news_tell(&l->news);
	else
		copy_news_clear(&l->news);
	return rc;
}
