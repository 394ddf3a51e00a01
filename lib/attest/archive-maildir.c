/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * archive-maildir - a Maildir read as an archive (see archive.h).
 *
 * Every message file of cur/ and new/ is an ARCHIVE_ADD, oldest first
 * (by modification time, then folder, then name: the same order for the
 * same folder).  Names starting with "." and folders are ignored; tmp/
 * is never read.  Symbolic links, devices and the like are not followed
 * but reported as ARCHIVE_SKIP, as are files over ARCHIVE_MAX_ENTRY.
 *
 * Mark "maildir": the newest modification time (ns since the epoch) such
 * that every file up to it has been returned; the next run lists the
 * folder again but reads only the files modified after it.  No per-file
 * state is kept, which has limits:
 *  - a file that arrives with an old time (restored from a backup, moved
 *    in with "mv" or "rsync -t") is not read; a full re-index reads it;
 *  - a file that disappears between the listing and the reading (a mail
 *    reader moving it from new/ to cur/) stops the mark where it is, so
 *    that the next run finds it in its new place;
 *  - files modified in the MD_SETTLE_NS before the listing are read but
 *    stay after the mark, and are read again by the next run: a message
 *    delivered in the same clock tick as the newest one read is not lost.
 */
#include "config.h"

#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "archive-int.h"
#include "base.h"

#define MD_MAX_FILES	(1u << 22)	/* files to read in one run */
#define MD_SETTLE_NS	(2 * 1000000000LL)
#define MD_MARK		"maildir"

struct md_file {
	int64_t		 mtime;		/* ns since the epoch */
	off_t		 size;
	mode_t		 mode;		/* as listed, the link not followed */
	int		 sub;		/* index into md_subs[] */
	char		*name;
};

struct maildir {
	int		 dfd[2];	/* cur/, new/; -1 when absent */
	struct md_file	*files;		/* to read, in order */
	size_t		 nfiles;
	size_t		 afiles;
	size_t		 cur;
	int		 frozen;	/* a file vanished: the mark stays */
	int64_t		 limit;		/* the mark stays below this */
	struct sbuf	 buf;		/* the last entry's bytes */
};

static const char *const md_subs[] = { "cur", "new" };
#define NSUBS	(sizeof(md_subs) / sizeof(md_subs[0]))

static int	md_probe(const char *);
static int	md_open(struct archive *, struct pa_err *);
static int	md_next(struct archive *, struct archive_entry *,
		    struct pa_err *);
static void	md_close(struct archive *);

static int	md_parse(const char *, int64_t *);
static int64_t	md_ns(const struct timespec *);
static int	md_cmp(const void *, const void *);
static int	md_list(struct archive *, struct maildir *, int, int,
		    int64_t, struct pa_err *);
static int	md_read(struct maildir *, const struct md_file *,
		    struct archive_entry *);

const struct archive_kind archive_maildir_kind = {
	"maildir",
	"a Maildir (cur/ or new/)",
	md_probe, md_open, md_next, md_close
};

static int
md_probe(const char *path)
{
	char sub[4096];
	struct stat st;
	size_t i;
	int n;

	for (i = 0; i < NSUBS; i++) {
		n = snprintf(sub, sizeof(sub), "%s/%s", path, md_subs[i]);
		if (n > 0 && (size_t)n < sizeof(sub) && stat(sub, &st) == 0 &&
		    S_ISDIR(st.st_mode))
			return 1;
	}
	return 0;
}

/* md_parse - a mark value: a decimal, maybe negative, 64-bit number */
static int
md_parse(const char *s, int64_t *v)
{
	uint64_t u = 0;
	int neg = 0;
	size_t i;

	if (*s == '-') {
		neg = 1;
		s++;
	}
	for (i = 0; s[i] >= '0' && s[i] <= '9'; i++) {
		if (u > ((uint64_t)INT64_MAX - (uint64_t)(s[i] - '0')) / 10)
			return -1;
		u = u * 10 + (uint64_t)(s[i] - '0');
	}
	if (i == 0 || s[i] != '\0')
		return -1;
	*v = neg ? -(int64_t)u : (int64_t)u;
	return 0;
}

