/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * mbox - the messages of an mbox file held in memory.
 *
 * The split is the one Python's mailbox.mbox makes (the reference oracle
 * reads mailboxes through it), so that "PATH:N" names the same message in
 * both programs:
 *  - a message starts at a line beginning with "From " at the start of the
 *    data or right after a LF; bytes before the first such line are not
 *    part of any message;
 *  - the "From " line itself is not part of the message;
 *  - the message ends at the next "From " line or at the end of the data;
 *    when the line before that point is an empty line (a lone LF, not
 *    CRLF), that line's LF is dropped, so a message keeps its own final
 *    LF but not the blank separator line;
 *  - nothing is unescaped (">From " stays as it is) and CRLF is kept.
 *
 * Lifecycle: mbox_init() on caller storage; there is nothing to release.
 * Ownership: the caller keeps the data alive and unchanged while it
 * iterates; mbox_next() hands out pointers into it (zero-copy).
 */
#ifndef PA_MBOX_H
#define PA_MBOX_H

#include <stddef.h>

struct mbox {
	const char	*data;
	size_t		 len;
	size_t		 pos;	/* start of the next "From " line, or len */
};

void	mbox_init(struct mbox *, const void *data, size_t len);

/*
 * mbox_next - the next message: 1 with *msg and *len set (*len may be 0),
 * or 0 when there are no more messages.
 */
int	mbox_next(struct mbox *, const char **msg, size_t *len);

#endif
