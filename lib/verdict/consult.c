/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * consult.c - what the message being decided needs from the state: its
 * signers' pins, for a patch its sender's signing habit, and, when one
 * of its patatt signatures no longer verifies because its body or a
 * signed header changed, the first copy of its Message-ID whose
 * signature checked out (changed.c sets the two side by side).  All of
 * it is read at the first need, in one read (lookup.h), and then kept:
 * a message that needs none of it reads nothing, and one that needs all
 * of it waits on one read, which with StateDatabase is one round trip.
 */
#include "config.h"

#include <string.h>

#include "decide.h"
#include "decide-int.h"
#include "sig.h"
#include "state.h"

/* every signature judged is one whose pin is read (first_key()) */
_Static_assert(PATATT_MAX_SIGS <= LOOKUP_PINS_MAX,
    "a pin is read for each patatt signature");

/* patatt's verdicts, as records spell them, of a signature that checked
   out over the body and signed headers it came with */
static const char *const checked_out[] = {
	"pass", "stale", "uidmismatch", "untrusted"
};

/* mismatched - a signature of r failed on its body or signed headers */
static int
mismatched(const struct patatt_report *r)
{
	size_t k;

	for (k = 0; k < r->n && k < PATATT_MAX_SIGS; k++)
		if (r->sig[k].result == PATATT_BADSIG &&
		    r->sig[k].changed != PATATT_CHANGED_UNKNOWN)
			return 1;
	return 0;
}

/* wants_first - the message asks for the first copy of its Message-ID */
static int
wants_first(const struct decider *d)
{
	return d->ledger != NULL && d->f->id != NULL && d->f->id_len > 0 &&
	    mismatched(&d->report);
}

/* take_first - the copy function of the lookup: the first copy that
   checked out, then stop */
static int
take_first(void *arg, const struct arrival *a)
{
	struct decider *d = arg;
	size_t k;

	for (k = 0; k < sizeof(checked_out) / sizeof(checked_out[0]); k++)
		if (strcmp(a->patatt, checked_out[k]) == 0) {
			d->first = *a;
			d->has_first = 1;
			return 1;
		}
	return 0;
}

const struct state_lookup *
decider_state(struct decider *d)
{
	const char *identities[LOOKUP_PINS_MAX];
	struct state_ask ask = { identities, 0, NULL, NULL, take_first, d };
	size_t k;

	if (d->looked_up)
		return &d->looked;
	for (k = 0; k < d->report.n; k++)
		identities[k] = d->report.sig[k].identity;
	ask.n = d->report.n;
	ask.author = d->has_patch ? d->habit_id : "";
	/* the hash the record keeps it by: computed once, with the facts */
	if (wants_first(d))
		ask.message_id_sha256 = d->f->rec.message_id_sha256;
	d->has_first = 0;
	state_lookup(d->pins, d->ledger, &ask, &d->looked);
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

const struct arrival *
decider_first_copy(struct decider *d)
{
	if (!wants_first(d))
		return NULL;
	(void)decider_state(d);
	return d->has_first ? &d->first : NULL;
}
