/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * arrival.c - the arrival record of a decided message (decide.h's
 * decide_arrival()): what the ledger keeps of it.
 *
 * The identity is the one the signer's habit is kept under: i= of the
 * signature that gave patatt's verdict, else the author's address (see
 * signer.c).  signed_trusted is a pass with a key: only mail that passed
 * teaches a habit.  A stale or uidmismatch signature does not count,
 * though its key is trusted: an old signature re-sent, or someone else's
 * patch, says nothing of how the identity signs now.
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

/*
 * trimmed - header name's value, blanks and one pair of <> around it cut
 * (angles): its bytes and length, or NULL
 */
static const char *
trimmed(const struct mailmsg *msg, const char *name, int angles,
    size_t *lenp)
{
	const char *v;
	size_t len;

	if ((v = mailmsg_get(msg, name, &len)) == NULL)
		return NULL;
	while (len > 0 && strchr(" \t\r\n", *v) != NULL) {
		v++;
		len--;
	}
	while (len > 0 && strchr(" \t\r\n", v[len - 1]) != NULL)
		len--;
	if (angles && len >= 2 && v[0] == '<' && v[len - 1] == '>') {
		v++;
		len -= 2;
	}
	*lenp = len;
	return v;
}

const char *
decide_message_id(const struct mailmsg *msg, size_t *len)
{
	return trimmed(msg, "Message-ID", 1, len);
}

/* field - header name's value as text, cut to size */
static void
field(const struct mailmsg *msg, const char *name, char *out, size_t size)
{
	const char *v;
	size_t len;

	if ((v = trimmed(msg, name, 0, &len)) != NULL)
		snprintf(out, size, "%.*s", (int)len, v);
}

/*
 * hashes - the primary variant's i, m, p in hex, and what git am's
 * reading gives beside them: m without the trailers, the trailers, the
 * patch-id
 */
static void
hashes(const struct decider *dc, struct arrival *a)
{
	const struct msghash_entry *e = &dc->h.entry[0];

	if (dc->h.n > 0) {
		digest_hex(a->i, e->i);
		digest_hex(a->m, e->m);
		digest_hex(a->p, e->p);
	}
	if (!dc->facts_ok)
		return;
	if (dc->pf.has_m_core)
		digest_hex(a->m_core, dc->pf.m_core);
	snprintf(a->patch_id, sizeof(a->patch_id), "%s", dc->pf.patch_id);
	snprintf(a->trailers, sizeof(a->trailers), "%s", dc->pf.trailers.buf);
}

/* verdicts - the header's result, each scheme's own, the key */
static void
verdicts(const struct decision *d, struct arrival *a)
{
	enum verdict v01 = d->has_patatt ||
	    d->result == VERDICT_UNSIGNED_BY_SIGNER ? d->v01 : d->result;

	snprintf(a->result, sizeof(a->result), "%s", verdict_name(d->result));
	if (d->has_patch)
		snprintf(a->v01, sizeof(a->v01), "%s", verdict_name(v01));
	if (d->has_patatt)
		snprintf(a->patatt, sizeof(a->patatt), "%s",
		    verdict_name(d->patatt));
	snprintf(a->key, sizeof(a->key), "%s", d->key);
	a->signed_trusted = d->result == VERDICT_PASS && d->key[0] != '\0';
}

void
decide_arrival(struct decider *dc, const struct mailmsg *msg,
    const struct decision *d, const char *envelope_from, struct arrival *a)
{
	const char *id;
	size_t len;

	memset(a, 0, sizeof(*a));
	a->arrived = dc->now;
	/* all of it, however long or with NUL bytes, finds it again */
	if ((id = decide_message_id(msg, &len)) != NULL)
		arrival_set_message_id(a, id, len);
	len = strlen(envelope_from);
	if (len >= 2 && envelope_from[0] == '<' &&
	    envelope_from[len - 1] == '>')
		snprintf(a->envelope_from, sizeof(a->envelope_from), "%.*s",
		    (int)len - 2, envelope_from + 1);
	else
		snprintf(a->envelope_from, sizeof(a->envelope_from), "%s",
		    envelope_from);
	snprintf(a->author, sizeof(a->author), "%s", dc->author);
	/* the signer's i=, else the author's */
	if (!d->has_patatt || d->identity[0] == '\0' ||
	    patatt_identity_canon(a->identity, sizeof(a->identity),
	    d->identity) != 0)
		snprintf(a->identity, sizeof(a->identity), "%s",
		    dc->author_id);
	if (dc->mi_ok && dc->pf.mi.has_subject)
		snprintf(a->subject, sizeof(a->subject), "%s",
		    dc->pf.mi.subject.buf);
	else
		field(msg, "Subject", a->subject, sizeof(a->subject));
	field(msg, "List-Id", a->list_id, sizeof(a->list_id));
	a->has_patch = d->has_patch;
	if (d->has_patch)
		hashes(dc, a);
	verdicts(d, a);
}
