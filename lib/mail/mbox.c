/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * mbox - split an in-memory mbox into messages the way Python's
 * mailbox.mbox does (see mbox.h).
 */
#include "config.h"

#include <string.h>

#include "mbox.h"

static int	mbox_is_from(const struct mbox *, size_t);
static size_t	mbox_eol(const struct mbox *, size_t);

/* mbox_is_from - does the line starting at off begin with "From "? */
static int
mbox_is_from(const struct mbox *mb, size_t off)
{
	return mb->len - off >= 5 && memcmp(mb->data + off, "From ", 5) == 0;
}

/* mbox_eol - the offset just past the line starting at off */
static size_t
mbox_eol(const struct mbox *mb, size_t off)
{
	const char *nl;

	nl = memchr(mb->data + off, '\n', mb->len - off);
	return nl == NULL ? mb->len : (size_t)(nl - mb->data) + 1;
}

void
mbox_init(struct mbox *mb, const void *data, size_t len)
{
	size_t off;

	mb->data = data;
	mb->len = len;
	for (off = 0; off < len && !mbox_is_from(mb, off);)
		off = mbox_eol(mb, off);
	mb->pos = off;
}

int
mbox_next(struct mbox *mb, const char **msg, size_t *len)
{
	size_t start, off, next, end;
	int blank;

	if (mb->pos >= mb->len)
		return 0;
	start = mbox_eol(mb, mb->pos);
	blank = 0;
	for (off = start; off < mb->len; off = next) {
		if (mbox_is_from(mb, off))
			break;
		next = mbox_eol(mb, off);
		/* Only a lone LF counts as the separating blank line. */
		blank = next - off == 1 && mb->data[off] == '\n';
	}
	end = blank ? off - 1 : off;
	mb->pos = off;
	*msg = mb->data + start;
	*len = end - start;
	return 1;
}
