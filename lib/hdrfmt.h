/*
 * hdrfmt - writing header field values that procmail, sieve and MTAs read:
 * quoted strings and lines folded before column 78 (RFC 5322, 2.2.3).
 * Folding uses LF and a tab, as libmilter wants it.
 */
#ifndef PA_HDRFMT_H
#define PA_HDRFMT_H

#include <stddef.h>

#include "sbuf.h"

#define HDRFMT_WIDTH	78

/* hdrfmt_quoted - s as a quoted-string: \ before " and \, controls dropped */
void	hdrfmt_quoted(struct sbuf *out, const char *s);

/*
 * hdrfmt_item - append sep and item, or, when item would pass the width,
 * sep without its trailing blanks, a fold, and item.  *col is the column
 * the value ends at (start it at the length of "Name: ").
 */
void	hdrfmt_item(struct sbuf *out, size_t *col, const char *sep,
	    const char *item, size_t len);

#endif
