/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * authres.c - a bounded reader of Authentication-Results fields (RFC 8601
 * section 2.2, see authres.h).  It walks the value once with a cursor; a
 * byte it does not expect ends the field as PA_ERROR, so that a field
 * half understood is never half believed.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "patchattest.h"
#include "base.h"
#include "authres.h"

/* How word() reads. */
#define W_QUOTED	0x1	/* a quoted-string will do */
#define W_LOWER		0x2	/* kept in lower case */
#define W_ADDRESS	0x4	/* '@' and '/' belong to it (a pvalue) */

struct cursor {
	const char	*v;
	size_t		 len, i;
};

static int	cfws(struct cursor *);
static int	token_byte(unsigned char, int);
static int	word(struct cursor *, char *, size_t, int);
static int	expect(struct cursor *, char);
static int	digits(struct cursor *);
static int	property(struct cursor *, struct authres_result *);
static int	resinfo(struct cursor *, struct authres *);

/*
 * cfws - past white space and (nested) comments, then 0; PA_ERROR for a
 * comment left open, a stray ')' or a NUL
 */
static int
cfws(struct cursor *c)
{
	size_t depth = 0;
	char ch;

	for (; c->i < c->len; c->i++) {
		ch = c->v[c->i];
		if (ch == '\0')
			return PA_ERROR;
		if (ch == '(')
			depth++;
		else if (ch == ')') {
			if (depth == 0)
				return PA_ERROR;
			depth--;
		} else if (ch == '\\' && depth > 0) {
			if (++c->i == c->len)
				return PA_ERROR;
		} else if (depth == 0 && strchr(" \t\r\n", ch) == NULL)
			break;
	}
	return depth > 0 ? PA_ERROR : 0;
}

/* token_byte - ch may be in a token (RFC 2045; UTF-8 as RFC 8616 allows) */
static int
token_byte(unsigned char ch, int how)
{
	if (ch >= 0x80)
		return 1;
	if (ch <= 0x20 || ch == 0x7f)
		return 0;
	if ((how & W_ADDRESS) && (ch == '@' || ch == '/'))
		return 1;
	return strchr("()<>@,;:\\\"/[]?=", ch) == NULL;
}

/*
 * word - a token (or a quoted-string, W_QUOTED) at c into out, which has
 * size bytes, or skipped when out is NULL: 0, PA_ETOOBIG when it does
 * not fit, PA_ERROR when there is none
 */
static int
word(struct cursor *c, char *out, size_t size, int how)
{
	int quoted = c->i < c->len && c->v[c->i] == '"';
	unsigned char ch;
	size_t n = 0;

	if (quoted && !(how & W_QUOTED))
		return PA_ERROR;
	for (c->i += quoted; c->i < c->len; c->i++) {
		ch = (unsigned char)c->v[c->i];
		if (quoted && ch == '"')
			break;
		if (quoted && ch == '\\') {
			if (++c->i == c->len)
				return PA_ERROR;
			ch = (unsigned char)c->v[c->i];
		}
		if (ch == '\0' || (!quoted && !token_byte(ch, how)))
			break;
		if (out != NULL) {
			if (n + 1 >= size)
				return PA_ETOOBIG;
			out[n] = (how & W_LOWER) ? ascii_lower(ch) : (char)ch;
		}
		n++;
	}
	if (quoted && (c->i >= c->len || c->v[c->i] != '"'))
		return PA_ERROR;	/* unclosed, or a NUL in it */
	c->i += quoted;
	if (out != NULL)
		out[n] = '\0';
	return n == 0 && !quoted ? PA_ERROR : 0;
}

/* expect - ch at c, passed over; else PA_ERROR */
static int
expect(struct cursor *c, char ch)
{
	if (c->i >= c->len || c->v[c->i] != ch)
		return PA_ERROR;
	c->i++;
	return 0;
}

/* digits - one or more decimal digits (a version), passed over */
static int
digits(struct cursor *c)
{
	size_t start = c->i;

	while (c->i < c->len && c->v[c->i] >= '0' && c->v[c->i] <= '9')
		c->i++;
	return c->i > start ? 0 : PA_ERROR;
}

