/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * mailmsg.h - the library-internal view of struct mailmsg (public
 * lifecycle in patchattest.h).
 *
 * A message is kept as one canonical text: its header fields as
 * "Name:value" with folds as LF plus the original continuation blanks, a
 * blank line, then the body, every line ending in LF (CRLF is turned into
 * LF, as mail is stored; a lone CR stays, as git mailinfo keeps it).  A
 * raw message that was LF-only already is kept byte for byte.
 *
 * The accessors return pointers into the message; they stay valid until the
 * next reset or free.
 */
#ifndef PA_MAILMSG_H
#define PA_MAILMSG_H

#include <stddef.h>

#include "patchattest.h"

struct mailmsg_field {
	size_t	off;		/* start of the field in the text */
	size_t	len;		/* whole field without its final LF */
	size_t	namelen;	/* 0: a line that is not "Name:..." */
};

/* mailmsg_text - the canonical text of a complete message */
const char	*mailmsg_text(const struct mailmsg *, size_t *len);

/* mailmsg_headers - the header block (fields and their LFs, no blank) */
const char	*mailmsg_headers(const struct mailmsg *, size_t *len);

/* mailmsg_body_text - the body after the blank line */
const char	*mailmsg_body_text(const struct mailmsg *, size_t *len);

size_t		 mailmsg_nfields(const struct mailmsg *);
const struct mailmsg_field *mailmsg_field(const struct mailmsg *, size_t);

/*
 * mailmsg_get - the value (after the colon, folds included) of the first
 * field called name (ASCII case-insensitive); NULL if there is none.
 */
const char	*mailmsg_get(const struct mailmsg *, const char *name,
		    size_t *len);

#endif
