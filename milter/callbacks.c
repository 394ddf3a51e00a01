/*
 * callbacks.c - libmilter's callbacks: collect a message, strip the
 * headers only we may write, decide, add ours, act.
 *
 * Debian's libmilter runs one connection's callbacks on any of its worker
 * threads, so everything about a connection or a message is in the
 * connection's private data, and what is shared is behind state.c.
 * A fault of ours never loses mail: the message goes on as OnError says.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "mailmsg.h"
#include "milter.h"
#include "policy.h"
#include "sbuf.h"

#define HDR_VERDICT	"X-Patch-Attested"
#define HDR_AUTHRES	"Authentication-Results"
#define HEADER_ROOM	((size_t)1 << 20)	/* header bytes beyond the body's */
#define CLEARSIGN_LINE	"-----BEGIN PGP SIGNED MESSAGE-----"

struct conn {
	struct generation	*gen;		/* settings of this message */
	struct mailmsg		*msg;
	size_t			 msg_cap;	/* what msg was made to hold */
	int			 in_message;	/* between MAIL and its end */
	size_t			 body_bytes;	/* as the MTA sent them */
	int			 oversize;	/* no verdict, passes */
	int			 fault;		/* ours: OnError */
	unsigned		 verdict_headers;	/* X-Patch-Attested seen */
	unsigned		 authres_headers;
	unsigned		*ours;		/* A-R claiming AuthservID */
	size_t			 nours, capours;
};

static struct conn *
conn_of(SMFICTX *ctx)
{
	return smfi_getpriv(ctx);
}

/* message_end - forget the message, keep the connection */
static void
message_end(struct conn *c)
{
	if (c->in_message)
		atomic_fetch_sub(&state_in_flight, 1);
	c->in_message = 0;
	state_release(c->gen);
	c->gen = NULL;
	if (c->msg != NULL)
		mailmsg_reset(c->msg);
	c->body_bytes = 0;
	c->oversize = c->fault = 0;
	c->verdict_headers = c->authres_headers = 0;
	c->nours = 0;
}

static sfsistat
fault_action(struct conn *c)
{
	if (c->gen && c->gen->cf.on_error == ONERROR_TEMPFAIL)
		return SMFIS_TEMPFAIL;
	return SMFIS_ACCEPT;
}

static sfsistat
cb_connect(SMFICTX *ctx, char *host, _SOCK_ADDR *addr)
{
	struct conn *c;

	(void)host;
	(void)addr;
	if ((c = calloc(1, sizeof(*c))) == NULL) {
		mlog(LOG_LEVEL_ERROR, "out of memory: a connection passes "
		    "unchecked");
		return SMFIS_ACCEPT;
	}
	smfi_setpriv(ctx, c);
	return SMFIS_CONTINUE;
}

static sfsistat
cb_helo(SMFICTX *ctx, char *name)
{
	(void)ctx;
	(void)name;
	return SMFIS_CONTINUE;
}

static sfsistat
cb_envfrom(SMFICTX *ctx, char **argv)
{
	struct conn *c = conn_of(ctx);

	(void)argv;
	if (c == NULL)
		return SMFIS_ACCEPT;
	message_end(c);
	c->gen = state_hold();
	c->in_message = 1;
	atomic_fetch_add(&state_in_flight, 1);
	if (c->msg_cap != (size_t)c->gen->cf.max_body + HEADER_ROOM) {
		mailmsg_free(c->msg);
		c->msg_cap = (size_t)c->gen->cf.max_body + HEADER_ROOM;
		c->msg = mailmsg_new(c->msg_cap);
	}
	if (c->msg == NULL) {
		c->msg_cap = 0;
		mlog(LOG_LEVEL_ERROR, "out of memory: a message passes "
		    "unchecked");
		c->fault = 1;
	}
	return SMFIS_CONTINUE;
}

static sfsistat
cb_envrcpt(SMFICTX *ctx, char **argv)
{
	(void)ctx;
	(void)argv;
	return SMFIS_CONTINUE;
}

static sfsistat
cb_data(SMFICTX *ctx)
{
	(void)ctx;
	return SMFIS_CONTINUE;
}

/* collecting - whether the message is still being read for a verdict */
static int
collecting(const struct conn *c)
{
	return !c->oversize && !c->fault;
}

/* note - what a library call said about the message being read */
static void
note(struct conn *c, int rc)
{
	if (rc == PA_ETOOBIG)
		c->oversize = 1;
	else if (rc != 0)
		c->fault = 1;
}

static void
remember_ours(struct conn *c, unsigned idx)
{
	unsigned *grown;

	if (c->nours == c->capours) {
		grown = realloc(c->ours, (c->capours * 2 + 4) *
		    sizeof(*c->ours));
		if (grown == NULL) {
			c->fault = 1;
			return;
		}
		c->ours = grown;
		c->capours = c->capours * 2 + 4;
	}
	c->ours[c->nours++] = idx;
}

