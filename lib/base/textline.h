/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * textline - reading line-oriented text that need not end in NUL, such as
 * the armor lines of a clearsigned document.
 */
#ifndef PA_TEXTLINE_H
#define PA_TEXTLINE_H

#include <stddef.h>
#include <string.h>

/*
 * textline_word - when the line at off is word followed only by blanks
 * (CR counts as one), the text just past its line end (or the text's
 * end); else NULL.
 */
static inline const char *
textline_word(const char *s, size_t len, size_t off, const char *word)
{
	size_t n = strlen(word);

	if (len - off < n || memcmp(s + off, word, n) != 0)
		return NULL;
	for (off += n; off < len && (s[off] == ' ' || s[off] == '\t' ||
	    s[off] == '\r'); off++)
		;
	if (off == len)
		return s + off;
	return s[off] == '\n' ? s + off + 1 : NULL;
}

/* textline_ieq - s[0..n) equals the ASCII word w in any case */
static inline int
textline_ieq(const char *s, size_t n, const char *w)
{
	size_t i;
	int a, b;

	if (strlen(w) != n)
		return 0;
	for (i = 0; i < n; i++) {
		a = (unsigned char)s[i];
		b = (unsigned char)w[i];
		if (a >= 'A' && a <= 'Z')
			a += 'a' - 'A';
		if (b >= 'A' && b <= 'Z')
			b += 'a' - 'A';
		if (a != b)
			return 0;
	}
	return 1;
}

#endif