static int64_t
md_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec;
}

static int
md_cmp(const void *x, const void *y)
{
	const struct md_file *a = x, *b = y;

	if (a->mtime != b->mtime)
		return a->mtime < b->mtime ? -1 : 1;
	if (a->sub != b->sub)
		return a->sub - b->sub;
	return strcmp(a->name, b->name);
}

/* md_list - add the files of folder sub modified after mark (if have) */
static int
md_list(struct archive *a, struct maildir *m, int sub, int have,
    int64_t mark, struct pa_err *err)
{
	struct md_file *f;
	struct dirent *de;
	struct stat st;
	int64_t mt;
	DIR *d;
	int fd, rc = 0;

	if ((fd = dup(m->dfd[sub])) == -1 || (d = fdopendir(fd)) == NULL) {
		if (fd != -1)
			close(fd);
		pa_err_set(err, "Maildir %s/%s: %s", a->path, md_subs[sub],
		    strerror(errno));
		return PA_ERROR;
	}
	for (;;) {
		errno = 0;
		if ((de = readdir(d)) == NULL) {
			if (errno != 0) {
				pa_err_set(err, "Maildir %s/%s: %s", a->path,
				    md_subs[sub], strerror(errno));
				rc = PA_ERROR;
			}
			break;
		}
		if (de->d_name[0] == '.')
			continue;
		if (fstatat(m->dfd[sub], de->d_name, &st,
		    AT_SYMLINK_NOFOLLOW) == -1 || S_ISDIR(st.st_mode))
			continue;	/* gone since listed, or a folder */
		mt = md_ns(&st.st_mtim);
		if (have && mt <= mark)
			continue;
		if (m->nfiles == MD_MAX_FILES) {
			pa_err_set(err, "Maildir %s holds more than %u new "
			    "files", a->path, MD_MAX_FILES);
			rc = PA_ETOOBIG;
			break;
		}
		if (GROW(m->files, m->nfiles, m->afiles, 64, MD_MAX_FILES) != 0)
			goto nomem;
		f = &m->files[m->nfiles];
		if ((f->name = strdup(de->d_name)) == NULL)
			goto nomem;
		f->mtime = mt;
		f->size = st.st_size;
		f->mode = st.st_mode;
		f->sub = sub;
		m->nfiles++;
	}
	closedir(d);
	return rc;
nomem:
	closedir(d);
	pa_err_set(err, "Maildir %s: %s", a->path, pa_strerror(PA_ENOMEM));
	return PA_ENOMEM;
}

