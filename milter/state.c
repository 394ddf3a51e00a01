/*
 * state.c - the configuration in force, the index and the deciders.
 *
 * Decisions take the index lock shared: many at once, each with a decider
 * of its own from the pool (a decider's GnuPG context serves one thread at
 * a time).  The worker thread takes it exclusively to swap in a new
 * configuration or to reopen the index, which empties the pool: deciders
 * point into both.
 */
#include "config.h"

#include <sys/stat.h>

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attindex.h"
#include "milter.h"

atomic_long			 state_in_flight;

/*
 * Writers first: glibc's default lets readers in while a writer waits, and
 * decisions that overlap (an OpenPGP signature holds the lock for a gpg
 * run) would keep a reload waiting for as long as the traffic lasts.
 * Nothing takes the lock shared twice, which writer preference forbids.
 */
#ifdef PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP
static pthread_rwlock_t		 index_lock =
    PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP;
#else
static pthread_rwlock_t		 index_lock = PTHREAD_RWLOCK_INITIALIZER;
#endif
static pthread_mutex_t		 pool_lock = PTHREAD_MUTEX_INITIALIZER;
static struct generation	*current;	/* swapped under both locks */
static struct attindex		*index_handle;	/* NULL: not open */
static int			 index_ready;	/* holds what the archive has */
static char			 index_why[sizeof(((struct pa_err *)0)->msg)];
static struct decider		**pool;
static size_t			 pool_len, pool_cap;

static struct generation *
generation_new(struct pa_config *cf)
{
	struct generation *g;

	if ((g = calloc(1, sizeof(*g))) == NULL)
		return NULL;
	g->cf = *cf;
	atomic_init(&g->refs, 1);
	return g;
}

struct generation *
state_hold(void)
{
	struct generation *g;

	pthread_mutex_lock(&pool_lock);
	g = current;
	atomic_fetch_add(&g->refs, 1);
	pthread_mutex_unlock(&pool_lock);
	return g;
}

void
state_release(struct generation *g)
{
	if (g != NULL && atomic_fetch_sub(&g->refs, 1) == 1) {
		config_release(&g->cf);
		free(g);
	}
}

/* pool_empty - free every idle decider (index lock held exclusively) */
static void
pool_empty(void)
{
	while (pool_len > 0)
		decider_free(pool[--pool_len]);
}

/* index_exists - whether an index was ever made at path */
static int
index_exists(const char *path)
{
	char data[PATH_MAX];
	struct stat st;

	return (size_t)snprintf(data, sizeof(data), "%s/data.mdb", path) <
	    sizeof(data) && stat(data, &st) == 0;
}

/* say_why - log a reason for temperror once, not at every retry */
static void
say_why(const char *why)
{
	if (strcmp(why, index_why) != 0)
		mlog(LOG_LEVEL_ERROR, "%s: patches are marked temperror until "
		    "it is fixed", why);
	snprintf(index_why, sizeof(index_why), "%s", why);
}

/*
 * open_index - (re)open the index of the current configuration, writable
 * when the milter is to add to it (index lock held exclusively).  An
 * index that is not there is made only when the milter itself reads the
 * archive into it, and counts as ready once it has done so: until then an
 * empty index would call every attested patch "none".
 */
static void
open_index(void)
{
	const struct pa_config *cf = &current->cf;
	struct pa_err err;
	int refresh = cf->archive != NULL && cf->archive_refresh > 0;
	int writable = refresh || cf->learn_from_mail == CONFIG_YES;
	int exists = index_exists(cf->index_path);

	pool_empty();
	attindex_close(index_handle);
	index_handle = NULL;
	index_ready = exists;
	if (!exists && !refresh) {
		pa_err_set(&err, "no index at %s (patchattest index makes it)",
		    cf->index_path);
		say_why(err.msg);
		return;
	}
	err.msg[0] = '\0';
	if (writable && attindex_open(&index_handle, cf->index_path, 1,
	    &err) == 0) {
		if (err.msg[0] != '\0')
			mlog(LOG_LEVEL_WARNING, "%s", err.msg);
	} else if (exists) {
		if (writable)
			mlog(LOG_LEVEL_WARNING, "%s; reading it only, so nothing "
			    "is learnt from mail or the archive", err.msg);
		if (attindex_open(&index_handle, cf->index_path, 0, &err) != 0)
			index_handle = NULL;
	}
	if (index_handle == NULL) {
		say_why(err.msg);
		return;
	}
	if (index_why[0] != '\0')
		mlog(LOG_LEVEL_INFO, "the index at %s is open", cf->index_path);
	index_why[0] = '\0';
	if (!index_ready)
		mlog(LOG_LEVEL_INFO, "making the index at %s from %s: patches "
		    "are marked temperror until it is done", cf->index_path,
		    cf->archive);
}

int
state_init(struct pa_config *cf, struct pa_err *err)
{
	if ((current = generation_new(cf)) == NULL) {
		pa_err_set(err, "%s", pa_strerror(PA_ENOMEM));
		return PA_ENOMEM;
	}
	pthread_rwlock_wrlock(&index_lock);
	open_index();
	pthread_rwlock_unlock(&index_lock);
	return 0;
}

void
state_shutdown(void)
{
	pthread_rwlock_wrlock(&index_lock);
	pool_empty();
	free(pool);
	pool = NULL;
	pool_cap = 0;
	attindex_close(index_handle);
	index_handle = NULL;
	state_release(current);
	current = NULL;
	pthread_rwlock_unlock(&index_lock);
}

