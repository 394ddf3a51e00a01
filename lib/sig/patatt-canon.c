/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * patatt-canon.c - the bytes patatt signs: its reading of the message,
 * the tag list of X-Developer-Signature, relaxed header values, the
 * canonical body through git mailinfo, and the digest D (patatt.md 1.1,
 * 2 and 3.1).
 *
 * The message text is mailmsg's canonical one (every CRLF already LF), so
 * it is also what patatt (>= 0.6.0) gives git mailinfo.
 */
#include "config.h"

#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "patchattest.h"
#include "mail.h"
#include "patatt-int.h"

#define DEVSIG_LNAME	"x-developer-signature"

static const char *const tag_names[PATATT_NTAGS] = {
	[TAG_V] = "v", [TAG_A] = "a", [TAG_T] = "t", [TAG_L] = "l",
	[TAG_I] = "i", [TAG_S] = "s", [TAG_H] = "h", [TAG_BH] = "bh",
	[TAG_B] = "b", [TAG_PK] = "pk", [TAG_FPR] = "fpr",
};

static int	 py_space(int);
static int	 blank_line(const char *, size_t);
static void	 strip(const char **, size_t *);
static int	 add_field(struct patatt_msg *, size_t, size_t);
static int	 name_is(const char *, size_t, const char *);
static int	 canon_body(struct patatt_reading *, struct mailinfo *,
		    struct sbuf *);
static int	 info_value(struct sbuf *, const char *, const struct sbuf *,
		    const char *);
static int	 raw_name_is(const struct patatt_msg *, size_t, const char *);

