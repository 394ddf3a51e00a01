/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * safedir.c - whether root may make and hand over files in a folder
 * without another user turning a name into a link to something of
 * root's.  Every folder from "/" down is looked at, not only the last:
 * whoever may rename one of them may put another tree under the path.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "milter.h"

#define OTHERS_WRITE	(S_IWGRP | S_IWOTH)

/*
 * above_ok - may a folder above the last be st: root's (or ours, when we
 * are not root and so give nothing away), and written by others only when
 * sticky (no one renames what is not theirs in /tmp)
 */
static int
above_ok(const struct stat *st, uid_t owner)
{
	return (st->st_uid == 0 || (geteuid() != 0 && st->st_uid == owner)) &&
	    (!(st->st_mode & OTHERS_WRITE) || (st->st_mode & S_ISVTX));
}

/* last_ok - may the folder itself be st: root's or owner's alone */
static int
last_ok(const struct stat *st, uid_t owner)
{
	return (st->st_uid == 0 || st->st_uid == owner) &&
	    !(st->st_mode & OTHERS_WRITE);
}

/*
 * walk - each folder of dir (absolute) from "/"; a symbolic link only
 * when root's in a folder that only root writes (as /var/run), noted in
 * *linked; the last folder's stat into *last
 */
static int
walk(const char *dir, uid_t owner, int links_ok, int *linked,
    struct stat *last, struct pa_err *err)
{
	char path[PATH_MAX];
	struct stat st;
	size_t at = 0, n;
	int root_only = 1;

	for (;;) {
		while (*dir == '/')
			dir++;
		n = strcspn(dir, "/");
		if (at + 1 + n >= sizeof(path)) {
			pa_err_set(err, "%s", strerror(ENAMETOOLONG));
			return -1;
		}
		path[at++] = '/';
		memcpy(path + at, dir, n);
		at += n;
		path[at] = '\0';
		dir += n;
		if (lstat(path, &st) != 0) {
			pa_err_set(err, "%s", strerror(errno));
			return -1;
		}
		if (S_ISLNK(st.st_mode)) {
			if (!links_ok || st.st_uid != 0 || !root_only) {
				pa_err_set(err, "%s is a symbolic link that "
				    "others than root may change", path);
				return -1;
			}
			*linked = 1;
			if (stat(path, &st) != 0) {
				pa_err_set(err, "%s", strerror(errno));
				return -1;
			}
		}
		if (!S_ISDIR(st.st_mode)) {
			pa_err_set(err, "%s is not a folder", path);
			return -1;
		}
		if (dir[strspn(dir, "/")] == '\0')
			break;
		if (!above_ok(&st, owner)) {
			pa_err_set(err, "%s may be written by others than "
			    "root", path);
			return -1;
		}
		root_only = st.st_uid == 0 && !(st.st_mode & OTHERS_WRITE);
	}
	if (!last_ok(&st, owner)) {
		pa_err_set(err, "%s may be written by others than root and "
		    "the milter's user (give it a folder of its own, such as "
		    "/run/patchattest)", path);
		return -1;
	}
	*last = st;
	return 0;
}

int
safedir_check(const char *dir, uid_t owner, int *shared, struct pa_err *err)
{
	char real[PATH_MAX];
	struct stat st;
	int linked = 0;

	if (*dir != '/') {
		pa_err_set(err, "%s is not an absolute path", dir);
		return -1;
	}
	if (walk(dir, owner, 1, &linked, &st, err) != 0)
		return -1;
	/* Links only root may change: where they lead must be sound too. */
	if (linked && realpath(dir, real) == NULL) {
		pa_err_set(err, "%s", strerror(errno));
		return -1;
	}
	if (linked && walk(real, owner, 0, &linked, &st, err) != 0)
		return -1;
	*shared = st.st_uid != 0;
	return 0;
}
