/* SPDX-License-Identifier: BSD-2-Clause */
#include "config.h"

#include <string.h>

#include "patchattest.h"
#include "codec.h"

/* Each base64 alphabet byte maps to its value plus one; 0 marks the rest. */
static const unsigned char b64val[256] = {
	['A'] = 1, ['B'] = 2, ['C'] = 3, ['D'] = 4, ['E'] = 5, ['F'] = 6,
	['G'] = 7, ['H'] = 8, ['I'] = 9, ['J'] = 10, ['K'] = 11, ['L'] = 12,
	['M'] = 13, ['N'] = 14, ['O'] = 15, ['P'] = 16, ['Q'] = 17,
	['R'] = 18, ['S'] = 19, ['T'] = 20, ['U'] = 21, ['V'] = 22,
	['W'] = 23, ['X'] = 24, ['Y'] = 25, ['Z'] = 26, ['a'] = 27,
	['b'] = 28, ['c'] = 29, ['d'] = 30, ['e'] = 31, ['f'] = 32,
	['g'] = 33, ['h'] = 34, ['i'] = 35, ['j'] = 36, ['k'] = 37,
	['l'] = 38, ['m'] = 39, ['n'] = 40, ['o'] = 41, ['p'] = 42,
	['q'] = 43, ['r'] = 44, ['s'] = 45, ['t'] = 46, ['u'] = 47,
	['v'] = 48, ['w'] = 49, ['x'] = 50, ['y'] = 51, ['z'] = 52,
	['0'] = 53, ['1'] = 54, ['2'] = 55, ['3'] = 56, ['4'] = 57,
	['5'] = 58, ['6'] = 59, ['7'] = 60, ['8'] = 61, ['9'] = 62,
	['+'] = 63, ['/'] = 64,
};

int
codec_hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * hexval_case - the value of hex digit c of the case upper says, or -1: a
 * letter of the other case would not be written out as it was read
 */
static int
hexval_case(int c, int upper)
{
	if (c >= (upper ? 'a' : 'A') && c <= (upper ? 'f' : 'F'))
		return -1;
	return codec_hexval(c);
}

void
codec_hex(char *out, const void *in, size_t len, int upper)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	const unsigned char *p = in;
	size_t i;

	for (i = 0; i < len; i++) {
		*out++ = digits[p[i] >> 4];
		*out++ = digits[p[i] & 15];
	}
	*out = '\0';
}

int
codec_unhex(void *out, const char *hex, size_t n, int upper)
{
	const unsigned char *h = (const unsigned char *)hex;
	unsigned char *o = out;
	size_t i;

	/* Every digit is checked before a byte is written. */
	for (i = 0; i < 2 * n; i++)
		if (hexval_case(h[i], upper) < 0)
			return PA_EDECODE;
	for (i = 0; i < n; i++)
		o[i] = (unsigned char)(codec_hexval(h[2 * i]) << 4 |
		    codec_hexval(h[2 * i + 1]));
	return 0;
}

int
codec_qp_line(struct sbuf *out, const char *in, size_t len, int q_word)
{
	const char *end, *eq, *nul;
	int hi, lo;

	if ((nul = memchr(in, '\0', len)) != NULL)
		len = (size_t)(nul - in);
	end = in + len;
	if (sbuf_grow(out, len) != 0)
		return out->failed;
	while (in < end) {
		if (q_word) {
			if (*in == '=')
				eq = in;
			else {
				sbuf_addch(out, *in == '_' ? ' ' : *in);
				in++;
				continue;
			}
		} else if ((eq = memchr(in, '=', (size_t)(end - in))) == NULL) {
			sbuf_add(out, in, (size_t)(end - in));
			break;
		} else {
			sbuf_add(out, in, (size_t)(eq - in));
		}
		/* at an '=' */
		if (eq + 1 == end || eq[1] == '\n')
			break;
		hi = codec_hexval((unsigned char)eq[1]);
		lo = eq + 2 < end ? codec_hexval((unsigned char)eq[2]) : -1;
		if (hi >= 0 && lo >= 0) {
			sbuf_addch(out, hi << 4 | lo);
			in = eq + 3;
		} else {
			sbuf_addch(out, '=');
			in = eq + 1;
		}
	}
	return out->failed;
}

