/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * mtaconn - a milter spoken to as Postfix speaks to it: see mtaconn.h.
 * The conversation: which steps, with which macros, and what the replies
 * may be; mtawire.c carries its bytes.
 */
#include "config.h"

#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <libmilter/mfdef.h>

#include "base.h"
#include "benchutil.h"
#include "mtaconn.h"
#include "mtawire.h"

#define MAX_OUT		((size_t)96 << 20)	/* packets not yet written */
#define MAX_FIELD	((size_t)32 << 20)	/* one header field */
#define MAX_REPLIES	10000	/* replies to one step before its last */
#define CLIENT_NAME	"client.example.net"
#define CLIENT_ADDR	"192.0.2.10"

/* macro stages, numbered as SMFIR_SETSYMLIST numbers them */
enum stage { ST_CONNECT, ST_HELO, ST_MAIL, ST_RCPT, ST_DATA, ST_EOM,
	ST_EOH };

/* Postfix 3's default macro lists, and the values it would give them */
static const char *const defaults[MTA_STAGES] = {
	"j {daemon_name} {daemon_addr} v _ {client_addr} {client_name}",
	"{tls_version} {cipher} {cipher_bits} {cert_subject} {cert_issuer}",
	"i {auth_type} {auth_authen} {auth_author} {mail_addr} {mail_host} "
	    "{mail_mailer}",
	"i {rcpt_addr} {rcpt_host} {rcpt_mailer}",
	"i", "i", "i"
};
static const struct {
	const char	*name, *value;
} values[] = {
	{ "j", "mx.test.example" }, { "{daemon_name}", "mx.test.example" },
	{ "{daemon_addr}", "192.0.2.25" }, { "v", "Postfix 3.7.11" },
	{ "_", CLIENT_NAME " [" CLIENT_ADDR "]" },
	{ "{client_addr}", CLIENT_ADDR }, { "{client_name}", CLIENT_NAME },
	{ "{mail_addr}", "dev@example.org" }, { "{mail_host}", "example.org" },
	{ "{mail_mailer}", "smtp" }, { "{rcpt_addr}", "maint@test.example" },
	{ "{rcpt_host}", "test.example" }, { "{rcpt_mailer}", "virtual" }
};

/* what a reply carries */
enum shape { NOTHING, CODE, ONE, TWO, INDEX_TWO, ONE_OR_TWO, BYTES };

/*
 * The replies the milter may send: what each carries, whether only to the
 * end of the message, what it decides (MTA_N: nothing, another follows).
 */
static const struct {
	int		 cmd;
	enum shape	 shape;
	int		 eom_only;
	enum mta_outcome decides;
} replies[] = {
	{ SMFIR_CONTINUE, NOTHING, 0, MTA_CONTINUE },
	{ SMFIR_ACCEPT, NOTHING, 0, MTA_ACCEPT },
	{ SMFIR_REJECT, NOTHING, 0, MTA_REJECT },
	{ SMFIR_TEMPFAIL, NOTHING, 0, MTA_TEMPFAIL },
	{ SMFIR_DISCARD, NOTHING, 0, MTA_DISCARD },
	{ SMFIR_SKIP, NOTHING, 0, MTA_SKIP },
	{ SMFIR_SHUTDOWN, NOTHING, 0, MTA_TEMPFAIL },
	{ SMFIR_CONN_FAIL, NOTHING, 0, MTA_TEMPFAIL },
	{ SMFIR_REPLYCODE, CODE, 0, MTA_REJECT },
	{ SMFIR_PROGRESS, NOTHING, 0, MTA_N },
	{ SMFIR_QUARANTINE, ONE, 0, MTA_N },
	{ SMFIR_ADDHEADER, TWO, 1, MTA_N },
	{ SMFIR_INSHEADER, INDEX_TWO, 1, MTA_N },
	{ SMFIR_CHGHEADER, INDEX_TWO, 1, MTA_N },
	{ SMFIR_ADDRCPT, ONE, 1, MTA_N },
	{ SMFIR_DELRCPT, ONE, 1, MTA_N },
	{ SMFIR_CHGFROM, ONE_OR_TWO, 1, MTA_N },
	{ SMFIR_ADDRCPT_PAR, ONE_OR_TWO, 1, MTA_N },
	{ SMFIR_REPLBODY, BYTES, 1, MTA_N }
};

