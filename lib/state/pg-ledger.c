/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pg-ledger.c - the arrival records and signing habits in StateDatabase
 * (see ledger.h and pg-int.h): opening, closing, and ledger_record(),
 * which puts the record into the local journal and wakes the sender
 * (pg-send.c).  No message waits on the database for its record.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg-int.h"

static int
record(struct ledger *base, const struct arrival *a, struct pa_err *err)
{
	struct ledger_pg *l = pg_ledger(base);
	uint64_t seq;
	int rc;

	if (l->journal == NULL) {
		pa_err_set(err, "the arrival records in the state database "
		    "are open for reading only");
		return PA_ERROR;
	}
	if ((rc = journal_put(l->journal, a, &seq, err)) != 0)
		return rc;
	pthread_mutex_lock(&l->lock);
	l->put_seq = seq;
	pthread_cond_signal(&l->wake);
	pthread_mutex_unlock(&l->lock);
	return 0;
}

static int
sync_sent(struct ledger *base, struct pa_err *err)
{
	struct ledger_pg *l = pg_ledger(base);
	uint64_t failures;
	int rc = 0;

	if (l->journal == NULL)
		return 0;
	pthread_mutex_lock(&l->lock);
	failures = l->failures;
	l->hurry++;
	pthread_cond_signal(&l->wake);
	while (l->sent_seq < l->put_seq && l->failures == failures)
		pthread_cond_wait(&l->done, &l->lock);
	l->hurry--;
	if (l->sent_seq < l->put_seq) {
		pa_err_set(err, "%s; the records wait in the journal",
		    l->fault.msg);
		rc = PA_ERROR;
	}
	pthread_mutex_unlock(&l->lock);
	return rc;
}

/* pending - the records put into the journal and not yet sent */
static size_t
pending(struct ledger *base)
{
	struct ledger_pg *l = pg_ledger(base);
	uint64_t n;

	pthread_mutex_lock(&l->lock);
	n = l->put_seq > l->sent_seq ? l->put_seq - l->sent_seq : 0;
	pthread_mutex_unlock(&l->lock);
	return (size_t)n;
}

static void
close_ledger(struct ledger *base)
{
	struct ledger_pg *l = pg_ledger(base);

	pg_sender_stop(l);
	journal_close(l->journal);
	pgdb_free(l->db);
	pthread_cond_destroy(&l->done);
	pthread_cond_destroy(&l->wake);
	pthread_mutex_destroy(&l->lock);
	copy_news_release(&l->news);
	free(l);
}

static void
watch(struct ledger *base, void (*fn)(void *, const struct ledger_copy_event *),
    void *arg)
{
	struct ledger_pg *l = pg_ledger(base);

	copy_news_watch(&l->news, fn, arg);
}

static const struct ledger_ops pg_ops = {
	.record = record,
	.sync = sync_sent,
	.pending = pending,
	.by_message_id = pg_ledger_by_message_id,
	.by_patch_id = pg_ledger_by_patch_id,
	.each = pg_ledger_each,
	.habit = pg_ledger_habit,
	.lookup = pg_ledger_lookup,
	.copies = pg_ledger_copies,
	.watch = watch,
	.close = close_ledger,
	.local = 0
};

/* journal_path - STATEFILE-outbox into out */
static int
journal_path(char *out, size_t size, const char *state_file,
    struct pa_err *err)
{
	if ((size_t)snprintf(out, size, "%s-outbox", state_file) < size)
		return 0;
	pa_err_set(err, "StateFile's path is too long");
	return PA_ERROR;
}

int
statedb_journal_check(const struct pa_config *cf, struct pa_err *err)
{
	char path[4096];

	if (cf->state_database == NULL || cf->state_file == NULL)
		return 0;
	if (journal_path(path, sizeof(path), cf->state_file, err) != 0)
		return PA_ERROR;
	return journal_check(path, err);
}

int
pg_ledger_open(struct ledger **out, const struct pa_config *cf,
    int writable, const struct statedb_notice *notice, struct pa_err *err)
{
	struct ledger_pg *l;
	char path[4096];
	int rc;

	*out = NULL;
	if ((l = calloc(1, sizeof(*l))) == NULL) {
		pa_err_set(err, "%s", pa_strerror(PA_ENOMEM));
		return PA_ENOMEM;
	}
	l->base.ops = &pg_ops;
	l->retention_days = (unsigned)cf->arrival_retention_days;
	copy_news_init(&l->news);
	pthread_mutex_init(&l->lock, NULL);
	pthread_cond_init(&l->wake, NULL);
	pthread_cond_init(&l->done, NULL);
	if ((rc = pgdb_new(&l->db, cf, writable, notice, err)) == 0 && writable &&
	    (rc = journal_path(path, sizeof(path), cf->state_file,
	    err)) == 0 && (rc = journal_open(&l->journal, path, notice,
	    err)) == 0) {
		/* what an earlier run left is waiting already */
		journal_left(l->journal, &l->put_seq, &l->sent_seq);
		rc = pg_sender_start(l, err);
	}
	if (rc != 0) {
		close_ledger(&l->base);
		return rc;
	}
	*out = &l->base;
	return 0;
}
