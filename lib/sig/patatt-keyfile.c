/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * patatt-keyfile.c - finding a key file in the keyring folders, and
 * reading and parsing one (patatt-keyring.c keeps what this makes).
 *
 * A lookup has three outcomes.  Found: a regular file, open.  Absent: no
 * file of any kind at the key's path or its by-hash path in any folder,
 * every folder having been searched.  A fault: a folder missing or that
 * cannot be searched, a path that cannot be opened for another reason
 * than its absence, something that is not a regular file (a FIFO, a
 * device), a file over PATATT_KEYFILE_MAX.  A fault is never taken for an
 * absent key: the folders are the admin's, and what cannot be read there
 * is this server's problem, not the sender's.
 *
 * A lookup is a stat() per path tried (a cached file is not opened); a
 * file to be read is opened without blocking (a FIFO cannot hold it up),
 * checked again with fstat() and read through that descriptor, so what
 * is parsed is what was checked.  Symbolic links are followed, as
 * patatt follows them (a keyring is a git checkout, which may hold them);
 * what they lead to must still be a regular file.  Messages name a file
 * by its path inside its folder, as the verdict's key= does, never by the
 * server's full path.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "patchattest.h"
#include "openpgp.h"
#include "patatt-int.h"
#include "base.h"

static const char *const algo_words[] = {
	[PATATT_ED25519] = "ed25519",
	[PATATT_OPENPGP] = "openpgp",
	[PATATT_OPENSSH] = "openssh",
};

static int	 fits(const struct stat *, const char *, struct pa_err *);
static int	 stat_in(char *const *, size_t, const char *,
		    struct patatt_located *, struct pa_err *);
static int	 folder_there(char *const *, size_t, struct pa_err *);
static int	 changed(const struct stat *, const struct stat *);

/* fits - st is a regular file of at most PATATT_KEYFILE_MAX bytes */
static int
fits(const struct stat *st, const char *rel, struct pa_err *err)
{
	if (!S_ISREG(st->st_mode)) {
		pa_err_set(err, "key file %s: not a regular file", rel);
		return PA_ERROR;
	}
	if (st->st_size > (off_t)PATATT_KEYFILE_MAX) {
		pa_err_set(err, "key file %s: over %u bytes", rel,
		    PATATT_KEYFILE_MAX);
		return PA_ERROR;
	}
	return 0;
}

/* stat_in - rel inside folder d, into loc: 0, PA_ENOTFOUND or PA_ERROR */
static int
stat_in(char *const *dirs, size_t d, const char *rel,
    struct patatt_located *loc, struct pa_err *err)
{
	if ((size_t)snprintf(loc->src, sizeof(loc->src), "%s/%s", dirs[d],
	    rel) >= sizeof(loc->src)) {
		pa_err_set(err, "key file %s: the path is too long", rel);
		return PA_ERROR;
	}
	if (stat(loc->src, &loc->st) != 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return PA_ENOTFOUND;
		pa_err_set(err, "key file %s: %s", rel, strerror(errno));
		return PA_ERROR;
	}
	loc->dir = d;
	loc->rel = loc->src + strlen(dirs[d]) + 1;
	return fits(&loc->st, rel, err);
}

/* folder_there - keyring folder d is a folder: 0, or PA_ERROR */
static int
folder_there(char *const *dirs, size_t d, struct pa_err *err)
{
	struct stat st;
	const char *why = "not a folder";

	if (stat(dirs[d], &st) != 0)
		why = strerror(errno);
	else if (S_ISDIR(st.st_mode))
		return 0;
	pa_err_set(err, "keyring folder %zu (PatattKeyring) cannot be used: "
	    "%s", d + 1, why);
	return PA_ERROR;
}

int
patatt_keyfile_locate(char *const *dirs, size_t ndirs, const char *path,
    struct patatt_located *loc, struct pa_err *err)
{
	char byhash[PATATT_PATH_MAX];
	size_t d;
	int rc;

	loc->fd = -1;
	byhash[0] = '\0';
	for (d = 0; d < ndirs; d++) {
		if ((rc = stat_in(dirs, d, path, loc, err)) != PA_ENOTFOUND)
			return rc;
		/* rarely there: the hash only when it is needed */
		if (byhash[0] == '\0' && (rc = patatt_key_byhash(byhash,
		    sizeof(byhash), path)) != 0)
			return rc == PA_ENOMEM ? rc : PA_ENOTFOUND;
		if ((rc = stat_in(dirs, d, byhash, loc, err)) != PA_ENOTFOUND)
			return rc;
		if (folder_there(dirs, d, err) != 0)
			return PA_ERROR;
	}
	return PA_ENOTFOUND;
}

