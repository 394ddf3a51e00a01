/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * arrival.c - the arrival record of a decided message (decide.h's
 * decide_arrival()): what the mail gives, from the facts decide_begin()
 * read (mailfacts_record(), as "patchattest arrived" makes what it
 * compares), and what the milter knows of it (the time, the envelope
 * sender, the identity, the verdicts).  A cover letter that is not
 * judged (unsigned, no diff) is still recorded, by
 * decide_arrival_unjudged(): a maintainer applying a series asks of it
 * too.
 *
 * The identity is the one the signer's habit is kept under: i= of the
 * signature that gave patatt's verdict, else the sender's address, the
 * habit that judged it (see signer.c): a patch relayed for another
 * author teaches its sender's habit, never its author's.  A reply with
 * a diff has none, signed or not: it teaches no habit.  Mail the web
 * endpoint relays without an in-body From has its author from
 * X-Original-From.  signed_trusted is a pass with a key: only mail that
 * passed teaches a habit.  A stale or uidmismatch signature does not
 * count, though its key is trusted: an old signature re-sent, or someone
 * else's patch, says nothing of how the identity signs now.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "decide.h"
#include "decide-int.h"
#include "base.h"
#include "mail.h"
#include "sig.h"
#include "state.h"
#include "attest.h"

/* verdicts - the header's result, each scheme's own, the key */
static void
verdicts(const struct decision *d, struct arrival *a)
{
	enum verdict v01 = d->has_patatt ||
	    d->result == VERDICT_UNSIGNED_BY_SIGNER ? d->v01 : d->result;

	snprintf(a->result, sizeof(a->result), "%s", verdict_name(d->result));
	if (d->has_patch)
		snprintf(a->v01, sizeof(a->v01), "%s", verdict_name(v01));
	if (d->has_patatt) {
		snprintf(a->patatt, sizeof(a->patatt), "%s",
		    verdict_name(d->patatt));
		snprintf(a->algo, sizeof(a->algo), "%s", d->algo);
		snprintf(a->selector, sizeof(a->selector), "%s", d->selector);
		snprintf(a->offered, sizeof(a->offered), "%s", d->offered);
	}
	snprintf(a->key, sizeof(a->key), "%s", d->key);
	snprintf(a->dkim, sizeof(a->dkim), "%s", d->dkim_domain);
	a->signed_trusted = d->result == VERDICT_PASS && d->key[0] != '\0';
}

/*
 * arrived - when a arrived (the decider's clock), from whom (no <>),
 * through which host and under which queue ID
 */
static void
arrived(const struct decider *dc, const struct arrival_origin *from,
    struct arrival *a)
{
	const char *sender = from->envelope_from ? from->envelope_from : "";
	size_t len = strlen(sender);

	a->arrived = dc->now;
	if (len >= 2 && sender[0] == '<' && sender[len - 1] == '>')
		snprintf(a->envelope_from, sizeof(a->envelope_from), "%.*s",
		    (int)len - 2, sender + 1);
	else
		snprintf(a->envelope_from, sizeof(a->envelope_from), "%s",
		    sender);
	snprintf(a->host, sizeof(a->host), "%s", from->host ? from->host :
	    "");
	snprintf(a->queue_id, sizeof(a->queue_id), "%s", from->queue_id ?
	    from->queue_id : "");
}

void
decide_arrival(struct decider *dc, const struct decision *d,
    const struct arrival_origin *from, struct arrival *a)
{
	struct pa_err ignored;

	/* a patch decide_begin() could not read (too big) is a temperror,
	   recorded without its hashes */
	(void)mailfacts_record(dc->f, a, &ignored);
	arrived(dc, from, a);
	if (dc->endpoint)
		snprintf(a->author, sizeof(a->author), "%s", dc->author);
	/* none for a reply's patch; the signer's i=, else the sender's */
	if (dc->reply && a->has_patch)
		a->identity[0] = '\0';
	else if (!d->has_patatt || d->identity[0] == '\0' ||
	    patatt_identity_canon(a->identity, sizeof(a->identity),
	    d->identity) != 0)
		snprintf(a->identity, sizeof(a->identity), "%s",
		    dc->sender_id);
	verdicts(d, a);
}

/*
 * is_cover - msg's Subject is a cover letter's ("[PATCH vN 0/M]"); a
 * longer subject is judged by its first bytes, where the prefixes are
 */
static int
is_cover(const struct mailmsg *msg)
{
	char subject[512];
	const char *v;
	size_t len;

	if ((v = mailmsg_get(msg, "Subject", &len)) == NULL)
		return 0;
	if (len >= sizeof(subject))
		len = sizeof(subject) - 1;
	memcpy(subject, v, len);
	subject[len] = '\0';
	return attdoc_is_cover(subject);
}

int
decide_arrival_unjudged(struct decider *dc, const struct mailmsg *msg,
    const struct arrival_origin *from, struct arrival *a,
    struct pa_err *err)
{
	int rc;

	/* decide_begin() left the hashes of a patch part: one without a
	   diff (a diffstat), which has an attestation ID all the same */
	if (dc->f->h.n == 0 && !is_cover(msg))
		return PA_ENOPATCH;
	if ((rc = mailfacts_record(dc->f, a, err)) != 0)
		return rc;
	arrived(dc, from, a);
	return 0;
}
