/* SPDX-License-Identifier: BSD-2-Clause */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "patchattest.h"
#include "grow.h"

int
grow_array(void *arrp, size_t *alloc, size_t n, size_t size, size_t first,
    size_t max)
{
	void *arr, *grown;
	size_t want;

	if (n < *alloc)
		return 0;
	if (n >= max)
		return PA_ETOOBIG;
	want = *alloc ? *alloc * 2 : first;
	if (want > max)
		want = max;
	if (want <= n || want > SIZE_MAX / size)
		return PA_ENOMEM;
	/* The array's pointer is copied, not cast: any object pointer. */
	memcpy(&arr, arrp, sizeof(arr));
	if ((grown = realloc(arr, want * size)) == NULL)
		return PA_ENOMEM;
	memcpy(arrp, &grown, sizeof(grown));
	*alloc = want;
	return 0;
}
