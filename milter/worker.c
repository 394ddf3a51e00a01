/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * worker.c - the background thread: documents learnt from mail, the
 * archive re-read every ArchiveRefresh seconds, reloads, and reopening
 * the index (replaced, damaged, or not opened yet).  Mail waits for it
 * only when its index was replaced or damaged (worker_reopen_index, a
 * second or two at most); otherwise the callbacks only queue work here,
 * and what the worker does stops between documents and archive entries
 * when a reload, a reopen or the end is asked for.
 *
 * It is the only thread that writes the index or replaces it, so it needs
 * no lock of its own around either.  GnuPG runs here (each document is
 * verified once); the callbacks only read the index.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "attest.h"
#include "milter.h"
#include "sig.h"

#define LEARN_QUEUE_MAX		64		/* messages waiting */
#define LEARN_BYTES_MAX		((size_t)64 << 20)
#define INDEX_RETRY		30		/* seconds between reopens */
#define REOPEN_WAIT		2		/* seconds a message waits */

/* Work for the worker: a mail with documents. */
struct learn_item {
	struct learn_item	*next;
	size_t			 len;
	char			 text[];
};

static pthread_t		 thread;
static pthread_mutex_t		 lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t		 wake;
static pthread_cond_t		 reopened;	/* reopens went up */
static unsigned long		 reopens;	/* index reopens done */
static int			 reopening;	/* one is under way */
static struct learn_item	*queue_head, **queue_tail = &queue_head;
static size_t			 queue_len, queue_bytes;
static int			 reload_wanted, reopen_wanted, stopping;
static int			 cut_short;	/* a refresh stopped early */
static const char		*config_path;

/* The worker's own GnuPG context, for the configuration it was made for. */
static struct pgp		*pgp;
static struct generation	*pgp_gen;

static int
wanted_stop(void *arg)
{
	int stop;

	(void)arg;
	pthread_mutex_lock(&lock);
	stop = stopping || reload_wanted || reopen_wanted;
	pthread_mutex_unlock(&lock);
	cut_short |= stop;
	return stop;
}

static void
index_warn(void *arg, const char *where, const char *what)
{
	(void)arg;
	mlog(LOG_LEVEL_WARNING, "archive: %s: %s", where, what);
}

/* worker_pgp - a GnuPG context for generation g */
static struct pgp *
worker_pgp(struct generation *g)
{
	struct pa_err err;

	if (pgp_gen == g && pgp != NULL)
		return pgp;
	pgp_free(pgp);
	state_release(pgp_gen);
	pgp_gen = g;
	atomic_fetch_add(&g->refs, 1);
	if (pgp_new(&pgp, g->cf.gnupg_home, g->cf.trust_model, &err) != 0)
		mlog(LOG_LEVEL_ERROR, "GnuPG: %s", err.msg);
	return pgp;
}

/*
 * learn - the documents of a mail, up to LearnMaxDocuments; a reload, a
 * reopen or the end asked for meanwhile stops it before the next GnuPG
 * run, and the rest of the mail is not learnt (the archive brings it)
 */
static void
learn(struct learn_item *it)
{
	struct indexer_hooks hooks = { index_warn, NULL, wanted_stop, NULL };
	struct indexer_stats st;
	struct generation *g = state_hold();
	struct attindex *ix = state_index();
	struct pgp *p = worker_pgp(g);
	struct pa_err err;
	int rc;

	memset(&st, 0, sizeof(st));
	err.msg[0] = '\0';
	if (ix == NULL || p == NULL) {
		mlog(LOG_LEVEL_WARNING, "learning from mail: no index or GnuPG; "
		    "document dropped (the archive will bring it)");
		state_release(g);
		return;
	}
	cut_short = 0;
	rc = indexer_mail(ix, p, it->text, it->len,
	    (size_t)g->cf.learn_max_documents, &st, &hooks, &err);
	if (rc != 0)
		mlog(LOG_LEVEL_WARNING, "learning from mail: %s", err.msg);
	else if (cut_short)
		mlog(LOG_LEVEL_INFO, "learning from mail stopped for a reload, "
		    "a reopen of the index or the end: the rest of the mail "
		    "is not learnt");
	if (st.documents > 0)
		mlog(LOG_LEVEL_INFO, "learnt from mail: %zu document(s), %zu "
		    "with a good signature, %zu already known, %zu "
		    "attestation(s) indexed", st.documents, st.verified,
		    st.known, st.attestations);
	state_release(g);
}

static void
refresh(void)
{
	struct indexer_hooks hooks = { index_warn, NULL, wanted_stop, NULL };
	struct indexer_stats st;
	struct sbuf summary;
	struct generation *g = state_hold();
	struct attindex *ix = state_index();
	struct pgp *p;
	struct pa_err err;

	if (g->cf.archive == NULL || ix == NULL ||
	    (p = worker_pgp(g)) == NULL) {
		state_release(g);
		return;
	}
	memset(&st, 0, sizeof(st));
	cut_short = 0;
	if (indexer_archive(&g->cf, ix, p, &st, &hooks, &err) != 0) {
		mlog(LOG_LEVEL_WARNING, "archive %s: %s", g->cf.archive,
		    err.msg);
		state_release(g);
		return;
	}
	if (!cut_short)
		state_index_made();
	if (st.documents > st.known || st.removed > 0) {
		sbuf_init(&summary, SBUF_NOMAX);
		indexer_summary(&summary, &st);
		mlog(LOG_LEVEL_INFO, "archive %s: %s", g->cf.archive,
		    summary.len ? summary.buf : "out of memory");
		sbuf_release(&summary);
	} else
		mlog(LOG_LEVEL_DEBUG, "archive %s: nothing new in %zu "
		    "entries", g->cf.archive, st.entries);
	state_release(g);
}

