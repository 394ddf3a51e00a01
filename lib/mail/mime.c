/* SPDX-License-Identifier: BSD-2-Clause */
#include "config.h"

#include <string.h>
#include <strings.h>

#include "base.h"
#include "patchattest.h"
#include "mime.h"

static int	walk(const char *, size_t, const char *, size_t, unsigned,
		    int (*)(const struct mime_part *, void *), void *);
static int	walk_multipart(const char *, size_t, const char *, size_t,
		    unsigned, int (*)(const struct mime_part *, void *),
		    void *, int *);
static int	is_boundary(const char *, size_t, const char *, size_t,
		    int *closing);
static void	split_part(const char *, size_t, const char **, size_t *,
		    const char **, size_t *);

static int
is_ws(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

const char *
mime_header(const char *hdr, size_t hdrlen, const char *name, size_t *vlen)
{
	const char *p = hdr, *end = hdr + hdrlen, *nl, *v;
	size_t n = strlen(name);

	while (p < end) {
		if (*p != ' ' && *p != '\t' && (size_t)(end - p) > n &&
		    p[n] == ':' && strncasecmp(p, name, n) == 0) {
			v = p + n + 1;
			/* The value runs on over continuation lines. */
			for (nl = v; (nl = memchr(nl, '\n', (size_t)(end - nl)));
			    nl++)
				if (nl + 1 >= end || (nl[1] != ' ' && nl[1] != '\t'))
					break;
			*vlen = (size_t)((nl ? nl : end) - v);
			return v;
		}
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			break;
		p = nl + 1;
	}
	*vlen = 0;
	return NULL;
}

void
mime_type(const char *value, size_t len, char out[MIME_TYPE_MAX])
{
	const char *semi = memchr(value, ';', len);
	size_t i, n = 0, slashes = 0;

	if (semi)
		len = (size_t)(semi - value);
	while (len && is_ws((unsigned char)*value)) {
		value++;
		len--;
	}
	while (len && is_ws((unsigned char)value[len - 1]))
		len--;
	for (i = 0; i < len && n < MIME_TYPE_MAX - 1; i++) {
		if (value[i] == '/')
			slashes++;
		out[n++] = ascii_lower(value[i]);
	}
	out[n] = '\0';
	if (slashes != 1 || i < len)
		memcpy(out, "text/plain", sizeof("text/plain"));
}

int
mime_param(const char *value, size_t len, const char *name, struct sbuf *out)
{
	const char *p = value, *end = value + len, *seg, *eq, *k, *ke, *v, *ve;
	size_t n = strlen(name);
	int quoted, first = 1;

	sbuf_reset(out);
	while (p <= end) {
		/* A segment runs to the next ';' outside double quotes. */
		seg = p;
		for (quoted = 0; p < end && (quoted || *p != ';'); p++) {
			if (*p == '\\' && quoted && p + 1 < end)
				p++;
			else if (*p == '"')
				quoted = !quoted;
		}
		if (!first && (eq = memchr(seg, '=', (size_t)(p - seg)))) {
			for (k = seg; k < eq && is_ws((unsigned char)*k); k++)
				;
			for (ke = eq; ke > k && is_ws((unsigned char)ke[-1]); ke--)
				;
			for (v = eq + 1; v < p && is_ws((unsigned char)*v); v++)
				;
			for (ve = p; ve > v && is_ws((unsigned char)ve[-1]); ve--)
				;
			if ((size_t)(ke - k) == n && strncasecmp(k, name, n) == 0) {
				if (ve - v >= 2 && *v == '"' && ve[-1] == '"') {
					for (v++, ve--; v < ve; v++) {
						if (*v == '\\' && v + 1 < ve &&
						    (v[1] == '\\' || v[1] == '"'))
							v++;
						sbuf_addch(out, *v);
					}
				} else
					sbuf_add(out, v, (size_t)(ve - v));
				return 1;
			}
		}
		first = 0;
		p++;
	}
	return 0;
}

/* split_part - a part's header block and body; a blank first line: none */
static void
split_part(const char *p, size_t len, const char **hdr, size_t *hdrlen,
    const char **body, size_t *bodylen)
{
	const char *end = p + len, *line = p, *nl, *c;

	*hdr = p;
	while (line < end) {
		nl = memchr(line, '\n', (size_t)(end - line));
		if (nl == NULL)
			nl = end;
		if (nl == line)
			break;		/* the blank line */
		/* A header is "Name:", "From " or a continuation. */
		if (*line != ' ' && *line != '\t' &&
		    !(nl - line >= 5 && memcmp(line, "From ", 5) == 0)) {
			for (c = line; c < nl && *c > ' ' && *c < 0x7f &&
			    *c != ':'; c++)
				;
			if (c == nl || *c != ':')
				break;
		}
		line = nl < end ? nl + 1 : end;
	}
	*hdrlen = (size_t)(line - p);
	if (line < end && *line == '\n')
		line++;
	*body = line;
	*bodylen = (size_t)(end - line);
}

static int
is_boundary(const char *line, size_t len, const char *b, size_t blen,
    int *closing)
{
	size_t i;

	if (len < blen + 2 || line[0] != '-' || line[1] != '-' ||
	    memcmp(line + 2, b, blen) != 0)
		return 0;
	i = blen + 2;
	*closing = len - i >= 2 && line[i] == '-' && line[i + 1] == '-';
	if (*closing)
		i += 2;
	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	return i == len;
}

static int
walk_multipart(const char *hdr, size_t hdrlen, const char *body,
    size_t bodylen, unsigned depth,
    int (*visit)(const struct mime_part *, void *), void *arg, int *walked)
{
	struct sbuf boundary;
	const char *ct, *p = body, *end = body + bodylen, *nl, *part = NULL;
	const char *ph, *pb;
	size_t ctlen, len, phl, pbl;
	int closing, rc = 0;

	ct = mime_header(hdr, hdrlen, "Content-Type", &ctlen);
	sbuf_init(&boundary, 256);
	if (!mime_param(ct, ctlen, "boundary", &boundary) || boundary.len == 0 ||
	    sbuf_failed(&boundary)) {
		/* Without a boundary the caller treats it as a leaf. */
		sbuf_release(&boundary);
		*walked = 0;
		return 0;
	}
	*walked = 1;
	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		len = (size_t)((nl ? nl : end) - p);
		if (is_boundary(p, len, boundary.buf, boundary.len, &closing)) {
			if (part != NULL) {
				/* The LF before a boundary belongs to it. */
				len = (size_t)(p - part);
				if (len)
					len--;
				split_part(part, len, &ph, &phl, &pb, &pbl);
				if ((rc = walk(ph, phl, pb, pbl, depth + 1, visit,
				    arg)) != 0)
					break;
			}
			part = closing ? NULL : (nl ? nl + 1 : end);
			if (closing)
				break;
		}
		p = nl ? nl + 1 : end;
	}
	if (rc == 0 && part != NULL && p >= end) {
		split_part(part, (size_t)(end - part), &ph, &phl, &pb, &pbl);
		rc = walk(ph, phl, pb, pbl, depth + 1, visit, arg);
	}
	sbuf_release(&boundary);
	return rc;
}

