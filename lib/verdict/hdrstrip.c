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

#define HDRSTRIP_GO	0x80	/* in a field's byte: it is to go */

void
hdrstrip_init(struct hdrstrip *s)
{
	memset(s, 0, sizeof(*s));
}

void
hdrstrip_reset(struct hdrstrip *s)
{
	size_t i;

	for (i = 0; i < s->nspelling; i++)
		free(s->spelling[i]);
	s->nspelling = s->n = s->ndoomed = 0;
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

/*
 * spelling - the number of name among the spellings seen (the MTA numbers
 * fields of one spelling, in any case, from 1), added when new
 */
static int
spelling(struct hdrstrip *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->nspelling; i++)
		if (strcasecmp(s->spelling[i], name) == 0)
			return (int)i;
	if (s->nspelling == HDRSTRIP_SPELLINGS)
		return PA_ETOOBIG;
	if ((s->spelling[i] = strdup(name)) == NULL)
		return PA_ENOMEM;
	s->nspelling++;
	return (int)i;
}

int
hdrstrip_field(struct hdrstrip *s, const char *name, const char *value,
    const char *authserv_id)
{
	int doomed, rc, k;

	if (hdrstrip_is(name, HDR_VERDICT))
		doomed = 1;
	else if (hdrstrip_is(name, HDR_AUTHRES))
		doomed = authserv_id != NULL && header_authres_ours(value,
		    strlen(value), authserv_id);
	else
		return 0;
	if ((rc = GROW(s->f, s->n, s->alloc, 64, HDRSTRIP_MAX)) != 0)
		return rc;
	if ((k = spelling(s, name)) < 0)
		return k;
	s->f[s->n++] = (unsigned char)(k | (doomed ? HDRSTRIP_GO : 0));
	s->ndoomed += doomed;
	return doomed;
}

int
hdrstrip_each(const struct hdrstrip *s,
    int (*del)(void *arg, const char *name, int idx), void *arg)
{
	int count[HDRSTRIP_SPELLINGS] = { 0 };
	size_t i;
	int k, rc;

	for (i = 0; i < s->n; i++)
		count[s->f[i] & ~HDRSTRIP_GO]++;
	/* From the last: the MTA renumbers the fields after a deletion. */
	for (i = s->n; i-- > 0; ) {
		k = s->f[i] & ~HDRSTRIP_GO;
		if ((s->f[i] & HDRSTRIP_GO) &&
		    (rc = del(arg, s->spelling[k], count[k])) != 0)
			return rc;
		count[k]--;
	}
	return 0;
}
