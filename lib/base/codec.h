/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * codec - the transfer-encoding decoders, lenient the way git mailinfo is,
 * and hex digits: the project's one writer of them and its readers.
 *
 * Both decoders append to out and never fail on bad input: they decode
 * what they can and skip the rest.  Input is treated as a C string: a NUL
 * byte ends it, as in git.  They return 0, or PA_ENOMEM / PA_ETOOBIG.
 *
 * codec_qp_line - one quoted-printable line or RFC 2047 "Q" text: "=XY"
 *     becomes a byte, "=" before LF or at the end stops (soft break), any
 *     other "=" is literal; with q_word, "_" is a space.
 * codec_b64 - base64: alphabet characters decoded, all others skipped;
 *     a group cut short still yields the bytes it has complete bits for.
 *
 * codec_qp_body / codec_b64_body decode a whole body: line by line, as
 * git mailinfo does, so that both readers agree on every byte.
 */
#ifndef PA_CODEC_H
#define PA_CODEC_H

#include <stddef.h>

#include "sbuf.h"

int	codec_qp_line(struct sbuf *out, const char *in, size_t len, int q_word);
int	codec_b64(struct sbuf *out, const char *in, size_t len);
int	codec_qp_body(struct sbuf *out, const char *in, size_t len);

/*
 * codec_b64_strict - base64 as Python's base64.b64decode() accepts it
 * after whitespace is removed: alphabet characters only, then at most two
 * '=' that complete the last group of four.  Appends to out; returns 0,
 * PA_EDECODE for anything else (out then unchanged), PA_ENOMEM or
 * PA_ETOOBIG.
 */
int	codec_b64_strict(struct sbuf *out, const char *in, size_t len);

/* codec_hexval - the value of one hex digit of either case, or -1 */
int	codec_hexval(int c);

/*
 * codec_hex - the len bytes at in as 2 * len hex digits, upper-case or
 * lower-case as upper says, and a NUL: out holds 2 * len + 1 bytes.
 */
void	codec_hex(char *out, const void *in, size_t len, int upper);

/*
 * codec_unhex - the n bytes that the 2 * n hex digits at hex spell, into
 * out: the digits all of the case upper says, so that the bytes written
 * out again give back the same text.  Returns 0, or PA_EDECODE when any
 * of the 2 * n characters is not such a digit (out then unchanged).  hex
 * is read no further than its first character that is not one, a NUL
 * included; what follows the digits is the caller's to check.
 */
int	codec_unhex(void *out, const char *hex, size_t n, int upper);

/* codec_b64_encode - standard base64 with padding, appended to out */
int	codec_b64_encode(struct sbuf *out, const void *in, size_t len);

int	codec_b64_body(struct sbuf *out, const char *in, size_t len);

#endif
