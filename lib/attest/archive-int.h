/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * archive-int - what archive.c shares with the reader of each kind of
 * archive (archive-pi.c, archive-maildir.c, archive-mbox.c), and the
 * helpers the readers use (archive-kind.c).  Private to the archive
 * files; callers use archive.h.
 *
 * Each kind is one row, a struct archive_kind: a probe (does the path
 * look like this kind?), open, next and close.  archive_open() walks the
 * rows in order, picks the first whose probe says yes and calls its
 * open(); archive_next() and archive_close() go through the same row.
 *
 * Ownership: struct archive is allocated and freed by archive.c; a kind
 * keeps its own state behind a->priv, allocated by its open() and freed
 * by its close() (called once, also after a failed open()).  The bytes an
 * entry points to belong to the kind until its next() or close().
 *
 * Marks: a->in holds the caller's marks as given to archive_open() (read
 * them with archive_mark_in()); a kind reports its progress with
 * archive_mark_set(), and archive_marks() hands out those current marks.
 * A kind sets a mark only when every entry up to that point has been
 * returned, so that a caller storing the marks mid-way never skips one.
 */
#ifndef PA_ARCHIVE_INT_H
#define PA_ARCHIVE_INT_H

#include <stddef.h>

#include "archive.h"

struct archive_kind {
	const char	*name;		/* archive_type_name() */
	const char	*what;		/* "a Maildir (cur/ or new/)": errors */
	int		 (*probe)(const char *path);
	int		 (*open)(struct archive *, struct pa_err *);
	int		 (*next)(struct archive *, struct archive_entry *,
			    struct pa_err *);
	void		 (*close)(struct archive *);
};

struct archive {
	const struct archive_kind *kind;
	char			*path;
	struct archive_mark	*in;		/* the caller's marks */
	size_t			 nin;
	struct archive_mark	*marks;		/* as of the entries returned */
	size_t			 nmarks;
	size_t			 amarks;
	void			*priv;		/* the kind's state */
};

extern const struct archive_kind archive_pi2_kind;
extern const struct archive_kind archive_pi1_kind;
extern const struct archive_kind archive_maildir_kind;
extern const struct archive_kind archive_mbox_kind;

/* archive_mark_in - the caller's value for mark name, or NULL */
const char	*archive_mark_in(const struct archive *, const char *name);

/*
 * archive_mark_set - set the current mark name to value (added when new):
 * 0, or PA_ENOMEM; a name or value too long for struct archive_mark is
 * PA_ERROR (a bug in the kind, not in the archive).
 */
int	archive_mark_set(struct archive *, const char *name,
	    const char *value);

/* archive_skip - make e an ARCHIVE_SKIP with the reason as why */
void	archive_skip(struct archive_entry *, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));

/* archive_where - set e->where (cut short when too long) */
void	archive_where(struct archive_entry *, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));

#endif
