/* SPDX-License-Identifier: BSD-2-Clause */
#include "config.h"

#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "benchutil.h"

const char *bench_name = "bench";
FILE *bench_err;

void
bench_quiet(void)
{
	if ((bench_err = pa_divert_stderr(NULL)) == NULL)
		bench_err = stderr;
}

void
bench_die(const char *what, const char *why)
{
	fprintf(bench_err ? bench_err : stderr, "%s: %s: %s\n", bench_name,
	    what, why);
	exit(1);
}

uint64_t
bench_mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

double
bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

unsigned long
bench_getnum(const char *s, unsigned long min, unsigned long max)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < min || v > max)
		bench_die(s, "not a number in range");
	return v;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void
bench_latencies(const char *prefix, double *lat, size_t n)
{
	qsort(lat, n, sizeof(*lat), cmp_double);
	printf("%s_p50 %.1f us\n", prefix, lat[n / 2] * 1e6);
	printf("%s_p99 %.1f us\n", prefix, lat[n * 99 / 100] * 1e6);
	printf("%s_max %.1f us\n", prefix, lat[n - 1] * 1e6);
}

static int
rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *f)
{
	(void)sb;
	(void)flag;
	(void)f;
	return remove(path);
}

int
bench_rmtree(const char *dir)
{
	return nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

void
bench_read_file(const char *path, struct sbuf *out)
{
	char buf[65536];
	FILE *f;
	size_t n;

	if ((f = fopen(path, "rb")) == NULL)
		bench_die(path, strerror(errno));
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		sbuf_add(out, buf, n);
	if (ferror(f) || sbuf_failed(out))
		bench_die(path, "cannot read it");
	fclose(f);
}

void
bench_write_file(const char *path, const void *p, size_t len)
{
	FILE *f;

	if ((f = fopen(path, "wb")) == NULL ||
	    fwrite(p, 1, len, f) != len || fclose(f) != 0)
		bench_die(path, strerror(errno));
}

int
bench_run(char *const argv[], const char *in, const char *out)
{
	pid_t pid;
	int st, fd;

	fflush(stdout);
	if ((pid = fork()) < 0)
		bench_die("fork", strerror(errno));
	if (pid == 0) {
		if ((fd = open(in ? in : "/dev/null", O_RDONLY)) < 0 ||
		    dup2(fd, 0) < 0)
			_exit(127);
		close(fd);
		if ((fd = open(out ? out : "/dev/null",
		    O_WRONLY | O_CREAT | O_TRUNC, 0600)) < 0 || dup2(fd, 1) < 0)
			_exit(127);
		close(fd);
		execvp(argv[0], argv);
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			bench_die("waitpid", strerror(errno));
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}
