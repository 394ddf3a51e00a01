/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pg-import.c - a node's files brought into StateDatabase (statedb.h's
 * statedb_import(), "patchattest db import"): its first-use pins, its
 * signing habits and its arrival records, read through pins.h and
 * ledger.h, each read in a short read transaction of its own, as
 * patchattest stats reads them, so that the milter writing them is not
 * held up; written through the database's stores.
 *
 * Each part may be brought again, from any node, and from several at
 * once; what is there already stays:
 * - a pin is made as a first use makes it (pins_first_use(), the
 *   database's key constraint deciding), with the file's time;
 * - a habit is merged into the identity's in a transaction that locks
 *   its row (ledger_habit_merge()), which leaves a habit merged before
 *   as it is;
 * - the records go a batch at a time through pg_batch_send(), as the
 *   milter's do, each under a record id made of what it holds: a second
 *   import finds it there (those of a batch looked for in one statement
 *   first, so that it goes as fast as it reads).  They are read in time
 *   order, PG_BATCH_MAX at a time, each read going on from the second
 *   the last one stopped in (those of that second already taken are
 *   known by their record ids).
 * The pins and the habits come first: they are few, and what mail is
 * judged by.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base.h"
#include "ledger-codec.h"
#include "ledger-int.h"	/* ledger_msgid_hash() */
#include "pg-int.h"

#define HABITS_CHUNK	64
#define DAY		86400
#define TIME_END	((time_t)(sizeof(time_t) == 8 ? INT64_MAX : INT32_MAX))

struct import {
	struct statedb_import	*im;
	struct ledger_pg	*db;
	struct pins		*pins;		/* the database's */
	struct ledger		*file;		/* StateFile */
	unsigned		 retention_days;
	struct pa_err		*err;
};

static int
nomem(struct pa_err *err)
{
	pa_err_set(err, "%s", pa_strerror(PA_ENOMEM));
	return PA_ENOMEM;
}

/* The pins of the file, read whole: they are few. */
struct pin_list {
	struct pin	*p;
	size_t		 n, alloc;
};

static int
take_pin(void *arg, const struct pin *p)
{
	struct pin_list *pl = arg;

	if (GROW(pl->p, pl->n, pl->alloc, 64, SIZE_MAX) != 0)
		return PA_ENOMEM;
	pl->p[pl->n++] = *p;
	return 0;
}

/* pin_seen - what a first use of p would see, read without a write */
static int
pin_seen(struct import *x, const struct pin *p, enum pin_seen *seen,
    struct pin *there)
{
	int rc;

	if ((rc = pins_get(x->pins, p->identity, there, x->err)) == 0)
		*seen = strcmp(there->key, p->key) == 0 ? PIN_SAME : PIN_OTHER;
	else if (rc == PA_ENOTFOUND)
		*seen = PIN_NEW;
	return rc == PA_ENOTFOUND ? 0 : rc;
}

/* import_pins - the pins of pins_file: each made, there, or told */
static int
import_pins(struct import *x)
{
	struct statedb_import *im = x->im;
	struct pin_list pl = { NULL, 0, 0 };
	struct pins *fp;
	struct pin there;
	enum pin_seen seen;
	size_t i;
	int rc;

	if (im->pins_file == NULL)
		return 0;
	if ((rc = pins_open(&fp, im->pins_file, 0, 0, x->err)) != 0) {
		im->no_pins_file = rc == PA_ENOTFOUND;
		return rc == PA_ENOTFOUND ? 0 : rc;
	}
	if ((rc = pins_each(fp, take_pin, &pl, x->err)) == PA_ENOMEM)
		nomem(x->err);
	pins_close(fp);
	for (i = 0; i < pl.n && rc == 0; i++) {
		im->pins++;
		rc = im->dry_run ? pin_seen(x, &pl.p[i], &seen, &there) :
		    pins_first_use(x->pins, pl.p[i].identity, pl.p[i].key,
		    pl.p[i].since, &seen, &there, x->err);
		if (rc == PA_ENOTFOUND) {	/* not a pin the file can hold */
			pa_err_set(x->err, "the first-use pins at %s: a pin "
			    "the database refuses (damaged?)", im->pins_file);
			rc = PA_ERROR;
		}
		if (rc != 0)
			break;
		if (seen == PIN_NEW)
			im->pins_new++;
		else if (seen == PIN_SAME)
			im->pins_there++;
		else {
			im->pins_other++;
			if (im->conflict != NULL)
				im->conflict(im->arg, &there, &pl.p[i]);
		}
	}
	free(pl.p);
	return rc;
}

/* The habits of one read: the identities after the last one. */
struct habit_chunk {
	struct habit_state	 h[HABITS_CHUNK];
	unsigned char		 damaged[HABITS_CHUNK];
	size_t			 n;
};

static int
take_habit(void *arg, const char *identity, const struct habit_state *hs)
{
	struct habit_chunk *c = arg;

	if (c->n == HABITS_CHUNK)
		return 1;	/* read again after the last one taken */
	memset(&c->h[c->n], 0, sizeof(c->h[c->n]));
	if (hs != NULL)
		c->h[c->n] = *hs;
	snprintf(c->h[c->n].h.identity, sizeof(c->h[c->n].h.identity), "%s",
	    identity);
	c->damaged[c->n++] = hs == NULL;
	return 0;
}

/* merge_habit - from merged into the database's habit of its identity */
static int
merge_habit(struct import *x, const struct habit_state *from)
{
	struct statedb_import *im = x->im;
	struct habit_state hs;
	struct pg_txn t;
	int rc, found, changed = 0;

	if ((rc = pg_txn_begin(&t, x->db->db, x->db->db->timeout_ms * 10,
	    x->err)) != 0)
		return rc;
	if ((rc = pg_habit_lock(&t, from->h.identity, &hs, &found)) == 0 &&
	    (changed = ledger_habit_merge(&hs, from)) && !im->dry_run)
		rc = pg_habit_write(&t, &hs);
	if ((rc = pg_txn_end(&t, rc)) != 0)
		return rc;
	if (!found)
		im->habits_new++;
	else if (changed)
		im->habits_merged++;
	else
		im->habits_there++;
	return 0;
}

/* import_habits - each habit of the file merged into the database */
static int
import_habits(struct import *x)
{
	struct habit_chunk *c;
	char after[ARRIVAL_TEXT_MAX] = "";
	size_t i;
	int rc;

	if ((c = malloc(sizeof(*c))) == NULL)
		return nomem(x->err);
	do {
		c->n = 0;
		if ((rc = ledger_habit_states(x->file, after, take_habit, c,
		    x->err)) < 0)
			break;
		rc = 0;
		for (i = 0; i < c->n && rc == 0; i++) {
			x->im->habits++;
			if (c->damaged[i])
				x->im->habits_damaged++;
			else
				rc = merge_habit(x, &c->h[i]);
		}
		if (c->n > 0)
			memcpy(after, c->h[c->n - 1].h.identity, sizeof(after));
	} while (rc == 0 && c->n == HABITS_CHUNK);
	free(c);
	return rc;
}

/*
 * record_id - the record id of a, made of what it holds (the store sets
 * differs and parts again): the same record brought from any node, by
 * any version that reads the same, is the same
 */
static int
record_id(char out[33], const struct arrival *a)
{
	const char *text[] = { a->message_id, a->envelope_from, a->author,
		a->identity, a->subject, a->list_id, a->i, a->m, a->p,
		a->m_core, a->patch_id, a->trailers, a->result, a->v01,
		a->patatt, a->key, a->dkim, a->algo, a->selector, a->offered,
		a->host, a->queue_id };
	static const char tag[] = "patchattest import 1";
	unsigned char hash[32], num[8], sum[DIGEST_LEN];
	struct digest d;
	size_t i, len;
	int rc;

	if (ledger_msgid_hash(a, hash) != 0)
		return PA_ENOMEM;
	digest_init(&d);
	digest_update(&d, tag, sizeof(tag));
	digest_update(&d, hash, sizeof(hash));
	bigend_put64(num, (uint64_t)(int64_t)a->arrived);
	digest_update(&d, num, 8);
	bigend_put32(num, a->copy);
	bigend_put32(num + 4, (uint32_t)(a->has_patch != 0) << 1 |
	    (uint32_t)(a->signed_trusted != 0));
	digest_update(&d, num, 8);
	for (i = 0; i < sizeof(text) / sizeof(text[0]); i++) {
		len = strlen(text[i]);
		bigend_put32(num, (uint32_t)len);
		digest_update(&d, num, 4);
		digest_update(&d, text[i], len);
	}
	rc = digest_final(&d, sum);
	digest_release(&d);
	if (rc != 0)
		return PA_ENOMEM;
	codec_hex(out, sum, 16, 0);
	return 0;
}

/*
 * One read of records: from the second since on, those of it already
 * taken (skip, their record ids, sorted) passed, up to PG_BATCH_MAX.
 */
struct chunk {
	time_t			 since;
	char			(*skip)[33];
	size_t			 nskip, askip;
	struct journal_entry	*e;
	struct pg_import_put	*imp;
	size_t			 n;
};

static int
cmp_id(const void *a, const void *b)
{
	return memcmp(a, b, 33);
}

static int
take_record(void *arg, const struct arrival *a)
{
	struct chunk *c = arg;
	struct journal_entry *e;

	if (c->n == PG_BATCH_MAX)
		return 1;
	e = &c->e[c->n];
	if (record_id(e->record_id, a) != 0)
		return PA_ENOMEM;
	if (a->arrived == c->since && c->nskip > 0 && bsearch(e->record_id,
	    c->skip, c->nskip, sizeof(*c->skip), cmp_id) != NULL)
		return 0;
	e->seq = 0;
	e->a = *a;
	c->n++;
	return 0;
}

/*
 * advance - c->since the second of c's last record, the record ids taken
 * of it in c->skip
 */
static int
advance(struct chunk *c)
{
	time_t last = c->e[c->n - 1].a.arrived;
	size_t i;

	if (last != c->since)
		c->nskip = 0;
	c->since = last;
	for (i = 0; i < c->n; i++)
		if (c->e[i].a.arrived == last) {
			if (GROW(c->skip, c->nskip, c->askip, 64, SIZE_MAX) != 0)
				return PA_ENOMEM;
			memcpy(c->skip[c->nskip++], c->e[i].record_id, 33);
		}
	qsort(c->skip, c->nskip, sizeof(*c->skip), cmp_id);
	return 0;
}

/* count - one more record (arg: a uint64_t) */
static int
count(void *arg, const struct arrival *a)
{
	(void)a;
	(*(uint64_t *)arg)++;
	return 0;
}

static int
top_copy(void *arg, const struct arrival *a)
{
	unsigned *top = arg;

	if (a->copy > *top)
		*top = a->copy;
	return 0;
}

/*
 * file_counts - into *out, the file's count of the copies of a's
 * Message-ID when a is the last copy it keeps and it counted more (the
 * copies only counted are then brought with a), else zero
 */
static int
file_counts(struct import *x, const struct arrival *a,
    struct ledger_copies *out)
{
	struct ledger_copies cs;
	unsigned top = 0;
	size_t len = strlen(a->message_id);
	int rc;

	memset(out, 0, sizeof(*out));
	if (a->copy < LEDGER_COPIES_KEPT)
		return 0;	/* the first ones are all kept */
	if ((rc = ledger_copies(x->file, a->message_id, len, &cs,
	    x->err)) == PA_ENOTFOUND || (rc == 0 && cs.arrived <= cs.kept))
		return 0;
	if (rc == 0 && (rc = ledger_by_message_id_bytes(x->file,
	    a->message_id, len, top_copy, &top, x->err)) == PA_ENOTFOUND)
		rc = 0;
	if (rc == 0 && top == a->copy)
		*out = cs;
	return rc;
}

/*
 * known - the records of c the database holds marked PG_PUT_THERE, in
 * one statement, so that a second import goes as fast as it reads
 */
static int
known(struct import *x, struct chunk *c)
{
	char list[PG_BATCH_MAX * 33 + 3];
	const char *p[1] = { list };
	PGresult *res;
	size_t i, o = 0;
	int k, rc;

	list[o++] = '{';
	for (i = 0; i < c->n; i++) {
		memcpy(list + o, c->e[i].record_id, 32);
		o += 32;
		list[o++] = i + 1 < c->n ? ',' : '}';
		c->imp[i].result = PG_PUT_NEW;
	}
	list[o] = '\0';
	if ((rc = pgdb_query(x->db->db, "SELECT record_id FROM arrival "
	    "WHERE record_id = ANY($1::text[])", 1, p, &res, x->err)) != 0)
		return rc;
	for (k = 0; k < PQntuples(res); k++)
		for (i = 0; i < c->n; i++)
			if (strcmp(PQgetvalue(res, k, 0),
			    c->e[i].record_id) == 0)
				c->imp[i].result = PG_PUT_THERE;
	PQclear(res);
	return 0;
}

/*
 * send - the records of c not in the database written (or, dry, none),
 * and each counted; a copy that brings the file's counts goes in either
 * case (the file may have counted more since)
 */
static int
send(struct import *x, struct chunk *c)
{
	struct statedb_import *im = x->im;
	size_t i, n = 0;
	int rc;

	if ((rc = known(x, c)) != 0)
		return rc;
	im->records += c->n;
	for (i = 0; i < c->n; i++) {
		c->imp[i].before = c->e[i].a.copy > 0 ? c->e[i].a.copy - 1 : 0;
		if ((rc = file_counts(x, &c->e[i].a, &c->imp[i].file)) != 0)
			return rc;
		if (c->imp[i].result == PG_PUT_THERE &&
		    c->imp[i].file.arrived == 0)
			im->there++;
		else if (im->dry_run)
			*(c->imp[i].result == PG_PUT_NEW ? &im->imported :
			    &im->there) += 1;
		else {
			c->e[n] = c->e[i];
			c->imp[n++] = c->imp[i];
		}
	}
	if (n == 0)
		return 0;
	if ((rc = pg_batch_send(x->db, c->e, n, c->imp, x->err)) != 0)
		return rc;
	for (i = 0; i < n; i++)
		if (c->imp[i].result == PG_PUT_NEW)
			im->imported++;
		else if (c->imp[i].result == PG_PUT_THERE)
			im->there++;
		else
			im->unkept++;
	return 0;
}

/* import_records - the file's records since the retention, in order */
static int
import_records(struct import *x)
{
	struct chunk c;
	time_t cut = 0;
	int rc;

	memset(&c, 0, sizeof(c));
	if (x->retention_days > 0) {
		cut = time(NULL) - (time_t)x->retention_days * DAY;
		if ((rc = ledger_each(x->file, 0, cut, count, &x->im->too_old,
		    x->err)) != 0)
			return rc;
	}
	c.since = cut;
	if ((c.e = malloc(PG_BATCH_MAX * sizeof(*c.e))) == NULL ||
	    (c.imp = calloc(PG_BATCH_MAX, sizeof(*c.imp))) == NULL) {
		free(c.e);
		return nomem(x->err);
	}
	do {
		c.n = 0;
		if ((rc = ledger_each(x->file, c.since, TIME_END, take_record,
		    &c, x->err)) < 0) {
			if (rc == PA_ENOMEM)
				nomem(x->err);
			break;
		}
		rc = 0;
		if (c.n == 0)
			break;
		/* the chunk's read is done with before it is sent */
		if (advance(&c) != 0)
			rc = nomem(x->err);
		else
			rc = send(x, &c);
	} while (rc == 0 && c.n == PG_BATCH_MAX);
	free(c.skip);
	free(c.imp);
	free(c.e);
	return rc;
}

int
statedb_import(const struct pa_config *cf, struct statedb_import *im,
    struct pa_err *err)
{
	struct import x = { .im = im, .err = err,
	    .retention_days = (unsigned)cf->arrival_retention_days };
	struct pa_config writer;
	struct ledger *db = NULL;
	int rc, version;

	/* a file that is not there is said before anything is written */
	if (im->state_file != NULL && (rc = ledger_open(&x.file,
	    im->state_file, 0, 0, 0, 0, err)) != 0)
		return rc;
	if ((rc = statedb_status(cf, &version, err)) != 0) {
		rc = rc == PA_ENOTFOUND ? PA_ERROR : rc;
		goto out;
	}
	/* the import writes: never through the role that may only read
	   (a ledger not writable would take StateDatabaseReader) */
	writer = *cf;
	writer.state_database_reader = NULL;
	if ((rc = pg_ledger_open(&db, &writer, 0, NULL, err)) != 0 ||
	    (rc = pg_pins_open(&x.pins, cf, 1, NULL, err)) != 0)
		goto out;
	x.db = pg_ledger(db);
	if ((rc = import_pins(&x)) == 0 && x.file != NULL &&
	    (rc = import_habits(&x)) == 0)
		rc = import_records(&x);
out:
	ledger_close(x.file);
	pins_close(x.pins);
	ledger_close(db);
	return rc;
}
