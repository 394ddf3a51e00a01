/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * state.c - the configuration in force, the index and the deciders.
 *
 * A decision takes a decider of its own from the pool (a decider's GnuPG
 * context serves one thread at a time), hashes the message and verifies
 * its signatures without any lock, then takes the index lock shared for
 * the lookups only.  The worker thread takes the lock exclusively to swap
 * in a new configuration or to reopen the index.  A decider belongs to
 * the generation it was made for, and goes back into the pool only while
 * that generation is in force.
 *
 * The index's data file is looked at (one stat()) before each message:
 * one removed, replaced or damaged under the open handle is reopened
 * before the message is decided (patchattest index may rebuild it while
 * the milter runs), and one that could not be opened is tried again as
 * soon as it changes.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attest.h"
#include "milter.h"
#include "sig.h"
#include "state.h"

atomic_long			 state_in_flight;

/*
 * Writers first: glibc's default lets readers in while a writer waits, and
 * decisions that overlap would keep a reload waiting for as long as the
 * traffic lasts.  Nothing takes the lock shared twice, which writer
 * preference forbids.
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
static struct pins		*pins_handle;	/* PatattTOFU's, or NULL */
static struct ledger		*ledger_handle;	/* StateFile's, or NULL */
static char			 ledger_why[sizeof(((struct pa_err *)0)->msg)];
						/* why it is not open */
static int			 index_ready;	/* holds what the archive has */
static char			 index_why[sizeof(((struct pa_err *)0)->msg)];
static struct stat		 index_seen;	/* data file at the last open */
static int			 index_seen_err;	/* its stat()'s errno */
static struct decider		**pool;		/* of current */
static size_t			 pool_len, pool_cap;
static atomic_ullong		 ledger_faults;	/* ledger_open() failures */
/* damage found in StateDatabase's journal: times, records, bytes */
static atomic_ullong		 pins_faults;	/* pins_open() failures */

/*
 * same_deciders - a decider made for a serves b as well: the same keys,
 * kept the same way (their parsed files and listings are worth keeping)
 */
static int
same_deciders(const struct generation *a, const struct generation *b)
{
	return a->keys == b->keys && reload_keeps_gnupg(&a->cf, &b->cf);
}

/*
 * generation_new - cf (moved in on success) and its keyring, the one of
 * prev when the folders are the same; NULL, err
 */
static struct generation *
generation_new(struct pa_config *cf, const struct generation *prev,
    struct pa_err *err)
{
	struct generation *g;

	if ((g = calloc(1, sizeof(*g))) == NULL) {
		pa_err_set(err, "%s", pa_strerror(PA_ENOMEM));
		return NULL;
	}
	if (prev != NULL && reload_keeps_keyring(&prev->cf, cf))
		g->keys = patatt_keyring_hold(prev->keys);
	else if (patatt_keyring_new(&g->keys, cf->patatt_keyrings.v,
	    cf->patatt_keyrings.n, err) != 0) {
		free(g);
		return NULL;
	}
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
		patatt_keyring_free(g->keys);
		config_release(&g->cf);
		free(g);
	}
}

/* pool_empty - free every idle decider (the pool lock held) */
static void
pool_empty(void)
{
	while (pool_len > 0)
		decider_free(pool[--pool_len]);
}

/* index_stat - the index's data file at path into st: 0 or an errno */
static int
index_stat(const char *path, struct stat *st)
{
	char data[PATH_MAX];

	if (attindex_file(data, sizeof(data), path) != 0)
		return ENAMETOOLONG;
	return stat(data, st) == 0 ? 0 : errno;
}

/* same_file - a and b are the same file, unchanged */
static int
same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino &&
	    a->st_size == b->st_size &&
	    a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	    a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	    a->st_ctim.tv_sec == b->st_ctim.tv_sec &&
	    a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
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
 * empty index would call every attested patch "none".  Without an Archive
 * there is nothing to wait for: the index, made empty, only keeps the
 * documents learnt from mail.
 */
