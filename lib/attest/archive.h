/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * archive - reading a local mirror of the signatures archive, entry by
 * entry, from where the last reading stopped.
 *
 * Kinds: public-inbox v2 (a folder with git/0.git, git/1.git, ...: one
 * commit per message, the tree holding "m" for an added message or "d"
 * for a removed one), public-inbox v1 (one bare repository, a blob per
 * message at XX/YYYY...), a Maildir (cur/ and new/), an mbox.
 *
 * Progress is a set of named marks (for a v2 mirror, one per epoch: the
 * last commit read) that the caller keeps, with the index, after a batch
 * is stored: archive_open() takes the marks of the last run, archive_marks()
 * reports them after each entry.  A rewritten history (the mark is no
 * longer an ancestor) is read again from the start; storing is idempotent.
 *
 * Entries over the size cap or unreadable are skipped, with one line in
 * the struct archive_entry's skip reason; nothing in an archive can make
 * the reader fail except the archive's own absence or corruption.
 *
 * struct archive is opaque: archive_open() ... archive_close().
 */
#ifndef PA_ARCHIVE_H
#define PA_ARCHIVE_H

#include <stddef.h>

#include "base.h"
#include "patchattest.h"

#define ARCHIVE_MAX_ENTRY	(64u << 20)

enum archive_op {
	ARCHIVE_ADD,		/* a message to index */
	ARCHIVE_REMOVE,		/* a message taken out of the archive */
	ARCHIVE_SKIP		/* an entry not read: see why */
};

struct archive_entry {
	enum archive_op	 op;
	const char	*data;		/* the raw message, valid until next */
	size_t		 len;
	char		 where[256];	/* "git/1.git:<commit>", "new/<file>",
					   "mbox:<offset>", "<commit>:<path>" */
	char		 why[160];	/* ARCHIVE_SKIP: the reason */
};

/* One mark: a name and its value, both short strings. */
struct archive_mark {
	char	name[64];
	char	value[128];
};

struct archive;

/*
 * archive_open - open path as type (ARCHIVE_AUTO: find out) with the marks
 * of the last run (n may be 0: from the start).
 */
int	archive_open(struct archive **, const char *path, enum archive_type,
	    const struct archive_mark *marks, size_t nmarks, struct pa_err *);

/* archive_next - 1 with the next entry, 0 at the end, or an error */
int	archive_next(struct archive *, struct archive_entry *, struct pa_err *);

/*
 * archive_marks - the marks as of the entries returned so far (pointer
 * into the archive, valid until the next call).
 */
const struct archive_mark *archive_marks(struct archive *, size_t *n);

/* archive_type_name - "public-inbox v2", "maildir", ... as opened */
const char	*archive_type_name(const struct archive *);

void	archive_close(struct archive *);

#endif
