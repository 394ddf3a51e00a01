/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * benchutil - what every benchmark program needs: dying with a message,
 * keeping the libraries quiet, a monotonic clock, a mixing function for
 * synthetic data, a bounded number from the command line, latency
 * percentiles, removing a scratch directory, reading and writing files,
 * running a program.
 */
#ifndef PA_BENCHUTIL_H
#define PA_BENCHUTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base.h"

/* The program's name in messages; each benchmark sets it first. */
extern const char	*bench_name;

/*
 * bench_err - where the benchmark's own messages go: standard error, or
 * after bench_quiet() the real one while the libraries' chatter (librnp
 * says every key it misses) goes nowhere
 */
extern FILE		*bench_err;
void		 bench_quiet(void);

void		 bench_die(const char *what, const char *why)
		    __attribute__((noreturn));
double		 bench_now(void);
/* bench_mix - splitmix64's finaliser: synthetic data as a function of k */
uint64_t	 bench_mix(uint64_t k);
unsigned long	 bench_getnum(const char *s, unsigned long min,
		    unsigned long max);
/*
 * bench_latencies - sort the n latencies lat (seconds) and print
 * "PREFIX_p50", "PREFIX_p99" and "PREFIX_max" in microseconds
 */
void		 bench_latencies(const char *prefix, double *lat, size_t n);

/* bench_rmtree - dir and everything in it; 0, or -1 with errno */
int		 bench_rmtree(const char *dir);

/* bench_read_file, bench_write_file - a whole file, or die */
void		 bench_read_file(const char *path, struct sbuf *out);
void		 bench_write_file(const char *path, const void *p, size_t len);

/*
 * bench_run - argv (found in PATH) with stdin from in and stdout to out
 * (NULL: /dev/null); its exit status
 */
int		 bench_run(char *const argv[], const char *in, const char *out);

#endif
