/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * journal-util - what t-journal and t-journal-damage share: the records
 * they put, a notice that keeps what the journal told, callbacks that
 * count and keep the records found.
 */
#ifndef PA_JOURNAL_UTIL_H
#define PA_JOURNAL_UTIL_H

#include <stddef.h>

#include "state.h"

/* jt_scratch - a scratch folder $TMPDIR/NAME.XXXXXX for the test (it
   is skipped without one); jt_at - a path in it; jt_done - removed */
void		 jt_scratch(const char *name);
const char	*jt_at(const char *name);
void		 jt_done(void);

/* What the journal told of damage, added up; why: the last message. */
struct told {
	int			 times;
	unsigned long long	 lost, bytes;
	char			 why[1200];
	struct statedb_notice	 notice;
};

/* jt_notice - a notice whose damaged keeps what it is told in t */
const struct statedb_notice *jt_notice(struct told *t);

/* jt_fill - record n, every field told apart by n; arrived 1e9 + n */
void	jt_fill(struct arrival *a, int n);
#define JT_WHEN	1000000000
/* jt_frame_len - the bytes record n takes in a journal */
size_t	jt_frame_len(int n);

/* Records found by a callback: the first 8 kept, all counted. */
struct got {
	struct arrival	 a[8];
	int		 n;
};
int	jt_collect(void *arg, const struct journal_entry *);
/* jt_count - ++*(int *)arg */
int	jt_count(void *arg, const struct journal_entry *);

#endif