/* decider_get - an idle decider, or a new one (index lock held shared) */
static struct decider *
decider_get(struct pa_err *err)
{
	struct decider *dc = NULL;

	pthread_mutex_lock(&pool_lock);
	if (pool_len > 0)
		dc = pool[--pool_len];
	pthread_mutex_unlock(&pool_lock);
	if (dc == NULL && decider_new(&dc, &current->cf, index_ready ?
	    index_handle : NULL, err) != 0)
		return NULL;
	return dc;
}

static void
decider_put(struct decider *dc)
{
	struct decider **grown;

	pthread_mutex_lock(&pool_lock);
	if (pool_len == pool_cap) {
		grown = realloc(pool, (pool_cap * 2 + 8) * sizeof(*pool));
		if (grown == NULL) {
			pthread_mutex_unlock(&pool_lock);
			decider_free(dc);
			return;
		}
		pool = grown;
		pool_cap = pool_cap * 2 + 8;
	}
	pool[pool_len++] = dc;
	pthread_mutex_unlock(&pool_lock);
}

int
state_decide(const struct mailmsg *msg, time_t now, struct decision *d)
{
	struct decider *dc;
	struct pa_err err;
	int rc;

	pthread_rwlock_rdlock(&index_lock);
	if ((dc = decider_get(&err)) == NULL) {
		pthread_rwlock_unlock(&index_lock);
		memset(d, 0, sizeof(*d));
		d->result = VERDICT_TEMPERROR;
		snprintf(d->reason, sizeof(d->reason), "%s", err.msg);
		return PA_ERROR;
	}
	rc = decide(dc, msg, now, d);
	if (rc == 0 && d->result == VERDICT_TEMPERROR && !index_ready)
		snprintf(d->reason, sizeof(d->reason), "%s", index_handle ?
		    "the index is being made from the archive" : index_why);
	decider_put(dc);
	pthread_rwlock_unlock(&index_lock);
	return rc;
}

struct attindex *
state_index(void)
{
	return index_handle;
}

void
state_index_made(void)
{
	if (index_ready)
		return;
	pthread_rwlock_wrlock(&index_lock);
	pool_empty();
	index_ready = index_handle != NULL;
	pthread_rwlock_unlock(&index_lock);
	mlog(LOG_LEVEL_INFO, "the index is made: patches are checked");
}

void
state_reopen_index(void)
{
	pthread_rwlock_wrlock(&index_lock);
	open_index();
	pthread_rwlock_unlock(&index_lock);
}

/* log_problems - each problem of a configuration refused on reload */
static void
log_problems(const struct sbuf *problems, int rc)
{
	const char *p, *nl;

	if (problems->len == 0)
		mlog(LOG_LEVEL_ERROR, "reload: %s", pa_strerror(rc));
	for (p = problems->buf; p && *p; p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		mlog(LOG_LEVEL_ERROR, "reload: %.*s", nl ? (int)(nl - p) :
		    (int)strlen(p), p);
	}
	mlog(LOG_LEVEL_ERROR, "reload refused: the configuration in force "
	    "stays");
}

static int
same(const char *a, const char *b)
{
	return a && b ? strcmp(a, b) == 0 : a == b;
}

/* restart_keys - say which changes a reload cannot carry out */
static void
restart_keys(const struct pa_config *was, const struct pa_config *now)
{
	if (!same(was->socket, now->socket))
		mlog(LOG_LEVEL_WARNING, "reload: Socket changed; it takes "
		    "effect at the next start");
	if (!same(was->user_id, now->user_id) || was->umask != now->umask ||
	    !same(was->pid_file, now->pid_file))
		mlog(LOG_LEVEL_WARNING, "reload: UserID, UMask or PidFile "
		    "changed; they take effect at the next start");
}

int
state_reload(const char *path, const char *socket)
{
	struct generation *fresh, *old;
	struct pa_config cf;
	struct sbuf problems;
	int rc;

	sbuf_init(&problems, 1 << 16);
	if ((rc = config_init(&cf)) == 0)
		rc = config_load(&cf, path, &problems);
	if (rc != 0) {
		log_problems(&problems, rc);
		sbuf_release(&problems);
		config_release(&cf);
		return rc;
	}
	sbuf_release(&problems);
	/* -p on the command line still names the socket in use. */
	if (socket != NULL) {
		free(cf.socket);
		if ((cf.socket = strdup(socket)) == NULL) {
			mlog(LOG_LEVEL_ERROR, "reload: %s",
			    pa_strerror(PA_ENOMEM));
			config_release(&cf);
			return PA_ENOMEM;
		}
	}
	restart_keys(&current->cf, &cf);
	if ((fresh = generation_new(&cf)) == NULL) {
		mlog(LOG_LEVEL_ERROR, "reload: %s", pa_strerror(PA_ENOMEM));
		config_release(&cf);
		return PA_ENOMEM;
	}
	pthread_rwlock_wrlock(&index_lock);
	pthread_mutex_lock(&pool_lock);
	old = current;
	current = fresh;
	pthread_mutex_unlock(&pool_lock);
	open_index();
	pthread_rwlock_unlock(&index_lock);
	mlog_configure(&fresh->cf);
	state_release(old);
	mlog(LOG_LEVEL_INFO, "reloaded %s", path);
	return 0;
}
