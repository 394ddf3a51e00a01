/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * openpgp-msg - the shape of an OpenPGP signed message checked, and its
 * compression undone within a cap, before librnp reads it.
 *
 * A patatt signature is what "gpg --sign" makes of a 32-byte digest:
 * a one-pass signature, the literal data and the signature (RFC 4880
 * 11.3), usually inside one compressed packet.  Nothing else is
 * accepted: no other packet, no second layer of compression, no armor,
 * nothing after the signature.  The compressed data is inflated by this
 * file, never by librnp, and inflating stops at OPENPGP_MSG_MAX bytes:
 * a small message that would unpack to much more (a "compression bomb")
 * costs at most that much work.
 */
#ifndef PA_OPENPGP_MSG_H
#define PA_OPENPGP_MSG_H

#include <stddef.h>

#include "patchattest.h"

#define OPENPGP_MSG_MAX		4096	/* bytes of a signed message, as
					   sent and uncompressed */
#define OPENPGP_WHY_MAX		96

/*
 * openpgp_msg_flat - the packets of the signed message msg, uncompressed,
 * into out (*outlen bytes).  Returns 0, or PA_EBADDOC when msg is not of
 * the accepted shape, with why (a phrase) set.  Allocates nothing.
 */
int	openpgp_msg_flat(const void *msg, size_t len,
	    unsigned char out[OPENPGP_MSG_MAX], size_t *outlen,
	    char why[OPENPGP_WHY_MAX]);

#endif
