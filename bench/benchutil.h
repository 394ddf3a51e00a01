/*
 * benchutil - what every benchmark program needs: dying with a message,
 * a monotonic clock, a bounded number from the command line, removing a
 * scratch directory.
 */
#ifndef PA_BENCHUTIL_H
#define PA_BENCHUTIL_H

/* The program's name in messages; each benchmark sets it first. */
extern const char	*bench_name;

void		 bench_die(const char *what, const char *why)
		    __attribute__((noreturn));
double		 bench_now(void);
unsigned long	 bench_getnum(const char *s, unsigned long min,
		    unsigned long max);
/* bench_rmtree - dir and everything in it; 0, or -1 with errno */
int		 bench_rmtree(const char *dir);

#endif
