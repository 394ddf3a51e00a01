/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * callbacks.c - libmilter's callbacks: collect a message, strip the
 * headers only we may write, decide, and have conclude.c add ours and
 * act.
 *
 * Debian's libmilter runs one connection's callbacks on any of its worker
 * threads, so everything about a connection or a message is in the
 * connection's private data, and what is shared is behind state.c.
 *
 * A message we could not judge -- memory ran out, the MTA refused a
 * change, it is over MaximumBodySize, the index or keyring failed -- is a
 * decision like any other (decision_fault()), and policy_apply() says
 * what becomes of it: never silently passed unmarked, never lost.
 */
#include "config.h"

#include <netinet/in.h>

#include <arpa/inet.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "verdict.h"
#include "mail.h"
#include "milter.h"
#include "base.h"

#define HEADER_ROOM	((size_t)1 << 20)	/* header bytes beyond the body's */
#define LIMIT_LOG_EVERY	60	/* seconds between "limit reached" lines */

/* What we do to a message: the MTA must allow it. */
#define ACTIONS		(SMFIF_ADDHDRS | SMFIF_CHGHDRS | SMFIF_QUARANTINE)
/*
 * What we ask of an MTA on a local socket, when it offers it: not to send
 * the steps we have no use for, and to wait for no reply to a header, the
 * end of the headers or a body chunk, which we only collect: a message
 * then costs it a wait at MAIL FROM and at the end, not at each field.
 * Of an MTA over TCP, nothing: there its next small write waits for our
 * ACK of the last one (Nagle's algorithm, on its side), which we delay
 * when we have nothing to answer, 40 ms a message; the reply to each
 * step it sends carries the ACK at once.
 */
#define STEPS_SKIPPED	(SMFIP_NOHELO | SMFIP_NORCPT | SMFIP_NODATA | \
			 SMFIP_NOUNKNOWN)
#define STEPS_UNANSWERED (SMFIP_NR_HDR | SMFIP_NR_EOH | SMFIP_NR_BODY)

struct conn {
	struct place		 place;		/* under MaximumConnections */
	struct generation	*gen;		/* settings of this message */
	struct mailmsg		*msg;
	size_t			 msg_cap;	/* what msg was made to hold */
	int			 in_message;	/* between MAIL and its end */
	size_t			 body_bytes;	/* as the MTA sent them */
	int			 oversize;	/* not read on: too big */
	struct timespec		 decide_start;	/* for the latency metric */
	const char		*fault;		/* why it cannot be judged */
	int			 lasting;	/* ... and never will be */
	int			 unsafe;	/* ... nor be cleaned */
	struct hdrstrip		 strip;		/* the fields to delete */
	char			 envfrom[ARRIVAL_TEXT_MAX];	/* MAIL FROM */
	char			 host[ARRIVAL_TEXT_MAX];	/* the client */
	unsigned long		 unanswered;	/* STEPS_UNANSWERED agreed */
};

static int		local_socket;		/* steps skipped, unanswered */
static atomic_llong	limit_logged;		/* when it was last said */
static atomic_llong	taken_logged;		/* ... and a place taken */

static struct conn *
conn_of(SMFICTX *ctx)
{
	return smfi_getpriv(ctx);
}

/* collected - what to tell the MTA after collecting part of a message */
static sfsistat
collected(const struct conn *c, unsigned long step)
{
	return c != NULL && (c->unanswered & step) ? SMFIS_NOREPLY :
	    SMFIS_CONTINUE;
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
	c->oversize = c->lasting = c->unsafe = 0;
	c->fault = NULL;
	hdrstrip_reset(&c->strip);
}

/*
 * faulted - note that the message cannot be judged, and why (the first
 * reason counts)
 */
static void
faulted(struct conn *c, const char *why, int lasting)
{
	if (c->fault == NULL) {
		c->fault = why;
		c->lasting = lasting;
	}
}

/*
 * awake - the connection of ctx, one of whose callbacks begins: if its
 * place was taken meanwhile, the message it is in is not read on
 */
static struct conn *
awake(SMFICTX *ctx)
{
	struct conn *c = conn_of(ctx);

	if (c != NULL && places_enter(&c->place) && c->in_message)
		faulted(c, "over MaximumConnections (its place went to another "
		    "connection while its MTA was silent)", 0);
	return c;
}

