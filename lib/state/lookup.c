/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * lookup.c - state_lookup() (see lookup.h): the database's one read when
 * the pins are there (StateDatabase), else a read of each pin, and the
 * ledger's one read of the rest.
 */
#include "config.h"

#include <string.h>

#include "store-int.h"

/* pins_read - each pin through pins_get(); the first fault ends it */
static void
pins_read(struct pins *p, const char *const *identities,
    struct state_lookup *out)
{
	size_t k;
	int rc;

	for (k = 0; k < out->n; k++) {
		rc = pins_get(p, identities[k], &out->pin[k].pin,
		    &out->pins_why);
		if (rc != 0 && rc != PA_ENOTFOUND) {
			out->pins_rc = rc;
			return;
		}
		out->pin[k].rc = rc;
	}
}

void
state_lookup(struct pins *p, struct ledger *l, const struct state_ask *ask,
    struct state_lookup *out)
{
	struct state_ask a = *ask;

	memset(out, 0, sizeof(*out));
	out->n = p == NULL ? 0 : a.n < LOOKUP_PINS_MAX ? a.n :
	    LOOKUP_PINS_MAX;
	a.n = out->n;
	out->habit_rc = out->copies_rc = PA_ENOTFOUND;
	if (l == NULL || (a.author != NULL && a.author[0] == '\0'))
		a.author = NULL;
	if (l == NULL)
		a.message_id_sha256 = NULL;
	if (a.author == NULL && a.message_id_sha256 == NULL)
		l = NULL;	/* nothing to ask of it */
	/* one database holds both only when the ledger is not a file */
	if (p != NULL && p->ops->lookup != NULL &&
	    (l == NULL || !ledger_reads_local(l))) {
		p->ops->lookup(p, l, &a, out);
		return;
	}
	if (p != NULL)
		pins_read(p, a.identities, out);
	if (l != NULL)
		l->ops->lookup(l, &a, out);
}
