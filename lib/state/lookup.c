/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * lookup.c - state_lookup() (see lookup.h): the store's one read when it
 * has one (StateDatabase), else a read of each pin and of the habit.
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
state_lookup(struct pins *p, struct ledger *l, const char *const *identities,
    size_t n, const char *author, struct state_lookup *out)
{
	int habit = l != NULL && author != NULL && author[0] != '\0';

	memset(out, 0, sizeof(*out));
	out->n = p == NULL ? 0 : n < LOOKUP_PINS_MAX ? n : LOOKUP_PINS_MAX;
	out->habit_rc = PA_ENOTFOUND;
	/* one database holds both only when the ledger is not a file */
	if (p != NULL && p->ops->lookup != NULL &&
	    (!habit || !ledger_reads_local(l))) {
		p->ops->lookup(p, identities, out->n, habit ? author : NULL,
		    out);
		return;
	}
	if (p != NULL)
		pins_read(p, identities, out);
	if (habit)
		out->habit_rc = ledger_habit(l, author, &out->habit,
		    &out->habit_why);
}
