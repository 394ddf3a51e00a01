/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * archive-mbox - an mbox file read as an archive (see archive.h).
 *
 * Messages are split as lib/mail/mbox.c splits them (Python's mailbox.mbox),
 * each an ARCHIVE_ADD; a message over ARCHIVE_MAX_ENTRY is an
 * ARCHIVE_SKIP.  The file is read with pread() into a window that holds
 * at least the current message, never mapped: a file cut short by another
 * program while it is read is an error, not a SIGBUS.  Only the bytes up
 * to the size the file had at archive_open() are read.
 *
 * Mark "mbox": "OFFSET:SIZE:INODE:TAIL" -- where the next message starts
 * (a "From " line, or the end), the file's size and inode number when it
 * was read, and a hash (FNV-1a, 64 bits, hex) of the up to MB_TAIL bytes
 * before OFFSET.  The next run reads on from OFFSET when the file is the
 * same inode, is no smaller, still has those bytes before OFFSET and a
 * "From " line (or the end) at it: it has grown by appending.  Anything
 * else (replaced, shrunk, rewritten, a message that was still being
 * written) is read again from the start; storing is idempotent.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "archive-int.h"
#include "mail.h"

#define MB_CHUNK	(1u << 20)	/* bytes read at a time */
#define MB_WINDOW_MAX	((size_t)ARCHIVE_MAX_ENTRY + MB_CHUNK)
#define MB_TAIL		64		/* bytes before the mark, hashed */
#define MB_MARK		"mbox"

struct mbx {
	int		 fd;
	uint64_t	 size;		/* at archive_open(): read up to here */
	uint64_t	 ino;
	uint64_t	 pos;		/* the next "From " line, or size */
	int		 midline;	/* pos is inside a line */
	char		*buf;		/* the window is buf + wbeg ... */
	size_t		 balloc;
	size_t		 wbeg;
	size_t		 wlen;		/* ... the bytes [woff, woff + wlen) */
	uint64_t	 woff;
};

static int	mb_probe(const char *);
static int	mb_open(struct archive *, struct pa_err *);
static int	mb_next(struct archive *, struct archive_entry *,
		    struct pa_err *);
static void	mb_close(struct archive *);

static uint64_t	mb_fnv(const void *, size_t);
static int	mb_pread(struct archive *, void *, size_t, uint64_t,
		    struct pa_err *);
static const char *mb_win(const struct mbx *);
static void	mb_drop(struct mbx *, uint64_t);
static int	mb_more(struct archive *, size_t, struct pa_err *);
static int	mb_find(struct archive *, struct pa_err *);
static int	mb_tail(struct archive *, uint64_t, uint64_t *,
		    struct pa_err *);
static int	mb_mark(struct archive *, struct pa_err *);
static int	mb_field(const char **, uint64_t *, int);
static int	mb_resume(struct archive *, uint64_t *, struct pa_err *);

const struct archive_kind archive_mbox_kind = {
	"mbox",
	"an mbox file",
	mb_probe, mb_open, mb_next, mb_close
};

static int
mb_probe(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* mb_fnv - FNV-1a, 64 bits */
static uint64_t
mb_fnv(const void *p, size_t len)
{
	const unsigned char *s = p;
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= s[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* mb_pread - exactly len bytes at off, or an error (the file shrank) */
static int
mb_pread(struct archive *a, void *buf, size_t len, uint64_t off,
    struct pa_err *err)
{
	struct mbx *st = a->priv;
	char *p = buf;
	ssize_t r;

	while (len > 0) {
		r = pread(st->fd, p, len, (off_t)off);
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1) {
			pa_err_set(err, "mbox %s: %s", a->path,
			    strerror(errno));
			return PA_ERROR;
		}
		if (r == 0) {
			pa_err_set(err, "mbox %s was cut short while it was "
			    "read", a->path);
			return PA_ERROR;
		}
		p += r;
		len -= (size_t)r;
		off += (uint64_t)r;
	}
	return 0;
}

/* mb_win - the window's first byte (valid until mb_more) */
static const char *
mb_win(const struct mbx *st)
{
	return st->buf != NULL ? st->buf + st->wbeg : "";
}

/*
 * mb_drop - the window starts at off, forgetting the bytes before it
 * (moved out of the buffer only by mb_more, once per read)
 */
static void
mb_drop(struct mbx *st, uint64_t off)
{
	uint64_t skip;

	if (off <= st->woff)
		return;
	skip = off - st->woff;
	if (skip >= st->wlen) {
		st->wbeg = st->wlen = 0;
	} else {
		st->wbeg += (size_t)skip;
		st->wlen -= (size_t)skip;
	}
	st->woff = off;
}

/* mb_more - up to n more bytes into the window (fewer at the end) */
static int
mb_more(struct archive *a, size_t n, struct pa_err *err)
{
	struct mbx *st = a->priv;
	uint64_t end = st->woff + st->wlen;
	size_t alloc;
	char *p;
	int rc;

	if (st->size - end < n)
		n = (size_t)(st->size - end);
	if (n == 0)
		return 0;
	if (st->wbeg > 0) {
		memmove(st->buf, st->buf + st->wbeg, st->wlen);
		st->wbeg = 0;
	}
	if (st->balloc - st->wlen < n) {
		alloc = st->wlen + n;
		if ((p = realloc(st->buf, alloc)) == NULL) {
			pa_err_set(err, "mbox %s: %s", a->path,
			    pa_strerror(PA_ENOMEM));
			return PA_ENOMEM;
		}
		st->buf = p;
		st->balloc = alloc;
	}
	if ((rc = mb_pread(a, st->buf + st->wlen, n, end, err)) != 0)
		return rc;
	st->wlen += n;
	return 0;
}

/*
 * mb_find - move pos on to the next line starting with "From " (or the
 * end).  pos is at the start of a line unless midline.
 */
static int
mb_find(struct archive *a, struct pa_err *err)
{
	struct mbx *st = a->priv;
	const char *w, *nl;
	struct mbox mb;
	int rc;

	for (;;) {
		mb_drop(st, st->pos);
		if (st->wlen < MB_CHUNK &&
		    (rc = mb_more(a, MB_CHUNK, err)) != 0)
			return rc;
		w = mb_win(st);
		if (st->wlen == 0) {
			st->pos = st->size;
			st->midline = 0;
			return 0;
		}
		if (st->midline) {
			/* Only a "From " after a newline counts. */
			nl = memchr(w, '\n', st->wlen);
			st->midline = nl == NULL;
			st->pos = st->woff + (nl == NULL ? st->wlen :
			    (size_t)(nl - w) + 1);
			continue;
		}
		/* mbox_init() skips what is before the first "From " line. */
		mbox_init(&mb, w, st->wlen);
		if (mb.pos < st->wlen) {
			st->pos = st->woff + mb.pos;
			return 0;
		}
		if (st->woff + st->wlen == st->size) {
			st->pos = st->size;
			return 0;
		}
		/* Keep the last line: it may be the start of a "From " line. */
		nl = memrchr(w, '\n', st->wlen);
		st->midline = nl == NULL;
		st->pos = st->woff + (nl == NULL ? st->wlen :
		    (size_t)(nl - w) + 1);
	}
}

/* mb_tail - the hash of the MB_TAIL bytes (or fewer) before off */
static int
mb_tail(struct archive *a, uint64_t off, uint64_t *h, struct pa_err *err)
{
	struct mbx *st = a->priv;
	char buf[MB_TAIL];
	size_t n;
	int rc;

	n = off < MB_TAIL ? (size_t)off : MB_TAIL;
	if (n == 0) {
		*h = mb_fnv("", 0);
		return 0;
	}
	if (off - n >= st->woff && off <= st->woff + st->wlen) {
		*h = mb_fnv(mb_win(st) + (off - n - st->woff), n);
		return 0;
	}
	if ((rc = mb_pread(a, buf, n, off - n, err)) != 0)
		return rc;
	*h = mb_fnv(buf, n);
	return 0;
}

/* mb_mark - the mark for "every message before pos is out" */
static int
mb_mark(struct archive *a, struct pa_err *err)
{
	struct mbx *st = a->priv;
	char v[sizeof(((struct archive_mark *)0)->value)];
	uint64_t h;
	int rc;

	if ((rc = mb_tail(a, st->pos, &h, err)) != 0)
		return rc;
	snprintf(v, sizeof(v), "%" PRIu64 ":%" PRIu64 ":%" PRIu64 ":%016"
	    PRIx64, st->pos, st->size, st->ino, h);
	if (archive_mark_set(a, MB_MARK, v) != 0) {
		pa_err_set(err, "mbox %s: %s", a->path,
		    pa_strerror(PA_ENOMEM));
		return PA_ENOMEM;
	}
	return 0;
}

/* mb_field - a number (base 10 or 16) ending at ':' or the end of s */
static int
mb_field(const char **s, uint64_t *v, int base)
{
	const char *p = *s;
	unsigned d;
	size_t i;

	*v = 0;
	for (i = 0; p[i] != '\0' && p[i] != ':'; i++) {
		if (p[i] >= '0' && p[i] <= '9')
			d = (unsigned)(p[i] - '0');
		else if (base == 16 && p[i] >= 'a' && p[i] <= 'f')
			d = (unsigned)(p[i] - 'a' + 10);
		else
			return -1;
		if (d >= (unsigned)base ||
		    *v > (UINT64_MAX - d) / (unsigned)base)
			return -1;
		*v = *v * (unsigned)base + d;
	}
	if (i == 0)
		return -1;
	*s = p + i + (p[i] == ':');
	return 0;
}

/*
 * mb_resume - where to start: the mark's offset when the file has only
 * grown since (see the top of the file), else 0
 */
static int
mb_resume(struct archive *a, uint64_t *start, struct pa_err *err)
{
	struct mbx *st = a->priv;
	uint64_t off, size, ino, tail, h;
	const char *in;
	char b[8];
	size_t n;
	int rc;

	*start = 0;
	if ((in = archive_mark_in(a, MB_MARK)) == NULL ||
	    mb_field(&in, &off, 10) != 0 || mb_field(&in, &size, 10) != 0 ||
	    mb_field(&in, &ino, 10) != 0 || mb_field(&in, &tail, 16) != 0 ||
	    *in != '\0')
		return 0;
	if (ino != st->ino || size > st->size || off > size)
		return 0;
	if ((rc = mb_tail(a, off, &h, err)) != 0)
		return rc;
	if (h != tail)
		return 0;
	if (off == st->size || off == 0) {
		*start = off;
		return 0;
	}
	if (off < 2)
		return 0;
	/*
	 * Appended: a "From " line at off; or a blank line, then one, when
	 * the last message did not end with a blank line of its own (so
	 * that the split of the whole file gives the bytes read then).
	 */
	n = st->size - off + 2 < sizeof(b) ? (size_t)(st->size - off + 2) :
	    sizeof(b);
	if ((rc = mb_pread(a, b, n, off - 2, err)) != 0)
		return rc;
	if (n >= 7 && memcmp(b + 1, "\nFrom ", 6) == 0)
		*start = off;
	else if (n == 8 && b[0] != '\n' && memcmp(b + 1, "\n\nFrom ", 7) == 0)
		*start = off + 1;
	return 0;
}

static int
mb_open(struct archive *a, struct pa_err *err)
{
	struct mbx *st;
	struct stat sb;
	uint64_t start;
	int rc;

	if ((st = calloc(1, sizeof(*st))) == NULL) {
		pa_err_set(err, "mbox %s: %s", a->path,
		    pa_strerror(PA_ENOMEM));
		return PA_ENOMEM;
	}
	a->priv = st;
	st->fd = -1;
	if ((st->fd = open(a->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) == -1 ||
	    fstat(st->fd, &sb) == -1) {
		pa_err_set(err, "mbox %s: %s", a->path, strerror(errno));
		return PA_ERROR;
	}
	if (!S_ISREG(sb.st_mode)) {
		pa_err_set(err, "mbox %s is not a regular file", a->path);
		return PA_ERROR;
	}
	st->size = (uint64_t)sb.st_size;
	st->ino = (uint64_t)sb.st_ino;
	if ((rc = mb_resume(a, &start, err)) != 0)
		return rc;
	st->pos = st->woff = start;
	if (start == 0 && (rc = mb_find(a, err)) != 0)
		return rc;
	return mb_mark(a, err);
}

static int
mb_next(struct archive *a, struct archive_entry *e, struct pa_err *err)
{
	struct mbx *st = a->priv;
	const char *w, *msg, *nl;
	struct mbox mb;
	size_t len, grow;
	int rc;

	if (st->pos >= st->size)
		return 0;
	archive_where(e, "mbox:%" PRIu64, st->pos);
	mb_drop(st, st->pos);
	if (st->wlen == 0 && (rc = mb_more(a, MB_CHUNK, err)) != 0)
		return rc;
	for (;;) {
		/* The window starts at this message's "From " line. */
		w = mb_win(st);
		mbox_init(&mb, w, st->wlen);
		if (mb.pos != 0 || !mbox_next(&mb, &msg, &len)) {
			pa_err_set(err, "mbox %s changed while it was read "
			    "(no \"From \" line at offset %" PRIu64 ")",
			    a->path, st->pos);
			return PA_ERROR;
		}
		if (mb.pos < st->wlen || st->woff + st->wlen == st->size) {
			if (len > ARCHIVE_MAX_ENTRY)
				archive_skip(e, "message of %zu bytes, over "
				    "the limit of %u", len, ARCHIVE_MAX_ENTRY);
			else {
				e->op = ARCHIVE_ADD;
				e->data = msg;
				e->len = len;
			}
			st->pos = st->woff + mb.pos;
			break;
		}
		if (len > ARCHIVE_MAX_ENTRY || st->wlen >= MB_WINDOW_MAX) {
			archive_skip(e, "message over the limit of %u bytes",
			    ARCHIVE_MAX_ENTRY);
			/* Look for the next message from the last line. */
			nl = memrchr(w, '\n', st->wlen);
			st->midline = nl == NULL;
			st->pos = st->woff + (nl == NULL ? st->wlen :
			    (size_t)(nl - w) + 1);
			if ((rc = mb_find(a, err)) != 0)
				return rc;
			break;
		}
		/* Not all of it yet: twice the window, to rescan little. */
		grow = st->wlen < MB_CHUNK ? MB_CHUNK : st->wlen;
		if (grow > MB_WINDOW_MAX - st->wlen)
			grow = MB_WINDOW_MAX - st->wlen;
		if ((rc = mb_more(a, grow, err)) != 0)
			return rc;
	}
	if ((rc = mb_mark(a, err)) != 0)
		return rc;
	return 1;
}

static void
mb_close(struct archive *a)
{
	struct mbx *st = a->priv;

	if (st == NULL)
		return;
	if (st->fd != -1)
		close(st->fd);
	free(st->buf);
	free(st);
	a->priv = NULL;
}
