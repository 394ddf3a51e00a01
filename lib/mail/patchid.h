/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * patchid - "git patch-id --stable" of a patch text: the id git prints
 * first for it (the patch of git mailinfo's output, which p is computed
 * over), so that a patch can be found again however its mail was
 * re-sent: whitespace, hunk line numbers, blob ids and the order of the
 * files do not change it.
 *
 * The reading is git's (2.39): the text before the first "diff " line is
 * skipped; "index" lines are left out, but a binary diff hashes the two
 * blob ids of its index line instead of its data; "@@" lines are left
 * out and their counts tell where a hunk ends; every other line is
 * hashed without its whitespace, each file on its own (SHA-1), and the
 * files' digests are summed.  A line is read up to its first NUL, as git
 * reads it.  The work is one pass over the text.
 *
 * patchid_compute() returns 0 with out set, PA_ENOPATCH when git would
 * print no id (no diff in the text), or PA_ENOMEM.
 */
#ifndef PA_PATCHID_H
#define PA_PATCHID_H

#include <stddef.h>

#define PATCHID_HEXLEN	40

int	patchid_compute(char out[PATCHID_HEXLEN + 1], const char *patch,
	    size_t len);

#endif
