/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * state.h - the public header of lib/state/, for the layers above and the
 * programs: what mail leaves behind for later mail (the first-use pins,
 * the arrival records and the signing habits).
 */
#ifndef PA_STATE_LAYER_H
#define PA_STATE_LAYER_H

#include "ledger.h"
#include "pins.h"
#include "lookup.h"
#include "arrival.h"
#include "statedb.h"
#include "arrstats.h"

#endif
