/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * archive-kind - what archive.c lends the reader of each kind: the
 * caller's marks, the marks of progress, and the making of an entry's
 * where and why.  Kept apart from archive.c, which calls the kinds, so
 * that calls between the archive files run one way.
 */
#include "config.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "archive-int.h"
#include "base.h"

void
archive_skip(struct archive_entry *e, const char *fmt, ...)
{
	va_list ap;

	e->op = ARCHIVE_SKIP;
	e->data = "";
	e->len = 0;
	va_start(ap, fmt);
	vsnprintf(e->why, sizeof(e->why), fmt, ap);
	va_end(ap);
}

void
archive_where(struct archive_entry *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(e->where, sizeof(e->where), fmt, ap);
	va_end(ap);
}

const char *
archive_mark_in(const struct archive *a, const char *name)
{
	size_t i;

	for (i = 0; i < a->nin; i++)
		if (strcmp(a->in[i].name, name) == 0)
			return a->in[i].value;
	return NULL;
}

int
archive_mark_set(struct archive *a, const char *name, const char *value)
{
	struct archive_mark *m;
	size_t i, nlen, vlen;
	int rc;

	nlen = strlen(name);
	vlen = strlen(value);
	if (nlen == 0 || nlen >= sizeof(m->name) || vlen >= sizeof(m->value))
		return PA_ERROR;
	for (i = 0; i < a->nmarks; i++)
		if (strcmp(a->marks[i].name, name) == 0)
			break;
	if (i == a->nmarks &&
	    (rc = GROW(a->marks, a->nmarks, a->amarks, 4, SIZE_MAX)) != 0)
		return rc;
	m = &a->marks[i];
	if (i == a->nmarks) {
		memset(m, 0, sizeof(*m));
		memcpy(m->name, name, nlen + 1);
		a->nmarks++;
	}
	memset(m->value, 0, sizeof(m->value));
	memcpy(m->value, value, vlen + 1);
	return 0;
}
