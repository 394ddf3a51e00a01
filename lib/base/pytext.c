/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pytext - Python 3 str semantics over UTF-8 bytes: strict and lenient
 * UTF-8 decoding, universal newlines, str.isspace() and str.strip().
 *
 * The UTF-8 reader follows Python's decoder, which replaces each maximal
 * ill-formed subpart (Unicode 3.9) with one U+FFFD.  pycodec.c decodes
 * the other charsets with the byte helpers exported from here.
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "patchattest.h"
#include "pytext.h"

static size_t	space_at(const unsigned char *, size_t);
static size_t	space_before(const unsigned char *, size_t);

/*
 * Python's whitespace below U+0080 (str.isspace): HT LF VT FF CR, the
 * information separators 0x1C-0x1F and SP.
 */
static const unsigned char ascii_space[128] = {
	['\t'] = 1, ['\n'] = 1, ['\v'] = 1, ['\f'] = 1, ['\r'] = 1,
	[0x1c] = 1, [0x1d] = 1, [0x1e] = 1, [0x1f] = 1, [' '] = 1,
};

size_t
pytext_ascii_prefix(const unsigned char *p, size_t len)
{
	const uint64_t high = 0x8080808080808080ULL;
	uint64_t a, b, c, d;
	size_t i = 0;

	/* Word at a time: memcpy keeps the loads legal at any alignment. */
	while (len - i >= 32) {
		memcpy(&a, p + i, 8);
		memcpy(&b, p + i + 8, 8);
		memcpy(&c, p + i + 16, 8);
		memcpy(&d, p + i + 24, 8);
		if ((a | b | c | d) & high)
			break;
		i += 32;
	}
	while (len - i >= 8) {
		memcpy(&a, p + i, 8);
		if (a & high)
			break;
		i += 8;
	}
	while (i < len && p[i] < 0x80)
		i++;
	return i;
}

size_t
pytext_utf8_char(const unsigned char *p, size_t len, int *valid)
{
	unsigned int c = p[0], lo = 0x80, hi = 0xbf;
	size_t need, i;

	*valid = 0;
	if (c < 0x80) {
		*valid = 1;
		return 1;
	}
	if (c < 0xc2 || c > 0xf4)
		return 1;
	if (c < 0xe0)
		need = 1;
	else if (c < 0xf0) {
		need = 2;
		/* no overlongs, no surrogates */
		if (c == 0xe0)
			lo = 0xa0;
		else if (c == 0xed)
			hi = 0x9f;
	} else {
		need = 3;
		/* no overlongs, nothing above U+10FFFF */
		if (c == 0xf0)
			lo = 0x90;
		else if (c == 0xf4)
			hi = 0x8f;
	}
	for (i = 1; i <= need; i++) {
		if (i >= len || p[i] < lo || p[i] > hi)
			return i;
		lo = 0x80;
		hi = 0xbf;
	}
	*valid = 1;
	return need + 1;
}

int
pytext_utf8_valid(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	int valid;

	for (;;) {
		i += pytext_ascii_prefix(p + i, len - i);
		if (i == len)
			return 1;
		i += pytext_utf8_char(p + i, len - i, &valid);
		if (!valid)
			return 0;
	}
}

int
pytext_utf8_replace(struct sbuf *out, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, start = 0, n;
	int valid;

	/* never shorter than the input: one allocation up front */
	if (sbuf_grow(out, len) != 0)
		return sbuf_failed(out);
	while (i < len) {
		i += pytext_ascii_prefix(p + i, len - i);
		if (i == len)
			break;
		n = pytext_utf8_char(p + i, len - i, &valid);
		if (!valid) {
			/* copy the good run before it in one piece */
			sbuf_add(out, s + start, i - start);
			sbuf_add(out, PYTEXT_REPL, PYTEXT_REPL_LEN);
			start = i + n;
		}
		i += n;
	}
	sbuf_add(out, s + start, len - start);
	return sbuf_failed(out);
}

int
pytext_newlines(struct sbuf *out, const char *s, size_t len)
{
	const char *p = s, *end = s + len, *cr;

	while ((cr = memchr(p, '\r', (size_t)(end - p))) != NULL) {
		sbuf_add(out, p, (size_t)(cr - p));
		/* CRLF: drop the CR, the LF follows with the next run */
		if (cr + 1 == end || cr[1] != '\n')
			sbuf_addch(out, '\n');
		p = cr + 1;
	}
	sbuf_add(out, p, (size_t)(end - p));
	return sbuf_failed(out);
}

/* space_at - byte length of the Python whitespace character at p, or 0 */
static size_t
space_at(const unsigned char *p, size_t len)
{
	if (p[0] < 0x80)
		return ascii_space[p[0]];
	if (len >= 2 && p[0] == 0xc2 && (p[1] == 0x85 || p[1] == 0xa0))
		return 2;	/* U+0085 U+00A0 */
	if (len < 3)
		return 0;
	if (p[0] == 0xe1 && p[1] == 0x9a && p[2] == 0x80)
		return 3;	/* U+1680 */
	if (p[0] == 0xe2 && p[1] == 0x80 && ((p[2] >= 0x80 && p[2] <= 0x8a) ||
	    p[2] == 0xa8 || p[2] == 0xa9 || p[2] == 0xaf))
		return 3;	/* U+2000-200A U+2028 U+2029 U+202F */
	if (p[0] == 0xe2 && p[1] == 0x81 && p[2] == 0x9f)
		return 3;	/* U+205F */
	if (p[0] == 0xe3 && p[1] == 0x80 && p[2] == 0x80)
		return 3;	/* U+3000 */
	return 0;
}

/* space_before - byte length of the whitespace character ending at p+len */
static size_t
space_before(const unsigned char *p, size_t len)
{
	if (p[len - 1] < 0x80)
		return ascii_space[p[len - 1]];
	if (len >= 2 && space_at(p + len - 2, 2) == 2)
		return 2;
	if (len >= 3 && space_at(p + len - 3, 3) == 3)
		return 3;
	return 0;
}

int
pytext_is_blank(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, n;

	while (i < len) {
		if ((n = space_at(p + i, len - i)) == 0)
			return 0;
		i += n;
	}
	return 1;
}

void
pytext_strip(const char *s, size_t len, size_t *startp, size_t *endp)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t start = 0, end = len, n;

	while (start < end && (n = space_at(p + start, end - start)) != 0)
		start += n;
	while (end > start && (n = space_before(p + start, end - start)) != 0)
		end -= n;
	*startp = start;
	*endp = end;
}
