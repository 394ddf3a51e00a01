/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * log.c - one line per event, to syslog with the configured facility and,
 * in the foreground, to standard error.  The level and facility change on
 * reload, while other threads log.  What the libraries print to stderr
 * comes here too, as debug lines in quotes (mlog_divert()).
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>

#include "base.h"
#include "milter.h"

static atomic_int	level = LOG_LEVEL_INFO;
static atomic_int	facility = -1;		/* -1: closed */
static int		to_stderr;
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

void
mlog_open(int foreground)
{
	to_stderr = foreground;
}

/* library_line - a line a library printed on stderr, as a debug line */
static void
library_line(const char *line, size_t len)
{
	struct sbuf raw, quoted;

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

void
mlog_configure(const struct pa_config *cf)
{
	int want = cf->syslog == SYSLOG_NONE ? -1 : facilities[cf->syslog];

	atomic_store(&level, cf->log_level);
	if (atomic_exchange(&facility, want) == want)
		return;
	closelog();
	if (want != -1)
		openlog("patchattest-milter", LOG_PID | LOG_NDELAY, want);
}

void
mlog(enum log_level lv, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	if ((int)lv > atomic_load(&level))
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (atomic_load(&facility) != -1)
		syslog(priorities[lv], "%s", line);
	if (to_stderr)
		fprintf(own_stderr ? own_stderr : stderr,
		    "patchattest-milter: %s\n", line);
}
