/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rfc2047 - decoding of RFC 2047 encoded words in a header value, with the
 * leniency and the errors of git mailinfo.
 *
 * Words ("=?charset?B|Q?text?=") are found anywhere, even inside other
 * text; whitespace between two words is dropped; each word is converted
 * from its charset to UTF-8 when conv is not NULL (git's charset mode R).
 * A malformed word (missing part, unknown encoding letter) is an error, as
 * is a failed conversion: then out holds nothing useful.
 *
 * rfc2047_decode() appends the decoded value to out.  The value ends at
 * len or at its first NUL byte.  Returns 0, PA_EMAILINFO for a malformed
 * word, PA_ECHARSET or PA_EDECODE for a failed conversion (with a reason in
 * why: a static string), PA_ENOMEM or PA_ETOOBIG.  *converted is set when
 * some word's bytes were changed by conversion.
 */
#ifndef PA_RFC2047_H
#define PA_RFC2047_H

#include <stddef.h>

#include "charset.h"
#include "base.h"

int	rfc2047_decode(struct sbuf *out, const char *value, size_t len,
	    struct charset_conv *conv, struct sbuf *scratch, int *converted,
	    const char **why);

#endif