int
codec_b64(struct sbuf *out, const char *in, size_t len)
{
	const unsigned char *p = (const unsigned char *)in;
	const unsigned char *end = p + len;
	unsigned acc = 0;
	int pos = 0, v;
	char *o;

	if (sbuf_grow(out, len / 4 * 3 + 3) != 0)
		return out->failed;
	o = out->buf + out->len;
	for (; p < end && *p; p++) {
		if ((v = b64val[*p] - 1) < 0)
			continue;
		switch (pos++) {
		case 0:
			acc = (unsigned)v << 2;
			break;
		case 1:
			*o++ = (char)(acc | (unsigned)v >> 4);
			acc = ((unsigned)v & 15) << 4;
			break;
		case 2:
			*o++ = (char)(acc | (unsigned)v >> 2);
			acc = ((unsigned)v & 3) << 6;
			break;
		default:
			*o++ = (char)(acc | (unsigned)v);
			pos = 0;
			break;
		}
	}
	out->len = (size_t)(o - out->buf);
	out->buf[out->len] = '\0';
	return 0;
}

int
codec_qp_body(struct sbuf *out, const char *in, size_t len)
{
	const char *end = in + len, *nl;
	size_t n;

	while (in < end) {
		nl = memchr(in, '\n', (size_t)(end - in));
		n = nl ? (size_t)(nl - in) + 1 : (size_t)(end - in);
		if (codec_qp_line(out, in, n, 0) != 0)
			return out->failed;
		in += n;
	}
	return out->failed;
}

int
codec_b64_body(struct sbuf *out, const char *in, size_t len)
{
	const char *end = in + len, *nl;
	size_t n;

	while (in < end) {
		nl = memchr(in, '\n', (size_t)(end - in));
		n = nl ? (size_t)(nl - in) + 1 : (size_t)(end - in);
		if (codec_b64(out, in, n) != 0)
			return out->failed;
		in += n;
	}
	return 0;
}

int
codec_b64_strict(struct sbuf *out, const char *in, size_t len)
{
	const unsigned char *p = (const unsigned char *)in;
	size_t i, data, start = out->len;
	int rc;

	for (data = 0; data < len && b64val[p[data]] != 0; data++)
		;
	/* Padding only completes a group: "xx==" or "xxx=". */
	for (i = data; i < len && p[i] == '='; i++)
		;
	if (i != len || (len & 3) != 0 || len - data > 2 ||
	    (len - data > 0 && (data & 3) + (len - data) != 4))
		return PA_EDECODE;
	if ((rc = codec_b64(out, in, data)) != 0) {
		sbuf_setlen(out, start);
		return rc;
	}
	return 0;
}

int
codec_b64_encode(struct sbuf *out, const void *in, size_t len)
{
	static const char abc[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char *p = in;
	unsigned v;
	size_t i;
	char *o;

	if (len > (SBUF_NOMAX - 4) / 4 * 3 - 3)
		return PA_ETOOBIG;
	if (sbuf_grow(out, (len + 2) / 3 * 4) != 0)
		return out->failed;
	o = out->buf + out->len;
	for (i = 0; i + 2 < len; i += 3) {
		v = (unsigned)p[i] << 16 | (unsigned)p[i + 1] << 8 | p[i + 2];
		*o++ = abc[v >> 18];
		*o++ = abc[v >> 12 & 63];
		*o++ = abc[v >> 6 & 63];
		*o++ = abc[v & 63];
	}
	if (i < len) {
		v = (unsigned)p[i] << 16 |
		    (i + 1 < len ? (unsigned)p[i + 1] << 8 : 0);
		*o++ = abc[v >> 18];
		*o++ = abc[v >> 12 & 63];
		*o++ = i + 1 < len ? abc[v >> 6 & 63] : '=';
		*o++ = '=';
	}
	out->len = (size_t)(o - out->buf);
	out->buf[out->len] = '\0';
	return 0;
}
