/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * archive-pi-int - what the public-inbox reader (archive-pi.c: the
 * mirror's epochs, the walk over their commits, the marks) shares with
 * archive-pi-git.c (the git objects of a commit read as entries).
 * Private to the two.
 */
#ifndef PA_ARCHIVE_PI_INT_H
#define PA_ARCHIVE_PI_INT_H

#include <stddef.h>

#include <git2.h>

#include "archive-int.h"

#define PI_HEXLEN	40		/* a SHA-1 commit id in hex */

struct pi_epoch {
	unsigned long	 n;
	char		 name[24];	/* "git/N.git", or "repo": the mark */
};

struct pi {
	int		 v2;		/* "m"/"d" trees, not XX/YYYY paths */
	int		 ingit;		/* the epochs are a->path/git/N.git */
	struct pi_epoch	*epochs;
	size_t		 nepochs;
	size_t		 cur;		/* the epoch being read */
	git_repository	*repo;		/* of epochs[cur] while walking */
	git_odb		*odb;
	git_revwalk	*walk;
	git_blob	*blob;		/* the bytes of the last entry */
	git_diff	*diff;		/* v1: the commit being read */
	size_t		 delta;		/* v1: its next delta */
	char		 hex[PI_HEXLEN + 1];	/* the commit being read */
};

/* pi_gitmsg - libgit2's last error of this thread, as text */
const char	*pi_gitmsg(void);
/*
 * pi2_commit - e becomes the entry of the v2 commit id of p->repo: its
 * "m" (an ARCHIVE_ADD) or "d" (an ARCHIVE_REMOVE) with the blob's bytes,
 * else an ARCHIVE_SKIP saying why
 */
void	pi2_commit(struct pi *p, const git_oid *id, struct archive_entry *e);
/*
 * pi1_commit - the changes of the v1 commit id against its first parent
 * into p->diff (from its first delta): 0, or 1 with e an ARCHIVE_SKIP
 */
int	pi1_commit(struct pi *p, const git_oid *id, struct archive_entry *e);
/*
 * pi1_delta - 1 with e the entry of the next file p->diff changes (the
 * blob added or changed, or the one deleted), or 0 when none is left
 * (p->diff freed)
 */
int	pi1_delta(struct pi *p, struct archive_entry *e);

#endif
