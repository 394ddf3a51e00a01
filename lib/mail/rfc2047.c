/* SPDX-License-Identifier: BSD-2-Clause */
#include "config.h"

#include <string.h>

#include "patchattest.h"
#include "base.h"
#include "rfc2047.h"

static int	all_blank(const char *, const char *);

/* all_blank - only git whitespace (SP, HT, LF, CR) in [p, end) */
static int
all_blank(const char *p, const char *end)
{
	for (; p < end; p++)
		if (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')
			return 0;
	return 1;
}

int
rfc2047_decode(struct sbuf *out, const char *value, size_t len,
    struct charset_conv *conv, struct sbuf *scratch, int *converted,
    const char **why)
{
	const char *in, *end, *ep, *q, *text, *close;
	char label[CHARSET_LABEL_MAX * 4];
	size_t labellen;
	int changed, rc;

	*converted = 0;
	if ((ep = memchr(value, '\0', len)) != NULL)
		len = (size_t)(ep - value);
	in = value;
	end = value + len;
	while (in < end && (ep = memmem(in, (size_t)(end - in), "=?", 2))) {
		/* Blank text between two words is dropped, all else kept. */
		if (in != ep && (in == value || !all_blank(in, ep)))
			sbuf_add(out, in, (size_t)(ep - in));
		ep += 2;
		if (ep >= end ||
		    (q = memchr(ep, '?', (size_t)(end - ep))) == NULL ||
		    q + 3 > end || q[2] != '?') {
			*why = "malformed encoded word";
			return PA_EMAILINFO;
		}
		text = q + 3;
		close = memmem(text, (size_t)(end - text), "?=", 2);
		if (close == NULL) {
			*why = "unterminated encoded word";
			return PA_EMAILINFO;
		}
		sbuf_reset(scratch);
		switch (q[1]) {
		case 'b':
		case 'B':
			codec_b64(scratch, text, (size_t)(close - text));
			break;
		case 'q':
		case 'Q':
			codec_qp_line(scratch, text, (size_t)(close - text), 1);
			break;
		default:
			*why = "unknown encoding in encoded word";
			return PA_EMAILINFO;
		}
		if (conv != NULL) {
			labellen = (size_t)(q - ep);
			if (labellen >= sizeof(label)) {
				*why = "cannot convert encoded word: charset name too long";
				return PA_EMAILINFO;
			}
			memcpy(label, ep, labellen);
			label[labellen] = '\0';
			rc = charset_conv_utf8(conv, scratch, label, &changed);
			if (rc != 0) {
				*why = "cannot convert encoded word to UTF-8";
				return rc;
			}
			*converted |= changed;
		}
		sbuf_add(out, scratch->buf, scratch->len);
		in = close + 2;
	}
	if (in < end)
		sbuf_add(out, in, (size_t)(end - in));
	if (sbuf_failed(scratch))
		return sbuf_failed(scratch);
	return sbuf_failed(out);
}
