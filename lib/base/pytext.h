/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pytext - Python 3 str semantics over UTF-8 bytes.
 *
 * b4 computed its hashes on Python str objects; these functions give the
 * same results on byte ranges, so that the C hashers can stay in bytes.
 * Every input is (s, len) and binary-safe: NUL bytes are ordinary.
 *
 * Functions that produce text append it to a caller's struct sbuf (they
 * never reset it; the caller owns and releases the buffer) and return 0,
 * or the sbuf's PA_ENOMEM / PA_ETOOBIG.  Nothing here keeps state between
 * calls, so the functions are safe to use from several threads.
 *
 * Text functions (pytext_is_blank, pytext_strip) expect valid UTF-8, as
 * a decoded Python str re-encoded would be; a byte that does not start a
 * Python whitespace character counts as text.
 *
 * The byte helpers at the end (PYTEXT_REPL, pytext_ascii_prefix,
 * pytext_utf8_char) are the UTF-8 reader's building blocks, shared with
 * the decoders of pycodec.c.
 */
#ifndef PA_PYTEXT_H
#define PA_PYTEXT_H

#include <stddef.h>

#include "sbuf.h"

/* pytext_utf8_valid - 1 iff bytes.decode('utf-8') (strict) succeeds */
int	pytext_utf8_valid(const char *s, size_t len);

/*
 * pytext_utf8_replace - bytes.decode('utf-8', errors='replace'), encoded
 * back to UTF-8: one U+FFFD per maximal ill-formed subpart.
 */
int	pytext_utf8_replace(struct sbuf *out, const char *s, size_t len);

/* pytext_newlines - universal newlines: CRLF to LF, then lone CR to LF */
int	pytext_newlines(struct sbuf *out, const char *s, size_t len);

/* pytext_is_blank - 1 iff s.strip() == '' */
int	pytext_is_blank(const char *s, size_t len);

/* pytext_strip - s.strip() is s[*startp .. *endp) */
void	pytext_strip(const char *s, size_t len, size_t *startp, size_t *endp);

/* PYTEXT_REPL - U+FFFD, the replacement character, in UTF-8 */
#define PYTEXT_REPL	"\xef\xbf\xbd"
#define PYTEXT_REPL_LEN	3

/* pytext_ascii_prefix - length of the leading run of bytes below 0x80 */
size_t	pytext_ascii_prefix(const unsigned char *p, size_t len);

/*
 * pytext_utf8_char - the character at p (len >= 1): its length with
 * *valid = 1, or the length of the maximal ill-formed subpart (Unicode
 * 3.9, which Python's decoder follows) with *valid = 0.
 */
size_t	pytext_utf8_char(const unsigned char *p, size_t len, int *valid);

#endif
