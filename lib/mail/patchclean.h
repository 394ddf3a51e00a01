/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * patchclean - the p hash of attestation format 0.1: b4's cleaning of the
 * patch text, then SHA-256 of what is left (spec §4.3).
 *
 * Three historical cleanings exist; each is reproduced bit for bit,
 * including the inputs on which that b4 version raised an exception:
 *   PATCHCLEAN_V1  b4 ae57d6e .. v0.3.3 (whole text stripped first)
 *   PATCHCLEAN_V2  b4 v0.3.4 .. v0.3.7 (commit 367be74)
 *   PATCHCLEAN_V3  b4 v0.4.0 .. v0.5.4 (get_clean_diff)
 *
 * text is the decoded patch as UTF-8 (step 0 of §4.3 is the caller's);
 * it may still hold CRs, which are deleted here.  The text is not
 * modified; the output is streamed into the digest.  One allocation at
 * most for a copy without CRs, plus a small list of line runs.
 *
 * patchclean_hash() returns 0 with the digest in out, PA_ENOPATCH when
 * the text is blank (Python strip() leaves nothing: no p), PA_ENOHASH when
 * that b4 version crashed on the text (no attestation exists), or
 * PA_ENOMEM.
 */
#ifndef PA_PATCHCLEAN_H
#define PA_PATCHCLEAN_H

#include <stddef.h>

enum patchclean_algo {
	PATCHCLEAN_V1,
	PATCHCLEAN_V2,
	PATCHCLEAN_V3
};

int	patchclean_hash(unsigned char out[32], enum patchclean_algo algo,
	    const char *text, size_t len);

#endif
