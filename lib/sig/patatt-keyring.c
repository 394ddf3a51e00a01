/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * patatt-keyring.c - patatt keyring folders, and the key files read from
 * them (patatt-keyfile.c), kept parsed while unchanged and shared by
 * every thread.
 *
 * A signer's key is asked for on every message they send, and the
 * kernel's keyring holds OpenPGP exports that take librnp milliseconds
 * to load: each file is parsed once per change, then answered from the
 * cache while its device, inode, size, mtime and ctime are what they
 * were.  A file whose ctime was under RACY_SECONDS old when it was read
 * could change again within the same clock tick without showing it
 * (git's "racy clean" problem): until it is older, each lookup reads it
 * again and compares its SHA-256, parsing only what differs.  The ctime
 * is the kernel's clock, so a file dated ahead by touch(1) is settled a
 * second after it is written, and never parsed more than once.
 *
 * One parse per change for the whole process: the first thread to meet
 * a new file puts a loading entry in the table and parses it outside the
 * lock; the others wait for it (kr->loaded) instead of parsing it too.
 * A file that is no key, or one refused by a limit, is kept the same way
 * with its fault, so it costs one parse per change too.
 *
 * Entries are counted references: the table holds one, each caller
 * between get and put another, so an entry evicted or replaced while in
 * use lives until it is put back.  The table holds at most
 * PATATT_KEYCACHE_MAX entries and PATATT_KEYCACHE_BYTES of estimated
 * memory; to make room, an entry picked at random goes.  With more
 * signers coming round in turn than the table holds, least recently used
 * misses every time (1.7% hits at 1.5 times the table, with the oldest
 * of 8 sampled entries going); random choice keeps 42% (make bench).
 *
 * A key file that vanished since it was last read (git checks a file out
 * by removing it and writing it anew) is looked for once more after a
 * short pause, and so is one that changed under RACY_SECONDS ago and
 * could not be read or parsed, before either is believed.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/stat.h>

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "patchattest.h"
#include "openpgp.h"
#include "patatt-int.h"
#include "base.h"

#define RACY_SECONDS	1
#define RETRY_PAUSE_MS	50	/* before a vanished or half-written file
				   is looked at again */

struct patatt_keyring {
	atomic_int		  refs;		/* holders, from new to free */
	char			**dirs;
	size_t			  ndirs;
	pthread_mutex_t		  lock;		/* the table, refs, stats */
	pthread_cond_t		  loaded;	/* an entry finished loading */
	struct patatt_keyfile	**slot;
	size_t			  n;
	size_t			  bytes;	/* cost of the entries */
	uint64_t		  rand;		/* eviction's choices */
	struct patatt_cache_stats stats;
};

static uint64_t	 path_hash(const char *);
static int	 same_file(const struct patatt_keyfile *, const struct stat *);
static int	 settled(const struct stat *);
static void	 keyfile_free(struct patatt_keyfile *);
static void	 unref(struct patatt_keyfile *);
static size_t	 slot_of(const struct patatt_keyring *, const char *,
		    uint64_t, enum patatt_algo);
static void	 drop(struct patatt_keyring *, size_t);
static void	 make_room(struct patatt_keyring *, const struct patatt_keyfile *);
static struct patatt_keyfile *hold_ready(struct patatt_keyring *,
		    struct patatt_keyfile *);
static struct patatt_keyfile *keyfile_new(const char *, uint64_t,
		    enum patatt_algo, const struct patatt_located *);
static int	 read_sum(const struct patatt_located *, struct sbuf *,
		    unsigned char [DIGEST_LEN], struct pa_err *);
static int	 cached(struct patatt_keyring *, const char *, enum patatt_algo,
		    struct patatt_located *, struct patatt_keyfile **,
		    struct pa_err *);
static int	 known(struct patatt_keyring *, const char *, int);
static void	 pause_briefly(void);

int
patatt_keyring_new(struct patatt_keyring **out, char *const *dirs, size_t n,
    struct pa_err *err)
{
	struct patatt_keyring *kr;
	struct stat st;
	size_t i;

	*out = NULL;
	for (i = 0; i < n; i++) {
		if (stat(dirs[i], &st) != 0) {
			pa_err_set(err, "patatt keyring %s: %s", dirs[i],
			    strerror(errno));
			return PA_ERROR;
		}
		if (!S_ISDIR(st.st_mode)) {
			pa_err_set(err, "patatt keyring %s: not a folder",
			    dirs[i]);
			return PA_ERROR;
		}
	}
	if ((kr = calloc(1, sizeof(*kr))) == NULL ||
	    (n > 0 && (kr->dirs = calloc(n, sizeof(*kr->dirs))) == NULL) ||
	    (kr->slot = calloc(PATATT_KEYCACHE_MAX,
	    sizeof(*kr->slot))) == NULL)
		goto nomem;
	for (kr->ndirs = 0; kr->ndirs < n; kr->ndirs++)
		if ((kr->dirs[kr->ndirs] = strdup(dirs[kr->ndirs])) == NULL)
			goto nomem;
	pthread_mutex_init(&kr->lock, NULL);
	pthread_cond_init(&kr->loaded, NULL);
	atomic_init(&kr->refs, 1);
	kr->rand = 0x9e3779b97f4a7c15ULL ^ (uint64_t)(uintptr_t)kr;
	*out = kr;
	return 0;
nomem:
	if (kr != NULL) {
		while (kr->ndirs > 0)
			free(kr->dirs[--kr->ndirs]);
		free(kr->dirs);
		free(kr->slot);
		free(kr);
	}
	pa_err_set(err, "%s", pa_strerror(PA_ENOMEM));
	return PA_ENOMEM;
}

void
patatt_keyring_free(struct patatt_keyring *kr)
{
	size_t i;

	if (kr == NULL || atomic_fetch_sub(&kr->refs, 1) != 1)
		return;
	for (i = 0; i < kr->n; i++)
		unref(kr->slot[i]);
	for (i = 0; i < kr->ndirs; i++)
		free(kr->dirs[i]);
	pthread_cond_destroy(&kr->loaded);
	pthread_mutex_destroy(&kr->lock);
	free(kr->dirs);
	free(kr->slot);
	free(kr);
}

struct patatt_keyring *
patatt_keyring_hold(struct patatt_keyring *kr)
{
	atomic_fetch_add(&kr->refs, 1);
	return kr;
}

const char *
patatt_keyring_relative(const struct patatt_keyring *kr, const char *src)
{
	size_t i, n;

	for (i = 0; kr != NULL && i < kr->ndirs; i++) {
		n = strlen(kr->dirs[i]);
		while (n > 0 && kr->dirs[i][n - 1] == '/')
			n--;
		if (n > 0 && strncmp(src, kr->dirs[i], n) == 0 &&
		    src[n] == '/')
			return src + n + 1;
	}
	return src;
}

void
patatt_keyring_stats(struct patatt_keyring *kr, struct patatt_cache_stats *st)
{
	pthread_mutex_lock(&kr->lock);
	*st = kr->stats;
	st->entries = kr->n;
	st->bytes = kr->bytes;
	pthread_mutex_unlock(&kr->lock);
}

int
patatt_keyring_holds(struct patatt_keyring *kr, const char *identity,
    const char *selector, struct pa_err *err)
{
	if (kr == NULL)
		return 0;
	return patatt_keyfile_holds(kr->dirs, kr->ndirs, identity, selector,
	    err);
}

/* path_hash - FNV-1a, to skip most string compares in the table */
static uint64_t
path_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s != '\0'; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

static int
same_file(const struct patatt_keyfile *kf, const struct stat *st)
{
	return kf->dev == st->st_dev && kf->ino == st->st_ino &&
	    kf->size == st->st_size &&
	    kf->mtime.tv_sec == st->st_mtim.tv_sec &&
	    kf->mtime.tv_nsec == st->st_mtim.tv_nsec &&
	    kf->ctime.tv_sec == st->st_ctim.tv_sec &&
	    kf->ctime.tv_nsec == st->st_ctim.tv_nsec;
}

/* settled - the file's last change is over RACY_SECONDS ago (kernel time) */
static int
settled(const struct stat *st)
{
	struct timespec now;

	if (clock_gettime(CLOCK_REALTIME, &now) != 0)
		return 0;
	return st->st_ctim.tv_sec + RACY_SECONDS < now.tv_sec ||
	    (st->st_ctim.tv_sec + RACY_SECONDS == now.tv_sec &&
	    st->st_ctim.tv_nsec < now.tv_nsec);
}

static void
keyfile_free(struct patatt_keyfile *kf)
{
	free(kf->path);
	free(kf->src);
	sbuf_release(&kf->blob);
	openpgp_keys_free(kf->pgp);
	pthread_mutex_destroy(&kf->use);
	free(kf);
}

/* unref - one reference less (the keyring's lock held, or no sharing) */
static void
unref(struct patatt_keyfile *kf)
{
	if (--kf->refs == 0)
		keyfile_free(kf);
}

/* slot_of - the table index of (path, algo), or kr->n */
static size_t
slot_of(const struct patatt_keyring *kr, const char *path, uint64_t hash,
    enum patatt_algo algo)
{
	size_t i;

	for (i = 0; i < kr->n; i++)
		if (kr->slot[i]->hash == hash && kr->slot[i]->algo == algo &&
		    strcmp(kr->slot[i]->path, path) == 0)
			break;
	return i;
}

/* drop - entry i out of the table (the lock held) */
static void
drop(struct patatt_keyring *kr, size_t i)
{
	struct patatt_keyfile *kf = kr->slot[i];

	kr->bytes -= kf->cost;
	kr->slot[i] = kr->slot[--kr->n];
	unref(kf);
}

/*
 * make_room - entries out until one more fits in count and bytes, keep
 * excepted: each one picked at random (xorshift), loading ones spared
 * (the lock held)
 */
static void
make_room(struct patatt_keyring *kr, const struct patatt_keyfile *keep)
{
	size_t i, k;

	while (kr->n > 0 && (kr->n >= PATATT_KEYCACHE_MAX ||
	    kr->bytes > PATATT_KEYCACHE_BYTES)) {
		kr->rand ^= kr->rand << 13;
		kr->rand ^= kr->rand >> 7;
		kr->rand ^= kr->rand << 17;
		i = (size_t)(kr->rand % kr->n);
		for (k = 0; k < kr->n && (kr->slot[i] == keep ||
		    kr->slot[i]->loading); k++)
			i = (i + 1) % kr->n;
		if (k == kr->n)
			break;	/* only busy entries: over for a while */
		drop(kr, i);
		kr->stats.evictions++;
	}
}

/* hold_ready - kf held, once its loading is over (the lock held) */
static struct patatt_keyfile *
hold_ready(struct patatt_keyring *kr, struct patatt_keyfile *kf)
{
	kf->refs++;
	if (kf->loading)
		kr->stats.waits++;
	while (kf->loading)
		pthread_cond_wait(&kr->loaded, &kr->lock);
	return kf;
}

/* keyfile_new - an empty entry for the file at loc, as loading */
static struct patatt_keyfile *
keyfile_new(const char *path, uint64_t hash, enum patatt_algo algo,
    const struct patatt_located *loc)
{
	struct patatt_keyfile *kf;

	if ((kf = calloc(1, sizeof(*kf))) == NULL)
		return NULL;
	if ((kf->path = strdup(path)) == NULL ||
	    (kf->src = strdup(loc->src)) == NULL) {
		free(kf->path);
		free(kf);
		return NULL;
	}
	kf->rel = kf->src + (loc->rel - loc->src);
	kf->hash = hash;
	kf->algo = algo;
	kf->loading = 1;
	sbuf_init(&kf->blob, PATATT_KEYFILE_MAX);
	pthread_mutex_init(&kf->use, NULL);
	kf->dev = loc->st.st_dev;
	kf->ino = loc->st.st_ino;
	kf->size = loc->st.st_size;
	kf->mtime = loc->st.st_mtim;
	kf->ctime = loc->st.st_ctim;
	kf->settled = settled(&loc->st);
	return kf;
}

/* read_sum - the file at loc into file, and its SHA-256 */
static int
read_sum(const struct patatt_located *loc, struct sbuf *file,
    unsigned char sum[DIGEST_LEN], struct pa_err *err)
{
	int rc;

	if ((rc = patatt_keyfile_read(loc, file, err)) != 0)
		return rc;
	return digest_sha256(sum, file->buf, file->len);
}

/*
 * cached - the entry for the file at loc: from the table while the file
 * is unchanged (waiting for a thread that is parsing it), else read,
 * parsed and put in the table.  0 with *out held, PA_ENOMEM, PA_ENOTFOUND
 * (gone since it was found), or a fault of reading (PA_ERROR, err set).
 */
static int
cached(struct patatt_keyring *kr, const char *path, enum patatt_algo algo,
    struct patatt_located *loc, struct patatt_keyfile **out,
    struct pa_err *err)
{
	unsigned char sum[DIGEST_LEN];
	struct patatt_keyfile *kf, *old;
	uint64_t hash = path_hash(path);
	struct sbuf file;
	size_t i;
	int rc;

	pthread_mutex_lock(&kr->lock);
	i = slot_of(kr, path, hash, algo);
	old = i < kr->n ? kr->slot[i] : NULL;
	if (old != NULL && same_file(old, &loc->st) &&
	    (old->settled || old->loading)) {
		*out = hold_ready(kr, old);
		kr->stats.hits++;
		pthread_mutex_unlock(&kr->lock);
		return 0;
	}
	pthread_mutex_unlock(&kr->lock);

	if ((rc = patatt_keyfile_open(loc, err)) != 0)
		return rc;
	sbuf_init(&file, PATATT_KEYFILE_MAX);
	rc = read_sum(loc, &file, sum, err);
	close(loc->fd);
	if (rc != 0) {
		sbuf_release(&file);
		return rc;
	}
	pthread_mutex_lock(&kr->lock);
	i = slot_of(kr, path, hash, algo);
	old = i < kr->n ? kr->slot[i] : NULL;
	if (old != NULL && same_file(old, &loc->st) && (old->loading ||
	    memcmp(old->sum, sum, DIGEST_LEN) == 0)) {
		/* racy, but the same bytes: no parse */
		old->settled = old->settled || settled(&loc->st);
		*out = hold_ready(kr, old);
		kr->stats.hits++;
		pthread_mutex_unlock(&kr->lock);
		sbuf_release(&file);
		return 0;
	}
	if ((kf = keyfile_new(path, hash, algo, loc)) == NULL) {
		pthread_mutex_unlock(&kr->lock);
		sbuf_release(&file);
		return PA_ENOMEM;
	}
	memcpy(kf->sum, sum, DIGEST_LEN);
	if (old != NULL)
		drop(kr, i);
	make_room(kr, NULL);
	kr->slot[kr->n++] = kf;
	kf->refs = 2;			/* the table's and ours */
	kr->stats.parses++;
	pthread_mutex_unlock(&kr->lock);

	rc = patatt_keyfile_parse(kf, file.buf, file.len);
	sbuf_release(&file);
	pthread_mutex_lock(&kr->lock);
	kf->fault = rc;
	kf->loading = 0;
	if (rc == PA_ENOMEM && (i = slot_of(kr, path, hash, algo)) < kr->n &&
	    kr->slot[i] == kf)
		drop(kr, i);		/* not a fact about the file */
	else if (rc != PA_ENOMEM) {
		kr->bytes += kf->cost;
		make_room(kr, kf);
	}
	pthread_cond_broadcast(&kr->loaded);
	pthread_mutex_unlock(&kr->lock);
	*out = kf;
	return 0;
}

/*
 * known - the table has entries for path (the file was there lately);
 * forget: they go (the file is gone)
 */
static int
known(struct patatt_keyring *kr, const char *path, int forget)
{
	uint64_t hash = path_hash(path);
	size_t i;
	int yes = 0;

	pthread_mutex_lock(&kr->lock);
	for (i = kr->n; i-- > 0; )
		if (kr->slot[i]->hash == hash &&
		    strcmp(kr->slot[i]->path, path) == 0) {
			yes = 1;
			if (forget && !kr->slot[i]->loading)
				drop(kr, i);
		}
	pthread_mutex_unlock(&kr->lock);
	return yes;
}

static void
pause_briefly(void)
{
	struct timespec ts = { 0, RETRY_PAUSE_MS * 1000000L };

	nanosleep(&ts, NULL);
}

int
patatt_keyring_get(struct patatt_keyring *kr, const char *path,
    enum patatt_algo algo, struct patatt_keyfile **out, struct pa_err *err)
{
	struct patatt_located loc;
	struct patatt_keyfile *kf;
	int again, rc;

	*out = NULL;
	if (kr == NULL)
		return PA_ENOTFOUND;
	for (again = 1; ; again = 0) {
		rc = patatt_keyfile_locate(kr->dirs, kr->ndirs, path, &loc, err);
		if (rc == PA_ENOTFOUND && known(kr, path, !again) && again) {
			pause_briefly();	/* a checkout rewriting it */
			continue;
		}
		if (rc != 0)
			return rc;
		kf = NULL;
		rc = cached(kr, path, algo, &loc, &kf, err);
		if (rc != PA_ENOMEM && (rc != 0 || kf->fault != 0) && again &&
		    (rc == PA_ENOTFOUND || !settled(&loc.st))) {
			patatt_keyring_put(kr, kf);
			pause_briefly();	/* being written */
			continue;
		}
		if (rc != 0)
			return rc;
		if (kf->fault != 0) {
			pa_err_set(err, "%s", kf->why);
			rc = kf->fault == PA_ENOMEM ? PA_ENOMEM : PA_ERROR;
			patatt_keyring_put(kr, kf);
			return rc;
		}
		*out = kf;
		return 0;
	}
}

void
patatt_keyring_put(struct patatt_keyring *kr, struct patatt_keyfile *kf)
{
	if (kf == NULL)
		return;
	pthread_mutex_lock(&kr->lock);
	unref(kf);
	pthread_mutex_unlock(&kr->lock);
}