/*
 * property - "reason=VALUE" or "PTYPE.PROPERTY=PVALUE", with CFWS where
 * the RFC allows it; header.d goes into r
 */
static int
property(struct cursor *c, struct authres_result *r)
{
	char name[AUTHRES_WORD_MAX], prop[AUTHRES_WORD_MAX], *dot;
	int rc, is_d;

	if ((rc = word(c, name, sizeof(name), W_LOWER)) != 0)
		return rc;
	prop[0] = '\0';
	if ((dot = strchr(name, '.')) != NULL) {
		*dot = '\0';
		snprintf(prop, sizeof(prop), "%s", dot + 1);
	}
	if (strcmp(name, "reason") != 0 && prop[0] == '\0' && (
	    (rc = cfws(c)) != 0 || (rc = expect(c, '.')) != 0 ||
	    (rc = cfws(c)) != 0 ||
	    (rc = word(c, prop, sizeof(prop), W_LOWER)) != 0))
		return rc;
	if ((rc = cfws(c)) != 0 || (rc = expect(c, '=')) != 0 ||
	    (rc = cfws(c)) != 0)
		return rc;
	if (strcmp(name, "reason") == 0)
		return word(c, NULL, 0, W_QUOTED);
	is_d = strcmp(name, "header") == 0 && strcmp(prop, "d") == 0;
	return word(c, is_d ? r->header_d : NULL, sizeof(r->header_d),
	    W_QUOTED | W_LOWER | W_ADDRESS);
}

/*
 * resinfo - one result after its ';': "METHOD[/VERSION]=RESULT" and its
 * properties, kept in out while there is room; "none" alone is no result
 */
static int
resinfo(struct cursor *c, struct authres *out)
{
	struct authres_result r;
	int rc;

	memset(&r, 0, sizeof(r));
	if ((rc = cfws(c)) != 0)
		return rc;
	if (c->i == c->len)
		return 0;	/* a ';' at the end */
	if ((rc = word(c, r.method, sizeof(r.method), W_LOWER)) != 0 ||
	    (rc = cfws(c)) != 0)
		return rc;
	if (c->i < c->len && c->v[c->i] == '/') {	/* a method-version */
		c->i++;
		if ((rc = cfws(c)) != 0 || (rc = digits(c)) != 0 ||
		    (rc = cfws(c)) != 0)
			return rc;
	}
	if (strcmp(r.method, "none") == 0 && (c->i == c->len ||
	    c->v[c->i] == ';'))
		return 0;
	if ((rc = expect(c, '=')) != 0 || (rc = cfws(c)) != 0 ||
	    (rc = word(c, r.result, sizeof(r.result), W_LOWER)) != 0)
		return rc;
	for (;;) {
		if ((rc = cfws(c)) != 0)
			return rc;
		if (c->i == c->len || c->v[c->i] == ';')
			break;
		if ((rc = property(c, &r)) != 0)
			return rc;
	}
	if (out->n < AUTHRES_RESULTS)
		out->r[out->n++] = r;
	else
		out->dropped++;
	return 0;
}

int
authres_id(char *id, size_t size, const char *value, size_t len)
{
	struct cursor c = { value, len, 0 };

	if (size == 0 || cfws(&c) != 0 || word(&c, id, size, W_QUOTED) != 0 ||
	    id[0] == '\0')
		return PA_ERROR;
	return 0;
}

int
authres_parse(struct authres *out, const char *value, size_t len)
{
	struct cursor c = { value, len, 0 };
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = cfws(&c)) != 0 ||
	    (rc = word(&c, out->id, sizeof(out->id), W_QUOTED)) != 0 ||
	    (rc = cfws(&c)) != 0)
		return rc;
	if (out->id[0] == '\0')
		return PA_ERROR;
	if (c.i < c.len && c.v[c.i] >= '0' && c.v[c.i] <= '9' &&
	    ((rc = digits(&c)) != 0 || (rc = cfws(&c)) != 0))
		return rc;	/* the authres-version */
	while (c.i < c.len) {
		if ((rc = expect(&c, ';')) != 0 || (rc = resinfo(&c, out)) != 0)
			return rc;
	}
	return 0;
}
