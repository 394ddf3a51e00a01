/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ledger-write.c - the queue of arrival records and the one thread that
 * writes it (ledger.h says what the callers see).
 *
 * ledger_record() copies the record into a ring of LEDGER_QUEUE_MAX and
 * wakes the writer, which lets a batch gather for LEDGER_GATHER_MS (or
 * until GATHER_MAX records, a ledger_sync() or the close), then commits
 * it in one transaction (ledger_commit(); the file is opened MDB_NOSYNC and
 * synced once per batch): a sync per message would compete with the
 * MTA's own for the disk.  Records leave the ring only once committed: a commit that
 * fails keeps them and is tried again RETRY_SECONDS later, so that a
 * full disk costs no record until the ring is full, and the records
 * are written once when space returns.  While the ring is full,
 * ledger_record() refuses, saying why the writes fail.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ledger-int.h"

#define RETRY_SECONDS	1
#define GATHER_MAX	(LEDGER_QUEUE_MAX / 4)
/*
 * Records written are kept for the next ones, up to SPARE_MAX (2.7 MiB):
 * freed, a batch's worth of them went back to the allocator, which gave
 * the pages back to the system, and each record then faulted in new ones.
 */
#define SPARE_MAX	(GATHER_MAX / 2)

static void	*writer(void *);
static void	 drop(struct ledger_lmdb *, size_t);
static int	 write_batch(struct ledger_lmdb *);

int
ledger_writer_start(struct ledger_lmdb *l, struct pa_err *err)
{
	MDB_txn *txn;
	int rc;

	if ((l->queue = malloc(LEDGER_QUEUE_MAX * sizeof(*l->queue))) ==
	    NULL || (l->spare = malloc(SPARE_MAX * sizeof(*l->spare))) ==
	    NULL) {
		pa_err_set(err, "%s", pa_strerror(PA_ENOMEM));
		return PA_ENOMEM;
	}
	if ((rc = ledger_txn_begin(l, MDB_RDONLY, &txn)) == 0)
		rc = ledger_meta_get(l, txn, LEDGER_META_ACCEPTED,
		    &l->accepted);
	ledger_txn_end(l, txn);
	if (rc != 0)
		return ledger_fail(l, err, "opening", rc);
	if ((rc = pthread_create(&l->writer, NULL, writer, l)) != 0) {
		pa_err_set(err, "cannot start the writer of the arrival "
		    "records at %s: %s", l->path, strerror(rc));
		return PA_ERROR;
	}
	l->writer_running = 1;
	return 0;
}

/*
 * drop - the first n records of the queue kept as spares or freed (their
 * places not given up)
 */
static void
drop(struct ledger_lmdb *l, size_t n)
{
	struct arrival **slot;
	size_t i;

	for (i = 0; i < n; i++) {
		slot = &l->queue[(l->head + i) % LEDGER_QUEUE_MAX];
		if (l->nspare < SPARE_MAX)
			l->spare[l->nspare++] = *slot;
		else
			free(*slot);
		*slot = NULL;
	}
}

/*
 * ledger_writer_stop - the writer commits what is queued, with one more
 * try when writes fail (what is still queued then is lost), and ends
 */
void
ledger_writer_stop(struct ledger_lmdb *l)
{
	if (l->writer_running) {
		pthread_mutex_lock(&l->lock);
		l->stopping = 1;
		pthread_cond_signal(&l->wake);
		pthread_mutex_unlock(&l->lock);
		pthread_join(l->writer, NULL);
		l->writer_running = 0;
	}
	if (l->queue != NULL)
		drop(l, l->count);
	while (l->nspare > 0)
		free(l->spare[--l->nspare]);
	free(l->spare);
	l->spare = NULL;
	free(l->queue);
	l->queue = NULL;
}

/*
 * gather - with l->lock held, wait while a batch gathers: LEDGER_GATHER_MS
 * from now, or until it has GATHER_MAX records, a ledger_sync() waits for
 * it or the store closes
 */
static void
gather(struct ledger_lmdb *l)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_nsec += LEDGER_GATHER_MS * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	while (l->count < GATHER_MAX && l->hurry == 0 && !l->stopping &&
	    pthread_cond_timedwait(&l->wake, &l->lock, &until) != ETIMEDOUT)
		;
}

/* writer - the writer thread: a batch whenever records are queued */
static void *
writer(void *arg)
{
	struct ledger_lmdb *l = arg;
	struct timespec until;

	pthread_mutex_lock(&l->lock);
	for (;;) {
		while (l->count == 0 && !l->stopping)
			pthread_cond_wait(&l->wake, &l->lock);
		if (l->count == 0)
			break;
		gather(l);
		if (write_batch(l) == 0 || l->stopping)
			continue;
		/* back off; records queued meanwhile wait for the retry */
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += RETRY_SECONDS;
		while (!l->stopping && pthread_cond_timedwait(&l->wake,
		    &l->lock, &until) != ETIMEDOUT)
			;
	}
	pthread_mutex_unlock(&l->lock);
	return NULL;
}