static long
refresh_interval(void)
{
	struct generation *g = state_hold();
	long s = g->cf.archive != NULL ? g->cf.archive_refresh : 0;

	state_release(g);
	return s;
}

/* reopen - the index reopened, and the messages waiting for it told */
static void
reopen(void)
{
	pthread_mutex_lock(&lock);
	reopen_wanted = 0;
	reopening = 1;
	pthread_mutex_unlock(&lock);
	state_reopen_index();
	pthread_mutex_lock(&lock);
	reopening = 0;
	reopens++;
	pthread_cond_broadcast(&reopened);
	pthread_mutex_unlock(&lock);
}

/* next_item - the first queued item, taken off the queue (lock held) */
static struct learn_item *
next_item(void)
{
	struct learn_item *it;

	if ((it = queue_head) != NULL) {
		if ((queue_head = it->next) == NULL)
			queue_tail = &queue_head;
		queue_len--;
		queue_bytes -= it->len;
	}
	return it;
}

/*
 * worker_main - reloads first, then reopens (messages wait for them),
 * then one queued item, then the archive; between any two of them the
 * queue lock is free
 */
static void *
worker_main(void *arg)
{
	struct learn_item *it;
	struct timespec until;
	time_t next_refresh = 0, next_retry = time(NULL) + INDEX_RETRY, now;
	long every;

	(void)arg;
	pthread_mutex_lock(&lock);
	while (!stopping) {
		if (reload_wanted) {
			reload_wanted = 0;
			pthread_mutex_unlock(&lock);
			if (state_reload(config_path) == 0)
				next_refresh = 0;
			pthread_mutex_lock(&lock);
			continue;
		}
		now = time(NULL);
		if (reopen_wanted ||
		    (now >= next_retry && state_index() == NULL)) {
			next_retry = now + INDEX_RETRY;
			pthread_mutex_unlock(&lock);
			reopen();
			pthread_mutex_lock(&lock);
			continue;
		}
		if ((it = next_item()) != NULL) {
			pthread_mutex_unlock(&lock);
			learn(it);
			free(it);
			pthread_mutex_lock(&lock);
			continue;
		}
		pthread_mutex_unlock(&lock);
		every = refresh_interval();
		if (every > 0 && now >= next_refresh) {
			refresh();
			next_refresh = time(NULL) + every;
		}
		pthread_mutex_lock(&lock);
		if (stopping || reload_wanted || reopen_wanted ||
		    queue_head != NULL)
			continue;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += every > 0 ? (next_refresh > now ?
		    next_refresh - now : 1) : INDEX_RETRY;
		pthread_cond_timedwait(&wake, &lock, &until);
	}
	pthread_mutex_unlock(&lock);
	pgp_free(pgp);
	state_release(pgp_gen);
	return NULL;
}

int
worker_start(const char *path, struct pa_err *err)
{
	int rc;

	config_path = path;
	pthread_cond_init(&wake, NULL);
	pthread_cond_init(&reopened, NULL);
	if ((rc = pthread_create(&thread, NULL, worker_main, NULL)) != 0) {
		pa_err_set(err, "cannot start the worker thread: %s",
		    strerror(rc));
		return PA_ERROR;
	}
	return 0;
}

void
worker_stop(void)
{
	struct learn_item *it;

	pthread_mutex_lock(&lock);
	stopping = 1;
	pthread_cond_signal(&wake);
	pthread_cond_broadcast(&reopened);	/* no reopen is coming */
	pthread_mutex_unlock(&lock);
	pthread_join(thread, NULL);
	while ((it = queue_head) != NULL) {
		queue_head = it->next;
		free(it);
	}
}

void
worker_reopen_index(void)
{
	struct timespec until;
	unsigned long want;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += REOPEN_WAIT;
	pthread_mutex_lock(&lock);
	/* One under way may have looked at the file before it changed. */
	want = reopens + (reopening ? 2 : 1);
	reopen_wanted = 1;
	pthread_cond_signal(&wake);
	while (reopens < want && !stopping &&
	    pthread_cond_timedwait(&reopened, &lock, &until) == 0)
		;
	pthread_mutex_unlock(&lock);
}

void
worker_request_reload(void)
{
	pthread_mutex_lock(&lock);
	reload_wanted = 1;
	pthread_cond_signal(&wake);
	pthread_mutex_unlock(&lock);
}

/* enqueue - hand a mail to the worker, unless the queue is full */
static void
enqueue(const char *text, size_t len)
{
	struct learn_item *it;

	pthread_mutex_lock(&lock);
	if (queue_len >= LEARN_QUEUE_MAX ||
	    len > LEARN_BYTES_MAX - queue_bytes) {
		pthread_mutex_unlock(&lock);
		mlog(LOG_LEVEL_WARNING, "the worker's queue is full: a mail's "
		    "documents are not learnt (the archive will bring them)");
		return;
	}
	pthread_mutex_unlock(&lock);
	if ((it = malloc(sizeof(*it) + len)) == NULL) {
		mlog(LOG_LEVEL_WARNING, "the worker's queue: %s",
		    strerror(ENOMEM));
		return;
	}
	it->next = NULL;
	it->len = len;
	memcpy(it->text, text, len);
	pthread_mutex_lock(&lock);
	*queue_tail = it;
	queue_tail = &it->next;
	queue_len++;
	queue_bytes += len;
	pthread_cond_signal(&wake);
	pthread_mutex_unlock(&lock);
}

void
worker_learn(const char *text, size_t len)
{
	enqueue(text, len);
}
