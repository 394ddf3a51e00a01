/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * maildate - the date of an RFC 5322 Date header, as a UTC time.
 *
 * maildate_parse() reads "[Day,] DD Mon YYYY HH:MM[:SS] +ZZZZ" with the
 * obsolete forms mail still carries (two-digit years, zone names such as
 * GMT, UT, EST, "-0000", comments).  Returns 0 with *t set, or
 * PA_ENOTFOUND when the text is not a date.
 */
#ifndef PA_MAILDATE_H
#define PA_MAILDATE_H

#include <stddef.h>
#include <time.h>

int	maildate_parse(const char *s, size_t len, time_t *t);

#endif
