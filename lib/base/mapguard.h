/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * mapguard - surviving a file that another process truncates while we
 * have it memory-mapped (the LMDB index).
 *
 * Reading a mapped page past the end of its file raises SIGBUS, which
 * would kill every SMTP session of the milter at once.  A region
 * registered here is watched instead: a SIGBUS inside it maps a page of
 * zeros over the missing one, marks the region's fault flag, and lets
 * the read go on.  LMDB then finds a page of zeros where its data should
 * be and reports the index as corrupted, through its ordinary error
 * path; the owner sees the flag and never uses the region again.  A
 * SIGBUS anywhere else is what it always was.
 *
 * mapguard_init() installs the handler, once, before threads start
 * (pa_global_init() calls it).  A region is added when its mapping is
 * made, moved when it is remapped, and removed before it is unmapped;
 * none of these may happen while another thread reads the region.  At
 * most MAPGUARD_MAX regions are watched at a time.
 */
#ifndef PA_MAPGUARD_H
#define PA_MAPGUARD_H

#include <stdatomic.h>
#include <stddef.h>

#include "patchattest.h"

#define MAPGUARD_MAX	64

struct mapguard_region;

int	mapguard_init(struct pa_err *);

/*
 * mapguard_add - watch [base, base + len); *fault becomes 1 at the first
 * fault.  0, or PA_ERROR when MAPGUARD_MAX regions are watched already.
 */
int	mapguard_add(struct mapguard_region **, void *base, size_t len,
	    atomic_int *fault);
void	mapguard_move(struct mapguard_region *, void *base, size_t len);
void	mapguard_remove(struct mapguard_region *);

/*
 * mapguard_catch - for a mapping this thread is about to make, whose
 * place is not known yet (LMDB maps the file and reads it within one
 * call): until mapguard_catch(NULL), a SIGBUS in this thread anywhere
 * outside the watched regions is caught as in one, marking *fault.
 */
void	mapguard_catch(atomic_int *fault);

#endif
