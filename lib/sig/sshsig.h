/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sshsig - public-key signature checks for patatt: raw Ed25519 (RFC
 * 8032) through libsodium, and OpenSSH's SSHSIG format (PROTOCOL.sshsig, what
 * "ssh-keygen -Y sign" makes) with ssh-ed25519, ssh-rsa (rsa-sha2-256 and
 * rsa-sha2-512 signatures, 1024 to 16384 bits) and ecdsa-sha2-nistp256
 * keys.  RSA and ECDSA need OpenSSL 3; with an older one such keys are
 * "unsupported".
 *
 * Inputs are byte ranges, read only.  Nothing here allocates anything the
 * caller must free, and every function is safe to call from several
 * threads.
 *
 * Return codes: 0 the signature verifies; SSHSIG_BAD it does not (a
 * malformed signature is also bad, the reason is in why); SSHSIG_MISMATCH
 * (sshsig_verify() only) a well-formed signature by the key that is not
 * one over msg: msg, or the signature's bytes, changed; SSHSIG_UNSUP a
 * key or signature type this module cannot check; PA_ENOMEM.
 */
#ifndef PA_SSHSIG_H
#define PA_SSHSIG_H

#include <stddef.h>

#define SSHSIG_BAD	1
#define SSHSIG_UNSUP	2
#define SSHSIG_MISMATCH	3

#define SSHSIG_WHY_MAX	96

/*
 * sshsig_ed25519 - sig (64 bytes) over msg with the 32-byte key pub, by
 * libsodium's rules (those of PyNaCl, which patatt uses); sodium_init()
 * must have run (pa_global_init()).
 */
int	sshsig_ed25519(const unsigned char pub[32], const void *msg,
	    size_t len, const unsigned char sig[64]);

/*
 * sshsig_pubkey - the public key blob inside an SSHSIG blob (pointer into
 * blob), or NULL when blob is not one.
 */
const unsigned char *sshsig_pubkey(const unsigned char *blob, size_t len,
	    size_t *keylen);

/*
 * sshsig_verify - blob is an SSHSIG over msg in namespace ns, made with
 * the public key key (an SSH public key blob, as in authorized_keys after
 * Base64 decoding): the key in the blob must be that key byte for byte.
 */
int	sshsig_verify(const unsigned char *blob, size_t len,
	    const unsigned char *key, size_t keylen, const char *ns,
	    const void *msg, size_t msglen, char why[SSHSIG_WHY_MAX]);

/* sshsig_fingerprint - "SHA256:" and unpadded Base64 of the key's hash */
#define SSHSIG_FPR_MAX	56
int	sshsig_fingerprint(char out[SSHSIG_FPR_MAX], const unsigned char *key,
	    size_t keylen);

#endif
