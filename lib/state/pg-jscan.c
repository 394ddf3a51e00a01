/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pg-jscan.c - reading StateDatabase's journal (see pg-journal-int.h):
 * its header and its frames, through a window of the file read with
 * pread(), into the ring of unsent entries; what is no trusted frame
 * counted, set aside in PATH-damaged beside it, and said.  Also
 * journal_check(), the same reading without a change, for -n.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pg-journal-int.h"

#define WINDOW		((size_t)1 << 16)	/* at least JFRAME_MAX * 2 */
#define ASIDE_SUFFIX	"-damaged"

/* A reading of one file. */
struct scan {
	struct journal	*j;		/* key; ring and dirfd when filling */
	int		 fill;		/* into the ring, damage set aside */
	int		 fd;
	uint64_t	 size;
	int		 live;		/* being written: an end unfinished */
	unsigned char	*buf;		/* the window: [at, at + len) */
	uint64_t	 at;
	size_t		 len;
	struct arrival	*a;
	uint64_t	 last;		/* the last sequence number trusted */
	uint64_t	 bad_from;	/* the damage being passed, if bad */
	int		 bad;
	uint64_t	 entries, bytes;	/* trusted, unsent */
	struct jdamage	*d;
	struct pa_err	*err;
};

/* view - the file from off, up to want bytes (fewer at its end), in
   s->buf: the pointer and *avail; NULL when it cannot be read */
static const unsigned char *
view(struct scan *s, uint64_t off, size_t want, size_t *avail)
{
	ssize_t r;

	if (off < s->at || off > s->at + s->len ||
	    (off + want > s->at + s->len && s->at + s->len < s->size)) {
		if ((r = jpread(s->fd, s->buf, WINDOW, off)) < 0)
			return NULL;
		s->at = off;
		s->len = (size_t)r;
	}
	*avail = (size_t)(s->at + s->len - off);
	return s->buf + (off - s->at);
}

