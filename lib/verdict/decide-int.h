/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * decide-int.h - the decider's insides, shared by the files of the
 * decision (decide*.c, dkim.c, signer.c, arrival.c, changed.c) and by
 * nothing else.
 */
#ifndef PA_DECIDE_INT_H
#define PA_DECIDE_INT_H

#include <time.h>

#include "decide.h"
#include "mailfacts.h"
#include "mail.h"
#include "state.h"

#define MAX_HITS	64

struct decider {
	const struct pa_config	*cfg;
	struct patatt_keyring	*keys;
	struct patatt_keyring	*own_keys;	/* keys, when made here */
	struct pgp		*pgp;
	struct patatt		*pt;
	struct patatt_report	 report;
	struct mailfacts	 own;		/* decide_begin()'s facts */
	struct mailfacts	*f;		/* the message's: own, or those
						   of decide_begin_read() */
	struct sbuf		 name, email, work;
	struct att_hit		 hits[MAX_HITS];
	struct pins		*pins;		/* PatattTOFU's, or NULL */
	int			 record;	/* patches may pin */
	/* the message being decided, from decide_begin() to decide_end() */
	struct attindex		*ix;
	time_t			 now;
	time_t			 date;		/* 0: no usable Date */
	int			 has_patch;
	int			 patatt_failed;	/* the signatures could not
						   be judged: why says why */
	int			 temperror;
	int			 lasting;	/* ... for good: too big */
	char			 temperror_why[sizeof(((struct pa_err *)0)->msg)];
	struct authres		 ar;		/* one field, being read */
	char			 dkim_domain[AUTHRES_DOMAIN_MAX];
	unsigned		 authres_ignored;
	/* signer memory and the arrival record (signer.c, arrival.c) */
	const struct mailmsg	*msg;		/* decide_begin()'s, until
						   decide_end() */
	struct ledger		*ledger;	/* NULL: none */
	const char		*ledger_why;	/* why it is NULL, or NULL:
						   off by design */
	int			 endpoint;	/* the web endpoint relayed it:
						   From is its own, the sender
						   X-Original-From */
	int			 reply;		/* a reply: judged by no
						   habit, teaching none */
	char			 author[ARRIVAL_TEXT_MAX];	/* git am's
						   "Name <addr>", or "" */
	char			 author_id[ARRIVAL_TEXT_MAX];	/* its
						   address, canonical, or "" */
	char			 sender_id[ARRIVAL_TEXT_MAX];	/* From's
						   address (X-Original-From's,
						   for the endpoint; without
						   one, author_id), canonical,
						   or "" */
	char			 habit_id[ARRIVAL_TEXT_MAX];	/* whose
						   habit judges it: sender_id,
						   "" for a reply */
	/* what the message needs from the state (consult.c) */
	int			 looked_up;	/* looked holds it */
	struct state_lookup	 looked;
	int			 has_first;	/* first holds the first copy
						   of its Message-ID whose
						   signature checked out */
	struct arrival		 first;
};

/*
 * signer_read - who sent and who wrote the message decide_begin() took,
 * and whose habit judges it (d->sender_id, d->author_id, d->habit_id:
 * see signer.c)
 */
void	signer_read(struct decider *d, const struct mailmsg *msg);
/*
 * signer_memory - unsigned-by-signer: out, a patch's verdict that is no
 * pass nor fail, against the habit of its sender (see signer.c)
 */
void	signer_memory(struct decider *d, struct decision *out);
/*
 * decider_state - the pins of the signers of the message decide_begin()
 * took and, for a patch, its sender's habit: read at the first call
 */
const struct state_lookup *decider_state(struct decider *d);
/*
 * decider_pin - identity's entry in decider_state(), or NULL when it is
 * none of the message's signatures (it was not asked)
 */
struct lookup_pin *decider_pin(struct decider *d, const char *identity);
/*
 * decider_first_copy - when a patatt signature of the message no longer
 * verifies because its body or a signed header changed, the first copy
 * of its Message-ID in the ledger whose signature checked out, read
 * with the rest of decider_state(); NULL when there is none (or no such
 * signature, or no ledger, or a ledger that cannot be read)
 */
const struct arrival *decider_first_copy(struct decider *d);

/*
 * dkim_vouched - what the author's domain vouches for in msg, the
 * message decide_begin() took (its author read): the header.d of a
 * dkim=pass in the topmost Authentication-Results field of a verifier of
 * TrustedAuthservIDs, aligned with the author's domain, into
 * d->dkim_domain ("" when none); nearest the author's domain when several
 * are.  Every other Authentication-Results field is counted into
 * d->authres_ignored.
 */
void	dkim_vouched(struct decider *d, const struct mailmsg *msg);
/*
 * dkim_aligned - header_d and domain (both lower case) have the same
 * organizational domain (the Public Suffix List's registrable domain), at
 * or above header_d: DMARC's relaxed alignment.  0 when either is no
 * domain name in ASCII, or a public suffix.
 */
int	dkim_aligned(const char *domain, const char *header_d);

/*
 * decide_parts - the DECIDE_DIFF_* parts of differs in words ("commit
 * message and diff") into out
 */
void	decide_parts(char *out, size_t size, unsigned differs);
/*
 * changed_since_first - when a signature of the message decide_begin()
 * took no longer verifies because its body or a signed header changed,
 * what the first copy of its Message-ID in the ledger whose patatt
 * signature checked out says changed, into out: 0, or PA_ENOTFOUND (no
 * such signature, copy or ledger; a ledger that cannot be read says
 * nothing either: the verdict stands without it)
 */
int	changed_since_first(struct decider *d, struct patatt_earlier *out);

#endif