static int
md_open(struct archive *a, struct pa_err *err)
{
	struct maildir *m;
	struct timespec now;
	const char *in;
	int64_t mark = 0;
	size_t i;
	int dfd, have, rc;

	if ((m = calloc(1, sizeof(*m))) == NULL) {
		pa_err_set(err, "Maildir %s: %s", a->path,
		    pa_strerror(PA_ENOMEM));
		return PA_ENOMEM;
	}
	a->priv = m;
	sbuf_init(&m->buf, ARCHIVE_MAX_ENTRY);
	for (i = 0; i < NSUBS; i++)
		m->dfd[i] = -1;
	if ((dfd = open(a->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1) {
		pa_err_set(err, "Maildir %s: %s", a->path, strerror(errno));
		return PA_ERROR;
	}
	for (i = 0; i < NSUBS; i++) {
		m->dfd[i] = openat(dfd, md_subs[i],
		    O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (m->dfd[i] == -1 && errno != ENOENT) {
			pa_err_set(err, "Maildir %s/%s: %s", a->path,
			    md_subs[i], strerror(errno));
			close(dfd);
			return PA_ERROR;
		}
	}
	close(dfd);

	clock_gettime(CLOCK_REALTIME, &now);
	m->limit = md_ns(&now) - MD_SETTLE_NS;
	in = archive_mark_in(a, MD_MARK);
	have = in != NULL && md_parse(in, &mark) == 0;
	if (have && archive_mark_set(a, MD_MARK, in) != 0) {
		pa_err_set(err, "Maildir %s: %s", a->path,
		    pa_strerror(PA_ENOMEM));
		return PA_ENOMEM;
	}
	for (i = 0; i < NSUBS; i++)
		if (m->dfd[i] != -1 &&
		    (rc = md_list(a, m, (int)i, have, mark, err)) != 0)
			return rc;
	if (m->nfiles > 0)
		qsort(m->files, m->nfiles, sizeof(*m->files), md_cmp);
	return 0;
}

/*
 * md_read - e is the message of f, or an ARCHIVE_SKIP; 0 when the file
 * has gone since the listing (no entry)
 */
static int
md_read(struct maildir *m, const struct md_file *f, struct archive_entry *e)
{
	struct stat st;
	int fd, rc;

	if (S_ISLNK(f->mode)) {
		archive_skip(e, "a symbolic link, not followed");
		return 1;
	}
	if (!S_ISREG(f->mode)) {
		archive_skip(e, "not a regular file");
		return 1;
	}
	if (f->size > (off_t)ARCHIVE_MAX_ENTRY) {
		archive_skip(e, "message of %jd bytes, over the limit of %u",
		    (intmax_t)f->size, ARCHIVE_MAX_ENTRY);
		return 1;
	}
	fd = openat(m->dfd[f->sub], f->name,
	    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd == -1) {
		if (errno == ENOENT)
			return 0;
		archive_skip(e, "cannot open: %s", strerror(errno));
		return 1;
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		archive_skip(e, "not a regular file");
		close(fd);
		return 1;
	}
	if (st.st_size > (off_t)ARCHIVE_MAX_ENTRY)
		rc = PA_ETOOBIG;
	else if ((rc = sbuf_grow(&m->buf, (size_t)st.st_size)) == 0)
		rc = sbuf_read_fd(&m->buf, fd);
	if (rc == PA_ERROR)
		archive_skip(e, "cannot read: %s", strerror(errno));
	close(fd);
	if (rc == PA_ETOOBIG)
		archive_skip(e, "message over the limit of %u bytes",
		    ARCHIVE_MAX_ENTRY);
	else if (rc == PA_ENOMEM)
		archive_skip(e, "%s", pa_strerror(rc));
	else if (rc == 0) {
		e->op = ARCHIVE_ADD;
		e->data = m->buf.buf;
		e->len = m->buf.len;
	}
	return 1;
}

static int
md_next(struct archive *a, struct archive_entry *e, struct pa_err *err)
{
	struct maildir *m = a->priv;
	const struct md_file *f;
	char v[24];
	int got;

	do {
		sbuf_reset(&m->buf);
		if (m->cur == m->nfiles) {
			e->where[0] = '\0';
			return 0;
		}
		f = &m->files[m->cur++];
		archive_where(e, "%s/%s", md_subs[f->sub], f->name);
		if ((got = md_read(m, f, e)) == 0)
			m->frozen = 1;
		/* Move the mark once every file of this time is out. */
		if (!m->frozen && f->mtime < m->limit &&
		    (m->cur == m->nfiles ||
		    m->files[m->cur].mtime > f->mtime)) {
			snprintf(v, sizeof(v), "%jd", (intmax_t)f->mtime);
			if (archive_mark_set(a, MD_MARK, v) != 0) {
				pa_err_set(err, "Maildir %s: %s", a->path,
				    pa_strerror(PA_ENOMEM));
				return PA_ENOMEM;
			}
		}
	} while (!got);
	return 1;
}

static void
md_close(struct archive *a)
{
	struct maildir *m = a->priv;
	size_t i;

	if (m == NULL)
		return;
	for (i = 0; i < NSUBS; i++)
		if (m->dfd[i] != -1)
			close(m->dfd[i]);
	for (i = 0; i < m->nfiles; i++)
		free(m->files[i].name);
	free(m->files);
	sbuf_release(&m->buf);
	free(m);
	a->priv = NULL;
}
