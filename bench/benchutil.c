#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "benchutil.h"

const char *bench_name = "bench";

void
bench_die(const char *what, const char *why)
{
	fprintf(stderr, "%s: %s: %s\n", bench_name, what, why);
	exit(1);
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
