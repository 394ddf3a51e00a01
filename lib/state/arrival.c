/* SPDX-License-Identifier: BSD-2-Clause */
#include "config.h"

#include <string.h>

#include "patchattest.h"
#include "base.h"
#include "arrival.h"
#include "ledger.h"

/* has_line - whether the lines of set hold line (len bytes) */
static int
has_line(const char *set, const char *line, size_t len)
{
	const char *s = set, *nl;

	for (; (nl = strchr(s, '\n')) != NULL; s = nl + 1)
		if ((size_t)(nl - s) == len && memcmp(s, line, len) == 0)
			return 1;
	return 0;
}

/* subset - whether every line of a is among b's */
static int
subset(const char *a, const char *b)
{
	const char *nl;

	for (; (nl = strchr(a, '\n')) != NULL; a = nl + 1)
		if (!has_line(b, a, (size_t)(nl - a)))
			return 0;
	return 1;
}

static int
is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/*
 * same_text - a and b alike but for blanks at either end and the length
 * of runs of blanks: a header folded elsewhere (b4 folds a long Subject)
 */
static int
same_text(const char *a, const char *b)
{
	while (is_blank(*a))
		a++;
	while (is_blank(*b))
		b++;
	while (*a != '\0' && *b != '\0') {
		if (is_blank(*a) && is_blank(*b)) {
			while (is_blank(*a))
				a++;
			while (is_blank(*b))
				b++;
		} else if (*a++ != *b++)
			return 0;
	}
	while (is_blank(*a))
		a++;
	while (is_blank(*b))
		b++;
	return *a == '\0' && *b == '\0';
}

enum arrival_match
arrival_compare(const struct arrival *cur, const struct arrival *old,
    unsigned *parts)
{
	*parts = 0;
	if (!cur->has_patch || !old->has_patch) {
		if (cur->has_patch != old->has_patch ||
		    !same_text(cur->subject, old->subject))
			*parts = ARRIVAL_PART_I;
		return *parts ? ARRIVAL_DIFFERS : ARRIVAL_SAME;
	}
	if (strcmp(cur->i, old->i) != 0)
		*parts |= ARRIVAL_PART_I;
	if (strcmp(cur->p, old->p) != 0)
		*parts |= ARRIVAL_PART_P;
	if (strcmp(cur->m, old->m) != 0 && (old->m_core[0] == '\0' ||
	    strcmp(cur->m_core, old->m_core) != 0 ||
	    !subset(old->trailers, cur->trailers)))
		*parts |= ARRIVAL_PART_M;
	if (*parts)
		return ARRIVAL_DIFFERS;
	return strcmp(cur->m, old->m) != 0 ? ARRIVAL_SAME_TRAILERS :
	    ARRIVAL_SAME;
}

unsigned
arrival_fields_differ(const struct arrival *cur, const struct arrival *old)
{
	return (same_text(cur->author, old->author) ? 0 : ARRIVAL_FIELD_FROM) |
	    (same_text(cur->subject, old->subject) ? 0 :
	    ARRIVAL_FIELD_SUBJECT);
}

void
arrival_added_trailers(struct sbuf *out, const struct arrival *cur,
    const struct arrival *old)
{
	const char *s = cur->trailers, *nl;

	for (; (nl = strchr(s, '\n')) != NULL; s = nl + 1)
		if (!has_line(old->trailers, s, (size_t)(nl - s)))
			sbuf_add(out, s, (size_t)(nl - s + 1));
}