int
patatt_keyfile_open(struct patatt_located *loc, struct pa_err *err)
{
	int fd;

	fd = open(loc->src, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 && (errno == ENOENT || errno == ENOTDIR))
		return PA_ENOTFOUND;
	if (fd < 0) {
		pa_err_set(err, "key file %s: %s", loc->rel, strerror(errno));
		return PA_ERROR;
	}
	if (fstat(fd, &loc->st) != 0) {
		pa_err_set(err, "key file %s: %s", loc->rel, strerror(errno));
		close(fd);
		return PA_ERROR;
	}
	if (fits(&loc->st, loc->rel, err) != 0) {
		close(fd);
		return PA_ERROR;
	}
	loc->fd = fd;
	return 0;
}

int
patatt_keyfile_holds(char *const *dirs, size_t ndirs, const char *identity,
    const char *selector, struct pa_err *err)
{
	struct patatt_located loc;
	char path[PATATT_PATH_MAX], *slash;
	struct stat st;
	size_t a, d;
	int rc;

	for (a = 0; a < sizeof(algo_words) / sizeof(algo_words[0]); a++) {
		if (patatt_key_path(path, sizeof(path), algo_words[a],
		    identity, selector) != 0)
			return 0;	/* names no file of any kind */
		if ((rc = patatt_keyfile_locate(dirs, ndirs, path, &loc,
		    err)) != PA_ENOTFOUND)
			return rc == 0 ? 1 : rc;
		/* Another selector's file binds the identity too. */
		slash = strrchr(path, '/');
		*slash = '\0';
		for (d = 0; d < ndirs; d++) {
			if ((size_t)snprintf(loc.src, sizeof(loc.src), "%s/%s",
			    dirs[d], path) >= sizeof(loc.src))
				continue;
			if (stat(loc.src, &st) == 0) {
				if (S_ISDIR(st.st_mode))
					return 1;
			} else if (errno != ENOENT && errno != ENOTDIR) {
				pa_err_set(err, "key folder %s: %s", path,
				    strerror(errno));
				return PA_ERROR;
			}
		}
	}
	return 0;
}

/* changed - the file is not what it was when first looked at */
static int
changed(const struct stat *a, const struct stat *b)
{
	return a->st_size != b->st_size ||
	    a->st_mtim.tv_sec != b->st_mtim.tv_sec ||
	    a->st_mtim.tv_nsec != b->st_mtim.tv_nsec ||
	    a->st_ctim.tv_sec != b->st_ctim.tv_sec ||
	    a->st_ctim.tv_nsec != b->st_ctim.tv_nsec;
}

int
patatt_keyfile_parse(struct patatt_keyfile *kf, const char *data,
    size_t len)
{
	struct pa_err err;
	int rc;

	err.msg[0] = '\0';
	switch (kf->algo) {
	case PATATT_ED25519:
		rc = patatt_key_ed25519(data, len, kf->ed);
		break;
	case PATATT_OPENSSH:
		rc = patatt_key_openssh(data, len, &kf->blob);
		break;
	case PATATT_OPENPGP:
		rc = openpgp_keys_load(&kf->pgp, data, len, &err);
		break;
	default:
		rc = -1;
		break;
	}
	kf->cost = sizeof(*kf) + len * (kf->pgp != NULL ? PATATT_PGP_COST :
	    1);
	if (rc == PA_ENOMEM || rc == 0)
		return rc;
	snprintf(kf->why, sizeof(kf->why), "key file %s is not an %s key%s%s",
	    kf->rel, algo_words[kf->algo], err.msg[0] ? ": " : "", err.msg);
	return PA_EBADDOC;
}

int
patatt_keyfile_read(const struct patatt_located *loc, struct sbuf *file,
    struct pa_err *err)
{
	struct stat after;
	int rc;

	if ((rc = sbuf_read_fd(file, loc->fd)) == PA_ERROR)
		pa_err_set(err, "key file %s: %s", loc->rel, strerror(errno));
	else if (rc == PA_ETOOBIG)
		pa_err_set(err, "key file %s: over %u bytes", loc->rel,
		    PATATT_KEYFILE_MAX);
	else if (rc == 0 && (fstat(loc->fd, &after) != 0 ||
	    changed(&loc->st, &after))) {
		pa_err_set(err, "key file %s changed while it was read",
		    loc->rel);
		rc = PA_ERROR;
	} else if (rc != 0)
		pa_err_set(err, "key file %s: %s", loc->rel, pa_strerror(rc));
	return rc == PA_ENOMEM ? rc : rc != 0 ? PA_ERROR : 0;
}
