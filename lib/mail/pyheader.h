/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pyheader - Python's reading of RFC 2047 encoded words in a header value,
 * as patatt does it for a value that contains "?q?" (patatt.md 2.2):
 *
 *	str(email.header.make_header(email.header.decode_header(
 *	    value.decode('ascii', errors='ignore')))).encode('utf-8')
 *
 * So bytes over 0x7f are dropped first, even where no word is decoded;
 * whitespace between encoded words goes, and spaces are put between
 * encoded and plain text the way Python's Header.__str__ does.
 *
 * pyheader_decode() appends the UTF-8 result to out (the caller's, capped
 * by the caller; the working buffers are capped at four times the
 * input).  Returns 0; PA_EDECODE
 * where Python raises (a bad Base64 word, bytes invalid in a word's
 * charset; for charsets other than ASCII and UTF-8 a decoding error is
 * replaced with U+FFFD instead); PA_ECHARSET for a charset Python does
 * not know; PA_ENOMEM, PA_ETOOBIG.
 */
#ifndef PA_PYHEADER_H
#define PA_PYHEADER_H

#include <stddef.h>

#include "base.h"

int	pyheader_decode(struct sbuf *out, const char *value, size_t len);

#endif
