/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pidfile.c - the milter's PidFile, written as root without trusting the
 * path: never through a symbolic link, only in a folder that nobody but
 * root or the milter's own user can write to, below folders only root
 * can change (safedir.c), locked for the life of the
 * process (a second milter with the same PidFile stops at once), and
 * removed at the end -- or emptied, when the folder does not let the
 * milter, its privileges dropped, remove it.
 */
#include "config.h"

#include <sys/file.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "milter.h"

static int	 pid_fd = -1;
static char	*pid_path;

int
pidfile_check(const char *path, uid_t owner, struct pa_err *err)
{
	struct pa_err why;
	char *copy;
	int shared, rc;

	if ((copy = strdup(path)) == NULL) {
		pa_err_set(err, "%s", pa_strerror(PA_ENOMEM));
		return -1;
	}
	if ((rc = safedir_check(dirname(copy), owner, &shared, &why)) != 0)
		pa_err_set(err, "PidFile %s: its folder: %s", path, why.msg);
	free(copy);
	return rc;
}

int
pidfile_write(const char *path, uid_t owner, struct pa_err *err)
{
	char buf[32];
	struct stat st;
	ssize_t n;
	int fd, len;

	if (pidfile_check(path, owner, err) != 0)
		return -1;
	if ((fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC |
	    O_NONBLOCK, 0644)) < 0) {
		pa_err_set(err, "PidFile %s: %s", path, errno == ELOOP ?
		    "a symbolic link (not followed)" : strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		pa_err_set(err, "PidFile %s: not a regular file", path);
		close(fd);
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		pa_err_set(err, "PidFile %s is held by another running milter",
		    path);
		close(fd);
		return -1;
	}
	len = snprintf(buf, sizeof(buf), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) != 0 ||
	    (n = write(fd, buf, (size_t)len)) != (ssize_t)len) {
		pa_err_set(err, "PidFile %s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	if ((pid_path = strdup(path)) == NULL) {
		pa_err_set(err, "%s", pa_strerror(PA_ENOMEM));
		close(fd);
		return -1;
	}
	pid_fd = fd;
	return 0;
}

int
pidfile_remove(struct pa_err *err)
{
	struct stat a, b;
	int unlink_errno, rc = 0;

	if (pid_fd < 0)
		return 0;
	/* Ours still, and not something put at the path since. */
	if (fstat(pid_fd, &a) == 0 && lstat(pid_path, &b) == 0 &&
	    a.st_dev == b.st_dev && a.st_ino == b.st_ino &&
	    unlink(pid_path) != 0) {
		/*
		 * An empty PidFile names no process: what start-stop-daemon
		 * and init scripts find there later is not taken for us.
		 */
		unlink_errno = errno;
		if (ftruncate(pid_fd, 0) != 0) {
			pa_err_set(err, "PidFile %s could be neither removed "
			    "(%s) nor emptied (%s): it still names process "
			    "%ld, this milter, which has stopped; remove it "
			    "by hand", pid_path, strerror(unlink_errno),
			    strerror(errno), (long)getpid());
			rc = -1;
		}
	}
	close(pid_fd);
	pid_fd = -1;
	free(pid_path);
	pid_path = NULL;
	return rc;
}
