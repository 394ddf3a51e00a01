/* SPDX-License-Identifier: BSD-2-Clause */
#include "config.h"

#include <string.h>
#include <strings.h>

#include "patchattest.h"
#include "maildate.h"

static const char *const months[12] = {
	"Jan", "Feb", "Mar", "Apr", "May", "Jun",
	"Jul", "Aug", "Sep", "Oct", "Nov", "Dec"
};

/* RFC 5322 4.3 obsolete zones; military letters count as -0000. */
static const struct {
	const char	*name;
	int		 minutes;
} zones[] = {
	{ "UT", 0 }, { "GMT", 0 }, { "UTC", 0 }, { "Z", 0 },
	{ "EST", -300 }, { "EDT", -240 }, { "CST", -360 }, { "CDT", -300 },
	{ "MST", -420 }, { "MDT", -360 }, { "PST", -480 }, { "PDT", -420 },
};

struct cursor {
	const char	*p;
	const char	*end;
};

/* skip_cfws - blanks and (nested) comments */
static void
skip_cfws(struct cursor *c)
{
	int depth = 0;

	for (; c->p < c->end; c->p++) {
		if (*c->p == '(')
			depth++;
		else if (*c->p == ')' && depth > 0)
			depth--;
		else if (depth == 0 && *c->p != ' ' && *c->p != '\t' &&
		    *c->p != '\r' && *c->p != '\n')
			return;
	}
}

/* number - at most max digits; -1 when there is none */
static long
number(struct cursor *c, int max, int *ndigits)
{
	long v = 0;
	int n = 0;

	while (c->p < c->end && n < max && *c->p >= '0' && *c->p <= '9') {
		v = v * 10 + (*c->p++ - '0');
		n++;
	}
	*ndigits = n;
	return n ? v : -1;
}

static int
word(struct cursor *c, char *buf, size_t size)
{
	size_t n = 0;

	while (c->p < c->end && n + 1 < size &&
	    ((*c->p >= 'A' && *c->p <= 'Z') || (*c->p >= 'a' && *c->p <= 'z')))
		buf[n++] = *c->p++;
	buf[n] = '\0';
	return (int)n;
}

/* days_from_civil - days since 1970-01-01 of a proleptic Gregorian date */
static long
days_from_civil(long y, long m, long d)
{
	long era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

int
maildate_parse(const char *s, size_t len, time_t *t)
{
	struct cursor c = { s, s + len };
	char w[16];
	long day, year, hour, min, sec = 0, zone = 0;
	int n, mon, sign;
	size_t k;

	skip_cfws(&c);
	if (word(&c, w, sizeof(w)) > 0) {	/* day of week */
		skip_cfws(&c);
		if (c.p < c.end && *c.p == ',')
			c.p++;
		skip_cfws(&c);
	}
	if ((day = number(&c, 2, &n)) < 1 || day > 31)
		return PA_ENOTFOUND;
	skip_cfws(&c);
	if (word(&c, w, sizeof(w)) != 3)
		return PA_ENOTFOUND;
	for (mon = 0; mon < 12 && strcasecmp(w, months[mon]) != 0; mon++)
		;
	if (mon == 12)
		return PA_ENOTFOUND;
	skip_cfws(&c);
	if ((year = number(&c, 4, &n)) < 0)
		return PA_ENOTFOUND;
	if (n == 2)
		year += year < 50 ? 2000 : 1900;
	else if (n == 3)
		year += 1900;
	skip_cfws(&c);
	if ((hour = number(&c, 2, &n)) < 0 || hour > 23 || c.p >= c.end ||
	    *c.p++ != ':' || (min = number(&c, 2, &n)) < 0 || min > 59)
		return PA_ENOTFOUND;
	if (c.p < c.end && *c.p == ':') {
		c.p++;
		if ((sec = number(&c, 2, &n)) < 0 || sec > 60)
			return PA_ENOTFOUND;
	}
	skip_cfws(&c);
	if (c.p < c.end && (*c.p == '+' || *c.p == '-')) {
		sign = *c.p++ == '-' ? -1 : 1;
		if ((zone = number(&c, 4, &n)) < 0 || n != 4)
			return PA_ENOTFOUND;
		zone = sign * (zone / 100 * 60 + zone % 100);
	} else if (word(&c, w, sizeof(w)) > 0) {
		for (k = 0; k < sizeof(zones) / sizeof(zones[0]); k++)
			if (strcasecmp(w, zones[k].name) == 0)
				break;
		zone = k < sizeof(zones) / sizeof(zones[0]) ?
		    zones[k].minutes : 0;
	}
	*t = (time_t)((days_from_civil(year, mon + 1, day) * 24 + hour) *
	    3600 + min * 60 + sec - zone * 60);
	return 0;
}