static sfsistat
cb_header(SMFICTX *ctx, char *name, char *value)
{
	struct conn *c = conn_of(ctx);
	const char *authserv;

	if (c == NULL || c->gen == NULL)
		return SMFIS_CONTINUE;
	if (strcasecmp(name, HDR_VERDICT) == 0)
		c->verdict_headers++;
	else if (strcasecmp(name, HDR_AUTHRES) == 0) {
		c->authres_headers++;
		authserv = c->gen->cf.authserv_id;
		if (authserv != NULL && policy_authres_ours(value,
		    strlen(value), authserv))
			remember_ours(c, c->authres_headers);
	}
	if (collecting(c))
		note(c, mailmsg_header(c->msg, name, value));
	return SMFIS_CONTINUE;
}

static sfsistat
cb_eoh(SMFICTX *ctx)
{
	struct conn *c = conn_of(ctx);

	if (c != NULL && c->gen != NULL && collecting(c))
		note(c, mailmsg_eoh(c->msg));
	return SMFIS_CONTINUE;
}

static sfsistat
cb_body(SMFICTX *ctx, unsigned char *chunk, size_t len)
{
	struct conn *c = conn_of(ctx);

	if (c == NULL || c->gen == NULL || !collecting(c))
		return SMFIS_CONTINUE;
	c->body_bytes += len;
	if (c->body_bytes > (size_t)c->gen->cf.max_body)
		c->oversize = 1;
	else
		note(c, mailmsg_body(c->msg, chunk, len));
	return SMFIS_CONTINUE;
}

/*
 * strip - delete the headers only we may write.  From the last copy to the
 * first: the MTA renumbers the rest after each deletion.
 */
static int
strip(SMFICTX *ctx, struct conn *c)
{
	unsigned i;
	size_t k;

	for (i = c->verdict_headers; i > 0; i--)
		if (smfi_chgheader(ctx, HDR_VERDICT, (int)i, NULL) !=
		    MI_SUCCESS)
			return -1;
	for (k = c->nours; k > 0; k--)
		if (smfi_chgheader(ctx, HDR_AUTHRES, (int)c->ours[k - 1],
		    NULL) != MI_SUCCESS)
			return -1;
	return 0;
}

static int
insert(SMFICTX *ctx, const char *name, const char *value)
{
	return smfi_insheader(ctx, 0, (char *)name, (char *)value) ==
	    MI_SUCCESS ? 0 : -1;
}

static const char *
queue_id(SMFICTX *ctx)
{
	const char *qid = smfi_getsymval(ctx, "i");

	return qid != NULL ? qid : "NOQUEUE";
}

/* message_id - the Message-ID for the log, or "-" */
static void
message_id(const struct mailmsg *m, char *out, size_t size)
{
	size_t len = 0, i;
	const char *v = mailmsg_get(m, "Message-ID", &len);

	if (v == NULL)
		len = 0;
	while (len > 0 && strchr(" \t\n", *v)) {
		v++;
		len--;
	}
	if (len == 0) {
		snprintf(out, size, "-");
		return;
	}
	snprintf(out, size, "%.*s", (int)len, v);
	for (i = 0; out[i]; i++)
		if ((unsigned char)out[i] < 0x20)
			out[i] = ' ';
}

/* not_a_patch - learn what it carries, mark it if configured */
static sfsistat
not_a_patch(SMFICTX *ctx, struct conn *c)
{
	const struct pa_config *cf = &c->gen->cf;
	const char *body;
	size_t len;

	if (cf->mark_non_patches == CONFIG_YES &&
	    insert(ctx, HDR_VERDICT, "nopatch") != 0)
		mlog(LOG_LEVEL_ERROR, "%s: the MTA refused our header",
		    queue_id(ctx));
	body = mailmsg_body_text(c->msg, &len);
	if (cf->learn_from_mail == CONFIG_YES && body != NULL &&
	    memmem(body, len, CLEARSIGN_LINE, strlen(CLEARSIGN_LINE))) {
		body = mailmsg_text(c->msg, &len);
		worker_learn(body, len);
	}
	return SMFIS_CONTINUE;
}

static void
log_decision(SMFICTX *ctx, struct conn *c, const struct decision *d,
    const struct policy_outcome *o)
{
	static const char *const action_names[] = {
		[ACTION_ACCEPT] = "accept", [ACTION_REJECT] = "reject",
		[ACTION_TEMPFAIL] = "tempfail",
		[ACTION_QUARANTINE] = "quarantine",
	};
	char msgid[256], schemes[80] = "";

	message_id(c->msg, msgid, sizeof(msgid));
	if (d->has_patatt && d->has_patch)
		snprintf(schemes, sizeof(schemes), " scheme=%s v0.1=%s "
		    "patatt=%s", d->scheme == SCHEME_PATATT ? "patatt" : "v0.1",
		    verdict_name(d->v01), verdict_name(d->patatt));
	else if (d->has_patatt)
		snprintf(schemes, sizeof(schemes), " scheme=patatt patatt=%s",
		    verdict_name(d->patatt));
	mlog(LOG_LEVEL_INFO, "%s: message-id=%s result=%s attid=%s "
	    "signer=\"%s\"%s action=%s%s%s", queue_id(ctx), msgid,
	    verdict_name(d->result), d->attid[0] ? d->attid : "-", d->signer,
	    schemes, action_names[o->action], d->reason[0] ? " reason=" : "",
	    d->reason);
}

