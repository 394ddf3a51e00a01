/* SPDX-License-Identifier: BSD-2-Clause */
#include "config.h"

#include <sys/types.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "tap.h"

static int tap_count;
static int tap_failed;

static int
tap_vresult(int cond, const char *fmt, va_list ap)
{
	tap_count++;
	printf("%sok %d - ", cond ? "" : "not ", tap_count);
	vprintf(fmt, ap);
	putchar('\n');
	if (!cond)
		tap_failed++;
	fflush(stdout);
	return cond;
}

int
tap_check(int cond, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vresult(cond, fmt, ap);
	va_end(ap);
	return cond;
}

int
tap_check_int(long long got, long long want, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vresult(got == want, fmt, ap);
	va_end(ap);
	if (got != want)
		printf("#   got:  %lld\n#   want: %lld\n", got, want);
	return got == want;
}

int
tap_check_str(const char *got, const char *want, const char *fmt, ...)
{
	va_list ap;
	int same;

	same = got && want ? strcmp(got, want) == 0 : got == want;
	va_start(ap, fmt);
	tap_vresult(same, fmt, ap);
	va_end(ap);
	if (!same)
		printf("#   got:  \"%s\"\n#   want: \"%s\"\n",
		    got ? got : "(null)", want ? want : "(null)");
	return same;
}

static void
tap_show(const char *label, const unsigned char *p, size_t len)
{
	size_t i;

	printf("#   %s (%zu bytes): \"", label, len);
	for (i = 0; i < len && i < 400; i++) {
		if (p[i] == '\n')
			fputs("\\n", stdout);
		else if (p[i] < 0x20 || p[i] >= 0x7f)
			printf("\\x%02x", p[i]);
		else
			putchar(p[i]);
	}
	puts(i < len ? "\"..." : "\"");
}

int
tap_check_mem(const void *got, size_t gotlen, const void *want, size_t wantlen,
    const char *fmt, ...)
{
	va_list ap;
	int same;

	same = gotlen == wantlen && (gotlen == 0 || memcmp(got, want, gotlen) == 0);
	va_start(ap, fmt);
	tap_vresult(same, fmt, ap);
	va_end(ap);
	if (!same) {
		tap_show("got", got, gotlen);
		tap_show("want", want, wantlen);
	}
	return same;
}

void
tap_diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

void
tap_skip(const char *fmt, ...)
{
	va_list ap;

	tap_count++;
	printf("ok %d # SKIP ", tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

void
tap_skip_all(const char *fmt, ...)
{
	va_list ap;

	fputs("1..0 # SKIP ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	exit(0);
}

int
tap_done(void)
{
	printf("1..%d\n", tap_count);
	return tap_failed ? 1 : 0;
}

char *
tap_read_file(const char *path, size_t *lenp)
{
	FILE *fp;
	char *buf = NULL;
	size_t len = 0, alloc = 0, n;

	if ((fp = fopen(path, "rb")) == NULL)
		return NULL;
	for (;;) {
		if (alloc - len < 65536) {
			char *p = realloc(buf, alloc += 65536 + alloc);
			if (p == NULL) {
				free(buf);
				fclose(fp);
				return NULL;
			}
			buf = p;
		}
		n = fread(buf + len, 1, alloc - len - 1, fp);
		len += n;
		if (n == 0)
			break;
	}
	fclose(fp);
	buf[len] = '\0';
	*lenp = len;
	return buf;
}

const char *
tap_srcdir(void)
{
	const char *s = getenv("srcdir");

	return s && *s ? s : ".";
}

int
tap_run(const char *out, const char *arg0, ...)
{
	const char *argv[40];
	va_list ap;
	pid_t pid;
	int n = 0, st, fd;

	argv[n++] = arg0;
	va_start(ap, arg0);
	while (n < 39 && (argv[n] = va_arg(ap, const char *)) != NULL)
		n++;
	va_end(ap);
	argv[n] = NULL;
	fflush(stdout);
	if ((pid = fork()) < 0)
		return -1;
	if (pid == 0) {
		fd = open(out ? out : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC,
		    0600);
		if (fd >= 0) {
			dup2(fd, 1);
			close(fd);
		}
		if ((fd = open("/dev/null", O_RDWR)) >= 0) {
			dup2(fd, 0);
			dup2(fd, 2);
			close(fd);
		}
		execvp(arg0, (char *const *)argv);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int
tap_write_file(const char *path, const void *data, size_t len)
{
	char dir[4096], *p;
	FILE *f;
	int ok;

	snprintf(dir, sizeof(dir), "%s", path);
	for (p = dir + 1; (p = strchr(p, '/')) != NULL; p++) {
		*p = '\0';
		mkdir(dir, 0700);
		*p = '/';
	}
	if ((f = fopen(path, "wb")) == NULL)
		return -1;
	ok = fwrite(data, 1, len, f) == len;
	return fclose(f) == 0 && ok ? 0 : -1;
}

static int
rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

void
tap_tmpdir(char *buf, size_t size, const char *name)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(buf, size, "%s/%s.XXXXXX", tmp != NULL && *tmp != '\0' ?
	    tmp : "/tmp", name);
	if (mkdtemp(buf) == NULL)
		tap_skip_all("mkdtemp: %s", strerror(errno));
}

void
tap_rmtree(const char *dir)
{
	nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}