/* the steps, named in messages */
static const struct {
	int		 cmd;
	const char	*name;
} step_names[] = {
	{ SMFIC_CONNECT, "SMFIC_CONNECT" }, { SMFIC_HELO, "SMFIC_HELO" },
	{ SMFIC_MAIL, "SMFIC_MAIL" }, { SMFIC_RCPT, "SMFIC_RCPT" },
	{ SMFIC_DATA, "SMFIC_DATA" }, { SMFIC_HEADER, "SMFIC_HEADER" },
	{ SMFIC_EOH, "SMFIC_EOH" }, { SMFIC_BODY, "SMFIC_BODY" },
	{ SMFIC_BODYEOB, "SMFIC_BODYEOB" }
};

static void		 macros(struct mtaconn *, enum stage, int,
			    const char *);
static int		 strings(const struct sbuf *, size_t, int, int);
static int		 shape_ok(const struct sbuf *, enum shape);
static void		 note_field(struct mtaconn *, const struct sbuf *,
			    size_t);
static enum mta_outcome	 answer(struct mtaconn *, int);
static enum mta_outcome	 step(struct mtaconn *, int, enum stage,
			    unsigned long, unsigned long, const char *,
			    const void *, size_t);
static enum mta_outcome	 headers(struct mtaconn *, const struct mtamail *,
			    size_t, const char *);
static int		 negotiate(struct mtaconn *);

void
mtaconn_init(struct mtaconn *c)
{
	memset(c, 0, sizeof(*c));
	c->fd = -1;
	c->timeout_s = 30;
	c->idfield = "";
	sbuf_init(&c->out, MAX_OUT);
	sbuf_init(&c->in, MTAWIRE_MAX_REPLY);
	sbuf_init(&c->hdr, MAX_FIELD);
}

void
mtaconn_release(struct mtaconn *c)
{
	size_t i;

	mtaconn_close(c, MTA_ERROR);
	for (i = 0; i < MTA_STAGES; i++) {
		free(c->symlist[i]);
		c->symlist[i] = NULL;
	}
	sbuf_release(&c->out);
	sbuf_release(&c->in);
	sbuf_release(&c->hdr);
}

/*
 * macros - SMFIC_MACRO for event: the names of stage's list (the
 * milter's own, or Postfix's) that have a value, with it
 */
static void
macros(struct mtaconn *c, enum stage st, int event, const char *qid)
{
	char data[1024];
	const char *p, *value;
	size_t n, len = 1, i, k;

	data[0] = (char)event;
	p = c->symlist[st] != NULL ? c->symlist[st] : defaults[st];
	for (; *p != '\0'; p += n) {
		p += strspn(p, " ,");
		n = strcspn(p, " ,");
		value = n == 1 && p[0] == 'i' ? qid : NULL;
		for (i = 0; value == NULL && i < sizeof(values) /
		    sizeof(values[0]); i++)
			if (strlen(values[i].name) == n &&
			    strncmp(values[i].name, p, n) == 0)
				value = values[i].value;
		if (n == 0 || value == NULL)
			continue;
		k = strlen(value);
		if (len + n + k + 2 > sizeof(data))
			break;
		memcpy(data + len, p, n);
		data[len + n] = '\0';
		memcpy(data + len + n + 1, value, k + 1);
		len += n + k + 2;
	}
	mtawire_packet(c, SMFIC_MACRO, data, len);
}

/*
 * strings - 0 when the reply data after skip bytes is from min to max
 * NUL-terminated strings and nothing else
 */
static int
strings(const struct sbuf *in, size_t skip, int min, int max)
{
	const char *p, *end = in->buf + in->len;
	int n = 0;

	if (skip > in->len)
		return -1;
	for (p = in->buf + skip; p < end; p++)
		if (*p == '\0')
			n++;
	return n >= min && n <= max && (in->len == skip || end[-1] == '\0') ?
	    0 : -1;
}