static int
aside_open(struct journal *j, struct pa_err *err)
{
	char name[4096];
	struct stat st;

	if ((size_t)snprintf(name, sizeof(name), "%s" ASIDE_SUFFIX,
	    j->name) >= sizeof(name))
		return jfail(j, err, "cannot set aside the damage of",
		    strerror(ENAMETOOLONG));
	j->aside = openat(j->dirfd, name, O_WRONLY | O_APPEND | O_CREAT |
	    O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0600);
	if (j->aside < 0)
		return jfail(j, err, "cannot set aside the damage of",
		    errno == ELOOP ? "its -damaged file is a symbolic link "
		    "(not followed)" : NULL);
	if (fstat(j->aside, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(j->aside);
		j->aside = -1;
		return jfail(j, err, "cannot set aside the damage of",
		    "its -damaged file is not a regular file");
	}
	return 0;
}

int
jaside_put(struct journal *j, const void *p, size_t n, struct jdamage *d,
    struct pa_err *err)
{
	struct stat st;
	ssize_t w;
	size_t done = 0;

	if (j->aside < 0 && aside_open(j, err) != 0)
		return PA_ERROR;
	if (fstat(j->aside, &st) != 0 ||
	    (uint64_t)st.st_size + n > JASIDE_CAP) {
		d->unkept += n;		/* counted, and said, not kept */
		return 0;
	}
	while (done < n) {
		w = write(j->aside, (const char *)p + done, n - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return jfail(j, err, "cannot set aside the damage of",
			    NULL);
		done += (size_t)w;
	}
	/* on the disk before the journal forgets them */
	if (fdatasync(j->aside) != 0 || fsync(j->dirfd) != 0)
		return jfail(j, err, "cannot set aside the damage of", NULL);
	return 0;
}

int
jaside(struct journal *j, int fd, uint64_t from, uint64_t to,
    struct jdamage *d, struct pa_err *err)
{
	unsigned char *buf;
	ssize_t r;
	size_t n;
	int rc = 0;

	if ((buf = malloc(WINDOW)) == NULL) {
		pa_err_set(err, "%s", pa_strerror(PA_ENOMEM));
		return PA_ENOMEM;
	}
	while (from < to && rc == 0) {
		n = to - from < WINDOW ? (size_t)(to - from) : WINDOW;
		if ((r = jpread(fd, buf, n, from)) < 0)
			rc = jfail(j, err, "cannot read", NULL);
		else if (r == 0)
			break;		/* cut under us: nothing more to keep */
		else
			rc = jaside_put(j, buf, (size_t)r, d, err);
		from += (uint64_t)(r > 0 ? r : 0);
	}
	free(buf);
	return rc;
}

/* bad_end - the damage being passed ends at to: counted, set aside */
static int
bad_end(struct scan *s, uint64_t to)
{
	if (!s->bad)
		return 0;
	s->bad = 0;
	if (s->d->bytes == 0)
		s->d->first = s->bad_from;
	s->d->bytes += to - s->bad_from;
	if (!s->fill)
		return 0;
	return jaside(s->j, s->fd, s->bad_from, to, s->d, s->err);
}

/*
 * trust - the frame at off (len bytes, seq) into the ring: 1, or 0 when
 * it does not fit in the journal's caps (what is past them is damage
 * too), or -1 (no memory)
 */
static int
trust(struct scan *s, uint64_t off, size_t len, uint64_t seq)
{
	struct jent e = { seq, off, (uint32_t)len, 0 };

	if (s->entries >= JOURNAL_RING || s->bytes + len > JOURNAL_CAP)
		return 0;
	if (s->fill && (jframe_hash(s->a, &e.hash) != 0 ||
	    jring_add(s->j, &e) != 0)) {
		errno = ENOMEM;
		return -1;
	}
	s->entries++;
	s->bytes += len;
	return 1;
}

/* skip - the next place at which a frame may begin after off (p, avail
   bytes of the window there) */
static uint64_t
skip(const struct scan *s, uint64_t off, const unsigned char *p,
    size_t avail)
{
	const unsigned char *q;

	if (avail > 1 && (q = memmem(p + 1, avail - 1, JFRAME_MAGIC, 4)) !=
	    NULL)
		return off + (uint64_t)(q - p);
	if (off + avail >= s->size)
		return s->size;
	return off + avail - 3;		/* a magic across the window's end */
}

/*
 * frames - the frames from off to the end: trusted ones into the ring,
 * the rest damage; *end: the end of the last one trusted
 */
static int
frames(struct scan *s, uint64_t off, uint64_t *end)
{
	const unsigned char *p;
	unsigned char id[JID_LEN];
	enum jframe rc;
	uint64_t seq = 0, prev = 0;
	size_t avail, len = 0;
	int t;

	*end = off;
	while (off < s->size) {
		if ((p = view(s, off, JFRAME_MAX, &avail)) == NULL)
			return jfail(s->j, s->err, "cannot read", NULL);
		if (avail < JFRAME_MAX && off + avail < s->size)
			s->size = off + avail;	/* cut while read */
		if (avail == 0)
			break;
		rc = jframe_read(p, avail, s->j->h.key, &len, &seq, &prev, id,
		    s->a);
		if (rc == JFRAME_SHORT && s->live && !s->bad)
			break;		/* being written */
		if (rc == JFRAME_OK && seq <= s->j->h.sent && !s->bad &&
		    s->last == s->j->h.sent) {
			off += len;	/* sent, and not yet cut away */
			*end = off;
			continue;
		}
		if (rc == JFRAME_OK && seq > s->last &&
		    (t = trust(s, off, len, seq)) != 0) {
			if (t < 0 || bad_end(s, off) != 0)
				return t < 0 ? jfail(s->j, s->err,
				    "cannot read", NULL) : PA_ERROR;
			if (prev != s->last)	/* not left out knowingly */
				s->d->lost += seq - s->last - 1;
			s->last = seq;
			off += len;
			*end = off;
			continue;
		}
		if (!s->bad) {
			s->bad = 1;
			s->bad_from = off;
		}
		off = skip(s, off, p, avail);
	}
	return bad_end(s, s->size);
}

/* head - the newer whole slot of the header into j->h: 0, or -1 */
static int
head(struct scan *s)
{
	unsigned char raw[JSLOT_LEN];
	struct jslot a, b;
	int ha, hb;

	ha = jpread(s->fd, raw, JSLOT_LEN, 0) == JSLOT_LEN &&
	    jslot_decode(raw, &a) == 0;
	hb = jpread(s->fd, raw, JSLOT_LEN, JSLOT_B) == JSLOT_LEN &&
	    jslot_decode(raw, &b) == 0;
	if (!ha && !hb)
		return -1;
	s->j->h = ha && (!hb || a.gen >= b.gen) ? a : b;
	return 0;
}

/* scan_fd - s->fd read as s says, into s->d (and s->j when filling) */
static int
scan_fd(struct scan *s)
{
	struct stat st;
	uint64_t end;
	int rc;

	if (fstat(s->fd, &st) != 0)
		return jfail(s->j, s->err, "cannot read", NULL);
	s->size = (uint64_t)st.st_size;
	if (s->size == 0) {
		s->d->empty = 1;
		return 0;
	}
	if (head(s) != 0) {
		/* without the key nothing in it can be trusted */
		s->d->headless = 1;
		s->bad = 1;
		s->bad_from = 0;
		return bad_end(s, s->size);
	}
	s->last = s->j->h.sent;
	s->d->headcut = s->size < JHEAD;
	if ((s->buf = malloc(WINDOW)) == NULL ||
	    (s->a = malloc(sizeof(*s->a))) == NULL) {
		pa_err_set(s->err, "%s", pa_strerror(PA_ENOMEM));
		return PA_ENOMEM;
	}
	s->at = s->len = 0;
	if ((rc = frames(s, s->j->h.sent_off, &end)) != 0)
		return rc;
	if (s->j->h.synced > s->last)
		s->d->cut = s->j->h.synced - s->last;
	s->j->last_seq = s->last;
	s->j->next_seq = (s->last > s->j->h.synced ? s->last :
	    s->j->h.synced) + 1;
	s->j->end = end;
	return 0;
}

int
jscan_file(struct journal *j, struct jdamage *d, struct pa_err *err)
{
	struct scan s;
	int rc;

	memset(&s, 0, sizeof(s));
	memset(d, 0, sizeof(*d));
	s.j = j;
	s.fill = 1;
	s.fd = j->fd;
	s.d = d;
	s.err = err;
	j->head = j->count = j->live = 0;
	rc = scan_fd(&s);
	free(s.buf);
	free(s.a);
	return rc;
}

/*
 * describe - what d says, after "the journal of arrival records at P";
 * later: the milter has not read it yet (-n)
 */
static void
describe(char *out, size_t size, const struct journal *j,
    const struct jdamage *d, int later)
{
	const char *is = later ? "is" : "was", *aside = later ? "to be set "
	    "aside, when the milter starts, in" : "set aside in";
	int n = 0;

	if (d->empty)
		n = snprintf(out, size, "%s empty: the records it held, if "
		    "any, are lost", is);
	else if (d->headless)
		n = snprintf(out, size, "%s damaged, or not a journal (no "
		    "whole header): none of its %llu bytes can be trusted, %s "
		    "%s" ASIDE_SUFFIX, is, (unsigned long long)d->bytes, aside,
		    j->path);
	else if (d->bytes > 0 && d->converted)
		n = snprintf(out, size, "%s damaged: %llu bytes of the LMDB "
		    "journal of an earlier version, which it was made from, "
		    "are no entry, %s %s" ASIDE_SUFFIX, is,
		    (unsigned long long)d->bytes, aside, j->path);
	else if (d->bytes > 0)
		n = snprintf(out, size, "%s damaged: %llu bytes from offset "
		    "%llu are no entry, %s %s" ASIDE_SUFFIX, is,
		    (unsigned long long)d->bytes, (unsigned long long)d->first,
		    aside, j->path);
	if (d->lost > 0 && n >= 0 && (size_t)n < size)
		n += snprintf(out + n, size - (size_t)n, "%s%llu records %s "
		    "lost", n > 0 ? "; " : "", (unsigned long long)d->lost,
		    n > 0 ? "in them are" : "are missing between its entries: "
		    "damaged,");
	if (d->headcut && n >= 0 && (size_t)n < size)
		n += snprintf(out + n, size - (size_t)n, "%s%s cut short "
		    "inside its header: the records it held, if any, are lost",
		    n > 0 ? "; it " : "", n > 0 ? "was" : is);
	if (d->cut > 0 && n >= 0 && (size_t)n < size)
		n += snprintf(out + n, size - (size_t)n, "%s cut short: %llu "
		    "records synced to it are gone from its end",
		    n > 0 ? "; it was" : is, (unsigned long long)d->cut);
	if (d->unkept > 0 && n >= 0 && (size_t)n < size)
		snprintf(out + n, size - (size_t)n, " (%llu of the bytes "
		    "were not kept: the file of damaged bytes is full)",
		    (unsigned long long)d->unkept);
}

static int
damaged(const struct jdamage *d)
{
	return d->empty || d->headless || d->headcut || d->bytes > 0 ||
	    d->lost > 0 || d->cut > 0;
}

void
jreport(struct journal *j, const struct jdamage *d)
{
	char what[1024], why[1200];

	if (!damaged(d) || j->notice.damaged == NULL)
		return;
	describe(what, sizeof(what), j, d, 0);
	snprintf(why, sizeof(why), "the journal of arrival records at %s %s",
	    j->path, what);
	j->notice.damaged(j->notice.arg, why, d->lost + d->cut,
	    d->bytes - d->unkept);
}

/* check_aside - PATH-damaged, when it holds anything: PA_ERROR */
static int
check_aside(const char *path, struct pa_err *err)
{
	char name[4096];
	struct stat st;

	if ((size_t)snprintf(name, sizeof(name), "%s" ASIDE_SUFFIX, path) >=
	    sizeof(name) || lstat(name, &st) != 0 || st.st_size == 0)
		return 0;
	pa_err_set(err, "%s holds %lld bytes set aside from a damaged journal "
	    "of arrival records: look into them, then remove the file", name,
	    (long long)st.st_size);
	return PA_ERROR;
}

int
journal_check(const char *path, struct pa_err *err)
{
	struct journal j;
	struct jdamage d;
	struct scan s;
	unsigned char probe[32];
	char why[1024];
	struct stat st;
	ssize_t n;
	int rc = 0;

	memset(&j, 0, sizeof(j));
	memset(&s, 0, sizeof(s));
	memset(&d, 0, sizeof(d));
	j.path = (char *)path;
	j.dirfd = j.aside = -1;
	if ((j.fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY |
	    O_NONBLOCK)) < 0)
		return errno == ENOENT ? check_aside(path, err) :
		    jfail(&j, err, "cannot read", errno == ELOOP ? "it is a "
		    "symbolic link (not followed)" : NULL);
	if (fstat(j.fd, &st) != 0 || !S_ISREG(st.st_mode))
		rc = jfail(&j, err, "cannot read", "not a regular file");
	else if ((n = jpread(j.fd, probe, sizeof(probe), 0)) < 0)
		rc = jfail(&j, err, "cannot read", NULL);
	else if (!jlmdb_probe(probe, (size_t)n)) {
		/* an LMDB journal is converted at the next start */
		s.j = &j;
		s.fd = j.fd;
		s.live = 1;		/* the milter may be writing it */
		s.d = &d;
		s.err = err;
		rc = scan_fd(&s);
		free(s.buf);
		free(s.a);
	}
	close(j.fd);
	if (rc == 0 && damaged(&d)) {
		describe(why, sizeof(why), &j, &d, 1);
		pa_err_set(err, "the journal of arrival records at %s %s",
		    path, why);
		return PA_ERROR;
	}
	return rc != 0 ? rc : check_aside(path, err);
}
