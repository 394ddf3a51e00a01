/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * lookup - what a message needs from the state, read at once: the pins of
 * its signers' identities and its author's signing habit.  With
 * StateDatabase that is one statement, one round trip, however many of
 * the two a message turns out to use; with the files, reads of each.
 *
 * A pin only ever changes by pins_first_use() (made) or pins_forget()
 * (an admin's), so a pin read here decides a first use as well as
 * pins_first_use() would: only an identity found unpinned needs that
 * write.
 */
#ifndef PA_LOOKUP_H
#define PA_LOOKUP_H

#include <stddef.h>

#include "ledger.h"
#include "pins.h"

#define LOOKUP_PINS_MAX		8	/* identities asked at once */

struct lookup_pin {
	int		 rc;		/* 0: pinned; PA_ENOTFOUND: not */
	struct pin	 pin;
};

struct state_lookup {
	size_t			 n;		/* identities asked */
	struct lookup_pin	 pin[LOOKUP_PINS_MAX];	/* theirs, in order */
	int			 pins_rc;	/* 0, or why none could be
						   read (pins_why) */
	struct pa_err		 pins_why;
	int			 habit_rc;	/* 0, PA_ENOTFOUND (none, or no
						   ledger), or a fault
						   (habit_why) */
	struct pa_err		 habit_why;
	struct habit		 habit;
};

/*
 * state_lookup - into *out, the pins of identities[0..n) (n at most
 * LOOKUP_PINS_MAX; pins NULL: none asked) and the habit of author
 * (ledger NULL or author "": none).  A store that cannot be read is said
 * in its part of *out, never in the other's.
 */
void	state_lookup(struct pins *, struct ledger *,
	    const char *const *identities, size_t n, const char *author,
	    struct state_lookup *out);

#endif
