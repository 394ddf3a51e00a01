/* SPDX-License-Identifier: BSD-2-Clause */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "hdrfmt.h"
#include "pytext.h"

/* printable - is the character p[0..n) (valid: well-formed UTF-8) safe as is */
static int
printable(const unsigned char *p, size_t n, int valid)
{
	if (!valid)
		return 0;
	if (n == 1)
		return p[0] >= 0x20 && p[0] < 0x7f && p[0] != '\\';
	/* U+0080..U+009F, the C1 controls: some terminals obey them. */
	return !(p[0] == 0xc2 && p[1] < 0xa0);
}

void
hdrfmt_quoted(struct sbuf *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i, k, n, len = strlen(s);
	int valid;

	sbuf_addch(out, '"');
	for (i = 0; i < len; i += n) {
		n = pytext_utf8_char(p + i, len - i, &valid);
		if (p[i] < 0x20 || p[i] == 0x7f)
			continue;
		if (p[i] == '"' || p[i] == '\\')
			sbuf_addch(out, '\\');
		if (p[i] < 0x80 || printable(p + i, n, valid))
			sbuf_add(out, p + i, n);
		else	/* "\\xNN": unquoted, it reads \xNN */
			for (k = 0; k < n; k++)
				sbuf_addf(out, "\\\\x%02x", p[i + k]);
	}
	sbuf_addch(out, '"');
}

/*
 * escape_one - the character at p (at most len bytes) as hdrfmt_escaped()
 * writes it, into out (at most 4 escapes of 4 bytes); its length in the
 * input into *used, its length written returned
 */
static size_t
escape_one(const unsigned char *p, size_t len, size_t *used, char out[17])
{
	size_t k, n;
	int valid;

	*used = n = pytext_utf8_char(p, len, &valid);
	if (printable(p, n, valid)) {
		memcpy(out, p, n);
		return n;
	}
	if (p[0] == '\\') {
		memcpy(out, "\\\\", 2);
		return 2;
	}
	for (k = 0; k < n; k++)
		snprintf(out + 4 * k, 5, "\\x%02x", p[k]);
	return 4 * n;
}

void
hdrfmt_escaped(struct sbuf *out, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	char one[17];
	size_t i, used, n;

	for (i = 0; i < len; i += used) {
		n = escape_one(p + i, len - i, &used, one);
		sbuf_add(out, one, n);
	}
}

const char *
hdrfmt_printable(char *buf, size_t size, const void *s, size_t len)
{
	const unsigned char *p = s;
	char one[17];
	size_t i, used, n, at = 0, whole = 0;

	for (i = 0; i < len && whole < size; i += used)
		whole += escape_one(p + i, len - i, &used, one);
	for (i = 0; i < len; i += used) {
		n = escape_one(p + i, len - i, &used, one);
		/* when all of it does not fit, room is kept for "..." */
		if (whole >= size && at + n + 3 >= size) {
			memcpy(buf + at, "...", 3);
			at += 3;
			break;
		}
		memcpy(buf + at, one, n);
		at += n;
	}
	buf[at] = '\0';
	return buf;
}

/* blank - a space, a tab or a line end: what hdrfmt_clip() makes a space */
static int
blank(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/*
 * cut - buf (at bytes, its last word whole or not) ended by "..." after
 * the last whole word that leaves room for it in size bytes; its length
 */
static size_t
cut(char *buf, size_t size, size_t at, int whole)
{
	size_t end = 0, k;

	if (whole && at + 3 < size)
		end = at;
	else	/* a space in buf follows a whole word */
		for (k = 0; k < at; k++)
			if (buf[k] == ' ' && k + 3 < size)
				end = k;
	if (end == 0) {
		/* one word longer than all the room: between characters */
		end = at < size - 4 ? at : size - 4;
		while (end > 0 && ((unsigned char)buf[end] & 0xc0) == 0x80)
			end--;
	}
	memcpy(buf + end, "...", 3);
	return end + 3;
}

const char *
hdrfmt_clip(char *buf, size_t size, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i, n, at = 0, len = strlen(s);
	int valid, gap = 0;

	for (i = 0; i < len; i += n) {
		if (blank(p[i])) {
			n = 1;
			gap = at > 0;
			continue;
		}
		n = pytext_utf8_char(p + i, len - i, &valid);
		if (at + gap + n >= size)
			break;
		if (gap)
			buf[at++] = ' ';
		gap = 0;
		memcpy(buf + at, p + i, n);
		at += n;
	}
	if (i < len)
		at = cut(buf, size, at, gap);
	buf[at] = '\0';
	return buf;
}

void
hdrfmt_item(struct sbuf *out, size_t *col, const char *sep, const char *item,
    size_t len)
{
	size_t seplen = strlen(sep), keep = seplen;

	if (*col + seplen + len > HDRFMT_WIDTH) {
		while (keep > 0 && sep[keep - 1] == ' ')
			keep--;
		sbuf_add(out, sep, keep);
		sbuf_addstr(out, "\n\t");
		*col = 8;
	} else {
		sbuf_add(out, sep, seplen);
		*col += seplen;
	}
	sbuf_add(out, item, len);
	*col += len;
}
