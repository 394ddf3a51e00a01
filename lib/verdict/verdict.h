/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * verdict.h - the public header of lib/verdict/, for the layers above and the
 * programs: the facts of a mail, computed once, the verdict on it from
 * both schemes, the action the configuration takes on it, the header
 * fields that say so, and the forged ones to remove.
 */
#ifndef PA_VERDICT_LAYER_H
#define PA_VERDICT_LAYER_H

#include "mailfacts.h"
#include "decide.h"
#include "policy.h"
#include "headers.h"
#include "hdrstrip.h"

#endif
