/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tap - a small Test Anything Protocol emitter for the C tests.
 *
 * Each check prints one "ok N - name" or "not ok N - name" line (with the
 * difference on "#" lines); tap_done() prints the plan and returns the exit
 * status for main().  tap_skip_all() ends a test that cannot run here.
 * tap_check() passes when cond is true (the shell tests' ok, in tap.sh,
 * takes an exit status instead: 0 passes).
 */
#ifndef PA_TAP_H
#define PA_TAP_H

#include <stddef.h>

int	tap_check(int cond, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
int	tap_check_int(long long got, long long want, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));
int	tap_check_str(const char *got, const char *want, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));
int	tap_check_mem(const void *got, size_t gotlen, const void *want,
	    size_t wantlen, const char *fmt, ...)
	    __attribute__((format(printf, 5, 6)));
void	tap_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void	tap_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void	tap_skip_all(const char *fmt, ...)
	    __attribute__((format(printf, 1, 2), noreturn));
int	tap_done(void);

/* tap_read_file - whole file into a malloc()ed buffer, NUL-terminated */
char	*tap_read_file(const char *path, size_t *lenp);

/* tap_srcdir - the source tree's top ($srcdir of make check, else ".") */
const char *tap_srcdir(void);

/*
 * tap_run - run a program (NULL-ended arguments, found in PATH) with its
 * standard output into the file out (NULL: discarded), its standard input
 * and error on /dev/null; its exit status, or -1.
 */
int	tap_run(const char *out, const char *arg0, ...);

/* tap_write_file - data into path, making its folders; 0 or -1 */
int	tap_write_file(const char *path, const void *data, size_t len);

/*
 * tap_tmpdir - a new folder $TMPDIR/name.XXXXXX (or under /tmp) into buf;
 * a test that cannot have one is skipped
 */
void	tap_tmpdir(char *buf, size_t size, const char *name);

/* tap_rmtree - dir and everything in it, as far as it goes */
void	tap_rmtree(const char *dir);

#endif
