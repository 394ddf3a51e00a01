/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * patatt-keyring.c - patatt keyring folders, and the key files read from
 * them, kept while unchanged and shared by every thread.
 *
 * A signer's key is asked for on every message they send, and the
 * kernel's keyring holds OpenPGP exports that take librnp tens of
 * milliseconds to load: read and parse each file once per process, then
 * answer from the cache while the file's device, inode, size, mtime and
 * ctime are what they were (one stat() per lookup).  A file changed less
 * than a second before it was read is read again next time: file times
 * advance in coarse ticks, and a second change in the same tick would not
 * show (git's "racy clean" problem).  Nor is a file dated in the future
 * kept.
 *
 * Files are parsed outside the cache's lock, so a slow OpenPGP export
 * holds up nobody else; two threads meeting a new file at once may both
 * parse it, and the later copy replaces the earlier.  Entries are counted
 * references: the table holds one, each caller between get and put
 * another, so an entry evicted or replaced while in use lives until it is
 * put back.  The table holds PATATT_KEYCACHE_MAX entries; the least
 * recently used one makes room.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
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

struct patatt_keyring {
	atomic_int		  refs;		/* holders, from new to free */
	char			**dirs;
	size_t			  ndirs;
	pthread_mutex_t		  lock;		/* the table and the refs */
	struct patatt_keyfile	**slot;
	size_t			  n;
	unsigned long		  clock;
};

static uint64_t	 path_hash(const char *);
static int	 find_file(const struct patatt_keyring *, const char *,
		    char *, size_t, struct stat *, struct pa_err *);
static int	 exists(const char *, const char *, const char *,
		    struct pa_err *);
static int	 read_file(const char *, struct sbuf *, struct stat *,
		    struct pa_err *);
static int	 same_file(const struct patatt_keyfile *, const struct stat *);
static int	 older(const struct timespec *, const struct timespec *);
static int	 settled(const struct stat *);
static int	 parse(struct patatt_keyfile *, const struct sbuf *);
static struct patatt_keyfile *keyfile_read(const char *, uint64_t,
		    enum patatt_algo, struct pa_err *, int *);
static void	 keyfile_free(struct patatt_keyfile *);
static size_t	 slot_of(const struct patatt_keyring *, const char *,
		    uint64_t, enum patatt_algo);
static void	 unref(struct patatt_keyfile *);

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
	atomic_init(&kr->refs, 1);
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

/* path_hash - FNV-1a, to skip most string compares in the table */
static uint64_t
path_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s != '\0'; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

/*
 * find_file - the first of DIR/path and DIR/<by-hash path>, folder by
 * folder, that exists, into src (stat in st): 0, PA_ENOTFOUND, PA_ERROR
 */
static int
find_file(const struct patatt_keyring *kr, const char *path, char *src,
    size_t size, struct stat *st, struct pa_err *err)
{
	char byhash[PATATT_PATH_MAX];
	size_t d;
	int i, rc;

	if ((rc = patatt_key_byhash(byhash, sizeof(byhash), path)) != 0)
		return rc == PA_ENOMEM ? rc : PA_ENOTFOUND;
	for (d = 0; d < kr->ndirs; d++)
		for (i = 0; i < 2; i++) {
			if ((size_t)snprintf(src, size, "%s/%s", kr->dirs[d],
			    i == 0 ? path : byhash) >= size)
				continue;
			if (stat(src, st) == 0)
				return 0;
			if (errno != ENOENT && errno != ENOTDIR) {
				pa_err_set(err, "key file %s: %s", src,
				    strerror(errno));
				return PA_ERROR;
			}
		}
	return PA_ENOTFOUND;
}

/*
 * exists - whether DIR/path is there: 0, PA_ENOTFOUND, PA_ERROR when it
 * cannot be told (err); path NULL asks for DIR itself, a folder
 */
static int
exists(const char *dir, const char *path, const char *what,
    struct pa_err *err)
{
	char src[PATATT_PATH_MAX];
	struct stat st;

	if ((size_t)snprintf(src, sizeof(src), "%s/%s", dir,
	    path ? path : ".") >= sizeof(src))
		return PA_ENOTFOUND;	/* no key file has such a name */
	if (stat(src, &st) == 0) {
		if (path != NULL || S_ISDIR(st.st_mode))
			return 0;
		errno = ENOTDIR;
	} else if (path != NULL && (errno == ENOENT || errno == ENOTDIR))
		return PA_ENOTFOUND;
	pa_err_set(err, "patatt keyring folder %s cannot be read (%s): %s",
	    dir, what, strerror(errno));
	return PA_ERROR;
}

int
patatt_keyring_knows(const struct patatt_keyring *kr, const char *identity,
    const char *selector, struct pa_err *err)
{
	static const char *const algo_words[] = { "ed25519", "openpgp",
		"openssh" };
	const char *const sels[] = { "default", selector };
	char path[PATATT_PATH_MAX], byhash[PATATT_PATH_MAX], *cut;
	size_t d, a, s;
	int rc;

	for (d = 0; kr != NULL && d < kr->ndirs; d++) {
		if ((rc = exists(kr->dirs[d], NULL, "the folder", err)) != 0)
			return rc;
		for (a = 0; a < 3; a++)
			for (s = 0; s < 2; s++) {
				if (patatt_key_path(path, sizeof(path),
				    algo_words[a], identity, sels[s]) != 0)
					continue;
				if ((rc = patatt_key_byhash(byhash,
				    sizeof(byhash), path)) == PA_ENOMEM)
					return rc;
				if (rc == 0 && (rc = exists(kr->dirs[d],
				    byhash, "by-hash", err)) != PA_ENOTFOUND)
					return rc;
				if (s > 0 || (cut = strrchr(path, '/')) == NULL)
					continue;
				*cut = '\0';	/* any selector: its folder */
				if ((rc = exists(kr->dirs[d], path,
				    "the identity's folder", err)) !=
				    PA_ENOTFOUND)
					return rc;
			}
	}
	return PA_ENOTFOUND;
}

/* read_file - a regular file of at most PATATT_KEYFILE_MAX bytes */
static int
read_file(const char *path, struct sbuf *out, struct stat *st,
    struct pa_err *err)
{
	int fd, rc;

	if ((fd = open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK)) < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return PA_ENOTFOUND;
		pa_err_set(err, "key file %s: %s", path, strerror(errno));
		return PA_ERROR;
	}
	if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode)) {
		close(fd);
		pa_err_set(err, "key file %s: not a regular file", path);
		return PA_ERROR;
	}
	if (st->st_size > (off_t)PATATT_KEYFILE_MAX) {
		close(fd);
		pa_err_set(err, "key file %s: over %u bytes", path,
		    PATATT_KEYFILE_MAX);
		return PA_ETOOBIG;
	}
	if ((rc = sbuf_read_fd(out, fd)) == PA_ETOOBIG)
		pa_err_set(err, "key file %s: over %u bytes", path,
		    PATATT_KEYFILE_MAX);
	else if (rc == PA_ERROR)
		pa_err_set(err, "key file %s: %s", path, strerror(errno));
	else if (rc != 0)
		pa_err_set(err, "key file %s: %s", path, pa_strerror(rc));
	close(fd);
	return rc;
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

