/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * base.h - the public header of lib/base/, for the layers above and the
 * programs: the base of the library: bounded buffers (sbuf), arrays that grow,
 * ASCII case, SHA-256, lines of text, guarded maps, the configuration,
 * header and log text, Python's text rules, the transfer encodings,
 * big-endian numbers, and the user a program started as root acts as.
 */
#ifndef PA_BASE_LAYER_H
#define PA_BASE_LAYER_H

#include "sbuf.h"
#include "grow.h"
#include "ascii.h"
#include "digest.h"
#include "textline.h"
#include "mapguard.h"
#include "mapfind.h"
#include "paconfig.h"
#include "hdrfmt.h"
#include "pytext.h"
#include "codec.h"
#include "bigend.h"
#include "runas.h"

#endif