/* verdict - decide a complete message and act on it */
static sfsistat
verdict(SMFICTX *ctx, struct conn *c)
{
	const struct pa_config *cf = &c->gen->cf;
	struct policy_outcome o;
	struct decision d;
	struct sbuf value;
	time_t now = time(NULL);
	int rc;

	if (state_decide(c->msg, now, &d) == PA_ENOPATCH)
		return not_a_patch(ctx, c);
	policy_apply(cf, &d, now, &o);
	log_decision(ctx, c, &d, &o);
	if (d.tofu_key[0] != '\0')
		worker_remember(d.identity, d.tofu_key);
	if (o.rcode != NULL) {
		smfi_setreply(ctx, (char *)o.rcode, (char *)o.xcode, o.text);
		return o.action == ACTION_REJECT ? SMFIS_REJECT :
		    SMFIS_TEMPFAIL;
	}
	sbuf_init(&value, 4096);
	rc = 0;
	if (cf->authserv_id != NULL) {
		rc = policy_authres(&value, cf->authserv_id, &d);
		if (rc == 0)
			rc = insert(ctx, HDR_AUTHRES, value.buf);
		sbuf_reset(&value);
	}
	if (rc == 0 && (rc = decision_header(&d, &value)) == 0)
		rc = insert(ctx, HDR_VERDICT, value.buf);
	sbuf_release(&value);
	if (rc != 0)
		mlog(LOG_LEVEL_ERROR, "%s: the MTA refused our header",
		    queue_id(ctx));
	if (o.action == ACTION_QUARANTINE &&
	    smfi_quarantine(ctx, o.text) != MI_SUCCESS)
		mlog(LOG_LEVEL_ERROR, "%s: the MTA refused to quarantine",
		    queue_id(ctx));
	return SMFIS_CONTINUE;
}

static sfsistat
cb_eom(SMFICTX *ctx)
{
	struct conn *c = conn_of(ctx);
	sfsistat rc;

	if (c == NULL || c->gen == NULL)
		return SMFIS_CONTINUE;
	if (strip(ctx, c) != 0) {
		mlog(LOG_LEVEL_ERROR, "%s: the MTA refused to delete a "
		    "header", queue_id(ctx));
		c->fault = 1;
	}
	if (collecting(c))
		note(c, mailmsg_eom(c->msg));
	if (c->oversize) {
		mlog(LOG_LEVEL_INFO, "%s: over MaximumBodySize (%ld bytes): "
		    "passed without a verdict", queue_id(ctx),
		    c->gen->cf.max_body);
		rc = SMFIS_CONTINUE;
	} else if (c->fault) {
		mlog(LOG_LEVEL_ERROR, "%s: not checked, out of memory or the "
		    "MTA failed us; OnError applies", queue_id(ctx));
		rc = fault_action(c);
	} else
		rc = verdict(ctx, c);
	message_end(c);
	return rc;
}

static sfsistat
cb_abort(SMFICTX *ctx)
{
	struct conn *c = conn_of(ctx);

	if (c != NULL)
		message_end(c);
	return SMFIS_CONTINUE;
}

static sfsistat
cb_close(SMFICTX *ctx)
{
	struct conn *c = conn_of(ctx);

	if (c == NULL)
		return SMFIS_CONTINUE;
	message_end(c);
	mailmsg_free(c->msg);
	free(c->ours);
	free(c);
	smfi_setpriv(ctx, NULL);
	return SMFIS_CONTINUE;
}

struct smfiDesc milter_desc = {
	.xxfi_name = "patchattest",
	.xxfi_version = SMFI_VERSION,
	.xxfi_flags = SMFIF_ADDHDRS | SMFIF_CHGHDRS | SMFIF_QUARANTINE,
	.xxfi_connect = cb_connect,
	.xxfi_helo = cb_helo,
	.xxfi_envfrom = cb_envfrom,
	.xxfi_envrcpt = cb_envrcpt,
	.xxfi_header = cb_header,
	.xxfi_eoh = cb_eoh,
	.xxfi_body = cb_body,
	.xxfi_eom = cb_eom,
	.xxfi_abort = cb_abort,
	.xxfi_close = cb_close,
	.xxfi_data = cb_data,
};
