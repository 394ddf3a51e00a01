/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * mapfind - where a file is memory-mapped in this process.
 *
 * LMDB maps its data file itself and tells where only when the map is at
 * a fixed address (MDB_FIXEDMAP), so the watch of mapguard.h finds the
 * mapping through the kernel's list of this process's mappings
 * (/proc/self/maps), by the file's device and inode.
 */
#ifndef PA_MAPFIND_H
#define PA_MAPFIND_H

#include <stddef.h>

/*
 * mapfind_file - the start and length of the mapping of the file open on
 * fd (the first, when there are several).  0, PA_ENOTFOUND when it is not
 * mapped, PA_ERROR when the list cannot be read.
 */
int	mapfind_file(int fd, void **base, size_t *len);

#endif
