/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sbuf - the one growable byte buffer of patchattest.
 *
 * Invariants: buf is never NULL and always NUL-terminated (buf[len] == 0),
 * the contents are binary-safe, and the buffer never grows past max bytes
 * of content.  A buffer starts empty without allocating (sbuf_init), owns
 * its memory until sbuf_release() or sbuf_detach().
 *
 * Growth failures are sticky: the failing call returns PA_ETOOBIG (cap
 * reached) or PA_ENOMEM, leaves the contents as they were, and marks the
 * buffer; later additions are ignored and sbuf_failed() reports the first
 * failure.  Callers that append many pieces may check once at the end.
 */
#ifndef PA_SBUF_H
#define PA_SBUF_H

#include <stddef.h>

struct sbuf {
	char	*buf;
	size_t	 len;
	size_t	 alloc;
	size_t	 max;		/* content cap in bytes */
	int	 failed;	/* 0, or the first error code */
};

#define SBUF_NOMAX	((size_t)-1)

void	sbuf_init(struct sbuf *, size_t max);
void	sbuf_release(struct sbuf *);
void	sbuf_reset(struct sbuf *);
int	sbuf_grow(struct sbuf *, size_t extra);
int	sbuf_add(struct sbuf *, const void *, size_t);
int	sbuf_addch(struct sbuf *, int);
int	sbuf_addstr(struct sbuf *, const char *);
int	sbuf_addf(struct sbuf *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
void	sbuf_setlen(struct sbuf *, size_t);
char	*sbuf_detach(struct sbuf *, size_t *lenp);
/*
 * sbuf_read_fd - the rest of fd appended, up to max bytes of content: 0 at
 * its end, PA_ETOOBIG when fd holds more, PA_ENOMEM, or PA_ERROR with
 * errno from read()
 */
int	sbuf_read_fd(struct sbuf *, int fd);

/* sbuf_failed - 0 while every addition succeeded, else the first error */
static inline int
sbuf_failed(const struct sbuf *sb)
{
	return sb->failed;
}

#endif