/* py_space - bytes.strip() and re's \s on bytes: SP HT LF VT FF CR */
static int
py_space(int c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

static int
blank_line(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (!py_space((unsigned char)s[i]))
			return 0;
	return 1;
}

static void
strip(const char **s, size_t *len)
{
	while (*len > 0 && py_space((unsigned char)(*s)[0])) {
		(*s)++;
		(*len)--;
	}
	while (*len > 0 && py_space((unsigned char)(*s)[*len - 1]))
		(*len)--;
}

void
patatt_msg_init(struct patatt_msg *m)
{
	memset(m, 0, sizeof(*m));
}

void
patatt_msg_release(struct patatt_msg *m)
{
	free(m->f);
	patatt_msg_init(m);
}

static int
add_field(struct patatt_msg *m, size_t off, size_t len)
{
	struct patatt_field *f;
	const char *c;
	int rc;

	if ((rc = GROW(m->f, m->n, m->alloc, 64, SIZE_MAX)) != 0)
		return rc;
	f = &m->f[m->n++];
	f->off = off;
	f->len = len;
	c = memchr(m->text + off, ':', len);
	f->colon = c ? (size_t)(c - (m->text + off)) : len;
	return 0;
}

int
patatt_msg_split(struct patatt_msg *m, const char *text, size_t len)
{
	struct patatt_field *f;
	const char *nl, *c;
	size_t pos = 0, end;
	int rc;

	m->text = text;
	m->len = len;
	m->n = 0;
	m->nsig_over = 0;
	m->invalid = NULL;
	while (pos < len) {
		nl = memchr(text + pos, '\n', len - pos);
		end = nl ? (size_t)(nl - text) + 1 : len;
		if (blank_line(text + pos, end - pos)) {
			/* The separator; a body of nothing is refused. */
			if (end == len)
				break;
			if (m->n == 0)
				m->invalid = "Not a valid RFC2822 message "
				    "(no header)";
			return 0;
		}
		if (m->n == PATATT_FIELDS_MAX && (text[pos] == ' ' ||
		    text[pos] == '\t')) {
			pos = end;
			continue;
		}
		if (text[pos] == ' ' || text[pos] == '\t') {
			if (m->n == 0) {
				m->invalid = "Not a valid RFC2822 message "
				    "(a continuation line before any header)";
				return 0;
			}
			f = &m->f[m->n - 1];
			/* The first colon may come on a continuation line. */
			if (f->colon == f->len && (c = memchr(text + pos, ':',
			    end - pos)) != NULL)
				f->colon = (size_t)(c - (text + f->off));
			else if (f->colon == f->len)
				f->colon = end - f->off;
			f->len = end - f->off;
		} else {
			if (m->n == PATATT_FIELDS_MAX) {
				/* Not read; but signatures there are counted. */
				m->invalid = "too many header fields";
				if (name_is(text + pos, end - pos,
				    "x-developer-signature"))
					m->nsig_over++;
			} else if ((rc = add_field(m, pos, end - pos)) != 0)
				return rc;
		}
		pos = end;
	}
	if (m->invalid == NULL)
		m->invalid = "Not a valid RFC2822 message (no body)";
	return 0;
}

/* name_is - the name before the first colon, stripped, is lname */
static int
name_is(const char *s, size_t len, const char *lname)
{
	const char *c = memchr(s, ':', len);
	size_t n;

	if (c == NULL)
		return 0;
	n = (size_t)(c - s);
	strip(&s, &n);
	return ascii_is(s, n, lname);
}

int
patatt_field_is(const struct patatt_msg *m, size_t i, const char *lname)
{
	const struct patatt_field *f = &m->f[i];

	if (f->colon == f->len)
		return 0;
	return name_is(m->text + f->off, f->colon + 1, lname);
}

const char *
patatt_field_value(const struct patatt_msg *m, size_t i, size_t *len)
{
	const struct patatt_field *f = &m->f[i];

	if (f->colon == f->len) {
		*len = 0;
		return m->text + f->off + f->len;
	}
	*len = f->len - f->colon - 1;
	return m->text + f->off + f->colon + 1;
}

int
patatt_canon_value(struct sbuf *out, const char *v, size_t len)
{
	struct sbuf dec;
	size_t i, start, end;
	int rc, space = 0;

	sbuf_init(&dec, out->max);
	if (len >= 3 && memmem(v, len, "?q?", 3) != NULL) {
		if ((rc = pyheader_decode(&dec, v, len)) != 0) {
			sbuf_release(&dec);
			return rc;
		}
		v = dec.buf;
		len = dec.len;
	}
	/* CR and LF go; runs of whitespace become one space; strip. */
	for (start = 0; start < len && py_space((unsigned char)v[start]);
	    start++)
		;
	for (end = len; end > start && py_space((unsigned char)v[end - 1]);
	    end--)
		;
	for (i = start; i < end; i++) {
		if (v[i] == '\r' || v[i] == '\n')
			continue;
		if (py_space((unsigned char)v[i])) {
			space = 1;
			continue;
		}
		if (space)
			sbuf_addch(out, ' ');
		space = 0;
		sbuf_addch(out, v[i]);
	}
	sbuf_add(out, "\r\n", 2);
	sbuf_release(&dec);
	return sbuf_failed(out);
}

void
patatt_tags_init(struct patatt_tags *t)
{
	memset(t, 0, sizeof(*t));
	sbuf_init(&t->canon, PATATT_VALUE_MAX * 4);
	sbuf_init(&t->flat, PATATT_VALUE_MAX * 4);
}

void
patatt_tags_release(struct patatt_tags *t)
{
	sbuf_release(&t->canon);
	sbuf_release(&t->flat);
}

int
patatt_tags_parse(struct patatt_tags *t, const char *v, size_t len)
{
	const char *p, *end, *semi, *eq;
	size_t i, k;
	int rc;

	sbuf_reset(&t->canon);
	sbuf_reset(&t->flat);
	memset(t->v, 0, sizeof(t->v));
	memset(t->len, 0, sizeof(t->len));
	if (len > PATATT_VALUE_MAX)
		return PA_ETOOBIG;
	if ((rc = patatt_canon_value(&t->canon, v, len)) != 0)
		return rc;
	for (i = 0; i < t->canon.len; i++)
		if (!py_space((unsigned char)t->canon.buf[i]))
			sbuf_addch(&t->flat, t->canon.buf[i]);
	if ((rc = sbuf_failed(&t->flat)) != 0)
		return rc;
	/* "tag=value" pieces between ";"; the last of a tag counts */
	for (p = t->flat.buf, end = p + t->flat.len; p < end; p = semi + 1) {
		if ((semi = memchr(p, ';', (size_t)(end - p))) == NULL)
			semi = end;
		if ((eq = memchr(p, '=', (size_t)(semi - p))) == NULL)
			continue;
		for (k = 0; k < PATATT_NTAGS; k++)
			if ((size_t)(eq - p) == strlen(tag_names[k]) &&
			    memcmp(p, tag_names[k], (size_t)(eq - p)) == 0) {
				t->v[k] = eq + 1;
				t->len[k] = (size_t)(semi - eq - 1);
			}
	}
	return 0;
}

int
patatt_tag_is(const struct patatt_tags *t, enum patatt_tag k,
    const char *word)
{
	return t->v[k] && t->len[k] == strlen(word) &&
	    memcmp(t->v[k], word, t->len[k]) == 0;
}

void
patatt_reading_init(struct patatt_reading *r)
{
	memset(r, 0, sizeof(*r));
	sbuf_init(&r->from, 0);
	sbuf_init(&r->subject, 0);
}

void
patatt_reading_release(struct patatt_reading *r)
{
	sbuf_release(&r->from);
	sbuf_release(&r->subject);
	patatt_reading_init(r);
}

/*
 * canon_body - M + P with trailing CR and LF removed, each line's own
 * trailing CRs removed and CRLF appended ("simple"): its hash and length.
 */
static int
canon_body(struct patatt_reading *r, struct mailinfo *mi, struct sbuf *work)
{
	unsigned char h[DIGEST_LEN];
	struct digest d;
	const char *p, *end, *nl;
	size_t n;
	int rc;

	sbuf_reset(work);
	sbuf_add(work, mi->msg.buf, mi->msg.len);
	sbuf_add(work, mi->patch.buf, mi->patch.len);
	if ((rc = sbuf_failed(work)) != 0)
		return rc;
	while (work->len > 0 && (work->buf[work->len - 1] == '\n' ||
	    work->buf[work->len - 1] == '\r'))
		work->len--;
	r->body_len = 0;
	digest_init(&d);
	for (p = work->buf, end = p + work->len; ; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		for (n = (size_t)(nl - p); n > 0 && p[n - 1] == '\r'; n--)
			;
		digest_update(&d, p, n);
		digest_update(&d, "\r\n", 2);
		r->body_len += n + 2;
		if (nl == end)
			break;
	}
	rc = digest_final(&d, h);
	digest_release(&d);
	if (rc != 0)
		return rc;
	sbuf_reset(work);
	if ((rc = codec_b64_encode(work, h, DIGEST_LEN)) != 0)
		return rc;
	memcpy(r->bh, work->buf, work->len + 1);
	return 0;
}

/* info_value - pre, then mailinfo's value stripped as patatt strips it */
static int
info_value(struct sbuf *out, const char *pre, const struct sbuf *v,
    const char *post)
{
	const char *s = v->buf;
	size_t n = v->len;

	strip(&s, &n);
	sbuf_addstr(out, pre);
	sbuf_add(out, s, n);
	sbuf_addstr(out, post);
	return sbuf_failed(out);
}

int
patatt_read(struct patatt_reading *r, struct mailinfo *mi, struct sbuf *work,
    const char *text, size_t len, const struct mailinfo_opts *o)
{
	int rc;

	r->done = 1;
	r->rc = 0;
	r->why[0] = '\0';
	sbuf_reset(&r->from);
	sbuf_reset(&r->subject);
	r->from.max = r->subject.max = len * 4 + 64;
	work->max = len * 4 + 64;
	rc = mailinfo_run(mi, text, len, o);
	r->saw = mi->saw;
	if (rc == PA_ENOMEM)
		return rc;
	if (rc != 0) {
		r->rc = rc;
		snprintf(r->why, sizeof(r->why), "git mailinfo: %.140s",
		    rc == PA_EMAILINFO ? mi->error : pa_strerror(rc));
		return 0;
	}
	/* patatt reads the info lines and fails when there are none. */
	if (!mi->has_from && !mi->has_subject && !mi->has_date) {
		r->rc = PA_EMAILINFO;
		snprintf(r->why, sizeof(r->why), "git mailinfo found no From, "
		    "Subject or Date");
		return 0;
	}
	if (mi->has_from)
		rc = info_value(&r->from, " ", &mi->author, "");
	else
		rc = sbuf_addstr(&r->from, " ");
	if (rc == 0 && mi->has_from)
		rc = info_value(&r->from, " <", &mi->email, ">");
	else if (rc == 0)
		rc = sbuf_addstr(&r->from, " <>");
	if (rc == 0 && mi->has_subject)
		rc = info_value(&r->subject, " ", &mi->subject, "");
	else if (rc == 0)
		rc = sbuf_addstr(&r->subject, " ");
	if (rc == 0)
		rc = canon_body(r, mi, work);
	if (rc == PA_ENOMEM)
		return rc;
	if (rc != 0) {
		r->rc = rc;
		snprintf(r->why, sizeof(r->why), "canonical body: %s",
		    pa_strerror(rc));
	}
	return 0;
}

/* raw_name_is - the name before the colon, not stripped, is lname */
static int
raw_name_is(const struct patatt_msg *m, size_t i, const char *lname)
{
	const char *s = m->text + m->f[i].off;
	size_t n = m->f[i].colon;

	return n < m->f[i].len && ascii_is(s, n, lname);
}

int
patatt_digest(unsigned char d[DIGEST_LEN], const struct patatt_msg *m,
    const struct patatt_reading *r, const struct patatt_tags *tags,
    char *used, struct sbuf *work)
{
	const char *h = tags->v[TAG_H], *hend, *colon, *name, *v, *cut, *p;
	const char *sv = tags->canon.buf;
	size_t hlen = tags->len[TAG_H], nlen, vlen, i, k;
	struct digest dg;
	char lname[256];
	int rc = 0;

	/* S: the value up to and with its last "b=" */
	for (cut = NULL, p = sv; (p = memmem(p, tags->canon.len -
	    (size_t)(p - sv), "b=", 2)) != NULL; p += 2)
		cut = p + 2;
	if (cut == NULL)
		return PA_ENOTFOUND;
	memset(used, 0, m->n);
	digest_init(&dg);
	for (name = h, hend = h + hlen, k = 0; h && name <= hend;
	    name = colon + 1) {
		if ((colon = memchr(name, ':', (size_t)(hend - name))) == NULL)
			colon = hend;
		if (++k > PATATT_HNAMES_MAX) {
			rc = PA_ETOOBIG;
			break;
		}
		nlen = (size_t)(colon - name);
		/* A name no header can have contributes nothing. */
		if (nlen >= sizeof(lname) || memchr(name, '\0', nlen)) {
			if (colon == hend)
				break;
			continue;
		}
		memcpy(lname, name, nlen);
		lname[nlen] = '\0';
		/* The last header of that name not used yet (DKIM order) */
		for (i = m->n; i-- > 0; )
			if (!used[i] && patatt_field_is(m, i, lname))
				break;
		if (i != (size_t)-1) {
			used[i] = 1;
			if (raw_name_is(m, i, "from")) {
				v = r->from.buf;
				vlen = r->from.len;
			} else if (raw_name_is(m, i, "subject")) {
				v = r->subject.buf;
				vlen = r->subject.len;
			} else
				v = patatt_field_value(m, i, &vlen);
			sbuf_reset(work);
			sbuf_add(work, lname, nlen);
			sbuf_addch(work, ':');
			if ((rc = sbuf_failed(work)) != 0 ||
			    (rc = patatt_canon_value(work, v, vlen)) != 0)
				break;
			digest_update(&dg, work->buf, work->len);
		}
		if (colon == hend)
			break;
	}
	digest_update(&dg, DEVSIG_LNAME ":", sizeof(DEVSIG_LNAME));
	digest_update(&dg, sv, (size_t)(cut - sv));
	if (rc == 0)
		rc = digest_final(&dg, d);
	digest_release(&dg);
	return rc;
}
