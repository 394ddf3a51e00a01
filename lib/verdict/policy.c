/* SPDX-License-Identifier: BSD-2-Clause */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "base.h"
#include "policy.h"

/* What each verdict is called in an SMTP reply, and in RFC 8601 terms. */
static const struct {
	const char	*reply;
	const char	*authres;
} verdict_words[] = {
	[VERDICT_PASS] = { "attested", "pass" },
	[VERDICT_STALE] = { "attested too long ago", "policy" },
	[VERDICT_UIDMISMATCH] = { "attested by someone other than its author",
	    "policy" },
	[VERDICT_UNTRUSTED] = { "attested by a key that is not trusted",
	    "neutral" },
	[VERDICT_NOKEY] = { "attested by an unknown key", "neutral" },
	[VERDICT_FAIL] = { "not what its attestation says", "fail" },
	[VERDICT_NONE] = { "not attested", "none" },
	[VERDICT_TEMPERROR] = { "not checked: the attestation index or "
	    "keyring is unusable", "temperror" },
};

/*
 * configured_action - what the configuration does with d: the one place
 * where the milter fails open or closed.  A message it could not judge
 * for now follows OnError; one it will never be able to judge (too big)
 * is accepted, marked: a retry would meet the same.
 */
static enum action
configured_action(const struct pa_config *cf, const struct decision *d)
{
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
		    verdict_words[d->result].reply, d->reason);
	else
		snprintf(text, sizeof(text), "Patch attestation %s: %s is %s",
		    verdict_name(d->result), what,
		    verdict_words[d->result].reply);
	reply_text(o->text, sizeof(o->text), text);
	if (o->action == ACTION_REJECT) {
		o->rcode = "550";
		o->xcode = "5.7.1";
	} else if (o->action == ACTION_TEMPFAIL) {
		o->rcode = "451";
		o->xcode = "4.7.1";
	}
}

/*
 * authres_patatt - the resinfo of patatt's signatures: each scheme keeps
 * its own result in the entry, whichever gave the verdict.
 */
static void
authres_patatt(struct sbuf *out, size_t *col, struct sbuf *item,
    const struct decision *d)
{
	sbuf_reset(item);
	sbuf_addf(item, "%s=%s", POLICY_AR_PATATT,
	    verdict_words[d->patatt].authres);
	hdrfmt_item(out, col, "; ", item->buf, item->len);
	sbuf_reset(item);
	sbuf_addstr(item, "reason=");
	hdrfmt_quoted(item, verdict_name(d->patatt));
	hdrfmt_item(out, col, " ", item->buf, item->len);
	/* An identity that is no plain address would break the syntax. */
	if (d->identity[0] != '\0' &&
	    strspn(d->identity, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOP"
	    "QRSTUVWXYZ0123456789.-_+=@") == strlen(d->identity)) {
		sbuf_reset(item);
		sbuf_addf(item, "header.i=%s", d->identity);
		hdrfmt_item(out, col, " ", item->buf, item->len);
	}
	if (d->algo[0] != '\0') {
		sbuf_reset(item);
		sbuf_addf(item, "header.a=%s", d->algo);
		hdrfmt_item(out, col, " ", item->buf, item->len);
	}
}

/* authres_v01 - the resinfo of the 2020 scheme's attestation */
static void
authres_v01(struct sbuf *out, size_t *col, struct sbuf *item,
    const struct decision *d)
{
	enum verdict v01 = d->has_patatt ? d->v01 : d->result;

	sbuf_reset(item);
	sbuf_addf(item, "%s=%s", POLICY_AR_METHOD,
	    verdict_words[v01].authres);
	hdrfmt_item(out, col, "; ", item->buf, item->len);
	sbuf_reset(item);
	sbuf_addstr(item, "reason=");
	hdrfmt_quoted(item, verdict_name(v01));
	hdrfmt_item(out, col, " ", item->buf, item->len);
	if (d->attid[0] != '\0') {
		sbuf_reset(item);
		sbuf_addf(item, "policy.attid=%s", d->attid);
		hdrfmt_item(out, col, " ", item->buf, item->len);
	}
}

int
policy_authres(struct sbuf *out, const char *authserv_id,
    const struct decision *d)
{
	struct sbuf item;
	size_t col = strlen("Authentication-Results: ");

	sbuf_init(&item, 1024);
	sbuf_addf(&item, "%s", authserv_id);
	hdrfmt_item(out, &col, "", item.buf, item.len);
	/* Each scheme that had a say: the 2020 one only on a patch. */
	if (d->has_patch)
		authres_v01(out, &col, &item, d);
	if (d->has_patatt)
		authres_patatt(out, &col, &item, d);
	sbuf_release(&item);
	return sbuf_failed(out);
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
	sbuf_addf(out, " action=%s", action_names[o->action]);
	if (d->reason[0] != '\0') {
		sbuf_addstr(out, " reason=");
		hdrfmt_quoted(out, d->reason);
	}
	return sbuf_failed(out);
}

/* skip_cfws - past white space and (nested) comments */
static size_t
skip_cfws(const char *v, size_t len, size_t i)
{
	int depth = 0;

	for (; i < len; i++) {
		if (v[i] == '(')
			depth++;
		else if (v[i] == ')' && depth > 0)
			depth--;
		else if (v[i] == '\\' && depth > 0 && i + 1 < len)
			i++;
		else if (depth == 0 && !strchr(" \t\r\n", v[i]))
			break;
	}
	return i;
}

int
policy_authres_ours(const char *v, size_t len, const char *authserv_id)
{
	size_t i, start, idlen = strlen(authserv_id), n;

	start = i = skip_cfws(v, len, 0);
	if (i < len && v[i] == '"') {
		/* a quoted-string: compare what it says, escapes undone */
		for (i++, n = 0; i < len && v[i] != '"'; i++, n++) {
			if (v[i] == '\\' && i + 1 < len)
				i++;
			if (n >= idlen || ascii_lower(v[i]) !=
			    ascii_lower(authserv_id[n]))
				return 0;
		}
		return i < len && n == idlen && idlen > 0;
	}
	while (i < len && !strchr(" \t\r\n;(", v[i]))
		i++;
	return i - start == idlen && idlen > 0 &&
	    strncasecmp(v + start, authserv_id, idlen) == 0;
}
