/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * hdrfmt - writing header field values that procmail, sieve and MTAs read:
 * quoted strings and lines folded before column 78 (RFC 5322, 2.2.3).
 * Folding uses LF and a tab, as libmilter wants it.  Also untrusted text
 * escaped for a terminal, a log line or a tab-separated field.
 */
#ifndef PA_HDRFMT_H
#define PA_HDRFMT_H

#include <stddef.h>

#include "sbuf.h"

#define HDRFMT_WIDTH	78

/*
 * hdrfmt_quoted - s as a quoted-string: \ before " and \, C0 controls
 * dropped; C1 controls and bytes that are not UTF-8 written as \\xNN, so
 * that what it writes is ASCII or valid UTF-8 and no terminal obeys it
 */
void	hdrfmt_quoted(struct sbuf *out, const char *s);

/*
 * hdrfmt_escaped - s (len bytes, NUL an ordinary byte) with every byte a
 * terminal or a log could take for something else written as \xHH:
 * controls (tab and line ends too, C1 controls in UTF-8 as well) and
 * bytes that are not valid UTF-8; a backslash is doubled, so the text
 * reads back unambiguously.  Printable ASCII and other UTF-8 stay as they
 * are.
 */
void	hdrfmt_escaped(struct sbuf *out, const char *s, size_t len);

/*
 * hdrfmt_printable - likewise into buf (size bytes, at least 4), whole
 * characters and escapes only, ending in "..." when s does not fit;
 * returns buf.  For messages about untrusted bytes.
 */
const char *hdrfmt_printable(char *buf, size_t size, const void *s,
	    size_t len);

/*
 * hdrfmt_clip - text s on one line into buf (size bytes, at least 4):
 * each run of blanks and line ends one space, none at either end; when it
 * does not fit, cut after the last whole word that leaves room for "...",
 * which ends it (only a first word longer than all the room is cut, and
 * then between characters); returns buf.  For reasons made from other
 * programs' messages (libpq's), read in a header field or a log line.
 */
const char *hdrfmt_clip(char *buf, size_t size, const char *s);

/*
 * hdrfmt_item - append sep and item, or, when item would pass the width,
 * sep without its trailing blanks, a fold, and item.  *col is the column
 * the value ends at (start it at the length of "Name: ").
 */
void	hdrfmt_item(struct sbuf *out, size_t *col, const char *sep,
	    const char *item, size_t len);

#endif