/* shape_ok - 0 when the reply data in is what a reply of shape carries */
static int
shape_ok(const struct sbuf *in, enum shape shape)
{
	const char *b = in->buf;

	switch (shape) {
	case NOTHING:
		return in->len == 0 ? 0 : -1;
	case CODE:		/* "4xx text" or "5xx text", multi-line too */
		return strings(in, 0, 1, 1) == 0 && in->len > 4 &&
		    (b[0] == '4' || b[0] == '5') && b[1] >= '0' &&
		    b[1] <= '9' && b[2] >= '0' && b[2] <= '9' &&
		    (b[3] == ' ' || b[3] == '-') ? 0 : -1;
	case ONE:
		return strings(in, 0, 1, 1);
	case TWO:
		return strings(in, 0, 2, 2);
	case INDEX_TWO:
		return strings(in, 4, 2, 2);
	case ONE_OR_TWO:
		return strings(in, 0, 1, 2);
	case BYTES:
		return 0;
	}
	return -1;
}

/*
 * note_field - a field the milter adds or changes ("name NUL value NUL"
 * after skip bytes): when it is c->field, the first word of its value
 * kept, or with c->key the word after "KEY=" in it
 */
static void
note_field(struct mtaconn *c, const struct sbuf *in, size_t skip)
{
	const char *name = in->buf + skip, *value, *p;
	size_t n, k;

	if (c->field == NULL || strcasecmp(name, c->field) != 0)
		return;
	value = name + strlen(name) + 1;
	for (p = value; c->key != NULL && *p != '\0'; p++) {
		k = strlen(c->key);
		if ((p == value || strchr(" \t\n;", p[-1]) != NULL) &&
		    strncasecmp(p, c->key, k) == 0 && p[k] == '=') {
			value = p + k + 1;
			break;
		}
	}
	if (c->key != NULL && *p == '\0') {
		snprintf(c->value, sizeof(c->value), "(no %s=)", c->key);
		return;
	}
	value += strspn(value, " \t\r\n");
	n = strcspn(value, "; \t\r\n(");
	if (n >= sizeof(c->value))
		n = sizeof(c->value) - 1;
	memcpy(c->value, value, n);
	c->value[n] = '\0';
	if (n == 0)
		snprintf(c->value, sizeof(c->value), "(empty)");
}

/*
 * answer - the milter's replies to the step awaited, up to the one that
 * ends it: what it decided, or MTA_ERROR with c->err
 */
static enum mta_outcome
answer(struct mtaconn *c, int event)
{
	const struct sbuf *in = &c->in;
	size_t i, n;
	int cmd;

	for (n = 0; n < MAX_REPLIES; n++) {
		if (mtawire_reply(c, &cmd) != 0)
			return MTA_ERROR;
		for (i = 0; i < sizeof(replies) / sizeof(replies[0]) &&
		    replies[i].cmd != cmd; i++)
			;
		if (i == sizeof(replies) / sizeof(replies[0]) ||
		    (replies[i].eom_only && event != SMFIC_BODYEOB) ||
		    shape_ok(in, replies[i].shape) != 0) {
			mtawire_fail(c, "the reply '%c' (%#x) with %zu bytes "
			    "of data to %s: not one the protocol allows there",
			    cmd > ' ' && cmd < 127 ? cmd : '?', cmd, in->len,
			    c->awaited);
			return MTA_ERROR;
		}
		if (cmd == SMFIR_ADDHEADER)
			note_field(c, in, 0);
		else if (cmd == SMFIR_INSHEADER || cmd == SMFIR_CHGHEADER)
			note_field(c, in, 4);
		else if (cmd == SMFIR_SHUTDOWN || cmd == SMFIR_CONN_FAIL)
			c->closing = 1;
		else if (cmd == SMFIR_REPLYCODE && in->buf[0] == '4')
			return MTA_TEMPFAIL;
		if (replies[i].decides != MTA_N)
			return replies[i].decides;
	}
	mtawire_fail(c, "over %d replies to %s", MAX_REPLIES, c->awaited);
	return MTA_ERROR;
}

/*
 * step - the macros of stage st, then event with its data unless the
 * milter does not want it (no), and its reply unless it gives none (nr);
 * events of the kind it said to skip are not sent, nor their macros
 */
static enum mta_outcome
step(struct mtaconn *c, int event, enum stage st, unsigned long no,
    unsigned long nr, const char *qid, const void *data, size_t len)
{
	enum mta_outcome o;
	size_t i;

	if (c->skip == event)
		return MTA_CONTINUE;
	c->skip = 0;
	for (i = 0; step_names[i].cmd != event; i++)
		;
	c->awaited = step_names[i].name;
	macros(c, st, event, qid);
	if (c->steps & no)
		return MTA_CONTINUE;
	mtawire_packet(c, event, data, len);
	if (c->steps & nr)
		return MTA_CONTINUE;
	if ((o = answer(c, event)) == MTA_SKIP) {
		c->skip = event;
		o = MTA_CONTINUE;
	}
	return o;
}