static int
older(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec ||
	    (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

/* settled - the file's times are over RACY_SECONDS in the past */
static int
settled(const struct stat *st)
{
	struct timespec now;

	if (clock_gettime(CLOCK_REALTIME, &now) != 0)
		return 0;
	now.tv_sec -= RACY_SECONDS;
	return older(&st->st_mtim, &now) && older(&st->st_ctim, &now);
}

/*
 * parse - the key of kf->algo in file: PA_ENOMEM, else 0 with kf->usable
 * set, and why it is not in kf->why
 */
static int
parse(struct patatt_keyfile *kf, const struct sbuf *file)
{
	struct pa_err err;
	int rc;

	switch (kf->algo) {
	case PATATT_ED25519:
		rc = patatt_key_ed25519(file->buf, file->len, kf->ed);
		break;
	case PATATT_OPENSSH:
		rc = patatt_key_openssh(file->buf, file->len, &kf->blob);
		break;
	case PATATT_OPENPGP:
		err.msg[0] = '\0';
		rc = openpgp_keys_load(&kf->pgp, file->buf, file->len, &err);
		if (rc == PA_EBADDOC)
			snprintf(kf->why, sizeof(kf->why), "%s", err.msg);
		break;
	default:
		rc = -1;
		break;
	}
	if (rc == PA_ENOMEM)
		return rc;
	kf->usable = rc == 0;
	return 0;
}

/*
 * keyfile_read - src read and parsed as a key of algo, with one
 * reference; NULL with *rc and err set
 */
static struct patatt_keyfile *
keyfile_read(const char *src, uint64_t hash, enum patatt_algo algo,
    struct pa_err *err, int *rc)
{
	struct patatt_keyfile *kf;
	struct sbuf file;
	struct stat st;

	if ((kf = calloc(1, sizeof(*kf))) == NULL ||
	    (kf->src = strdup(src)) == NULL) {
		free(kf);
		*rc = PA_ENOMEM;
		return NULL;
	}
	kf->hash = hash;
	kf->algo = algo;
	kf->refs = 1;
	sbuf_init(&kf->blob, PATATT_KEYFILE_MAX);
	pthread_mutex_init(&kf->use, NULL);
	sbuf_init(&file, PATATT_KEYFILE_MAX);
	if ((*rc = read_file(src, &file, &st, err)) == 0)
		*rc = parse(kf, &file);
	sbuf_release(&file);
	if (*rc != 0) {
		keyfile_free(kf);
		return NULL;
	}
	kf->dev = st.st_dev;
	kf->ino = st.st_ino;
	kf->size = st.st_size;
	kf->mtime = st.st_mtim;
	kf->ctime = st.st_ctim;
	kf->cacheable = settled(&st);
	return kf;
}

static void
keyfile_free(struct patatt_keyfile *kf)
{
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

/* slot_of - the table index of (src, algo), or kr->n */
static size_t
slot_of(const struct patatt_keyring *kr, const char *src, uint64_t hash,
    enum patatt_algo algo)
{
	size_t i;

	for (i = 0; i < kr->n; i++)
		if (kr->slot[i]->hash == hash && kr->slot[i]->algo == algo &&
		    strcmp(kr->slot[i]->src, src) == 0)
			break;
	return i;
}

int
patatt_keyring_get(struct patatt_keyring *kr, const char *path,
    enum patatt_algo algo, struct patatt_keyfile **out, struct pa_err *err)
{
	char src[PATATT_PATH_MAX];
	struct patatt_keyfile *kf;
	struct stat st;
	uint64_t hash;
	size_t i, lru;
	int rc;

	*out = NULL;
	if (kr == NULL)
		return PA_ENOTFOUND;
	if ((rc = find_file(kr, path, src, sizeof(src), &st, err)) != 0)
		return rc;
	hash = path_hash(src);
	pthread_mutex_lock(&kr->lock);
	i = slot_of(kr, src, hash, algo);
	if (i < kr->n && kr->slot[i]->cacheable &&
	    same_file(kr->slot[i], &st)) {
		kf = kr->slot[i];
		kf->refs++;
		kf->last_use = ++kr->clock;
		pthread_mutex_unlock(&kr->lock);
		*out = kf;
		return 0;
	}
	pthread_mutex_unlock(&kr->lock);

	if ((kf = keyfile_read(src, hash, algo, err, &rc)) == NULL)
		return rc;
	pthread_mutex_lock(&kr->lock);
	if ((i = slot_of(kr, src, hash, algo)) < kr->n)
		unref(kr->slot[i]);		/* the older copy */
	else if (kr->n < PATATT_KEYCACHE_MAX)
		kr->n++;
	else {
		for (i = lru = 0; i < kr->n; i++)
			if (kr->slot[i]->last_use < kr->slot[lru]->last_use)
				lru = i;
		unref(kr->slot[lru]);
		i = lru;
	}
	kr->slot[i] = kf;
	kf->refs++;			/* the table's */
	kf->last_use = ++kr->clock;
	pthread_mutex_unlock(&kr->lock);
	*out = kf;
	return 0;
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
