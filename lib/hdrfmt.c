#include "config.h"

#include <string.h>

#include "hdrfmt.h"
#include "pytext.h"

static int	printable(const unsigned char *, size_t, int);

void
hdrfmt_quoted(struct sbuf *out, const char *s)
{
	sbuf_addch(out, '"');
	for (; *s; s++) {
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			continue;
		if (*s == '"' || *s == '\\')
			sbuf_addch(out, '\\');
		sbuf_addch(out, *s);
	}
	sbuf_addch(out, '"');
}

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
hdrfmt_escaped(struct sbuf *out, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i, k, n;
	int valid;

	for (i = 0; i < len; i += n) {
		n = pytext_utf8_char(p + i, len - i, &valid);
		if (printable(p + i, n, valid))
			sbuf_add(out, p + i, n);
		else if (p[i] == '\\')
			sbuf_addstr(out, "\\\\");
		else
			for (k = 0; k < n; k++)
				sbuf_addf(out, "\\x%02x", p[i + k]);
	}
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
