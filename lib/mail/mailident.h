/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * mailident - how git mailinfo turns From and Subject values into the
 * Author, Email and Subject it prints, and its scissors-line test.
 *
 * All functions replace the contents of their output buffers and return 0,
 * PA_ENOMEM or PA_ETOOBIG, plus the codes named below.
 */
#ifndef PA_MAILIDENT_H
#define PA_MAILIDENT_H

#include <stddef.h>

#include "base.h"

/* Returned by mailident_from() when the name is 1 or 2 bytes long. */
#define MAILIDENT_SHORT_NAME	1

/*
 * mailident_from - name and address from a From value (after RFC 2047
 * decoding).  short_names: git < 2.33, which used the address instead of
 * names under 3 bytes.  PA_EMAILINFO for an unterminated quote or comment,
 * on which git read past its buffer.  work is scratch space.
 */
int	mailident_from(struct sbuf *name, struct sbuf *email, struct sbuf *work,
	    const char *from, size_t len, int short_names);

/* mailident_subject - "Re:", "[...]" prefixes and blanks removed */
int	mailident_subject(struct sbuf *out, const char *subject, size_t len);

/* mailident_collapse - every run of whitespace as one space */
int	mailident_collapse(struct sbuf *out, const char *s, size_t len);

/* mailident_is_scissors - a "-- >8 --" line (read as a C string) */
int	mailident_is_scissors(const char *line, size_t len);

#endif
