/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * replay - a corpus's messages through the decider and a ledger, in
 * arrival order, as the milter would have judged and recorded them: for
 * make bench's signer memory figures and the corpus test of the arrival
 * record.
 *
 * The corpus is a folder CORPUS with messages/NNNNN.eml, NNNNN the
 * message's position in the archive (arrival order), and patatt-keys/
 * and kernel-keyring/, the keyring folders the messages' signatures are
 * checked with (PatattKeyring, in that order); the GnuPG home is an empty
 * one in scratch, beside the ledger's file.  The archive keeps no arrival
 * time: each message arrives at its Date, or at the one before's when its
 * own is earlier or missing.
 *
 * Lifecycle: replay_open(), replay_one() on each file in turn,
 * replay_close().  Functions return 0 or a PA_E* code with err saying
 * why.
 */
#ifndef PA_BENCH_REPLAY_H
#define PA_BENCH_REPLAY_H

#include <stddef.h>
#include <time.h>

#include "verdict.h"
#include "state.h"
#include "base.h"

struct replay {
	struct pa_config	 cf;
	struct decider		*dc;
	struct ledger		*lg;
	struct mailmsg		*msg;
	struct sbuf		 raw;
	char			**files;	/* messages/, in order */
	size_t			 nfiles;
	time_t			 now;
};

/*
 * replay_open - corpus into r, the ledger and the GnuPG home made in the
 * folder scratch (which must be there); signer memory with
 * SignerHabitMinimum habit_minimum
 */
int	replay_open(struct replay *r, const char *corpus, const char *scratch,
	    long habit_minimum, struct pa_err *);
/*
 * replay_one - file k decided (d), recorded (a) and committed, with the
 * habit that judged it as it was before it (its sender's, see signer.c;
 * recent 0: none, or a reply, which no habit judges).  PA_ENOPATCH:
 * neither a patch nor signed, not judged.
 */
int	replay_one(struct replay *r, size_t k, struct decision *d,
	    struct arrival *a, struct habit *h, struct pa_err *);
void	replay_close(struct replay *r);

#endif
