/*
 * benchutil - what every benchmark program needs: dying with a message,
 * a monotonic clock, a bounded number from the command line, latency
 * percentiles, removing a scratch directory.
 */
#ifndef PA_BENCHUTIL_H
#define PA_BENCHUTIL_H

#include <stddef.h>

/* The program's name in messages; each benchmark sets it first. */
extern const char	*bench_name;

void		 bench_die(const char *what, const char *why)
		    __attribute__((noreturn));
double		 bench_now(void);
unsigned long	 bench_getnum(const char *s, unsigned long min,
		    unsigned long max);
/*
 * bench_latencies - sort the n latencies lat (seconds) and print
 * "PREFIX_p50", "PREFIX_p99" and "PREFIX_max" in microseconds
 */
void		 bench_latencies(const char *prefix, double *lat, size_t n);

/* bench_rmtree - dir and everything in it; 0, or -1 with errno */
int		 bench_rmtree(const char *dir);

#endif
