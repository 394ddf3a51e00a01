/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * mail.h - the public header of lib/mail/, for the layers above and the
 * programs: mail read the way git mailinfo reads it: messages, MIME parts, the
 * author and date, mboxes, mailinfo's split, encoded header words, and
 * what an arrival record keeps beside the hashes (patch-id, trailers).
 * The i/m/p hashes themselves are in patchattest.h (msghash).
 */
#ifndef PA_MAIL_LAYER_H
#define PA_MAIL_LAYER_H

#include "mailmsg.h"
#include "mime.h"
#include "mailident.h"
#include "maildate.h"
#include "mbox.h"
#include "mailinfo.h"
#include "pyheader.h"
#include "patchid.h"
#include "trailers.h"
#include "patchfacts.h"

#endif
