/* SPDX-License-Identifier: BSD-2-Clause */
#include "config.h"

#include <string.h>

#include "patchattest.h"
#include "mailident.h"

static int	git_isspace(int);
static int	unquote(struct sbuf *, const char *, size_t);
static int	sane_name(struct sbuf *, const char *, size_t,
		    const struct sbuf *, int);
static void	trim(const char **, size_t *);
static int	has_mark(const char *, size_t);

static int
git_isspace(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static void
trim(const char **s, size_t *len)
{
	while (*len && git_isspace((unsigned char)**s)) {
		(*s)++;
		(*len)--;
	}
	while (*len && git_isspace((unsigned char)(*s)[*len - 1]))
		(*len)--;
}

int
mailident_collapse(struct sbuf *out, const char *s, size_t len)
{
	size_t i;

	sbuf_reset(out);
	if (sbuf_grow(out, len) != 0)
		return out->failed;
	for (i = 0; i < len; i++) {
		if (git_isspace((unsigned char)s[i])) {
			out->buf[out->len++] = ' ';
			while (i + 1 < len && git_isspace((unsigned char)s[i + 1]))
				i++;
		} else
			out->buf[out->len++] = s[i];
	}
	out->buf[out->len] = '\0';
	return 0;
}

int
mailident_subject(struct sbuf *out, const char *s, size_t len)
{
	const char *close;

	for (;;) {
		if (len == 0)
			break;
		if (*s == 'r' || *s == 'R') {
			/* "re:" counts only with something after it */
			if (len > 3 && (s[1] == 'e' || s[1] == 'E') &&
			    s[2] == ':') {
				s += 3;
				len -= 3;
				continue;
			}
			break;
		}
		if (*s == ' ' || *s == '\t' || *s == ':') {
			s++;
			len--;
			continue;
		}
		if (*s == '[' && (close = memchr(s, ']', len)) != NULL) {
			len -= (size_t)(close + 1 - s);
			s = close + 1;
			continue;
		}
		break;
	}
	trim(&s, &len);
	return mailident_collapse(out, s, len);
}

/*
 * unquote - copy a From value with quoted strings unquoted and comments
 * kept, backslash escapes resolved in both.
 */
static int
unquote(struct sbuf *u, const char *v, size_t n)
{
	size_t i = 0;
	int depth;
	char c;

	sbuf_reset(u);
	while (i < n) {
		c = v[i++];
		if (c == '"') {
			for (;;) {
				if (i >= n)
					return PA_EMAILINFO;
				c = v[i++];
				if (c == '\\') {
					if (i >= n)
						return PA_EMAILINFO;
					c = v[i++];
				} else if (c == '"')
					break;
				sbuf_addch(u, c);
			}
		} else if (c == '(') {
			sbuf_addch(u, '(');
			for (depth = 1; depth > 0;) {
				if (i >= n)
					return PA_EMAILINFO;
				c = v[i++];
				if (c == '\\') {
					if (i >= n)
						return PA_EMAILINFO;
					c = v[i++];
				} else if (c == '(')
					depth++;
				else if (c == ')')
					depth--;
				sbuf_addch(u, c);
			}
		} else
			sbuf_addch(u, c);
	}
	return sbuf_failed(u);
}

/* sane_name - the name, or the address when the name will not do */
static int
sane_name(struct sbuf *out, const char *name, size_t len,
    const struct sbuf *email, int short_names)
{
	int bad = len == 0 || len > 60 || memchr(name, '@', len) ||
	    memchr(name, '<', len) || memchr(name, '>', len);
	int is_short = !bad && len < 3;

	sbuf_reset(out);
	if (bad || (is_short && short_names))
		sbuf_add(out, email->buf, email->len);
	else
		sbuf_add(out, name, len);
	if (sbuf_failed(out))
		return sbuf_failed(out);
	return is_short ? MAILIDENT_SHORT_NAME : 0;
}

int
mailident_from(struct sbuf *name, struct sbuf *email, struct sbuf *work,
    const char *from, size_t len, int short_names)
{
	const char *bra, *ket, *n;
	size_t at, el, nlen, cut;
	char *u;
	int rc;

	sbuf_reset(name);
	sbuf_reset(email);
	if ((rc = mailident_collapse(work, from, len)) != 0)
		return rc;
	/* Work on the collapsed value V, unquoted into U = name. */
	if ((rc = unquote(name, work->buf, work->len)) != 0)
		return rc;
	u = name->buf;
	if ((n = memchr(u, '@', name->len)) == NULL) {
		/* No address in U: take "<...>" from V if there is one. */
		sbuf_reset(name);
		bra = memchr(work->buf, '<', work->len);
		ket = bra ? memchr(bra, '>', work->len -
		    (size_t)(bra - work->buf)) : NULL;
		if (ket == NULL)
			return 0;
		sbuf_add(email, bra + 1, (size_t)(ket - bra - 1));
		n = work->buf;
		nlen = (size_t)(bra - work->buf);
		trim(&n, &nlen);
		return sane_name(name, n, nlen, email, short_names);
	}
	/* The address: back from '@' to a blank or '<', on to a delimiter. */
	at = (size_t)(n - u);
	while (at > 0) {
		if (git_isspace((unsigned char)u[at - 1]))
			break;
		if (u[at - 1] == '<') {
			u[at - 1] = ' ';
			break;
		}
		at--;
	}
	el = strcspn(u + at, " \n\t\r\v\f>");
	sbuf_add(email, u + at, el);
	cut = el + (at + el < name->len ? 1 : 0);
	memmove(u + at, u + at + cut, name->len - at - cut);
	sbuf_setlen(name, name->len - cut);
	/* The rest is the name, possibly a "(comment)". */
	if ((rc = mailident_collapse(work, name->buf, name->len)) != 0)
		return rc;
	n = work->buf;
	nlen = work->len;
	trim(&n, &nlen);
	if (nlen && n[0] == '(' && n[nlen - 1] == ')') {
		n++;
		nlen = nlen >= 2 ? nlen - 2 : 0;
	}
	if ((rc = sane_name(name, n, nlen, email, short_names)) < 0)
		return rc;
	return sbuf_failed(email) ? sbuf_failed(email) : rc;
}

/*
 * has_mark - a ">8", "8<", ">%" or "%<" somewhere: what a scissors line
 * needs, and rare in other text, so cheap to rule the line out first.
 */
static int
has_mark(const char *line, size_t len)
{
	const char *end = line + len, *p;

	for (p = line; (p = memchr(p, '<', (size_t)(end - p))) != NULL; p++)
		if (p > line && (p[-1] == '8' || p[-1] == '%'))
			return 1;
	for (p = line; (p = memchr(p, '>', (size_t)(end - p))) != NULL; p++)
		if (p + 1 < end && (p[1] == '8' || p[1] == '%'))
			return 1;
	return 0;
}

int
mailident_is_scissors(const char *line, size_t len)
{
	size_t i, first = 0, last = 0, visible;
	int scissors = 0, gap = 0, perforation = 0, in_perforation = 0;
	int seen = 0;
	char c;

	if (!has_mark(line, len))
		return 0;
	for (i = 0; i < len && line[i]; i++) {
		c = line[i];
		if (git_isspace((unsigned char)c)) {
			if (in_perforation) {
				perforation++;
				gap++;
			}
			continue;
		}
		last = i;
		if (!seen) {
			first = i;
			seen = 1;
		}
		if (c == '-') {
			in_perforation = 1;
			perforation++;
			continue;
		}
		if (i + 1 < len &&
		    ((c == '>' && (line[i + 1] == '8' || line[i + 1] == '%')) ||
		    ((c == '8' || c == '%') && line[i + 1] == '<'))) {
			/* a mark counts twice; its second byte is skipped */
			in_perforation = 1;
			perforation += 2;
			scissors += 2;
			i++;
			continue;
		}
		in_perforation = 0;
	}
	visible = seen ? last - first + 1 : 0;
	return scissors && visible >= 8 && visible < (size_t)perforation * 3 &&
	    gap * 2 < perforation;
}