/*
 * write_batch - what is queued committed, called and returning with
 * l->lock held (let go while the transaction runs: the records it
 * reads stay where they are until it ends, and others are added
 * behind them): 0, or PA_ERROR with l->fault saying why
 */
static int
write_batch(struct ledger_lmdb *l)
{
	struct pa_err err;
	size_t head = l->head, n = l->count;
	uint64_t accepted = l->accepted;
	int rc, stopping = l->stopping;

	pthread_mutex_unlock(&l->lock);
	mapguard_catch(&l->damaged);
	rc = ledger_commit(l, head, n, accepted, time(NULL), &err);
	if (rc == MDB_MAP_FULL && ledger_grow(l) == 0)
		rc = ledger_commit(l, head, n, accepted, time(NULL), &err);
	mapguard_catch(NULL);
	if (rc == 0)
		copy_news_tell(&l->news);
	pthread_mutex_lock(&l->lock);
	if (rc != 0 && !stopping) {
		l->failures++;
		l->fault = err;
		pthread_cond_broadcast(&l->done);
		return PA_ERROR;
	}
	/* done, or given up on as the store closes */
	drop(l, n);
	l->head = (head + n) % LEDGER_QUEUE_MAX;
	l->count -= n;
	l->accepted += n;
	if (rc == 0) {
		l->committed += n;
		l->fault.msg[0] = '\0';
	}
	pthread_cond_broadcast(&l->done);
	return rc == 0 ? 0 : PA_ERROR;
}

int
lmdb_ledger_record(struct ledger *base, const struct arrival *a,
    struct pa_err *err)
{
	struct ledger_lmdb *l = lmdb_ledger(base);
	unsigned char hash[32];
	struct arrival *q;
	size_t waiting;

	if (l->queue == NULL) {
		pa_err_set(err, "the arrival records at %s are open for "
		    "reading only", l->path);
		return PA_ERROR;
	}
	/* so that a read finds it by the hash while it waits */
	if (ledger_msgid_hash(a, hash) != 0) {
		pa_err_set(err, "%s", pa_strerror(PA_ENOMEM));
		return PA_ENOMEM;
	}
	pthread_mutex_lock(&l->lock);
	if ((waiting = l->count) >= LEDGER_QUEUE_MAX) {
		if (l->fault.msg[0] != '\0')
			pa_err_set(err, "%s; %zu waiting", l->fault.msg,
			    waiting);
		else
			pa_err_set(err, "cannot write arrival records to %s "
			    "as fast as they come; %zu waiting", l->path,
			    waiting);
		pthread_mutex_unlock(&l->lock);
		return PA_ERROR;
	}
	if ((q = l->nspare > 0 ? l->spare[--l->nspare] :
	    malloc(sizeof(*q))) == NULL) {
		pthread_mutex_unlock(&l->lock);
		pa_err_set(err, "%s", pa_strerror(PA_ENOMEM));
		return PA_ENOMEM;
	}
	*q = *a;
	memcpy(q->message_id_sha256, hash, sizeof(hash));
	l->queue[(l->head + l->count++) % LEDGER_QUEUE_MAX] = q;
	if (l->count == 1 || l->count == GATHER_MAX)
		pthread_cond_signal(&l->wake);
	pthread_mutex_unlock(&l->lock);
	return 0;
}

size_t
lmdb_ledger_pending(struct ledger *base)
{
	struct ledger_lmdb *l = lmdb_ledger(base);
	size_t n;

	if (l->queue == NULL)
		return 0;
	pthread_mutex_lock(&l->lock);
	n = l->count;
	pthread_mutex_unlock(&l->lock);
	return n;
}

int
lmdb_ledger_sync(struct ledger *base, struct pa_err *err)
{
	struct ledger_lmdb *l = lmdb_ledger(base);
	uint64_t target, failures;
	int rc = 0;

	if (l->queue == NULL)
		return 0;
	pthread_mutex_lock(&l->lock);
	target = l->committed + l->count;
	failures = l->failures;
	l->hurry++;
	pthread_cond_signal(&l->wake);
	while (l->committed < target && l->failures == failures)
		pthread_cond_wait(&l->done, &l->lock);
	l->hurry--;
	if (l->committed < target) {
		pa_err_set(err, "%s; %zu waiting", l->fault.msg, l->count);
		rc = PA_ERROR;
	}
	pthread_mutex_unlock(&l->lock);
	return rc;
}
