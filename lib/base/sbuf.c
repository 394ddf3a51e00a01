/* SPDX-License-Identifier: BSD-2-Clause */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "patchattest.h"
#include "sbuf.h"

#define SBUF_READ_CHUNK	(64 * 1024)

/* Shared by every empty buffer, so that buf is never NULL; never written. */
static char sbuf_empty[1];

void
sbuf_init(struct sbuf *sb, size_t max)
{
	sb->buf = sbuf_empty;
	sb->len = 0;
	sb->alloc = 0;
	sb->max = max;
	sb->failed = 0;
}

void
sbuf_release(struct sbuf *sb)
{
	if (sb->alloc)
		free(sb->buf);
	sbuf_init(sb, sb->max);
}

void
sbuf_reset(struct sbuf *sb)
{
	sb->len = 0;
	sb->failed = 0;
	if (sb->alloc)
		sb->buf[0] = '\0';
}

int
sbuf_grow(struct sbuf *sb, size_t extra)
{
	size_t want, alloc;
	char *p;

	if (sb->failed)
		return sb->failed;
	if (extra > sb->max || sb->len > sb->max - extra)
		return sb->failed = PA_ETOOBIG;
	want = sb->len + extra + 1;
	if (want <= sb->alloc)
		return 0;
	alloc = sb->alloc ? sb->alloc : 64;
	while (alloc < want)
		alloc = alloc > ((size_t)-1) / 2 ? want : alloc * 2;
	p = realloc(sb->alloc ? sb->buf : NULL, alloc);
	if (p == NULL)
		return sb->failed = PA_ENOMEM;
	if (!sb->alloc)
		p[0] = '\0';
	sb->buf = p;
	sb->alloc = alloc;
	return 0;
}

int
sbuf_add(struct sbuf *sb, const void *data, size_t len)
{
	int rc;

	if (len == 0)
		return sb->failed;
	if ((rc = sbuf_grow(sb, len)) != 0)
		return rc;
	memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
	return 0;
}

int
sbuf_addch(struct sbuf *sb, int c)
{
	int rc;

	if ((rc = sbuf_grow(sb, 1)) != 0)
		return rc;
	sb->buf[sb->len++] = (char)c;
	sb->buf[sb->len] = '\0';
	return 0;
}

int
sbuf_addstr(struct sbuf *sb, const char *s)
{
	return sbuf_add(sb, s, strlen(s));
}

/*
 * sbuf_addf - formatted into the room the buffer has, and formatted again
 * only when that was too small: most texts fit, and are formatted once
 */
int
sbuf_addf(struct sbuf *sb, const char *fmt, ...)
{
	size_t room = sb->alloc - sb->len;	/* 0 for sbuf_empty */
	va_list ap;
	int n, rc;

	if (sb->failed)
		return sb->failed;
	va_start(ap, fmt);
	n = vsnprintf(room ? sb->buf + sb->len : NULL, room, fmt, ap);
	va_end(ap);
	if (n < 0)
		rc = sb->failed = PA_ERROR;
	else if ((rc = sbuf_grow(sb, (size_t)n)) == 0) {
		if ((size_t)n >= room) {
			va_start(ap, fmt);
			vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
			va_end(ap);
		}
		sb->len += (size_t)n;
		return 0;
	}
	/* what did not fit or failed is cut off again */
	if (sb->alloc)
		sb->buf[sb->len] = '\0';
	return rc;
}

/* sbuf_setlen - shorten (never lengthen) the contents */
void
sbuf_setlen(struct sbuf *sb, size_t len)
{
	if (len >= sb->len)
		return;
	sb->len = len;
	sb->buf[len] = '\0';
}

/* sbuf_detach - hand the contents to the caller (free() them); sb is reset */
char *
sbuf_detach(struct sbuf *sb, size_t *lenp)
{
	char *p;

	if (lenp)
		*lenp = sb->len;
	if (!sb->alloc) {
		p = malloc(1);
		if (p)
			p[0] = '\0';
	} else
		p = sb->buf;
	sbuf_init(sb, sb->max);
	return p;
}

int
sbuf_read_fd(struct sbuf *sb, int fd)
{
	size_t room, want;
	ssize_t n;
	char extra;
	int rc;

	for (;;) {
		room = sb->max - sb->len;
		if (room == 0) {
			/* Full: one more byte means the input is too big. */
			if ((n = read(fd, &extra, 1)) > 0)
				return PA_ETOOBIG;
		} else {
			want = room < SBUF_READ_CHUNK ? room : SBUF_READ_CHUNK;
			if ((rc = sbuf_grow(sb, want)) != 0)
				return rc;
			if ((n = read(fd, sb->buf + sb->len, want)) > 0) {
				sb->len += (size_t)n;
				sb->buf[sb->len] = '\0';
				continue;
			}
		}
		if (n == 0)
			return 0;
		if (errno != EINTR)
			return PA_ERROR;
	}
}
