/* SPDX-License-Identifier: BSD-2-Clause */
#include "config.h"

#include <errno.h>
#include <iconv.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "patchattest.h"
#include "charset.h"

static int	 utf_same(const char *, const char *);
static iconv_t	 charset_open(struct charset_conv *, const char *, int *);
static int	 is_ascii(const char *, size_t);
static int	 ascii_converts_to_itself(iconv_t);

#define NO_ICONV	((iconv_t)-1)

void
charset_conv_init(struct charset_conv *cc, size_t max)
{
	memset(cc->slot, 0, sizeof(cc->slot));
	cc->next = 0;
	sbuf_init(&cc->tmp, max);
}

void
charset_conv_release(struct charset_conv *cc)
{
	unsigned i;

	for (i = 0; i < CHARSET_SLOTS; i++)
		if (cc->slot[i].label[0] && cc->slot[i].cd != NULL)
			iconv_close((iconv_t)cc->slot[i].cd);
	memset(cc->slot, 0, sizeof(cc->slot));
	sbuf_release(&cc->tmp);
}

/* utf_same - both labels start "utf" and agree after one optional '-' */
static int
utf_same(const char *a, const char *b)
{
	if (strncasecmp(a, "utf", 3) != 0 || strncasecmp(b, "utf", 3) != 0)
		return 0;
	a += 3;
	b += 3;
	if (*a == '-')
		a++;
	if (*b == '-')
		b++;
	return strcasecmp(a, b) == 0;
}

int
charset_is_utf8(const char *label)
{
	return utf_same("UTF-8", label) || strcasecmp("UTF-8", label) == 0;
}

static int
is_ascii(const char *s, size_t len)
{
	uint64_t w, acc = 0;
	size_t i = 0;

	for (; i + 8 <= len; i += 8) {
		memcpy(&w, s + i, 8);
		acc |= w;
	}
	for (; i < len; i++)
		acc |= (unsigned char)s[i];
	return (acc & 0x8080808080808080ull) == 0;
}

/*
 * ascii_converts_to_itself - whether every ASCII byte, NUL included, comes
 * out of the converter unchanged: true of ASCII supersets, false of UTF-16,
 * UTF-7, ISO-2022 and the like.  Such a charset needs no iconv() call for
 * a line of ASCII, the common case of a declared "us-ascii" or Latin-1.
 */
static int
ascii_converts_to_itself(iconv_t cd)
{
	char in[128], out[512], *ip = in, *op = out;
	size_t inleft = sizeof(in), outleft = sizeof(out);
	int c;

	for (c = 0; c < 128; c++)
		in[c] = (char)c;
	if (iconv(cd, &ip, &inleft, &op, &outleft) == (size_t)-1 ||
	    (size_t)(op - out) != sizeof(in) ||
	    memcmp(in, out, sizeof(in)) != 0) {
		iconv(cd, NULL, NULL, NULL, NULL);
		return 0;
	}
	iconv(cd, NULL, NULL, NULL, NULL);
	return 1;
}

/*
 * charset_open - a converter from label to UTF-8, cached.  git retries a
 * failed iconv_open() with the official spelling of UTF-8 and Latin-1.
 */
static iconv_t
charset_open(struct charset_conv *cc, const char *label, int *ascii_same)
{
	struct charset_slot *s;
	const char *fallback;
	iconv_t cd;
	unsigned i;

	for (i = 0; i < CHARSET_SLOTS; i++) {
		s = &cc->slot[i];
		if (s->label[0] && strcmp(s->label, label) == 0) {
			if (s->cd == NULL)
				return NO_ICONV;
			*ascii_same = s->ascii_same;
			/* Back to the initial shift state, as a fresh open. */
			iconv((iconv_t)s->cd, NULL, NULL, NULL, NULL);
			return (iconv_t)s->cd;
		}
	}
	cd = iconv_open("UTF-8", label);
	if (cd == NO_ICONV) {
		fallback = label;
		if (utf_same("utf-8", label))
			fallback = "UTF-8";
		else if (strcasecmp(label, "latin-1") == 0)
			fallback = "ISO-8859-1";
		cd = iconv_open("UTF-8", fallback);
	}
	*ascii_same = 0;
	if (strlen(label) >= CHARSET_LABEL_MAX)
		return cd;	/* too odd to cache; caller closes it */
	s = &cc->slot[cc->next];
	cc->next = (cc->next + 1) % CHARSET_SLOTS;
	if (s->label[0] && s->cd != NULL)
		iconv_close((iconv_t)s->cd);
	memcpy(s->label, label, strlen(label) + 1);
	s->cd = cd == NO_ICONV ? NULL : (void *)cd;
	s->ascii_same = cd != NO_ICONV && ascii_converts_to_itself(cd);
	*ascii_same = s->ascii_same;
	return cd;
}

int
charset_conv_utf8(struct charset_conv *cc, struct sbuf *text,
    const char *label, int *changed)
{
	iconv_t cd;
	char *in, *out;
	size_t inleft, outleft, r;
	int rc = 0, cached, ascii_same;

	*changed = 0;
	if (label[0] == '\0' || charset_is_utf8(label))
		return 0;
	cd = charset_open(cc, label, &ascii_same);
	if (cd == NO_ICONV)
		return PA_ECHARSET;
	cached = strlen(label) < CHARSET_LABEL_MAX;
	if (ascii_same && is_ascii(text->buf, text->len)) {
		if (!cached)
			iconv_close(cd);
		return 0;
	}

	sbuf_reset(&cc->tmp);
	in = text->buf;
	inleft = text->len;
	for (;;) {
		if ((rc = sbuf_grow(&cc->tmp, inleft * 2 + 16)) != 0)
			break;
		out = cc->tmp.buf + cc->tmp.len;
		outleft = cc->tmp.alloc - cc->tmp.len - 1;
		r = iconv(cd, &in, &inleft, &out, &outleft);
		cc->tmp.len = (size_t)(out - cc->tmp.buf);
		cc->tmp.buf[cc->tmp.len] = '\0';
		if (r != (size_t)-1)
			break;
		if (errno != E2BIG) {
			rc = PA_EDECODE;
			break;
		}
	}
	if (!cached)
		iconv_close(cd);
	if (rc != 0)
		return rc;
	if (cc->tmp.len != text->len ||
	    memcmp(cc->tmp.buf, text->buf, text->len) != 0) {
		*changed = 1;
		sbuf_reset(text);
		if ((rc = sbuf_add(text, cc->tmp.buf, cc->tmp.len)) != 0)
			return rc;
	}
	return 0;
}