/*
 * headers - the field idfield numbered seq, then those of m, an
 * SMFIC_HEADER each: "name NUL value NUL", the value without its leading
 * space unless the milter asked for it
 */
static enum mta_outcome
headers(struct mtaconn *c, const struct mtamail *m, size_t seq,
    const char *qid)
{
	const char *p = m->fields.buf, *end = p + m->fields.len, *value;
	enum mta_outcome o = MTA_CONTINUE;
	size_t n;

	sbuf_reset(&c->hdr);
	if (c->idfield[0] != '\0') {
		sbuf_addf(&c->hdr, "%s%c%s<%zu.%ld@milter-drive.invalid>",
		    c->idfield, 0, c->steps & SMFIP_HDR_LEADSPC ? " " : "", seq,
		    (long)getpid());
		o = step(c, SMFIC_HEADER, ST_EOH, 0, SMFIP_NR_HDR, qid,
		    c->hdr.buf, c->hdr.len + 1);
	}
	for (; o == MTA_CONTINUE && p < end; p = value + strlen(value) + 1) {
		n = strlen(p);
		value = p + n + 1;
		sbuf_reset(&c->hdr);
		sbuf_add(&c->hdr, p, n + 1);
		sbuf_addstr(&c->hdr, value + (!(c->steps &
		    SMFIP_HDR_LEADSPC) && value[0] == ' '));
		if (sbuf_failed(&c->hdr)) {
			mtawire_fail(c, "out of memory");
			return MTA_ERROR;
		}
		o = step(c, SMFIC_HEADER, ST_EOH, 0, SMFIP_NR_HDR, qid,
		    c->hdr.buf, c->hdr.len + 1);
	}
	return o;
}

enum mta_outcome
mtaconn_message(struct mtaconn *c, const struct mtamail *m, size_t seq,
    double *lat)
{
	static const char from[] = "<dev@example.org>";
	static const char rcpt[] = "<maint@test.example>";
	double start = bench_now();
	char qid[16];
	size_t off, n;
	enum mta_outcome o;

	c->value[0] = '\0';
	snprintf(qid, sizeof(qid), "%05lX%06lX",
	    (unsigned long)getpid() & 0xFFFFF, (unsigned long)seq & 0xFFFFFF);
	o = step(c, SMFIC_MAIL, ST_MAIL, SMFIP_NOMAIL, SMFIP_NR_MAIL, qid,
	    from, sizeof(from));
	if (o == MTA_CONTINUE)
		o = step(c, SMFIC_RCPT, ST_RCPT, SMFIP_NORCPT, SMFIP_NR_RCPT,
		    qid, rcpt, sizeof(rcpt));
	if (o == MTA_CONTINUE)
		o = step(c, SMFIC_DATA, ST_DATA, SMFIP_NODATA, SMFIP_NR_DATA,
		    qid, NULL, 0);
	if (o == MTA_CONTINUE && !(c->steps & SMFIP_NOHDRS))
		o = headers(c, m, seq, qid);
	if (o == MTA_CONTINUE && !(c->steps & SMFIP_NOEOH))
		o = step(c, SMFIC_EOH, ST_EOH, 0, SMFIP_NR_EOH, qid, NULL, 0);
	for (off = 0; o == MTA_CONTINUE && !(c->steps & SMFIP_NOBODY) &&
	    off < m->body.len; off += n) {
		n = m->body.len - off;
		n = n < MILTER_CHUNK_SIZE ? n : MILTER_CHUNK_SIZE;
		o = step(c, SMFIC_BODY, ST_EOM, 0, SMFIP_NR_BODY, qid,
		    m->body.buf + off, n);
	}
	if (o == MTA_CONTINUE)
		o = step(c, SMFIC_BODYEOB, ST_EOM, 0, 0, qid, NULL, 0);
	*lat = bench_now() - start;
	if (o != MTA_ERROR)
		mtawire_packet(c, SMFIC_ABORT, NULL, 0);
	return o == MTA_CONTINUE ? MTA_ACCEPT : o;
}