/* asleep - c's callback ends with rc: c waits for its MTA from now on */
static sfsistat
asleep(struct conn *c, sfsistat rc)
{
	if (c != NULL)
		places_leave(&c->place, c->in_message);
	return rc;
}

/*
 * unjudged - what becomes of a connection none of whose mail can be
 * judged (why), as OnError says: SMFIS_TEMPFAIL, or SMFIS_CONTINUE to
 * have its mail marked temperror with the forged fields still removed
 */
static sfsistat
unjudged(const char *why)
{
	struct policy_outcome o;
	struct generation *g;
	struct decision d;

	decision_fault(&d, 0, why);
	g = state_hold();
	policy_apply(&g->cf, &d, time(NULL), &o);
	state_release(g);
	return o.action == ACTION_TEMPFAIL ? SMFIS_TEMPFAIL : SMFIS_CONTINUE;
}

/*
 * yield - the memory of c, whose place is taken (under places' lock,
 * while none of its callbacks runs)
 */
static void
yield(struct place *p)
{
	struct conn *c = (struct conn *)(void *)((char *)p -
	    offsetof(struct conn, place));

	mailmsg_free(c->msg);
	c->msg = NULL;
	c->msg_cap = 0;
}

/* said - whether a line said at most once a minute is due now (at *last) */
static int
said(atomic_llong *last)
{
	long long now = time(NULL), was = atomic_load(last);

	return now - was >= LIMIT_LOG_EVERY &&
	    atomic_compare_exchange_strong(last, &was, now);
}

/*
 * take_place - a place under MaximumConnections for c (its own if it has
 * one), taken from a connection idle for IdleConnectionGrace when none is
 * free: whether it has one
 */
static int
take_place(struct conn *c)
{
	struct generation *g = state_hold();
	long limit = g->cf.max_connections, grace = g->cf.idle_grace;
	struct place_loss loss;
	enum place_got got;

	state_release(g);
	got = places_take(&c->place, limit, grace, yield, &loss);
	if (got == PLACE_TAKEN && said(&taken_logged))
		mlog(LOG_LEVEL_WARNING, "MaximumConnections (%ld) reached: a "
		    "connection whose MTA was silent for %ld s (%s) gave its "
		    "place to a new one; its mail is handled as a fault "
		    "(OnError) until it has one again", limit, loss.waited,
		    loss.in_message ? "in a message" : "between messages");
	else if (got == PLACE_NONE && said(&limit_logged))
		mlog(LOG_LEVEL_WARNING, "MaximumConnections (%ld) reached: "
		    "more connections are handled as faults (OnError) until "
		    "some end, or wait for their MTA for IdleConnectionGrace "
		    "(%ld s)", limit, grace);
	return got != PLACE_NONE;
}

/* conn_new - the connection's private data, attached to ctx; NULL */
static struct conn *
conn_new(SMFICTX *ctx)
{
	struct conn *c;

	if ((c = calloc(1, sizeof(*c))) == NULL)
		return NULL;
	hdrstrip_init(&c->strip);
	smfi_setpriv(ctx, c);
	return c;
}

static sfsistat
cb_negotiate(SMFICTX *ctx, unsigned long actions, unsigned long steps,
    unsigned long unused2, unsigned long unused3, unsigned long *our_actions,
    unsigned long *our_steps, unsigned long *our2, unsigned long *our3)
{
	struct conn *c;

	(void)unused2;
	(void)unused3;
	if ((actions & ACTIONS) != ACTIONS) {
		mlog(LOG_LEVEL_ERROR, "the MTA does not let a milter add and "
		    "change header fields: its mail is not checked");
		return SMFIS_REJECT;
	}
	*our_actions = ACTIONS;
	*our2 = *our3 = 0;
	/* Without memory for the connection, nothing is asked of the MTA
	   (cb_connect says the rest). */
	c = conn_new(ctx);
	*our_steps = c != NULL && local_socket ? steps & (STEPS_SKIPPED |
	    STEPS_UNANSWERED) : 0;
	if (c != NULL)
		c->unanswered = *our_steps & STEPS_UNANSWERED;
	return SMFIS_CONTINUE;
}

/*
 * client - the connecting client as the MTA names it, "name [address]",
 * for the arrival records (a name the MTA could not find is its address
 * in brackets already)
 */
