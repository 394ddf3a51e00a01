/*
 * log.c - one line per event, to syslog with the configured facility and,
 * in the foreground, to standard error.  The level and facility change on
 * reload, while other threads log.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <syslog.h>

#include "milter.h"

static atomic_int	level = LOG_LEVEL_INFO;
static atomic_int	facility = -1;		/* -1: closed */
static int		to_stderr;

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
		fprintf(stderr, "patchattest-milter: %s\n", line);
}
