/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pg-send.c - the thread that sends the journal's records to
 * StateDatabase (see pg-int.h).
 *
 * A batch (up to PG_BATCH_MAX records, gathered for LEDGER_GATHER_MS) is
 * one transaction (pg-batch.c).  Only after the commit are the records
 * removed from the journal.  A batch that fails stays, and is tried
 * again after RETRY_SECONDS; the database's own backoff (pg-conn.c) keeps
 * the tries cheap while it is away.  Meanwhile the records put are
 * synced into the journal as they would be sent, LEDGER_GATHER_MS after
 * a batch's first: an outage does not widen what a power loss can take
 * (ledger.h).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pg-int.h"

#define RETRY_SECONDS	1

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
	if ((rc = journal_take(l->journal, e, PG_BATCH_MAX, n, &err)) == 0 &&
	    *n > 0 && (rc = pg_batch_send(l, e, *n, NULL, &err)) == 0)
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

	if ((e = malloc(PG_BATCH_MAX * sizeof(*e))) == NULL)
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
		else if (n < PG_BATCH_MAX) {
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
