/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * log.c - one line per event, to syslog with the configured facility and,
 * in the foreground, to standard error.  The level and facility change on
 * reload, while other threads log.  What the libraries print to stderr
 * comes here too, as debug lines in quotes (mlog_divert()), apart from
 * librnp's diagnostics.
 *
 * A line on standard error starts with its time, in UTC to the
 * millisecond (ISO 8601), unless standard error is systemd's journal,
 * which times each line itself: a file a supervisor keeps has nothing
 * else to tell when a line came, and a second holds many mails, and a
 * database gone and back.
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <errno.h>
#include <inttypes.h>
#include <paths.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "base.h"
#include "milter.h"

static atomic_int	level = LOG_LEVEL_INFO;
static atomic_int	facility = -1;		/* -1: closed */
static int		to_stderr;
static int		stamped;	/* lines start with their time */
static int		told_unavailable;	/* that syslog is: said */
static FILE		*own_stderr;	/* the real one, once diverted */

static const int	priorities[] = {
	[LOG_LEVEL_ERROR] = LOG_ERR,
	[LOG_LEVEL_WARNING] = LOG_WARNING,
	[LOG_LEVEL_INFO] = LOG_INFO,
	[LOG_LEVEL_DEBUG] = LOG_DEBUG,
};

static const int	facilities[] = {
	[SYSLOG_MAIL] = LOG_MAIL,
	[SYSLOG_DAEMON] = LOG_DAEMON,
	[SYSLOG_LOCAL0] = LOG_LOCAL0, LOG_LOCAL1, LOG_LOCAL2, LOG_LOCAL3,
	LOG_LOCAL4, LOG_LOCAL5, LOG_LOCAL6, LOG_LOCAL7,
};

/*
 * journal_stream - whether standard error is systemd's journal: the
 * device and inode of the stream it opened for us are in JOURNAL_STREAM
 */
static int
journal_stream(void)
{
	const char *v = getenv("JOURNAL_STREAM");
	uintmax_t dev, ino;
	struct stat st;
	char *end;

	if (v == NULL || *v < '0' || *v > '9' ||
	    fstat(STDERR_FILENO, &st) != 0)
		return 0;
	errno = 0;
	dev = strtoumax(v, &end, 10);
	if (*end != ':' || end[1] < '0' || end[1] > '9')
		return 0;
	ino = strtoumax(end + 1, &end, 10);
	return *end == '\0' && errno == 0 && dev == (uintmax_t)st.st_dev &&
	    ino == (uintmax_t)st.st_ino;
}

void
mlog_open(int foreground)
{
	to_stderr = foreground;
	stamped = !journal_stream();
}

/* now_utc - the time, ISO 8601 in UTC to the millisecond, into out */
static void
now_utc(char out[32])
{
	struct timespec ts;
	struct tm tm;
	size_t n;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	n = strftime(out, 32, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(out + n, 32 - n, ".%03ldZ", ts.tv_nsec / 1000000L);
}

/*
 * rnp_diagnostic - whether line is one of librnp's, "[function() file:line]
 * text": Debian builds it with them always on and without a switch to turn
 * them off, and they report ordinary input (text before a key file's
 * armor, as kernel key files have), nothing an admin could act on
 */
static int
rnp_diagnostic(const char *line, size_t len)
{
	const char *end = memchr(line, ']', len), *call;

	if (len == 0 || line[0] != '[' || end == NULL)
		return 0;
	call = memchr(line, '(', (size_t)(end - line));
	return call != NULL && end - call > 3 && memcmp(call, "() ", 3) == 0 &&
	    end[-1] >= '0' && end[-1] <= '9';
}

/* library_line - a line a library printed on stderr, as a debug line */
static void
library_line(const char *line, size_t len)
{
	struct sbuf raw, quoted;

	if (rnp_diagnostic(line, len))
		return;
	sbuf_init(&raw, 1024);
	sbuf_init(&quoted, 4096);
	sbuf_add(&raw, line, len);
	hdrfmt_quoted(&quoted, raw.buf);
	mlog(LOG_LEVEL_DEBUG, "library: %s", quoted.buf);
	sbuf_release(&raw);
	sbuf_release(&quoted);
}

void
mlog_divert(void)
{
	FILE *own;

	if ((own = pa_divert_stderr(library_line)) != NULL)
		own_stderr = own;
}

/*
 * syslog_unreachable - 0 when syslog's socket takes a connection, as
 * syslog() makes it (a datagram, else a stream); else -1 with why.
 * syslog() itself drops every line silently when it does not.
 */
static int
syslog_unreachable(char *why, size_t size)
{
	static const int types[] = { SOCK_DGRAM, SOCK_STREAM };
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t i;
	int fd, rc = -1;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", _PATH_LOG);
	for (i = 0; rc != 0 && i < sizeof(types) / sizeof(types[0]); i++) {
		if ((fd = socket(AF_UNIX, types[i] | SOCK_CLOEXEC, 0)) < 0)
			break;
		rc = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
		if (rc != 0)
			snprintf(why, size, "%s: %s", _PATH_LOG,
			    strerror(errno));
		close(fd);
	}
	return rc == 0 ? 0 : -1;
}

void
mlog_configure(const struct pa_config *cf)
{
	int want = cf->syslog == SYSLOG_NONE ? -1 : facilities[cf->syslog];
	char why[256] = "no socket";

	atomic_store(&level, cf->log_level);
	if (atomic_exchange(&facility, want) == want)
		return;
	closelog();
	if (want == -1)
		return;
	openlog("patchattest-milter", LOG_PID | LOG_NDELAY, want);
	/* said once a start, not again by a reload that turns it on again */
	if (told_unavailable || syslog_unreachable(why, sizeof(why)) == 0)
		return;
	told_unavailable = 1;
	mlog(LOG_LEVEL_WARNING, "syslog is unavailable (%s): the log goes "
	    "only to standard error, and nowhere in the background; start a "
	    "syslog daemon, or run with -f and keep its standard error "
	    "(Syslog no for that alone)", why);
}

void
mlog(enum log_level lv, const char *fmt, ...)
{
	char line[1024], when[32];
	va_list ap;

	if ((int)lv > atomic_load(&level))
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (atomic_load(&facility) != -1)
		syslog(priorities[lv], "%s", line);
	if (!to_stderr)
		return;
	if (stamped)
		now_utc(when);
	fprintf(own_stderr ? own_stderr : stderr, "%s%spatchattest-milter: "
	    "%s\n", stamped ? when : "", stamped ? " " : "", line);
}
