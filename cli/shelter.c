/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * shelter.c - the rest of a command in a child process, when it reads
 * the StateFile without its lock file (a maintainer of the milter's
 * group).  Such a reader cannot stop the milter from reusing the pages it
 * is reading; each read checks that it settled and reads again when it
 * did not, but LMDB may trip over a reused page before that check (an
 * assertion that aborts, a pointer into the wrong page).  In a child, a
 * trip costs a retry: its output is held in memory files until it ends,
 * and only a child that ended by itself is heard.
 */
#include "config.h"

#include <sys/mman.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

#define SHELTER_TRIES	5

/* pass - what the memory file fd holds onto out; 0, or -1 */
static int
pass(int fd, int out)
{
	char buf[65536];
	ssize_t n, w, off;

	if (lseek(fd, 0, SEEK_SET) != 0)
		return -1;
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		for (off = 0; off < n; ) {
			if ((w = write(out, buf + off, (size_t)(n - off))) < 0 &&
			    errno == EINTR)
				continue;
			if (w < 0)
				return -1;
			off += w;
		}
	}
	return 0;
}

/*
 * one_try - a child with its output in fresh memory files: 0 with
 * *child set in the child; in the parent, 0 with *status the child's
 * wait() status and out[] its stdout and stderr, or -1 when no child
 * could be made
 */
static int
one_try(int *status, int out[2], int *child)
{
	pid_t pid;

	if ((out[0] = memfd_create("patchattest-out", MFD_CLOEXEC)) < 0)
		return -1;
	if ((out[1] = memfd_create("patchattest-err", MFD_CLOEXEC)) < 0) {
		close(out[0]);
		return -1;
	}
	fflush(stdout);
	fflush(stderr);
	if ((pid = fork()) < 0) {
		close(out[0]);
		close(out[1]);
		return -1;
	}
	if (pid == 0) {
		*child = 1;
		if (dup2(out[0], STDOUT_FILENO) < 0 ||
		    dup2(out[1], STDERR_FILENO) < 0)
			_exit(CLI_EXIT_ERROR);
		close(out[0]);
		close(out[1]);
		return 0;
	}
	*child = 0;
	while (waitpid(pid, status, 0) < 0)
		if (errno != EINTR) {
			*status = W_EXITCODE(CLI_EXIT_ERROR, 0);
			break;
		}
	return 0;
}

int
cli_shelter(int unlocked, const char *what, int fault)
{
	int out[2], status = 0, child, tries;

	if (!unlocked)
		return -1;
	for (tries = 1; tries <= SHELTER_TRIES; tries++) {
		if (one_try(&status, out, &child) != 0) {
			cli_warn("cannot start a reader of %s: %s", what,
			    strerror(errno));
			return fault;
		}
		if (child)
			return -1;
		if (!WIFSIGNALED(status) || WTERMSIG(status) == SIGINT ||
		    WTERMSIG(status) == SIGTERM || WTERMSIG(status) == SIGPIPE)
			break;
		close(out[0]);
		close(out[1]);
	}
	if (tries > SHELTER_TRIES) {
		cli_warn("reading %s without its lock file failed %d times "
		    "(%s) while the milter wrote to it; run it again", what,
		    SHELTER_TRIES, strsignal(WTERMSIG(status)));
		return fault;
	}
	if (pass(out[0], STDOUT_FILENO) != 0 || pass(out[1],
	    STDERR_FILENO) != 0)
		status = W_EXITCODE(fault, 0);
	close(out[0]);
	close(out[1]);
	if (WIFSIGNALED(status)) {
		signal(WTERMSIG(status), SIG_DFL);
		raise(WTERMSIG(status));
	}
	return WEXITSTATUS(status);
}