/*
 * negotiate - SMFIC_OPTNEG: what the milter wants of what is offered,
 * and its own macro lists
 */
static int
negotiate(struct mtaconn *c)
{
	uint32_t v[3] = { htonl(SMFI_PROT_VERSION), htonl(SMFI_CURR_ACTS),
	    htonl(SMFI_CURR_PROT) };
	const char *p, *end, *nul;
	size_t i;
	int cmd;

	for (i = 0; i < MTA_STAGES; i++) {
		free(c->symlist[i]);
		c->symlist[i] = NULL;
	}
	c->awaited = "SMFIC_OPTNEG";
	mtawire_packet(c, SMFIC_OPTNEG, v, sizeof(v));
	if (mtawire_reply(c, &cmd) != 0)
		return -1;
	if (cmd != SMFIC_OPTNEG || c->in.len < sizeof(v))
		return mtawire_fail(c, "the reply '%c' (%#x) with %zu bytes "
		    "of data to SMFIC_OPTNEG: not an SMFIC_OPTNEG",
		    cmd > ' ' && cmd < 127 ? cmd : '?', cmd, c->in.len);
	memcpy(v, c->in.buf, sizeof(v));
	if (ntohl(v[0]) < 2 || ntohl(v[0]) > SMFI_PROT_VERSION)
		return mtawire_fail(c, "the milter speaks protocol version "
		    "%lu, not 2 to %d", (unsigned long)ntohl(v[0]),
		    SMFI_PROT_VERSION);
	if (ntohl(v[1]) & ~(unsigned long)SMFI_CURR_ACTS)
		return mtawire_fail(c, "the milter wants actions %#lx, beyond "
		    "those offered", (unsigned long)ntohl(v[1]));
	c->steps = ntohl(v[2]);
	end = c->in.buf + c->in.len;
	for (p = c->in.buf + sizeof(v); p < end; p = nul + 1) {
		if (end - p < 5 || (nul = memchr(p + 4, '\0',
		    (size_t)(end - p - 4))) == NULL)
			return mtawire_fail(c, "SMFIC_OPTNEG's macro lists "
			    "cut short");
		memcpy(v, p, 4);
		if (ntohl(v[0]) < MTA_STAGES) {
			free(c->symlist[ntohl(v[0])]);
			if ((c->symlist[ntohl(v[0])] = strdup(p + 4)) == NULL)
				return mtawire_fail(c, "out of memory");
		}
	}
	return 0;
}

enum mta_outcome
mtaconn_open(struct mtaconn *c, unsigned port)
{
	static const char helo[] = CLIENT_NAME;
	char client[64];
	uint16_t nport = htons((uint16_t)port);
	size_t len = sizeof(CLIENT_NAME);
	enum mta_outcome o;

	c->skip = c->closing = 0;
	if (mtawire_open(c) != 0 || negotiate(c) != 0)
		return MTA_ERROR;
	memcpy(client, CLIENT_NAME, len);
	client[len++] = SMFIA_INET;
	memcpy(client + len, &nport, 2);
	memcpy(client + len + 2, CLIENT_ADDR, sizeof(CLIENT_ADDR));
	len += 2 + sizeof(CLIENT_ADDR);
	o = step(c, SMFIC_CONNECT, ST_CONNECT, SMFIP_NOCONNECT, SMFIP_NR_CONN,
	    NULL, client, len);
	/* Postfix ignores a DISCARD there, and stops at any other decision. */
	if (o == MTA_DISCARD)
		o = MTA_CONTINUE;
	if (o == MTA_CONTINUE)
		o = step(c, SMFIC_HELO, ST_HELO, SMFIP_NOHELO, SMFIP_NR_HELO,
		    NULL, helo, sizeof(helo));
	return o == MTA_DISCARD ? MTA_CONTINUE : o;
}

void
mtaconn_close(struct mtaconn *c, enum mta_outcome opened)
{
	if (c->fd >= 0 && opened == MTA_CONTINUE && !c->closing) {
		mtawire_packet(c, SMFIC_QUIT, NULL, 0);
		c->awaited = "SMFIC_QUIT";
		(void)mtawire_flush(c);	/* the milter may be gone: no matter */
	}
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	sbuf_reset(&c->out);
}
