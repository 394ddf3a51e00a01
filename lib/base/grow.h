/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * grow - room for one more element in an array that doubles as it fills.
 *
 *	if ((rc = GROW(m->field, m->nfield, m->afield, 32, MAX)) != 0)
 *		return rc;
 *	m->field[m->nfield++] = ...;
 *
 * GROW(arr, n, alloc, first, max): when the n elements in use fill the
 * alloc allocated, arr is reallocated to twice as many (first, the first
 * time; never more than max) and alloc updated.  0, PA_ENOMEM (arr and
 * alloc unchanged), or PA_ETOOBIG when max elements are already in use.
 */
#ifndef PA_GROW_H
#define PA_GROW_H

#include <stddef.h>

#define GROW(arr, n, alloc, first, max) \
	grow_array(&(arr), &(alloc), (n), sizeof(*(arr)), (first), (max))

/* grow_array - GROW's work; arrp points to the array's pointer */
int	grow_array(void *arrp, size_t *alloc, size_t n, size_t size,
	    size_t first, size_t max);

#endif