static void
client(char *out, size_t size, const char *host, const _SOCK_ADDR *addr)
{
	char ip[INET6_ADDRSTRLEN];
	const void *a = NULL;

	if (addr != NULL && addr->sa_family == AF_INET)
		a = &((const struct sockaddr_in *)(const void *)addr)->sin_addr;
	else if (addr != NULL && addr->sa_family == AF_INET6)
		a = &((const struct sockaddr_in6 *)(const void *)addr)->
		    sin6_addr;
	if (host == NULL)
		host = "";
	if (a != NULL && inet_ntop(addr->sa_family, a, ip, sizeof(ip)) !=
	    NULL && host[0] != '[')
		snprintf(out, size, "%s [%s]", host, ip);
	else
		snprintf(out, size, "%s", host);
}

static sfsistat
cb_connect(SMFICTX *ctx, char *host, _SOCK_ADDR *addr)
{
	struct conn *c;
	sfsistat rc;

	if ((c = conn_of(ctx)) == NULL && (c = conn_new(ctx)) == NULL) {
		/* Nothing of this connection can be judged: OnError says. */
		rc = unjudged("out of memory");
		mlog(LOG_LEVEL_ERROR, "out of memory: a connection is not "
		    "checked (%s)", rc == SMFIS_TEMPFAIL ? "tempfail" :
		    "accept");
		return rc == SMFIS_TEMPFAIL ? rc : SMFIS_ACCEPT;
	}
	client(c->host, sizeof(c->host), host, addr);
	places_enter(&c->place);
	return asleep(c, take_place(c) ? SMFIS_CONTINUE :
	    unjudged("over MaximumConnections"));
}

static sfsistat
cb_envfrom(SMFICTX *ctx, char **argv)
{
	struct conn *c = awake(ctx);

	if (c == NULL)
		return SMFIS_ACCEPT;
	message_end(c);
	snprintf(c->envfrom, sizeof(c->envfrom), "%s", argv[0] != NULL ?
	    argv[0] : "");
	c->gen = state_hold();
	c->in_message = 1;
	atomic_fetch_add(&state_in_flight, 1);
	if (!take_place(c)) {
		/* read no mail: its forged fields are still removed */
		faulted(c, "over MaximumConnections", 0);
		return asleep(c, SMFIS_CONTINUE);
	}
	if (c->msg_cap != (size_t)c->gen->cf.max_body + HEADER_ROOM) {
		mailmsg_free(c->msg);
		c->msg_cap = (size_t)c->gen->cf.max_body + HEADER_ROOM;
		if (mailmsg_new(&c->msg, c->msg_cap) != 0)
			c->msg = NULL;
	}
	if (c->msg == NULL) {
		c->msg_cap = 0;
		faulted(c, "out of memory", 0);
	}
	return asleep(c, SMFIS_CONTINUE);
}

/* collecting - whether the message is still being read for a verdict */
static int
collecting(const struct conn *c)
{
	return !c->oversize && c->fault == NULL;
}

/* read_result - what a library call said about the message being read */
static void
read_result(struct conn *c, int rc)
{
	if (rc == PA_ETOOBIG)
		c->oversize = 1;
	else if (rc != 0)
		faulted(c, "out of memory", 0);
}

static sfsistat
cb_header(SMFICTX *ctx, char *name, char *value)
{
	struct conn *c = awake(ctx);
	int rc;

	if (c == NULL || c->gen == NULL)
		return asleep(c, collected(c, SMFIP_NR_HDR));
	rc = hdrstrip_field(&c->strip, name, value, c->gen->cf.authserv_id);
	if (rc < 0)
		c->unsafe = 1;
	if (rc == PA_ETOOBIG)
		faulted(c, "too many X-Patch-Attested and "
		    "Authentication-Results fields to remove", 1);
	else if (rc < 0)
		faulted(c, "out of memory", 0);
	/* Judged as delivered: without the fields that are to go. */
	if (rc == 0 && collecting(c))
		read_result(c, mailmsg_header(c->msg, name, value));
	return asleep(c, collected(c, SMFIP_NR_HDR));
}

static sfsistat
cb_eoh(SMFICTX *ctx)
{
	struct conn *c = awake(ctx);

	if (c != NULL && c->gen != NULL && collecting(c))
		read_result(c, mailmsg_eoh(c->msg));
	return asleep(c, collected(c, SMFIP_NR_EOH));
}

