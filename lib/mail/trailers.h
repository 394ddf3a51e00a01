/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * trailers - the trailer block of a commit message (mailinfo's msg, what
 * m is computed over), as "git interpret-trailers" finds it in the commit
 * that "git am" makes of the mail (the subject, a blank line, msg):
 *
 *  - what follows a "---" line, and the run of blank and "#" comment
 *    lines at the end, are left out;
 *  - the block is the last paragraph, when all its lines are trailers
 *    ("Token: value", the token letters, digits and "-"; a line that
 *    starts with a blank continues the one before), or when at least one
 *    is git's own (Signed-off-by:, "(cherry picked from commit") and
 *    three in four are trailers.
 *
 * So that trailers added to a patch after it was sent (Reviewed-by:,
 * Link:, a later Signed-off-by:) can be told from a change of the commit
 * message, the message is split into its core (everything but the block,
 * without blank lines at its end) and the block's lines.
 *
 * trailers_find() fills caller storage and cannot fail.  The others
 * append to the caller's sbuf and return 0 or its PA_ETOOBIG /
 * PA_ENOMEM; trailers_core_hash() returns 0, PA_ENOHASH (the message is
 * not UTF-8: it has no m either) or PA_ENOMEM.
 */
#ifndef PA_TRAILERS_H
#define PA_TRAILERS_H

#include <stddef.h>

#include "base.h"

/* The trailer block is msg[start..end); start == end: there is none. */
struct trailers {
	size_t	start;
	size_t	end;
};

void	trailers_find(struct trailers *t, const char *msg, size_t len);

/*
 * trailers_lines - each item of the block, one per line: a trailer as
 * "Token: value" (git's form: blanks around the token and the value
 * trimmed), its continuation lines unfolded (a line end and the blanks
 * around it become one space); any other line trimmed
 */
int	trailers_lines(struct sbuf *out, const char *msg,
	    const struct trailers *t);

/* trailers_core - the message without its trailer block */
int	trailers_core(struct sbuf *out, const char *msg, size_t len,
	    const struct trailers *t);

/*
 * trailers_core_hash - SHA-256 of the core, computed the way m is over
 * the whole message (m_core: the same for a patch whose only change is
 * its trailers)
 */
int	trailers_core_hash(unsigned char out[DIGEST_LEN], const char *msg,
	    size_t len, const struct trailers *t);

#endif
