/*
 * patatt-keycache.c - keyring files read once and kept while unchanged.
 *
 * A signer's key is asked for on every message they send, and the
 * kernel's keyring holds OpenPGP exports of hundreds of kilobytes: open,
 * read and parse them once, then answer from the cache while the file's
 * device, inode, size, mtime and ctime are what they were.  A file
 * changed less than a second before it was read is read again next time:
 * file times advance in coarse ticks, and a second change in the same
 * tick would not show (git's "racy clean" problem).  Nor is a file dated
 * in the future kept.
 *
 * The cache has PATATT_KEYCACHE_MAX slots, the least recently used one
 * is reused; a lookup costs one stat() per path tried.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "patchattest.h"
#include "patatt-int.h"
#include "sbuf.h"

#define RACY_SECONDS	1

static int	 read_file(const char *, struct sbuf *, struct stat *,
		    struct pa_err *);
static int	 same_file(const struct patatt_keyfile *, const struct stat *);
static int	 older(const struct timespec *, const struct timespec *);
static int	 settled(const struct stat *);
static int	 parse(struct patatt_keyfile *, const struct sbuf *);
static struct patatt_keyfile *slot_for(struct patatt_keycache *,
		    const char *, enum patatt_algo);

void
patatt_keycache_init(struct patatt_keycache *kc)
{
	size_t i;

	memset(kc, 0, sizeof(*kc));
	for (i = 0; i < PATATT_KEYCACHE_MAX; i++)
		sbuf_init(&kc->slot[i].data, PATATT_KEYFILE_MAX);
	sbuf_init(&kc->file, PATATT_KEYFILE_MAX);
}

void
patatt_keycache_release(struct patatt_keycache *kc)
{
	size_t i;

	for (i = 0; i < PATATT_KEYCACHE_MAX; i++) {
		free(kc->slot[i].src);
		sbuf_release(&kc->slot[i].data);
	}
	sbuf_release(&kc->file);
}

/* read_file - a regular file of at most PATATT_KEYFILE_MAX bytes */
static int
read_file(const char *path, struct sbuf *out, struct stat *st,
    struct pa_err *err)
{
	int fd, rc;

	sbuf_reset(out);
	if ((fd = open(path, O_RDONLY | O_NOCTTY)) < 0) {
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

/* parse - the key of kf->algo in file; PA_ENOMEM, else 0 (usable or not) */
static int
parse(struct patatt_keyfile *kf, const struct sbuf *file)
{
	int rc;

	sbuf_reset(&kf->data);
	switch (kf->algo) {
	case PATATT_ED25519:
		rc = patatt_key_ed25519(file->buf, file->len, kf->ed);
		break;
	case PATATT_OPENSSH:
		rc = patatt_key_openssh(file->buf, file->len, &kf->data);
		break;
	case PATATT_OPENPGP:
		rc = patatt_key_openpgp(file->buf, file->len, &kf->data);
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

/* slot_for - the slot that held (src, algo), else an empty or the LRU one */
static struct patatt_keyfile *
slot_for(struct patatt_keycache *kc, const char *src, enum patatt_algo algo)
{
	struct patatt_keyfile *kf, *victim = &kc->slot[0];
	size_t i;

	for (i = 0; i < PATATT_KEYCACHE_MAX; i++) {
		kf = &kc->slot[i];
		if (kf->src != NULL && kf->algo == algo &&
		    strcmp(kf->src, src) == 0)
			return kf;
		if (victim->src != NULL &&
		    (kf->src == NULL || kf->last_use < victim->last_use))
			victim = kf;
	}
	return victim;
}

int
patatt_keycache_get(struct patatt_keycache *kc, const char *dir,
    const char *path, enum patatt_algo algo,
    const struct patatt_keyfile **out, struct pa_err *err)
{
	char byhash[PATATT_PATH_MAX], src[PATATT_PATH_MAX];
	struct patatt_keyfile *kf;
	struct stat st;
	int i, rc;

	if (dir == NULL)
		return PA_ENOTFOUND;
	for (i = 0; i < 2; i++) {
		if (i == 1 && (rc = patatt_key_byhash(byhash, sizeof(byhash),
		    path)) != 0)
			return rc;
		if ((size_t)snprintf(src, sizeof(src), "%s/%s", dir,
		    i == 0 ? path : byhash) >= sizeof(src))
			return PA_ENOTFOUND;
		if (stat(src, &st) == 0)
			break;
		if (errno != ENOENT && errno != ENOTDIR) {
			pa_err_set(err, "key file %s: %s", src,
			    strerror(errno));
			return PA_ERROR;
		}
	}
	if (i == 2)
		return PA_ENOTFOUND;
	kf = slot_for(kc, src, algo);
	kf->last_use = ++kc->clock;
	if (kf->src != NULL && kf->cacheable && kf->algo == algo &&
	    strcmp(kf->src, src) == 0 && same_file(kf, &st)) {
		*out = kf;
		return 0;
	}
	free(kf->src);
	kf->src = NULL;
	if ((rc = read_file(src, &kc->file, &st, err)) != 0)
		return rc;
	kf->algo = algo;
	if ((rc = parse(kf, &kc->file)) != 0)
		return rc;
	if ((kf->src = strdup(src)) == NULL)
		return PA_ENOMEM;
	kf->dev = st.st_dev;
	kf->ino = st.st_ino;
	kf->size = st.st_size;
	kf->mtime = st.st_mtim;
	kf->ctime = st.st_ctim;
	kf->cacheable = settled(&st);
	*out = kf;
	return 0;
}
