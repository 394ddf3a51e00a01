/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pg-send.c - the thread that sends the journal's records to
 * StateDatabase (see pg-int.h).
 *
 * A batch (up to BATCH_MAX records, gathered for LEDGER_GATHER_MS) is one
 * transaction: each record inserted unless its record id is there
 * already, the habit of each one inserted updated (the habit's row
 * locked, so two nodes learning one identity at once take turns), records
 * older than the retention removed.  A record's copy number is the
 * Message-ID's highest plus one: the batch first takes a lock on each of
 * its Message-IDs (advisory, for the transaction, in one order so that
 * two batches never wait on each other in a circle), so that two nodes
 * recording one Message-ID at once number their copies in turn.  Only after the commit are the records
 * removed from the journal.  A batch that fails stays, and is tried
 * again after RETRY_SECONDS; the database's own backoff (pg-conn.c) keeps
 * the tries cheap while it is away.  Meanwhile the records put are
 * synced into the journal as they would be sent, LEDGER_GATHER_MS after
 * a batch's first: an outage does not widen what a power loss can take
 * (ledger.h).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base.h"
#include "ledger-codec.h"
#include "ledger-int.h"	/* ledger_msgid_hash() */
#include "pg-int.h"

#define BATCH_MAX	256
#define RETRY_SECONDS	1
#define PRUNE_MAX	256
#define DAY		86400

