/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * consult.c - what the message being decided needs from the state: its
 * signers' pins and, for a patch, its sender's signing habit, read at
 * the first need and then kept (lookup.h).  A message that needs neither
 * reads nothing; one that needs both waits on one read, which with
 * StateDatabase is one round trip.
 */
#include "config.h"

#include <string.h>

#include "decide.h"
#include "decide-int.h"
#include "state.h"

const struct state_lookup *
decider_state(struct decider *d)
{
	const char *identities[LOOKUP_PINS_MAX];
	size_t k, n;

	if (d->looked_up)
		return &d->looked;
	n = d->report.n < LOOKUP_PINS_MAX ? d->report.n : LOOKUP_PINS_MAX;
	for (k = 0; k < n; k++)
		identities[k] = d->report.sig[k].identity;
	state_lookup(d->pins, d->ledger, identities, n,
	    d->has_patch ? d->habit_id : "", &d->looked);
	d->looked_up = 1;
	return &d->looked;
}

struct lookup_pin *
decider_pin(struct decider *d, const char *identity)
{
	size_t k;

	(void)decider_state(d);
	for (k = 0; k < d->looked.n; k++)
		if (strcmp(d->report.sig[k].identity, identity) == 0)
			return &d->looked.pin[k];
	return NULL;
}
