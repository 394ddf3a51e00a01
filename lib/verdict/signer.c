/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * signer.c - signer memory: a patch in the name of an identity that
 * habitually signs its patches with a trusted key, which comes unsigned,
 * signed by a key we do not have, or signed by a key that is not
 * trusted, is unsigned-by-signer.
 *
 * Whose habit: the patch's author, as git am reads it (the in-body From,
 * else the header From; for mail the kernel's web submission endpoint
 * relays, whose From is the relay's "devnull+..." address, its
 * X-Original-From), since the mail is in that name whoever signed it.
 *
 * What a habit is: at least SignerHabitMinimum of the identity's recent
 * patch mails (the ledger keeps HABIT_WINDOW of them) passed with a
 * trusted key, and they are at least half of them: someone who signed 3
 * of their last 30 patches has no habit to break.
 *
 * What stays: a pass (by any trusted key: a new key is not flagged), a
 * fail (a contradiction says more), stale and uidmismatch (a trusted key
 * signed it; they have their own actions), temperror.  Signer memory that
 * cannot be read (a damaged file, the state database away) makes a mail
 * it would have judged temperror, OnError's to act on, as any fault of
 * ours: a forger must not pass as merely unsigned because our store was
 * away.  (A record that cannot be written is the caller's fault to
 * handle, through OnError, too.)
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

#define RELAY_LOCALPART	"devnull+"	/* the web endpoint's From */

/* relayed - the web endpoint relayed it: From is its own address */
static int
relayed(const char *addr)
{
	return strncmp(addr, RELAY_LOCALPART, strlen(RELAY_LOCALPART)) == 0;
}

/* set_author - "name <addr>" as the message's author */
static void
set_author(struct decider *d, const struct sbuf *name,
    const struct sbuf *addr)
{
	if (name->len > 0)
		snprintf(d->author, sizeof(d->author), "%s <%s>", name->buf,
		    addr->buf);
	else
		snprintf(d->author, sizeof(d->author), "%s", addr->buf);
	if (patatt_identity_canon(d->author_id, sizeof(d->author_id),
	    addr->buf) != 0)
		d->author_id[0] = '\0';
}

void
signer_read(struct decider *d, const struct mailmsg *msg)
{
	const char *v;
	struct sbuf text, name, addr;
	size_t len;
	int rc;

	d->author[0] = d->author_id[0] = '\0';
	d->relayed = 0;
	/* git am's reading, whose author the patch will have */
	rc = patchfacts_compute(&d->pf, msg, &d->h);
	d->mi_ok = rc == 0 || rc == PA_ENOPATCH;
	if (d->mi_ok && d->pf.mi->has_from)
		set_author(d, &d->pf.mi->author, &d->pf.mi->email);
	else if (d->email.len > 0)
		set_author(d, &d->name, &d->email);
	if (!relayed(d->author_id) ||
	    (v = mailmsg_get(msg, "X-Original-From", &len)) == NULL)
		return;
	sbuf_init(&text, 4 * ARRIVAL_TEXT_MAX);
	sbuf_init(&name, ARRIVAL_TEXT_MAX);
	sbuf_init(&addr, ARRIVAL_TEXT_MAX);
	/* its encoded words as patatt reads them; the bytes if they fail */
	if (pyheader_decode(&text, v, len) != 0) {
		sbuf_reset(&text);
		sbuf_add(&text, v, len);
	}
	if (!sbuf_failed(&text) && mailident_from(&name, &addr, &d->work,
	    text.buf, text.len, 0) == 0 && addr.len > 0) {
		set_author(d, &name, &addr);
		d->relayed = 1;
	}
	sbuf_release(&text);
	sbuf_release(&name);
	sbuf_release(&addr);
}

const char *
decide_author(const struct decider *d)
{
	return d->author_id;
}

/* breaks - how out breaks the habit, or NULL when it does not */
static const char *
breaks(const struct decision *out)
{
	switch (out->result) {
	case VERDICT_NONE:
		return "unsigned";
	case VERDICT_NOKEY:
		return "signed by a key we do not have";
	case VERDICT_UNTRUSTED:
		return "signed by a key that is not trusted";
	default:
		return NULL;
	}
}

/*
 * not_consulted - signer memory could not be read (why): whether out
 * breaks a habit (how it would) is unknown, so the mail cannot be
 * judged, a fault of ours that OnError acts on; the reason keeps what it
 * was otherwise
 */
static void
not_consulted(struct decision *out, const char *how, const char *why)
{
	char was[sizeof(out->reason)];

	memcpy(was, out->reason, sizeof(was));
	if (!out->has_patatt)
		out->v01 = out->result;	/* the 2020 scheme's own, kept */
	out->result = VERDICT_TEMPERROR;
	out->lasting = 0;
	snprintf(out->reason, sizeof(out->reason), "signer memory could not "
	    "be consulted: %.100s; this one is %s%s%.60s%s", why, how,
	    was[0] ? " (" : "", was, was[0] ? ")" : "");
}

void
signer_memory(struct decider *d, struct decision *out)
{
	const char *how = breaks(out);
	const struct state_lookup *looked;
	const struct habit *h;

	if (how == NULL || d->author_id[0] == '\0')
		return;
	if (d->ledger == NULL) {
		if (d->ledger_why != NULL)
			not_consulted(out, how, d->ledger_why);
		return;
	}
	looked = decider_state(d);
	if (looked->habit_rc == PA_ENOTFOUND)
		return;
	if (looked->habit_rc != 0) {
		not_consulted(out, how, looked->habit_why.msg);
		return;
	}
	h = &looked->habit;
	if (h->recent_signed < (unsigned)d->cfg->signer_habit_minimum ||
	    2 * h->recent_signed < h->recent)
		return;
	if (!out->has_patatt)
		out->v01 = out->result;	/* the 2020 scheme's own, kept */
	out->result = VERDICT_UNSIGNED_BY_SIGNER;
	out->differs = 0;
	snprintf(out->reason, sizeof(out->reason), "%.60s signed %u of its "
	    "last %u patches with %.80s; this one is %s", d->author_id,
	    h->recent_signed, h->recent, h->key, how);
}
