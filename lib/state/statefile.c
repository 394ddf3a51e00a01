/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * statefile.c - what the stores of lib/state share about their files
 * (see statefile.h).
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <string.h>

#include "statefile.h"

int
statefile_there(const char *path, int create, const char *noun,
    struct pa_err *err)
{
	struct stat st;

	if (stat(path, &st) == 0) {
		if (st.st_size > 0)
			return 1;
		/* emptied or made by hand: a fresh start would forget all */
		pa_err_set(err, "%s at %s: the file is empty (damaged; "
		    "restore it, or remove it to start again)", noun, path);
		return PA_ERROR;
	}
	if (errno == ENOENT && create)
		return 0;
	pa_err_set(err, "%s at %s: %s", noun, path, strerror(errno));
	return errno == ENOENT ? PA_ENOTFOUND : PA_ERROR;
}
