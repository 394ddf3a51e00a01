/* SPDX-License-Identifier: BSD-2-Clause */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base.h"
#include "patchattest.h"
#include "mailmsg.h"

enum mailmsg_state {
	MAILMSG_HEADERS,
	MAILMSG_BODY,
	MAILMSG_DONE
};

struct mailmsg {
	struct sbuf		 text;
	size_t			 body_off;	/* 0 until the end of headers */
	struct mailmsg_field	*field;
	size_t			 nfield;
	size_t			 afield;
	int			 cr_pending;	/* body chunk ended in CR */
	enum mailmsg_state	 state;
};

static int	add_crlf_as_lf(struct mailmsg *, const char *, size_t);
static int	cr_flush(struct mailmsg *);
static int	index_headers(struct mailmsg *, size_t *);
static int	push_field(struct mailmsg *, size_t off, size_t len);

int
mailmsg_new(struct mailmsg **out, size_t max_bytes)
{
	struct mailmsg *m;

	if ((*out = m = calloc(1, sizeof(*m))) == NULL)
		return PA_ENOMEM;
	sbuf_init(&m->text, max_bytes);
	return 0;
}

void
mailmsg_free(struct mailmsg *m)
{
	if (m == NULL)
		return;
	sbuf_release(&m->text);
	free(m->field);
	free(m);
}

void
mailmsg_reset(struct mailmsg *m)
{
	sbuf_reset(&m->text);
	m->body_off = 0;
	m->nfield = 0;
	m->cr_pending = 0;
	m->state = MAILMSG_HEADERS;
}

/*
 * add_crlf_as_lf - append, turning CRLF into LF.  A lone CR stays: git
 * mailinfo keeps it, and the 2020 tools' hashes differ by what they did
 * with it (msghash.c).
 */
static int
add_crlf_as_lf(struct mailmsg *m, const char *p, size_t len)
{
	const char *end = p + len, *cr;

	if (m->cr_pending && len) {
		m->cr_pending = 0;
		if (*p != '\n')
			sbuf_addch(&m->text, '\r');
	}
	while (p < end && (cr = memchr(p, '\r', (size_t)(end - p))) != NULL) {
		sbuf_add(&m->text, p, (size_t)(cr - p));
		if (cr + 1 == end) {
			/* The LF may come with the next chunk. */
			m->cr_pending = 1;
			return sbuf_failed(&m->text);
		}
		if (cr[1] != '\n')
			sbuf_addch(&m->text, '\r');
		p = cr + 1;
	}
	sbuf_add(&m->text, p, (size_t)(end - p));
	return sbuf_failed(&m->text);
}

/* cr_flush - a CR that ended the last chunk, with nothing after it */
static int
cr_flush(struct mailmsg *m)
{
	if (!m->cr_pending)
		return 0;
	m->cr_pending = 0;
	return sbuf_addch(&m->text, '\r');
}

static int
push_field(struct mailmsg *m, size_t off, size_t len)
{
	struct mailmsg_field *f;
	const char *p = m->text.buf + off;
	size_t n;
	int rc;

	if ((rc = GROW(m->field, m->nfield, m->afield, 32, SIZE_MAX)) != 0)
		return rc;
	f = &m->field[m->nfield++];
	f->off = off;
	f->len = len;
	/* A name is printable ASCII other than ':' up to the colon. */
	for (n = 0; n < len && p[n] > ' ' && p[n] < 0x7f && p[n] != ':'; n++)
		;
	f->namelen = n > 0 && n < len && p[n] == ':' ? n : 0;
	return 0;
}

/*
 * index_headers - split the text into fields at unindented lines, up to
 * the first empty line or the end; returns where the header block ends.
 */
