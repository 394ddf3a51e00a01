/* SPDX-License-Identifier: BSD-2-Clause */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "base.h"
#include "policy.h"

/* What each verdict is called in an SMTP reply. */
static const char *const reply_words[] = {
	[VERDICT_PASS] = "attested",
	[VERDICT_STALE] = "attested too long ago",
	[VERDICT_UIDMISMATCH] = "attested by someone other than its author",
	[VERDICT_UNTRUSTED] = "attested by a key that is not trusted",
	[VERDICT_NOKEY] = "attested by an unknown key",
	[VERDICT_FAIL] = "not what its attestation says",
	[VERDICT_UNSIGNED_BY_SIGNER] = "not signed the way its author signs",
	[VERDICT_NONE] = "not attested",
	[VERDICT_TEMPERROR] = "not checked: the attestation index or keyring "
	    "is unusable",
};

/*
 * configured_action - what the configuration does with d: the one place
 * where the milter fails open or closed.  A message it could not judge
 * for now follows OnError; one it will never be able to judge (too big)
 * is accepted, marked: a retry would meet the same.  One that still
 * carries fields only we may write (d->unsafe) is never accepted.  One
 * judged but not recorded (d->unrecorded) is deferred under OnError
 * tempfail, so that its retry is recorded; else its verdict stands.
 */
static enum action
configured_action(const struct pa_config *cf, const struct decision *d)
{
	if (d->unsafe)		/* a forgery of ours would stay: refused */
		return d->lasting ? ACTION_REJECT : ACTION_TEMPFAIL;
	/* Not recorded: a fault of ours, whatever the verdict. */
	if (d->unrecorded && cf->on_error == ONERROR_TEMPFAIL)
		return ACTION_TEMPFAIL;
	switch (d->result) {
	case VERDICT_PASS:
		return ACTION_ACCEPT;
	case VERDICT_STALE:
		return cf->on_stale;
	case VERDICT_UIDMISMATCH:
		return cf->on_uidmismatch;
	case VERDICT_UNTRUSTED:
		return cf->on_untrusted;
	case VERDICT_NOKEY:
		return cf->on_nokey;
	case VERDICT_FAIL:
		return cf->on_fail;
	case VERDICT_UNSIGNED_BY_SIGNER:
		return cf->on_unsigned_by_signer;
	case VERDICT_NONE:
		return cf->on_none;
	case VERDICT_TEMPERROR:
		break;
	}
	return cf->on_error == ONERROR_TEMPFAIL && !d->lasting ?
	    ACTION_TEMPFAIL : ACTION_ACCEPT;
}

/* reply_text - s for an SMTP reply: printable ASCII, no % (a format) */
static void
reply_text(char *out, size_t size, const char *s)
{
	size_t i, len = strnlen(s, size - 1);

	memcpy(out, s, len);
	out[len] = '\0';
	for (i = 0; i < len; i++)
		if ((unsigned char)out[i] < 0x20 ||
		    (unsigned char)out[i] > 0x7e || out[i] == '%')
			out[i] = ' ';
}

void
policy_apply(const struct pa_config *cf, const struct decision *d,
    time_t now, struct policy_outcome *o)
{
	char text[2 * sizeof(o->text)];
	const char *what = d->attid[0] ? d->attid : "the message";

	memset(o, 0, sizeof(*o));
	/* Only a patch can have a document on its way. */
	if (d->result == VERDICT_NONE && d->has_patch &&
	    cf->attestation_wait > 0 &&
	    d->mail_date != 0 && now >= d->mail_date &&
	    now - d->mail_date < cf->attestation_wait * 60) {
		o->action = ACTION_TEMPFAIL;
		o->awaiting = 1;
		o->rcode = "451";
		o->xcode = "4.7.1";
		snprintf(o->text, sizeof(o->text), "Patch attestation none: "
		    "%s has no attestation yet; try again later", d->attid);
		return;
	}
	o->action = configured_action(cf, d);
	if (d->reason[0] != '\0')
		snprintf(text, sizeof(text), "Patch attestation %s: %s is %s "
		    "(%s)", verdict_name(d->result), what,
		    reply_words[d->result], d->reason);
	else
		snprintf(text, sizeof(text), "Patch attestation %s: %s is %s",
		    verdict_name(d->result), what,
		    reply_words[d->result]);
	reply_text(o->text, sizeof(o->text), text);
	if (o->action == ACTION_REJECT) {
		o->rcode = "550";
		o->xcode = "5.7.1";
	} else if (o->action == ACTION_TEMPFAIL) {
		o->rcode = "451";
		o->xcode = "4.7.1";
	}
}

int
policy_logline(struct sbuf *out, const char *qid, const char *msgid,
    const struct decision *d, const struct policy_outcome *o)
{
	static const char *const action_names[] = {
		[ACTION_ACCEPT] = "accept", [ACTION_REJECT] = "reject",
		[ACTION_TEMPFAIL] = "tempfail",
		[ACTION_QUARANTINE] = "quarantine",
	};

	sbuf_addstr(out, qid);
	sbuf_addstr(out, ": message-id=");
	hdrfmt_quoted(out, msgid);
	sbuf_addf(out, " result=%s attid=%s signer=", verdict_name(d->result),
	    d->attid[0] ? d->attid : "-");
	hdrfmt_quoted(out, d->signer);
	if (d->has_patatt && d->has_patch)
		sbuf_addf(out, " scheme=%s v0.1=%s patatt=%s",
		    d->scheme == SCHEME_PATATT ? "patatt" : "v0.1",
		    verdict_name(d->v01), verdict_name(d->patatt));
	else if (d->has_patatt)
		sbuf_addf(out, " scheme=patatt patatt=%s",
		    verdict_name(d->patatt));
	if (d->dkim_domain[0] != '\0')
		sbuf_addf(out, " dkim=%s", d->dkim_domain);
	sbuf_addf(out, " action=%s", action_names[o->action]);
	if (d->reason[0] != '\0') {
		sbuf_addstr(out, " reason=");
		hdrfmt_quoted(out, d->reason);
	}
	return sbuf_failed(out);
}
