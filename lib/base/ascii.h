/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ascii - case in ASCII only, whatever the locale: mail's header names,
 * charset labels and MIME types are ASCII words compared without case,
 * and a byte over 0x7f is never changed.
 */
#ifndef PA_ASCII_H
#define PA_ASCII_H

#include <stddef.h>
#include <string.h>

/* ascii_lower - c, lowered when it is an ASCII capital */
static inline char
ascii_lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c + ('a' - 'A')) : c;
}

/* ascii_lower_copy - len bytes of s lowered into out, then a NUL */
static inline void
ascii_lower_copy(char *out, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		out[i] = ascii_lower(s[i]);
	out[len] = '\0';
}

/* ascii_is - whether s (n bytes) is the lower-case word lname, in any case */
static inline int
ascii_is(const char *s, size_t n, const char *lname)
{
	size_t k;

	if (n != strlen(lname))
		return 0;
	for (k = 0; k < n; k++)
		if (ascii_lower(s[k]) != lname[k])
			return 0;
	return 1;
}

#endif