static int
walk(const char *hdr, size_t hdrlen, const char *body, size_t bodylen,
    unsigned depth, int (*visit)(const struct mime_part *, void *), void *arg)
{
	struct mime_part part;
	const char *ct, *h, *b;
	size_t ctlen, hl, bl;
	int rc, walked;

	ct = mime_header(hdr, hdrlen, "Content-Type", &ctlen);
	if (ct)
		mime_type(ct, ctlen, part.type);
	else
		memcpy(part.type, "text/plain", sizeof("text/plain"));
	if (depth < MIME_MAX_DEPTH) {
		if (strncmp(part.type, "multipart/", 10) == 0) {
			rc = walk_multipart(hdr, hdrlen, body, bodylen, depth,
			    visit, arg, &walked);
			if (walked)
				return rc;
		} else if (strcmp(part.type, "message/rfc822") == 0) {
			split_part(body, bodylen, &h, &hl, &b, &bl);
			return walk(h, hl, b, bl, depth + 1, visit, arg);
		}
	}
	part.hdr = hdr;
	part.hdrlen = hdrlen;
	part.body = body;
	part.bodylen = bodylen;
	part.depth = depth;
	return visit(&part, arg);
}

int
mime_walk(const char *hdr, size_t hdrlen, const char *body, size_t bodylen,
    int (*visit)(const struct mime_part *, void *), void *arg)
{
	return walk(hdr, hdrlen, body, bodylen, 0, visit, arg);
}
