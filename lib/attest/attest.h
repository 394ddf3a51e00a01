/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * attest.h - the public header of lib/attest/, for the layers above and the
 * programs: the 2020 scheme's documents, the archives that hold them, the index
 * of what they attest, and the indexer that reads the one into the other.
 */
#ifndef PA_ATTEST_LAYER_H
#define PA_ATTEST_LAYER_H

#include "attdoc.h"
#include "attindex.h"
#include "indexer.h"

#endif
