/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pycodec - Python's codec registry and decoders: bytes.decode(label,
 * errors='replace'), with the result as UTF-8.
 *
 * A label is looked up as CPython 3.11's codecs.lookup() does (see
 * pycodec.c for how, and for how exactly each decoder matches Python's).
 * Labels are C strings; the bytes to decode are (s, len) and binary-safe.
 *
 * pycodec_decode() appends to a caller's struct sbuf (it never resets it;
 * the caller owns and releases the buffer).  Nothing here keeps state
 * between calls, so the functions are safe to use from several threads.
 */
#ifndef PA_PYCODEC_H
#define PA_PYCODEC_H

#include <stddef.h>

#include "base.h"

/*
 * pycodec_known - 1 iff Python's codec registry finds a text encoding
 * for label (bytes.decode(label) raises no LookupError).
 */
int	pycodec_known(const char *label);

/*
 * pycodec_decode - bytes.decode(label, errors='replace'), as UTF-8.
 * Returns 0, PA_ENOMEM or PA_ETOOBIG as for any output; PA_ECHARSET when
 * Python does not know the label, PA_ERROR when it does but the codec is
 * one this library does not implement or one that raised even with
 * errors='replace' (see pycodec.c).  Like Python, an empty input decodes
 * to nothing whatever the label: only pycodec_known() answers whether a
 * label is known.
 */
int	pycodec_decode(struct sbuf *out, const char *label, const char *s,
	    size_t len);

#endif
