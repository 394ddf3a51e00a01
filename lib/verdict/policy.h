/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * policy - what the milter does with a patch once it is decided: the
 * action the configuration gives its verdict (with AttestationWait), the
 * SMTP reply that goes with it, and the log line.  The header fields are
 * in headers.h.
 */
#ifndef PA_POLICY_H
#define PA_POLICY_H

#include <stddef.h>
#include <time.h>

#include "decide.h"
#include "base.h"

struct policy_outcome {
	enum action	 action;
	const char	*rcode;		/* "550" or "451"; NULL: no reply */
	const char	*xcode;		/* "5.7.1" or "4.7.1" */
	char		 text[256];	/* the reply, or why it is quarantined */
	int		 awaiting;	/* deferred: its document may be on
					   its way (AttestationWait) */
};

/*
 * policy_apply - the outcome for verdict d at time now.  A patch without
 * an attestation whose Date is less than AttestationWait minutes old is
 * told to come back later; VERDICT_TEMPERROR follows OnError, unless the
 * message can never be judged (d->lasting: accepted), or keeps fields
 * only we may write (d->unsafe: rejected when lasting, else deferred,
 * whatever OnError says); one whose arrival record could not be written
 * (d->unrecorded) is deferred when OnError is tempfail.  Every fault of the
 * milter becomes such a decision (decision_fault()) and comes here.
 */
void	policy_apply(const struct pa_config *, const struct decision *d,
	    time_t now, struct policy_outcome *);

/*
 * policy_logline - the log line of a decided message (appended to out):
 * "QID: message-id="..." result=R attid=ID signer="..." [scheme=S
 * v0.1=R patatt=R] action=A [reason="..."]".  Whatever came from the mail
 * (Message-ID, signer, reason) is quoted as in the header: no control
 * character, so no line break; no bare quote, so no forged field.
 * Returns out's failure.
 */
int	policy_logline(struct sbuf *out, const char *qid, const char *msgid,
	    const struct decision *d, const struct policy_outcome *o);

#endif
