/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * attdoc-armor.c - where attestation documents of format 0.1 are in a
 * mail (spec section 5): its clearsigned spans, and the armor comments
 * that name the format.  Their signed YAML: attdoc.c.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "base.h"
#include "patchattest.h"
#include "attdoc.h"

#define SPAN_BEGIN	"-----BEGIN PGP SIGNED MESSAGE-----"
#define SPAN_END	"-----END PGP SIGNATURE-----"
#define ARMOR_BEGIN	"-----BEGIN PGP SIGNATURE-----"

/* The armor comments of the format, and what each must say. */
static const struct {
	const char	*name;
	const char	*want;
	const char	*what;
} armor_keys[] = {
	{ "att-fmt-ver", ATTDOC_FMT_VERSION, "attestation format" },
	{ "att-hash", "sha256", "attestation hash" },
};
#define NARMOR_KEYS	(sizeof(armor_keys) / sizeof(armor_keys[0]))

/* next_line - the offset of the line after the one at off, or len */
static size_t
next_line(const char *s, size_t len, size_t off)
{
	const char *nl;

	if (off >= len || (nl = memchr(s + off, '\n', len - off)) == NULL)
		return len;
	return (size_t)(nl - s) + 1;
}

int
attdoc_next_span(const char *text, size_t textlen, size_t *pos,
    size_t *start, size_t *len)
{
	const char *end;
	size_t off, begin;

	for (off = *pos; off < textlen; off = next_line(text, textlen, off)) {
		if (off > 0 && text[off - 1] != '\n')
			continue;
		if (textline_word(text, textlen, off, SPAN_BEGIN) == NULL)
			continue;
		/*
		 * The END line of this block.  A new BEGIN first means this
		 * one was cut short: start again from there.
		 */
		begin = off;
		for (off = next_line(text, textlen, off); off < textlen;
		    off = next_line(text, textlen, off)) {
			if (textline_word(text, textlen, off, SPAN_BEGIN))
				begin = off;
			else if ((end = textline_word(text, textlen, off,
			    SPAN_END)) != NULL) {
				*start = begin;
				*len = (size_t)(end - text) - begin;
				*pos = (size_t)(end - text);
				return 1;
			}
		}
		break;
	}
	*pos = textlen;
	return 0;
}

int
attdoc_check_armor(const char *block, size_t len, struct pa_err *err)
{
	const char *val[NARMOR_KEYS], *l, *colon, *v, *e;
	size_t vlen[NARMOR_KEYS], off, next, k;
	char buf[ATTDOC_SHOW_MAX + 4];

	memset(val, 0, sizeof(val));
	memset(vlen, 0, sizeof(vlen));
	for (off = 0; off < len; off = next_line(block, len, off))
		if (textline_word(block, len, off, ARMOR_BEGIN))
			break;
	if (off < len)
		off = next_line(block, len, off);
	/* Armor header lines, up to the blank line. */
	for (; off < len; off = next) {
		next = next_line(block, len, off);
		l = block + off;
		for (e = block + next; e > l && (e[-1] == '\n' ||
		    e[-1] == '\r' || e[-1] == ' ' || e[-1] == '\t'); e--)
			;
		if (e == l || textline_word(block, len, off, SPAN_END))
			break;
		if ((colon = memchr(l, ':', (size_t)(e - l))) == NULL ||
		    !textline_ieq(l, (size_t)(colon - l), "Comment"))
			continue;
		for (l = colon + 1; l < e && (*l == ' ' || *l == '\t'); l++)
			;
		if ((colon = memchr(l, ':', (size_t)(e - l))) == NULL)
			continue;
		for (k = 0; k < NARMOR_KEYS; k++)
			if (textline_ieq(l, (size_t)(colon - l), armor_keys[k].name))
				break;
		if (k == NARMOR_KEYS)
			continue;
		for (v = colon + 1; v < e && (*v == ' ' || *v == '\t'); v++)
			;
		if (val[k]) {
			pa_err_set(err, "the armor has two %s comments",
			    armor_keys[k].name);
			return PA_EBADDOC;
		}
		val[k] = v;
		vlen[k] = (size_t)(e - v);
	}
	if (val[0] == NULL) {
		if (err)
			snprintf(err->msg, sizeof(err->msg), "no %s comment in "
			    "the signature armor", armor_keys[0].name);
		return PA_ENOTFOUND;
	}
	for (k = 0; k < NARMOR_KEYS; k++) {
		if (val[k] == NULL)
			pa_err_set(err, "no %s comment in the signature armor",
			    armor_keys[k].name);
		else if (vlen[k] != strlen(armor_keys[k].want) ||
		    memcmp(val[k], armor_keys[k].want, vlen[k]) != 0)
			pa_err_set(err, "%s \"%s\" is not supported (%s is)",
			    armor_keys[k].what, hdrfmt_printable(buf,
			    sizeof(buf), val[k], vlen[k]), armor_keys[k].want);
		else
			continue;
		return PA_EBADDOC;
	}
	return 0;
}
