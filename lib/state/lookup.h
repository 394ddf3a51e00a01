/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * lookup - what a message needs from the state, read at once: the pins of
 * its signers' identities, its sender's signing habit and the copies of
 * its Message-ID that arrived before.  With StateDatabase that is one
 * statement, one round trip, however many of the three a message turns
 * out to use; with the files, a read of each pin and one read
 * transaction of the ledger.  The records not yet written are read too
 * (ledger_by_message_id()'s), so that a message sees what its
 * predecessors left.
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

/*
 * What a message asks: the pins of identities[0..n) (n at most
 * LOOKUP_PINS_MAX), the signing habit of author (NULL or "": none), and
 * the kept copies of the Message-ID hashed in message_id_sha256 (NULL:
 * none), each given to copy with copy_arg as ledger_by_message_id()
 * gives them to its fn: in arrival order, until it returns non-zero.
 */
struct state_ask {
	const char *const	*identities;
	size_t			 n;
	const char		*author;
	const unsigned char	*message_id_sha256;
	int			(*copy)(void *, const struct arrival *);
	void			*copy_arg;
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
	int			 copies_rc;	/* what ledger_by_message_id()
						   would return: PA_ENOTFOUND
						   also when none were asked
						   or there is no ledger; a
						   fault says copies_why */
	struct pa_err		 copies_why;
};

/*
 * state_lookup - what ask asks of the pins (NULL: none) and the ledger
 * (NULL: none), into *out.  A store that cannot be read is said in its
 * part of *out, never in the other's.
 */
void	state_lookup(struct pins *, struct ledger *,
	    const struct state_ask *ask, struct state_lookup *out);

#endif
