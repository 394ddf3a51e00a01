/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t-shelter - cli_shelter(): a reader that dies of a signal is run again,
 * its output heard once, from the run that ended by itself; one that
 * dies every time is given up after five runs, saying so; a reader that
 * takes the lock is not sheltered at all.
 */
#include "config.h"

#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "tap.h"

static char dir[64];

/* slurp - the file at path, whole (at most 4 KiB), or "" */
static const char *
slurp(const char *path)
{
	static char buf[4096];
	FILE *fp;
	size_t n = 0;

	if ((fp = fopen(path, "r")) != NULL) {
		n = fread(buf, 1, sizeof(buf) - 1, fp);
		fclose(fp);
	}
	buf[n] = '\0';
	return buf;
}

/* runs - how many times the sheltered part started, counted in a file */
static int
runs(int add)
{
	char path[96];
	FILE *fp;
	int n = 0;

	snprintf(path, sizeof(path), "%s/runs", dir);
	if ((fp = fopen(path, "r")) != NULL) {
		if (fscanf(fp, "%d", &n) != 1)
			n = 0;
		fclose(fp);
	}
	if (add && (fp = fopen(path, "w")) != NULL) {
		fprintf(fp, "%d\n", n + add);
		fclose(fp);
	}
	return n + add;
}

/*
 * command - a command whose reader dies of SIGABRT in its first deaths
 * runs, run with its output in dir/out and dir/err: its exit status
 */
static int
command(int deaths)
{
	char out[96], err[96];
	pid_t pid;
	int status, rc;

	snprintf(out, sizeof(out), "%s/runs", dir);
	unlink(out);
	snprintf(out, sizeof(out), "%s/out", dir);
	snprintf(err, sizeof(err), "%s/err", dir);
	fflush(stdout);
	if ((pid = fork()) == 0) {
		if (freopen(out, "w", stdout) == NULL ||
		    freopen(err, "w", stderr) == NULL)
			_exit(100);
		cli_stderr = stderr;
		printf("before the reader\n");
		if ((rc = cli_shelter(1, "the records", 9)) >= 0) {
			fflush(NULL);
			_exit(rc);
		}
		if (runs(1) <= deaths)
			abort();
		printf("the answer\n");
		fprintf(stderr, "a warning\n");
		exit(3);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int
main(void)
{
	struct rlimit none = { 0, 0 };
	char out[96], err[96];

	/* no core file of each death */
	setrlimit(RLIMIT_CORE, &none);
	tap_tmpdir(dir, sizeof(dir), "t-shelter");
	snprintf(out, sizeof(out), "%s/out", dir);
	snprintf(err, sizeof(err), "%s/err", dir);
	cli_stderr = stderr;

	tap_check_int(cli_shelter(0, "the records", 9), -1,
	    "a reader with the lock file: not sheltered");

	tap_check_int(command(2), 3, "killed twice, then ends: its exit "
	    "status");
	tap_check_int(runs(0), 3, "... after three runs");
	tap_check_str(slurp(out), "before the reader\nthe answer\n",
	    "... its output once, from the run that ended");
	tap_check_str(slurp(err), "a warning\n",
	    "... and its standard error, once");

	tap_check_int(command(99), 9, "killed every time: the fault status");
	tap_check_int(runs(0), 5, "... after five runs");
	tap_check(strstr(slurp(err), "reading the records without its lock "
	    "file failed 5 times") != NULL &&
	    strstr(slurp(err), "a warning") == NULL,
	    "... saying so, and nothing of the runs: %s", slurp(err));
	tap_check_str(slurp(out), "before the reader\n",
	    "... and no answer");

	tap_rmtree(dir);
	return tap_done();
}