static void
open_index(void)
{
	const struct pa_config *cf = &current->cf;
	struct pa_err err;
	int refresh = cf->archive != NULL && cf->archive_refresh > 0;
	int make = refresh || cf->archive == NULL;
	int writable = make || cf->learn_from_mail == CONFIG_YES;
	int exists;

	index_seen_err = index_stat(cf->index_path, &index_seen);
	exists = index_seen_err == 0;
	attindex_close(index_handle);
	index_handle = NULL;
	index_ready = exists || cf->archive == NULL;
	if (!exists && !make) {
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

/*
 * open_pins - (re)open PatattTOFU's pins of the current configuration
 * (index lock held exclusively); when they cannot be used, signatures
 * that need them are temperror
 */
static void
open_pins(void)
{
	const struct pa_config *cf = &current->cf;
	struct pa_err err;

	pins_close(pins_handle);
	pins_handle = NULL;
	if (cf->patatt_tofu != CONFIG_YES)
		return;
	if (statedb_pins_open(&pins_handle, cf, 1, 1, &storenotes, &err) == 0)
		return;
	atomic_fetch_add(&pins_faults, 1);
	mlog(LOG_LEVEL_ERROR, "%s: signatures that need a key trusted "
	    "on first use are marked temperror until it is fixed", err.msg);
}

/*
 * open_ledger - (re)open StateFile's ledger (index lock held
 * exclusively); when it cannot be opened, judged mail is not recorded:
 * each such message is a fault (OnError), and signer memory is not
 * consulted
 */
static void
open_ledger(void)
{
	const struct pa_config *cf = &current->cf;
	struct pa_err err;

	ledger_close(ledger_handle);
	ledger_handle = NULL;
	ledger_why[0] = '\0';
	if (cf->state_file == NULL)
		return;
	if (statedb_ledger_open(&ledger_handle, cf, 1, &storenotes, &err) == 0) {
		ledger_watch(ledger_handle, copylog_copy, NULL);
		storenotes_size(ledger_handle, current->cf.state_file);
		return;
	}
	ledger_handle = NULL;
	snprintf(ledger_why, sizeof(ledger_why), "%s", err.msg);
	atomic_fetch_add(&ledger_faults, 1);
	mlog(LOG_LEVEL_ERROR, "%s: judged mail is not recorded, and is "
	    "handled as OnError says, until it is fixed", err.msg);
}

int
state_init(struct pa_config *cf, struct pa_err *err)
{
	if ((current = generation_new(cf, NULL, err)) == NULL)
		return PA_ERROR;
	pthread_rwlock_wrlock(&index_lock);
	open_index();
	open_pins();
	open_ledger();
	pthread_rwlock_unlock(&index_lock);
	return 0;
}

/*
 * state_shutdown - the index, pins, ledger and idle deciders closed.  The
 * generation in force stays: libmilter may still serve a connection
 * opened before the stop, and its next message, finding the stores
 * closed (said as the reason), is a fault that OnError answers, not a
 * crash.
 */
void
state_shutdown(void)
{
	static const char stopping[] = "the milter is stopping";

	pthread_rwlock_wrlock(&index_lock);
	snprintf(index_why, sizeof(index_why), "%s", stopping);
	if (ledger_handle != NULL)
		snprintf(ledger_why, sizeof(ledger_why), "%s", stopping);
	pthread_mutex_lock(&pool_lock);
	pool_empty();
	free(pool);
	pool = NULL;
	pool_cap = 0;
	pthread_mutex_unlock(&pool_lock);
	attindex_close(index_handle);
	index_handle = NULL;
	pins_close(pins_handle);
	pins_handle = NULL;
	ledger_close(ledger_handle);
	ledger_handle = NULL;
	pthread_rwlock_unlock(&index_lock);
}

/*
 * decider_get - an idle decider of the generation in force, or a new one;
 * *g is held until decider_put()
 */
static struct decider *
decider_get(struct generation **g, struct pa_err *err)
{
	struct decider *dc = NULL;

	pthread_mutex_lock(&pool_lock);
	*g = current;
	atomic_fetch_add(&(*g)->refs, 1);
	if (pool_len > 0)
		dc = pool[--pool_len];
	pthread_mutex_unlock(&pool_lock);
	if (dc == NULL && decider_new(&dc, &(*g)->cf, (*g)->keys, err) != 0) {
		state_release(*g);
		return NULL;
	}
	return dc;
}

/*
 * decider_put - back into the pool while g is in force, or serves the
 * generation in force as well; else freed
 */
static void
decider_put(struct decider *dc, struct generation *g)
{
	struct generation *was = g;

	pthread_mutex_lock(&pool_lock);
	if (g != current && same_deciders(g, current)) {
		decider_rebind(dc, &current->cf);
		g = current;
	}
	/* No room for it (out of memory): it is freed, not pooled. */
	if (g == current && GROW(pool, pool_len, pool_cap, 8, SIZE_MAX) == 0) {
		pool[pool_len++] = dc;
		dc = NULL;
	}
	pthread_mutex_unlock(&pool_lock);
	decider_free(dc);
	state_release(was);
}

/*
 * record - the arrival record of what dc decided last (d) into the
 * ledger (index lock held shared).  A record that cannot be queued is a
 * fault of ours: d is unrecorded, the reason says why, and so does why
 * for the log.
 */
static void
record(struct decider *dc, const struct arrival_origin *from,
    struct decision *d, struct pa_err *why)
{
	struct arrival a;
	size_t n;

	decide_arrival(dc, d, from, &a);
	if (ledger_handle == NULL)
		pa_err_set(why, "%s", ledger_why);
	else if (ledger_record(ledger_handle, &a, why) == 0) {
		storenotes_size(ledger_handle, current->cf.state_file);
		return;
	}
	d->unrecorded = 1;
	n = strlen(d->reason);
	snprintf(d->reason + n, sizeof(d->reason) - n, "%snot recorded: %s",
	    n ? "; " : "", why->msg);
}

/*
 * record_unjudged - the arrival record of a mail not judged that is
 * still remembered (a cover letter: decide_arrival_unjudged()), as
 * record() writes it; one not written is said in why, for the log (the
 * mail has no verdict for OnError to act on)
 */
static void
record_unjudged(struct decider *dc, const struct mailmsg *msg,
    const struct arrival_origin *from, struct pa_err *why)
{
	struct arrival a;

	/* nothing to remember, or a fault reading it (why says it) */
	if (decide_arrival_unjudged(dc, msg, from, &a, why) != 0)
		return;
	pthread_rwlock_rdlock(&index_lock);
	if (ledger_handle == NULL)
		pa_err_set(why, "%s", ledger_why);
	else if (ledger_record(ledger_handle, &a, why) == 0)
		storenotes_size(ledger_handle, current->cf.state_file);
	pthread_rwlock_unlock(&index_lock);
}

int
state_decide(const struct mailmsg *msg, time_t now,
    const struct arrival_origin *from, struct decision *d,
    struct pa_err *unrecorded)
{
	struct generation *g;
	struct decider *dc;
	struct pa_err err;
	const char *fault;

	unrecorded->msg[0] = '\0';
	if ((dc = decider_get(&g, &err)) == NULL) {
		memset(d, 0, sizeof(*d));
		d->result = VERDICT_TEMPERROR;
		d->has_patch = 1;
		snprintf(d->reason, sizeof(d->reason), "%s", err.msg);
		return PA_ERROR;
	}
	/* Hashes and signatures need no index: no lock while they run. */
	if (decide_begin(dc, msg, now) != 0) {
		if (g->cf.state_file != NULL)
			record_unjudged(dc, msg, from, unrecorded);
		decider_put(dc, g);
		return PA_ENOPATCH;
	}
	/*
	 * The callback looked for a replaced index before this message
	 * (state_index_stale()); one replaced since is read as it was a
	 * moment ago: its pages stay mapped.
	 */
	pthread_rwlock_rdlock(&index_lock);
	if (index_ready && index_handle != NULL)
		fault = NULL;
	else if (index_handle != NULL)
		fault = "the index is being made from the archive";
	else
		fault = index_why;
	decider_use_pins(dc, pins_handle, 1);
	decider_use_ledger(dc, ledger_handle, ledger_why[0] ? ledger_why :
	    NULL);
	decide_end(dc, fault ? NULL : index_handle, fault, d);
	if (g->cf.state_file != NULL)
		record(dc, from, d, unrecorded);
	pthread_rwlock_unlock(&index_lock);
	decider_put(dc, g);
	return 0;
}

int
state_index_stale(void)
{
	struct stat now;
	int stale, err;

	pthread_rwlock_rdlock(&index_lock);
	if (index_handle != NULL)
		stale = attindex_damaged(index_handle) ||
		    attindex_replaced(index_handle);
	else {
		err = index_stat(current->cf.index_path, &now);
		stale = err != index_seen_err ||
		    (err == 0 && !same_file(&now, &index_seen));
	}
	pthread_rwlock_unlock(&index_lock);
	return stale;
}

void
state_gauges(struct state_gauges *sg)
{
	struct stat st;

	memset(sg, 0, sizeof(*sg));
	sg->ledger_faults = atomic_load(&ledger_faults);
	storenotes_journal(&sg->journal_damage, &sg->journal_lost,
	    &sg->journal_aside);
	sg->pins_faults = atomic_load(&pins_faults);
	pthread_rwlock_rdlock(&index_lock);
	if (index_stat(current->cf.index_path, &st) == 0) {
		sg->index_known = 1;
		sg->index_changed = st.st_mtime;
		sg->index_bytes = (long long)st.st_size;
	}
	if (ledger_handle != NULL) {
		sg->journal_depth = ledger_pending(ledger_handle);
		sg->ledger_sized = ledger_size(ledger_handle,
		    &sg->ledger_size) == 0;
	}
	pthread_rwlock_unlock(&index_lock);
}

struct attindex *
state_index(void)
{
	return attindex_damaged(index_handle) ? NULL : index_handle;
}

void
state_index_made(void)
{
	if (index_ready)
		return;
	pthread_rwlock_wrlock(&index_lock);
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

int
state_reload(const char *path)
{
	struct generation *fresh, *old;
	struct pa_config cf;
	struct pa_err err;
	size_t i;
	int rc, keep_deciders, keep_index;

	if ((rc = reload_read(path, &current->cf, &cf)) != 0)
		return rc;
	if ((fresh = generation_new(&cf, current, &err)) == NULL) {
		mlog(LOG_LEVEL_ERROR, "reload: %s", err.msg);
		mlog(LOG_LEVEL_ERROR, "reload refused: the configuration in "
		    "force stays");
		config_release(&cf);
		return PA_ERROR;
	}
	/*
	 * Idle deciders and the open index stay when the new settings keep
	 * them as they are: a reload costs no GnuPG listing, no key file
	 * parsed again, no index reopened.
	 */
	pthread_rwlock_wrlock(&index_lock);
	pthread_mutex_lock(&pool_lock);
	old = current;
	current = fresh;
	if ((keep_deciders = same_deciders(old, fresh)))
		for (i = 0; i < pool_len; i++)
			decider_rebind(pool[i], &fresh->cf);
	else
		pool_empty();
	pthread_mutex_unlock(&pool_lock);
	if (!(keep_index = reload_keeps_index(&old->cf, &fresh->cf) &&
	    index_handle != NULL && !attindex_damaged(index_handle) &&
	    !attindex_replaced(index_handle)))
		open_index();
	/* always: the pins and state files may have been restored,
	   replaced or removed, and a handle found damaged is never used
	   again */
	open_pins();
	open_ledger();
	pthread_rwlock_unlock(&index_lock);
	mlog_configure(&fresh->cf);
	state_release(old);
	mlog(LOG_LEVEL_INFO, "reloaded %s (keys %s, index %s)", path,
	    keep_deciders ? "kept" : "read again", keep_index ? "kept" :
	    "reopened");
	return 0;
}
