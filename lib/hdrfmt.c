#include "config.h"

#include <string.h>

#include "hdrfmt.h"

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