static sfsistat
cb_body(SMFICTX *ctx, unsigned char *chunk, size_t len)
{
	struct conn *c = awake(ctx);

	if (c == NULL || c->gen == NULL || !collecting(c))
		return asleep(c, collected(c, SMFIP_NR_BODY));
	c->body_bytes += len;
	if (c->body_bytes > (size_t)c->gen->cf.max_body)
		c->oversize = 1;
	else
		read_result(c, mailmsg_body(c->msg, chunk, len));
	return asleep(c, collected(c, SMFIP_NR_BODY));
}

/* delete - one field only we may write, for hdrstrip_each() */
static int
delete(void *ctx, const char *name, int idx)
{
	return smfi_chgheader(ctx, (char *)name, idx, NULL) == MI_SUCCESS ?
	    0 : -1;
}

static sfsistat
cb_eom(SMFICTX *ctx)
{
	struct conn *c = awake(ctx);
	char why[128];
	struct decision d;
	struct pa_err unrecorded;
	struct arrival_origin from;
	sfsistat rc;

	if (c == NULL || c->gen == NULL)
		return asleep(c, SMFIS_CONTINUE);
	if (c->strip.ndoomed > 0) {
		metrics_forged(c->strip.ndoomed);
		mlog(LOG_LEVEL_INFO, "%s: %zu header field(s) only we may "
		    "write removed", conclude_queue_id(ctx), c->strip.ndoomed);
		if (hdrstrip_each(&c->strip, delete, ctx) != 0)
			faulted(c, "the MTA refused to delete a header", 0);
	}
	if (collecting(c))
		read_result(c, mailmsg_eom(c->msg));
	/* Replaced or cut short by something else: a new handle first. */
	if (state_index_stale())
		worker_reopen_index();
	clock_gettime(CLOCK_MONOTONIC, &c->decide_start);
	if (c->fault != NULL) {
		decision_fault(&d, c->lasting, c->fault);
		d.unsafe = c->unsafe;
	} else if (c->oversize) {
		snprintf(why, sizeof(why), "over MaximumBodySize (%ld "
		    "bytes): not checked", c->gen->cf.max_body);
		decision_fault(&d, 1, why);
	} else {
		from.envelope_from = c->envfrom;
		from.host = c->host;
		from.queue_id = smfi_getsymval(ctx, "i");
		if (state_decide(c->msg, time(NULL), &from, &d,
		    &unrecorded) == PA_ENOPATCH) {
			conclude_unrecorded(ctx, &unrecorded, 0);
			rc = conclude_not_a_patch(ctx, &c->gen->cf, c->msg);
			message_end(c);
			return asleep(c, rc);
		}
		conclude_unrecorded(ctx, &unrecorded, 1);
	}
	rc = conclude(ctx, &c->gen->cf, c->msg, &c->decide_start, &d);
	message_end(c);
	return asleep(c, rc);
}

static sfsistat
cb_abort(SMFICTX *ctx)
{
	struct conn *c = awake(ctx);

	if (c != NULL)
		message_end(c);
	return asleep(c, SMFIS_CONTINUE);
}

static sfsistat
cb_close(SMFICTX *ctx)
{
	struct conn *c = conn_of(ctx);

	if (c == NULL)
		return SMFIS_CONTINUE;
	/* first: then no other connection can take its place and memory */
	places_release(&c->place);
	message_end(c);
	mailmsg_free(c->msg);
	hdrstrip_release(&c->strip);
	free(c);
	smfi_setpriv(ctx, NULL);
	return SMFIS_CONTINUE;
}

void
callbacks_local_socket(int local)
{
	local_socket = local;
}

struct smfiDesc milter_desc = {
	.xxfi_name = "patchattest",
	.xxfi_version = SMFI_VERSION,
	.xxfi_flags = ACTIONS,
	.xxfi_connect = cb_connect,
	.xxfi_envfrom = cb_envfrom,
	.xxfi_header = cb_header,
	.xxfi_eoh = cb_eoh,
	.xxfi_body = cb_body,
	.xxfi_eom = cb_eom,
	.xxfi_abort = cb_abort,
	.xxfi_close = cb_close,
	.xxfi_negotiate = cb_negotiate,
};
