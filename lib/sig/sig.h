/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sig.h - the public header of lib/sig/, for the layers above and the
 * programs: signatures: documents and keys through GnuPG (pgp), and patatt's
 * signatures in the mail with every kind of key it knows.
 */
#ifndef PA_SIG_LAYER_H
#define PA_SIG_LAYER_H

#include "pgp.h"
#include "patatt.h"

#endif
