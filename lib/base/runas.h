/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * runas - the user a program started as root acts as: the milter's
 * UserID, which the milter becomes once its socket is open, and which
 * patchattest becomes when, run as root, it acts for the milter
 * (patchattest db).  Whatever that user reads of its own (its passfile)
 * is then read as that user: root never opens a name in a folder
 * another user may change.
 *
 * runas_lookup() fills a struct runas from "user[:group]"; runas_become()
 * makes the process that user for good: its groups, then its group and
 * user IDs, checked so that root cannot be taken back.
 */
#ifndef PA_RUNAS_H
#define PA_RUNAS_H

#include <sys/types.h>

#include "patchattest.h"

struct runas {
	int		 set;		/* 0: no UserID, the process stays */
	uid_t		 uid;
	gid_t		 gid;
	char		 name[256];
};

/*
 * runas_lookup - ra from spec, "user" or "user:group" (the user's own
 * group when none is named): 0, or PA_ENOTFOUND with err "no such user"
 * or "no such group"
 */
int	runas_lookup(struct runas *ra, const char *spec, struct pa_err *);
/*
 * runas_become - the process becomes ra's user for good (nothing when
 * ra is not set): 0, or PA_ERROR with err saying why
 */
int	runas_become(const struct runas *ra, struct pa_err *);

#endif