struct batch {
	struct ledger_pg	*l;
	PGconn			*conn;
	int			 broken;
	unsigned		 timeout_ms;
	struct pa_err		*err;
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

/* exec - sql in b's transaction: 0, or PA_ERROR (b->err says why) */
static int
exec(struct batch *b, const char *sql, int n, const char *const *params,
    PGresult **res)
{
	PGresult *r;
	int rc;

	rc = pgdb_exec(b->l->db, b->conn, sql, n, params, b->timeout_ms, &r,
	    &b->broken, b->err);
	if (res != NULL)
		*res = r;
	else
		PQclear(r);
	return rc;
}

/* learn - a's patch mail added to its identity's habit, when it adds */
static int
learn(struct batch *b, const struct arrival *a)
{
	char ident[ARRIVAL_TEXT_MAX * 3], win[24], num[3][16], t[2][24],
	    ids[2 * sizeof(((struct habit_state *)0)->ids) + 1];
	const char *p[9];
	struct habit_state hs;
	PGresult *res;
	int rc;

	pg_text(ident, sizeof(ident), a->identity);
	p[0] = ident;
	if ((rc = exec(b, "SELECT " PG_HABIT_COLUMNS ", window_bits, "
	    "coalesce(encode(ids, 'hex'), '') FROM habit WHERE identity = $1 "
	    "FOR UPDATE", 1, p, &res)) != 0)
		return rc;
	memset(&hs, 0, sizeof(hs));
	if (PQntuples(res) == 1) {
		pg_habit_row(res, 0, 0, a->identity, &hs.h);
		hs.window = (uint32_t)strtoull(PQgetvalue(res, 0, 6), NULL,
		    10);
		pg_unhex(hs.ids, sizeof(hs.ids), PQgetvalue(res, 0, 7));
	}
	snprintf(hs.h.identity, sizeof(hs.h.identity), "%s", a->identity);
	PQclear(res);
	if (!ledger_habit_add(&hs, a))
		return 0;
	snprintf(num[0], sizeof(num[0]), "%u", hs.h.recent);
	snprintf(num[1], sizeof(num[1]), "%u", hs.h.recent_signed);
	snprintf(num[2], sizeof(num[2]), "%u", hs.h.run);
	snprintf(win, sizeof(win), "%" PRIu32, hs.window);
	snprintf(t[0], sizeof(t[0]), "%lld", (long long)hs.h.first_signed);
	snprintf(t[1], sizeof(t[1]), "%lld", (long long)hs.h.last_signed);
	pg_hex(ids, (const unsigned char *)hs.ids, sizeof(hs.ids));
	p[1] = a->key[0] || hs.h.key[0] ? hs.h.key : "";
	p[2] = num[0];
	p[3] = num[1];
	p[4] = num[2];
	p[5] = win;
	p[6] = hs.h.first_signed ? t[0] : NULL;
	p[7] = hs.h.last_signed ? t[1] : NULL;
	p[8] = ids;
	return exec(b, "INSERT INTO habit VALUES ($1, $2, $3, $4, $5, $6, "
	    "to_timestamp($7), to_timestamp($8), decode($9, 'hex')) ON "
	    "CONFLICT (identity) DO UPDATE SET key = $2, recent = $3, "
	    "recent_signed = $4, run = $5, window_bits = $6, first_signed = "
	    "to_timestamp($7), last_signed = to_timestamp($8), ids = "
	    "decode($9, 'hex')", 9, p, NULL);
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
	int32_t keys[BATCH_MAX];
	char list[BATCH_MAX * 12 + 3];
	const char *p[1] = { list };
	unsigned char hash[32];
	size_t i, k, m = 0, o = 0;

	for (i = 0; i < n && i < BATCH_MAX; i++) {
		if (ledger_msgid_hash(&e[i].a, hash) != 0) {
			pa_err_set(b->err, "%s", pa_strerror(PA_ENOMEM));
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
	return exec(b, "SELECT pg_advisory_xact_lock(" MSGID_LOCKS ", k) "
	    "FROM unnest($1::integer[]) WITH ORDINALITY AS u(k, n) "
	    "ORDER BY n", 1, p, NULL);
}

/*
 * number - rec numbered as the next copy of its Message-ID (sha: its
 * hash in hex), set beside the first kept one (b->first), and counted:
 * whether it is kept (b->kept), or 0 when it was sent before (*dup)
 */
static int
number(struct batch *b, const char *sha, const char *record_id,
    struct arrival *rec, int *dup)
{
	const char *p[3] = { sha, record_id };
	char n[2][16];
	PGresult *res;
	int rc;

	*dup = 0;
	if (!copies_known(rec->message_id_sha256)) {
		memset(&b->cs, 0, sizeof(b->cs));
		b->has_first = 0;
		b->kept = copies_next(rec, NULL, &b->cs);
		return 0;
	}
	if ((rc = exec(b, copies_sql, 2, p, &res)) != 0)
		return rc;
	*dup = PQntuples(res) != 1 || PQgetvalue(res, 0, 0)[0] != '0';
	if (!*dup) {
		pg_copies_row(res, 0, 1, &b->cs);
		if ((b->has_first = !PQgetisnull(res, 0, 5)))
			pg_arrival_row(res, 0, 5, &b->first);
		b->kept = copies_next(rec, b->has_first ? &b->first : NULL,
		    &b->cs);
	}
	PQclear(res);
	if (*dup || rec->copy == 1)
		return 0;
	snprintf(n[0], sizeof(n[0]), "%u", b->cs.arrived);
	snprintf(n[1], sizeof(n[1]), "%u", b->cs.differing);
	p[1] = n[0];
	p[2] = n[1];
	return exec(b, counted_sql, 3, p, NULL);
}

/* put - e's record when it is kept, counted, and learnt into its habit */
static int
put(struct batch *b, const struct journal_entry *e)
{
	char msgid[ARRIVAL_MSGID_MAX * 3], sha[65], when[24], num[3][16];
	struct arrival *rec = &b->rec;
	unsigned char hash[32];
	const char *p[PARAMS];
	PGresult *res;
	int rc, dup;

	if (ledger_msgid_hash(&e->a, hash) != 0) {
		pa_err_set(b->err, "%s", pa_strerror(PA_ENOMEM));
		return PA_ENOMEM;
	}
	*rec = e->a;
	memcpy(rec->message_id_sha256, hash, sizeof(hash));
	pg_hex(sha, hash, sizeof(hash));
	if ((rc = number(b, sha, e->record_id, rec, &dup)) != 0 || dup)
		return rc;
	if (rec->copy > 1 && copy_news_add(&b->l->news, rec, b->has_first ?
	    &b->first : NULL, &b->cs, b->kept) != 0) {
		pa_err_set(b->err, "%s", pa_strerror(PA_ENOMEM));
		return PA_ENOMEM;
	}
	if (b->kept) {
		pg_text(msgid, sizeof(msgid), rec->message_id);
		snprintf(when, sizeof(when), "%lld", (long long)rec->arrived);
		snprintf(num[0], sizeof(num[0]), "%u", rec->copy);
		snprintf(num[1], sizeof(num[1]), "%s", rec->differs ? "t" :
		    "f");
		snprintf(num[2], sizeof(num[2]), "%u", rec->parts);
		p[0] = e->record_id;
		p[1] = msgid;
		p[2] = sha;
		p[3] = when;
		texts(b->text, p, rec);
		p[27] = num[0];
		p[28] = num[1];
		p[29] = num[2];
		if ((rc = exec(b, insert_sql, PARAMS, p, &res)) != 0)
			return rc;
		/* there already: sent before the process ended */
		dup = PQntuples(res) != 1;
		PQclear(res);
		if (dup)
			return 0;
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
	if ((rc = exec(b, "DELETE FROM arrival WHERE id IN (SELECT id FROM "
	    "arrival WHERE arrived < to_timestamp($1) LIMIT $2)", 2, p,
	    &res)) != 0)
		return rc;
	some = strcmp(PQcmdTuples(res), "0") != 0;
	PQclear(res);
	if (!some)
		return 0;
	return exec(b, "DELETE FROM arrival_copies s WHERE NOT EXISTS "
	    "(SELECT 1 FROM arrival a WHERE a.message_id_sha256 = "
	    "s.message_id_sha256)", 0, NULL, NULL);
}

/* send_batch - the n entries of e in one transaction: 0, or PA_ERROR */
static int
send_batch(struct ledger_pg *l, const struct journal_entry *e, size_t n,
    struct pa_err *err)
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
	b->timeout_ms = l->db->timeout_ms * 10;
	b->err = err;
	copy_news_clear(&l->news);
	if ((rc = pgdb_get(l->db, &b->conn, err)) != 0) {
		free(b->text);
		free(b);
		return rc;
	}
	rc = exec(b, "BEGIN", 0, NULL, NULL);
	if (rc == 0)
		rc = lock_message_ids(b, e, n);
	for (i = 0; i < n && rc == 0; i++)
		rc = put(b, &e[i]);
	if (rc == 0)
		rc = prune(b, time(NULL));
	if (rc == 0)
		rc = exec(b, "COMMIT", 0, NULL, NULL);
	else if (!b->broken)
		exec(b, "ROLLBACK", 0, NULL, NULL);
	pgdb_put(l->db, b->conn, b->broken);
	free(b->text);
	free(b);
	if (rc == 0)
		copy_news_tell(&l->news);
	else
		copy_news_clear(&l->news);
	return rc;
}

/* deadline - ms from now on the clock of the condition variables */
static void
deadline(struct timespec *until, long ms)
{
	clock_gettime(CLOCK_REALTIME, until);
	until->tv_sec += ms / 1000;
	until->tv_nsec += (ms % 1000) * 1000000L;
	if (until->tv_nsec >= 1000000000L) {
		until->tv_sec++;
		until->tv_nsec -= 1000000000L;
	}
}

/* gather - with l->lock held, let a batch gather for LEDGER_GATHER_MS */
static void
gather(struct ledger_pg *l)
{
	struct timespec until;

	deadline(&until, LEDGER_GATHER_MS);
	while (!l->stopping && l->hurry == 0 &&
	    pthread_cond_timedwait(&l->wake, &l->lock, &until) != ETIMEDOUT)
		;
}

/*
 * await_retry - with l->lock held, after a batch failed: RETRY_SECONDS,
 * or less when a ledger_sync() comes or the store closes; each batch put
 * meanwhile synced into the journal LEDGER_GATHER_MS after its first
 */
static void
await_retry(struct ledger_pg *l)
{
	struct timespec until, now;
	struct pa_err err;
	uint64_t synced = 0;	/* some put after the take may not be */
	unsigned hurry = l->hurry;
	int rc;

	deadline(&until, RETRY_SECONDS * 1000);
	while (!l->stopping && l->hurry <= hurry &&
	    clock_gettime(CLOCK_REALTIME, &now) == 0 &&
	    (now.tv_sec < until.tv_sec || (now.tv_sec == until.tv_sec &&
	    now.tv_nsec < until.tv_nsec))) {
		if (l->put_seq == synced) {
			if (pthread_cond_timedwait(&l->wake, &l->lock,
			    &until) == ETIMEDOUT)
				break;
			continue;
		}
		gather(l);
		synced = l->put_seq;	/* each put before it is committed */
		pthread_mutex_unlock(&l->lock);
		rc = journal_sync(l->journal, &err);
		pthread_mutex_lock(&l->lock);
		if (rc != 0) {
			l->failures++;
			l->fault = err;
			pthread_cond_broadcast(&l->done);
			break;
		}
	}
}

/* send_once - one batch from the journal (l->lock not held): n sent */
static int
send_once(struct ledger_pg *l, struct journal_entry *e, size_t *n)
{
	struct pa_err err;
	uint64_t before;
	int rc;

	pthread_mutex_lock(&l->lock);
	before = l->put_seq;	/* all put by now are in what is taken */
	pthread_mutex_unlock(&l->lock);
	if ((rc = journal_take(l->journal, e, BATCH_MAX, n, &err)) == 0 &&
	    *n > 0 && (rc = send_batch(l, e, *n, &err)) == 0)
		rc = journal_remove(l->journal, e, *n, &err);
	pthread_mutex_lock(&l->lock);
	if (rc == 0) {
		if (*n > 0)
			l->sent_seq = e[*n - 1].seq;
		else	/* nothing left: all put before the take is sent */
			l->sent_seq = before;
	} else {
		l->failures++;
		l->fault = err;
	}
	pthread_cond_broadcast(&l->done);
	pthread_mutex_unlock(&l->lock);
	return rc;
}

static void *
sender(void *arg)
{
	struct ledger_pg *l = arg;
	struct journal_entry *e;
	size_t n;
	int rc;

	if ((e = malloc(BATCH_MAX * sizeof(*e))) == NULL)
		return NULL;
	for (;;) {
		rc = send_once(l, e, &n);
		pthread_mutex_lock(&l->lock);
		if (l->stopping) {
			pthread_mutex_unlock(&l->lock);
			break;
		}
		if (rc != 0)
			await_retry(l);
		else if (n < BATCH_MAX) {
			/* idle until a record comes, then let a batch gather */
			while (!l->stopping && l->sent_seq >= l->put_seq &&
			    l->hurry == 0)
				pthread_cond_wait(&l->wake, &l->lock);
			gather(l);
		}
		pthread_mutex_unlock(&l->lock);
	}
	free(e);
	return NULL;
}

int
pg_sender_start(struct ledger_pg *l, struct pa_err *err)
{
	int rc;

	if ((rc = pthread_create(&l->sender, NULL, sender, l)) != 0) {
		pa_err_set(err, "cannot start the sender of the arrival "
		    "records: %s", strerror(rc));
		return PA_ERROR;
	}
	l->sender_running = 1;
	return 0;
}

/*
 * pg_sender_stop - the sender ended after one more batch; what is not sent
 * stays in the journal for the next start
 */
void
pg_sender_stop(struct ledger_pg *l)
{
	if (!l->sender_running)
		return;
	pthread_mutex_lock(&l->lock);
	l->stopping = 1;
	pthread_cond_signal(&l->wake);
	pthread_mutex_unlock(&l->lock);
	pthread_join(l->sender, NULL);
	l->sender_running = 0;
}
