/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * msghash-int.h - what lib/mail's other modules may use of msghash's
 * work: its reading of the message, so that one mailinfo run serves the
 * hashes and the patch's other facts (patchfacts.h).
 */
#ifndef PA_MSGHASH_INT_H
#define PA_MSGHASH_INT_H

struct mailinfo;
struct msghash;

/*
 * msghash_reading - the primary reading (git mailinfo with charset
 * conversion, no other option) of the message h last hashed, or NULL when
 * h holds none (a variant was read after it, or mailinfo failed).  Valid
 * until h's next msghash_compute().
 */
const struct mailinfo *msghash_reading(const struct msghash *h);

#endif
