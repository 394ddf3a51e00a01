/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * statefile - what the stores of lib/state share about their files.
 */
#ifndef PA_STATEFILE_H
#define PA_STATEFILE_H

#include "patchattest.h"

/*
 * statefile_there - whether the store's file at path is there: 1 (and
 * not empty), 0 (missing, and create asks for it), else PA_ENOTFOUND or
 * PA_ERROR with err "NOUN at PATH: why" (noun: "the first-use pins")
 */
int	statefile_there(const char *path, int create, const char *noun,
	    struct pa_err *);

#endif
