/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * arrived.h - "patchattest arrived" (cmd-arrived.c): one message set
 * beside the records of what arrived, and the line it gets (text or
 * JSON, arrived-out.c).
 *
 * The answers, from best to worst: identical, identical-with-trailers
 * (only trailers were added), differs (the parts named), never-arrived;
 * and copies-differ, whatever the message matches, when the copies of
 * its Message-ID that arrived are not all one mail: someone sent their
 * own version of it, before or after the genuine one, or a relay changed
 * it.  Then every copy kept is listed, with where it came from.
 */
#ifndef PA_CLI_ARRIVED_H
#define PA_CLI_ARRIVED_H

#include <stddef.h>

#include "state.h"

/* arrival_compare()'s outcomes, then those of this command */
#define ARRIVED_NEVER		(ARRIVAL_DIFFERS + 1)
#define ARRIVED_COPIES_DIFFER	(ARRIVAL_DIFFERS + 2)

/* The copies listed: those the store keeps, and those still queued. */
#define ARRIVED_COPIES_MAX	(2 * (LEDGER_COPIES_KEPT + \
				    LEDGER_DIFFERING_KEPT))

/*
 * struct match - the records of one key (the copies of a Message-ID, or
 * the mails of a patch-id) set beside the input cur, one at a time as
 * the ledger reads them: the one most like cur, and, for a Message-ID,
 * each copy and whether they differ among themselves
 */
struct match {
	const struct arrival	*cur;
	const char		*by;		/* "message-id", "patch-id" */
	int			 o;		/* the best outcome so far */
	unsigned		 parts;
	struct arrival		 best;
	size_t			 total;
	/* the copies of a Message-ID, and what the store counted */
	struct arrival		 copy[ARRIVED_COPIES_MAX];
	size_t			 ncopies;
	struct ledger_copies	 counted;
	unsigned		 differ_parts;	/* how the copies differ */
};

/* arrived_outcome - what mt says of its message (ARRIVED_*, arrival_*) */
int	arrived_outcome(const struct match *mt);

/* arrived_report - the line(s) of message name, on standard output */
void	arrived_report(const char *name, const struct match *mt, int json);

#endif