static int
index_headers(struct mailmsg *m, size_t *hend)
{
	const char *t = m->text.buf, *p;
	size_t end = m->text.len, pos = 0, start = 0, nl;
	int rc;

	m->nfield = 0;
	while (pos < end && t[pos] != '\n') {
		p = memchr(t + pos, '\n', end - pos);
		nl = p ? (size_t)(p - t) : end;
		if (pos > start && t[pos] != ' ' && t[pos] != '\t') {
			if ((rc = push_field(m, start, pos - 1 - start)) != 0)
				return rc;
			start = pos;
		}
		pos = nl < end ? nl + 1 : end;
	}
	*hend = pos;
	if (pos > start)
		return push_field(m, start, pos - start - (t[pos - 1] == '\n'));
	return 0;
}

int
mailmsg_header(struct mailmsg *m, const char *name, const char *value)
{
	if (m->state != MAILMSG_HEADERS)
		return PA_ERROR;
	sbuf_addstr(&m->text, name);
	sbuf_addch(&m->text, ':');
	/* The MTA hands us the value without the blank after the colon. */
	if (*value != ' ' && *value != '\t')
		sbuf_addch(&m->text, ' ');
	add_crlf_as_lf(m, value, strlen(value));
	cr_flush(m);
	return sbuf_addch(&m->text, '\n');
}

int
mailmsg_eoh(struct mailmsg *m)
{
	size_t hend;
	int rc;

	if (m->state != MAILMSG_HEADERS)
		return PA_ERROR;
	if ((rc = index_headers(m, &hend)) != 0)
		return rc;
	if ((rc = sbuf_addch(&m->text, '\n')) != 0)
		return rc;
	m->body_off = m->text.len;
	m->state = MAILMSG_BODY;
	return 0;
}

int
mailmsg_body(struct mailmsg *m, const void *data, size_t len)
{
	if (m->state != MAILMSG_BODY)
		return PA_ERROR;
	return add_crlf_as_lf(m, data, len);
}

int
mailmsg_eom(struct mailmsg *m)
{
	if (m->state != MAILMSG_BODY)
		return PA_ERROR;
	cr_flush(m);
	m->state = MAILMSG_DONE;
	return sbuf_failed(&m->text);
}

int
mailmsg_parse(struct mailmsg *m, const void *data, size_t len)
{
	size_t hend;
	int rc;

	mailmsg_reset(m);
	if ((rc = add_crlf_as_lf(m, data, len)) != 0 ||
	    (rc = cr_flush(m)) != 0)
		return rc;
	if ((rc = index_headers(m, &hend)) != 0)
		return rc;
	m->body_off = hend < m->text.len ? hend + 1 : hend;
	m->state = MAILMSG_DONE;
	return 0;
}

const char *
mailmsg_text(const struct mailmsg *m, size_t *len)
{
	*len = m->text.len;
	return m->text.buf;
}

const char *
mailmsg_headers(const struct mailmsg *m, size_t *len)
{
	size_t n = m->body_off;

	/* Without the blank line that ends the block. */
	if (n > 0 && n <= m->text.len && m->text.buf[n - 1] == '\n' &&
	    (n == 1 || m->text.buf[n - 2] == '\n'))
		n--;
	*len = n;
	return m->text.buf;
}

const char *
mailmsg_body_text(const struct mailmsg *m, size_t *len)
{
	*len = m->text.len - m->body_off;
	return m->text.buf + m->body_off;
}

size_t
mailmsg_nfields(const struct mailmsg *m)
{
	return m->nfield;
}

const struct mailmsg_field *
mailmsg_field(const struct mailmsg *m, size_t i)
{
	return i < m->nfield ? &m->field[i] : NULL;
}

const char *
mailmsg_get(const struct mailmsg *m, const char *name, size_t *len)
{
	size_t i, n = strlen(name);
	const struct mailmsg_field *f;

	for (i = 0; i < m->nfield; i++) {
		f = &m->field[i];
		if (f->namelen == n &&
		    strncasecmp(m->text.buf + f->off, name, n) == 0) {
			*len = f->len - n - 1;
			return m->text.buf + f->off + n + 1;
		}
	}
	return NULL;
}
