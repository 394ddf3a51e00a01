/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * conclude.c - what becomes of a message at its end, once it is judged
 * or found to be neither a patch nor signed: the reply, or our header
 * fields and the quarantine; the metrics; the log lines, one a message,
 * with the Message-ID and every field from the mail quoted.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "verdict.h"
#include "attest.h"
#include "mail.h"
#include "milter.h"
#include "base.h"

static int
insert(SMFICTX *ctx, const char *name, const char *value)
{
	return smfi_insheader(ctx, 0, (char *)name, (char *)value) ==
	    MI_SUCCESS ? 0 : -1;
}

const char *
conclude_queue_id(SMFICTX *ctx)
{
	const char *qid = smfi_getsymval(ctx, "i");

	return qid != NULL ? qid : "NOQUEUE";
}

/* message_id - the Message-ID for the log (policy_logline quotes it) */
static void
message_id(const struct mailmsg *m, char *out, size_t size)
{
	size_t len = 0;
	const char *v = m ? mailmsg_get(m, "Message-ID", &len) : NULL;

	if (v == NULL)
		len = 0;
	while (len > 0 && strchr(" \t\n", *v)) {
		v++;
		len--;
	}
	while (len > 0 && strchr(" \t\n", v[len - 1]))
		len--;
	snprintf(out, size, "%.*s", (int)len, len ? v : "");
}

sfsistat
conclude_not_a_patch(SMFICTX *ctx, const struct pa_config *cf,
    const struct mailmsg *msg)
{
	const char *text;
	struct sbuf line;
	char msgid[256];
	size_t len;

	message_id(msg, msgid, sizeof(msgid));
	sbuf_init(&line, 1024);
	sbuf_addf(&line, "%s: message-id=", conclude_queue_id(ctx));
	hdrfmt_quoted(&line, msgid);
	mlog(LOG_LEVEL_DEBUG, "%s not judged: no patatt signature, and no "
	    "diff (or one git mailinfo would refuse) to attest", line.buf);
	sbuf_release(&line);
	if (cf->mark_non_patches == CONFIG_YES &&
	    insert(ctx, HDR_VERDICT, "nopatch") != 0)
		mlog(LOG_LEVEL_ERROR, "%s: the MTA refused our header",
		    conclude_queue_id(ctx));
	text = mailmsg_text(msg, &len);
	if (cf->learn_from_mail == CONFIG_YES &&
	    indexer_worth_reading(text, len))
		worker_learn(text, len);
	return SMFIS_CONTINUE;
}

static void
log_decision(SMFICTX *ctx, const struct mailmsg *msg,
    const struct decision *d, const struct policy_outcome *o)
{
	struct sbuf line;
	char msgid[256];

	message_id(msg, msgid, sizeof(msgid));
	sbuf_init(&line, 4096);
	if (policy_logline(&line, conclude_queue_id(ctx), msgid, d, o) == 0)
		mlog(LOG_LEVEL_INFO, "%s", line.buf);
	sbuf_release(&line);
}

/* log_pinned - the key this message pinned, the mail's bytes escaped */
static void
log_pinned(SMFICTX *ctx, const struct decision *d)
{
	char identity[4 * sizeof(d->identity)], key[4 * sizeof(d->tofu_key)];

	mlog(LOG_LEVEL_INFO, "%s: first-use key pinned: identity=%s key=%s",
	    conclude_queue_id(ctx), hdrfmt_printable(identity,
	    sizeof(identity), d->identity, strlen(d->identity)),
	    hdrfmt_printable(key, sizeof(key), d->tofu_key,
	    strlen(d->tofu_key)));
}

sfsistat
conclude(SMFICTX *ctx, const struct pa_config *cf,
    const struct mailmsg *msg, const struct timespec *start,
    const struct decision *d)
{
	struct policy_outcome o;
	struct sbuf value;
	int rc;

	policy_apply(cf, d, time(NULL), &o);
	metrics_decided(d, &o);
	metrics_latency(start);
	log_decision(ctx, msg, d, &o);
	if (d->tofu_key[0] != '\0')
		log_pinned(ctx, d);
	/* Fields from outside, or a verifier not listed: not believed. */
	if (d->authres_ignored > 0)
		mlog(LOG_LEVEL_DEBUG, "%s: %u Authentication-Results field(s) "
		    "ignored: authserv-id not in TrustedAuthservIDs, under "
		    "the verifier's own, or malformed", conclude_queue_id(ctx),
		    d->authres_ignored);
	if (o.rcode != NULL) {
		smfi_setreply(ctx, (char *)o.rcode, (char *)o.xcode, o.text);
		return o.action == ACTION_REJECT ? SMFIS_REJECT :
		    SMFIS_TEMPFAIL;
	}
	sbuf_init(&value, 4096);
	rc = 0;
	if (cf->authserv_id != NULL) {
		rc = header_authres(&value, cf->authserv_id, d);
		if (rc == 0)
			rc = insert(ctx, HDR_AUTHRES, value.buf);
		sbuf_reset(&value);
	}
	if (rc == 0 && (rc = header_verdict(d, &value)) == 0)
		rc = insert(ctx, HDR_VERDICT, value.buf);
	sbuf_release(&value);
	if (rc != 0)
		mlog(LOG_LEVEL_ERROR, "%s: the MTA refused our header",
		    conclude_queue_id(ctx));
	if (o.action == ACTION_QUARANTINE &&
	    smfi_quarantine(ctx, o.text) != MI_SUCCESS)
		mlog(LOG_LEVEL_ERROR, "%s: the MTA refused to quarantine",
		    conclude_queue_id(ctx));
	return SMFIS_CONTINUE;
}

void
conclude_unrecorded(SMFICTX *ctx, const struct pa_err *unrecorded,
    int judged)
{
	if (unrecorded->msg[0] != '\0')
		mlog(LOG_LEVEL_ERROR, "%s: the arrival record was not "
		    "written%s: %s", conclude_queue_id(ctx),
		    judged ? " (OnError)" : "", unrecorded->msg);
}
