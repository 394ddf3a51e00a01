/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * hdrstrip.c - the header fields only we may write, and how to delete
 * them (see hdrstrip.h).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base.h"
#include "patchattest.h"
#include "hdrstrip.h"
#include "headers.h"

void
hdrstrip_init(struct hdrstrip *s)
{
	memset(s, 0, sizeof(*s));
}

void
hdrstrip_reset(struct hdrstrip *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->f[i].name);
	s->n = s->ndoomed = 0;
}

void
hdrstrip_release(struct hdrstrip *s)
{
	hdrstrip_reset(s);
	free(s->f);
	hdrstrip_init(s);
}

int
hdrstrip_is(const char *name, const char *want)
{
	size_t n = strlen(name), w = strlen(want);

	while (n > w && (name[n - 1] == ' ' || name[n - 1] == '\t'))
		n--;
	return n == w && strncasecmp(name, want, w) == 0;
}

int
hdrstrip_field(struct hdrstrip *s, const char *name, const char *value,
    const char *authserv_id)
{
	struct hdrstrip_field *f;
	size_t i;
	int doomed, rc;

	if (hdrstrip_is(name, HDR_VERDICT))
		doomed = 1;
	else if (hdrstrip_is(name, HDR_AUTHRES))
		doomed = authserv_id != NULL && header_authres_ours(value,
		    strlen(value), authserv_id);
	else
		return 0;
	if ((rc = GROW(s->f, s->n, s->alloc, 8, HDRSTRIP_MAX)) != 0)
		return rc;
	f = &s->f[s->n];
	if ((f->name = strdup(name)) == NULL)
		return PA_ENOMEM;
	/* The MTA numbers fields of one spelling, in any case, from 1. */
	for (i = 0, f->idx = 1; i < s->n; i++)
		f->idx += strcasecmp(s->f[i].name, name) == 0;
	f->doomed = doomed;
	s->ndoomed += doomed;
	s->n++;
	return doomed;
}

unsigned
hdrstrip_deletion(const struct hdrstrip *s, size_t k, const char **name)
{
	size_t i;

	/* The k-th doomed field counted from the last one. */
	for (i = s->n; i-- > 0; )
		if (s->f[i].doomed && k-- == 0)
			break;
	*name = s->f[i].name;
	return s->f[i].idx;
}
