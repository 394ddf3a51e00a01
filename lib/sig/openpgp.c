/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * openpgp.c - OpenPGP signed messages through librnp (see openpgp.h).
 *
 * librnp calls a signature good only when the signing key was valid when
 * it signed; otherwise it reports the signature invalid without saying
 * why.  Its own key validity (rnp_key_valid_till64) tells the two cases
 * apart: a signature dated outside the key's validity is
 * OPENPGP_KEY_INVALID, any other invalid one OPENPGP_BAD.
 *
 * Debian's librnp writes diagnostics to standard error whatever it is
 * told; programs that must keep theirs clean divert it (pa_divert_stderr).
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rnp/rnp.h>
#include <rnp/rnp_err.h>

#include "openpgp.h"
#include "openpgp-msg.h"

struct openpgp_keys {
	rnp_ffi_t	 ffi;
};

/* What a key file holds, counted before librnp parses it. */
struct census {
	size_t	 keys, subkeys, uids, sigs, packets;
	size_t	 bad;		/* offset of a cut or unknown packet + 1 */
};

#define ARMOR_BEGIN	"-----BEGIN PGP PUBLIC KEY BLOCK-----"
#define ARMOR_END	"-----END PGP PUBLIC KEY BLOCK-----"

static size_t	 packet_len(const unsigned char *, size_t, size_t *);
static void	 count(const unsigned char *, size_t, struct census *);
static int	 dearmored(const char *, size_t, struct census *);
static int	 over_limits(const void *, size_t, struct pa_err *);
static void	 copy_fpr(char *, char *);
static void	 key_state(rnp_ffi_t, rnp_key_handle_t, struct openpgp_sig *);
static void	 no_key(rnp_op_verify_signature_t, struct openpgp_sig *);
static void	 signature_of(rnp_ffi_t, rnp_op_verify_signature_t,
		    struct openpgp_sig *);

int
openpgp_keys_empty(struct openpgp_keys **out)
{
	struct openpgp_keys *k;

	*out = NULL;
	if ((k = calloc(1, sizeof(*k))) == NULL)
		return PA_ENOMEM;
	if (rnp_ffi_create(&k->ffi, "GPG", "GPG") != RNP_SUCCESS) {
		free(k);
		return PA_ENOMEM;
	}
	*out = k;
	return 0;
}

/*
 * packet_len - the body length of the packet whose header starts at *off
 * (RFC 9580 4.2), *off moved past the header; SIZE_MAX when cut short or
 * of partial length, which no key export uses
 */
static size_t
packet_len(const unsigned char *p, size_t len, size_t *off)
{
	size_t o = *off + 1, n, i, size;
	unsigned c = p[*off];

	if (c & 0x40) {
		if (o >= len)
			return SIZE_MAX;
		if (p[o] < 192)
			n = p[o++];
		else if (p[o] < 224) {
			if (o + 1 >= len)
				return SIZE_MAX;
			n = ((size_t)(p[o] - 192) << 8) + p[o + 1] + 192;
			o += 2;
		} else if (p[o] == 255 && len - o >= 5) {
			for (n = 0, i = 1; i <= 4; i++)
				n = n << 8 | p[o + i];
			o += 5;
		} else
			return SIZE_MAX;
	} else {
		if ((c & 3) == 3)
			return SIZE_MAX;	/* indeterminate */
		size = (size_t)1 << (c & 3);
		if (len - o < size)
			return SIZE_MAX;
		for (n = 0, i = 0; i < size; i++)
			n = n << 8 | p[o + i];
		o += size;
	}
	if (n > len - o)
		return SIZE_MAX;
	*off = o;
	return n;
}

/* count - the packets of binary OpenPGP data, by kind, into c */
static void
count(const unsigned char *p, size_t len, struct census *c)
{
	size_t off = 0, n;
	unsigned tag;

	while (off < len && c->bad == 0) {
		if (!(p[off] & 0x80)) {
			c->bad = off + 1;
			break;
		}
		tag = p[off] & 0x40 ? p[off] & 0x3f : (p[off] >> 2) & 0x0f;
		if ((n = packet_len(p, len, &off)) == SIZE_MAX) {
			c->bad = off + 1;
			break;
		}
		off += n;
		c->packets++;
		c->keys += tag == 6;
		c->subkeys += tag == 14;
		c->uids += tag == 13 || tag == 17;
		c->sigs += tag == 2;
	}
}

/* dearmored - each armored key block of data counted into c: 0, or an rnp error */
static int
dearmored(const char *data, size_t len, struct census *c)
{
	const char *at = data, *end = data + len, *next;
	rnp_input_t in;
	rnp_output_t out;
	uint8_t *buf;
	size_t n;
	rnp_result_t rc = RNP_SUCCESS;

	while (rc == RNP_SUCCESS && (next = memmem(at, (size_t)(end - at),
	    ARMOR_BEGIN, strlen(ARMOR_BEGIN))) != NULL) {
		in = NULL;
		out = NULL;
		rc = rnp_input_from_memory(&in, (const uint8_t *)next,
		    (size_t)(end - next), false);
		if (rc == RNP_SUCCESS)
			rc = rnp_output_to_memory(&out, len);
		if (rc == RNP_SUCCESS)
			rc = rnp_dearmor(in, out);
		if (rc == RNP_SUCCESS && (rc = rnp_output_memory_get_buf(out,
		    &buf, &n, false)) == RNP_SUCCESS)
			count(buf, n, c);
		rnp_input_destroy(in);
		rnp_output_destroy(out);
		at = next + strlen(ARMOR_BEGIN);
	}
	return (int)rc;
}

/*
 * over_limits - whether the key file holds more than librnp should be
 * asked to parse (each key, subkey and user ID costs it signature checks
 * and memory), with err saying what
 */
static int
over_limits(const void *data, size_t len, struct pa_err *err)
{
	struct census c;
	int rc;

	memset(&c, 0, sizeof(c));
	if (memmem(data, len, ARMOR_BEGIN, strlen(ARMOR_BEGIN)) != NULL) {
		if ((rc = dearmored(data, len, &c)) != RNP_SUCCESS)
			return 0;	/* librnp will say what is wrong */
	} else
		count(data, len, &c);
	if (c.bad != 0)
		pa_err_set(err, "packet %zu is cut short or malformed",
		    c.packets + 1);
	else if (c.keys > OPENPGP_KEYS_MAX)
		pa_err_set(err, "%zu keys (at most %d)", c.keys,
		    OPENPGP_KEYS_MAX);
	else if (c.subkeys > OPENPGP_SUBKEYS_MAX)
		pa_err_set(err, "%zu subkeys (at most %d)", c.subkeys,
		    OPENPGP_SUBKEYS_MAX);
	else if (c.uids > OPENPGP_UIDS_MAX)
		pa_err_set(err, "%zu user IDs (at most %d)", c.uids,
		    OPENPGP_UIDS_MAX);
	else if (c.sigs > OPENPGP_SIGS_MAX)
		pa_err_set(err, "%zu signatures (at most %d)", c.sigs,
		    OPENPGP_SIGS_MAX);
	else
		return 0;
	return 1;
}

int
openpgp_keys_load(struct openpgp_keys **out, const void *data, size_t len,
    struct pa_err *err)
{
	struct openpgp_keys *k;
	rnp_input_t in = NULL;
	size_t n = 0;
	rnp_result_t rc;

	*out = NULL;
	if (over_limits(data, len, err))
		return PA_EBADDOC;
	if (openpgp_keys_empty(&k) != 0) {
		pa_err_set(err, "%s", pa_strerror(PA_ENOMEM));
		return PA_ENOMEM;
	}
	/* Permissive: a packet librnp cannot use (an odd third-party
	   certification, an unknown algorithm) costs that packet only. */
	rc = rnp_input_from_memory(&in, data, len, false);
	if (rc == RNP_SUCCESS)
		rc = rnp_import_keys(k->ffi, in, RNP_LOAD_SAVE_PUBLIC_KEYS |
		    RNP_LOAD_SAVE_PERMISSIVE, NULL);
	rnp_input_destroy(in);
	if (rc == RNP_SUCCESS &&
	    rnp_get_public_key_count(k->ffi, &n) == RNP_SUCCESS && n > 0) {
		*out = k;
		return 0;
	}
	openpgp_keys_free(k);
	if (rc == RNP_ERROR_OUT_OF_MEMORY) {
		pa_err_set(err, "%s", pa_strerror(PA_ENOMEM));
		return PA_ENOMEM;
	}
	pa_err_set(err, "no OpenPGP public key in it (%s)",
	    rc == RNP_SUCCESS ? "nothing usable" : rnp_result_to_string(rc));
	return PA_EBADDOC;
}

void
openpgp_keys_free(struct openpgp_keys *k)
{
	if (k == NULL)
		return;
	rnp_ffi_destroy(k->ffi);
	free(k);
}

/* copy_fpr - a string librnp allocated into out, then freed */
static void
copy_fpr(char *out, char *s)
{
	snprintf(out, OPENPGP_FPR_MAX, "%s", s ? s : "");
	rnp_buffer_destroy(s);
}

/*
 * key_state - until when the signing key was valid (a subkey's time takes
 * its primary's into account), and whether it or its primary is revoked
 */
static void
key_state(rnp_ffi_t ffi, rnp_key_handle_t key, struct openpgp_sig *sig)
{
	rnp_key_handle_t primary = NULL;
	uint64_t till = 0;
	char *pfpr = NULL;
	bool revoked = false;

	if (rnp_key_valid_till64(key, &till) != RNP_SUCCESS)
		till = 0;
	sig->valid_till = till == UINT64_MAX ? OPENPGP_FOREVER :
	    (time_t)till;
	if (rnp_key_is_revoked(key, &revoked) == RNP_SUCCESS && revoked)
		sig->revoked = 1;
	if (rnp_key_get_primary_fprint(key, &pfpr) == RNP_SUCCESS &&
	    pfpr != NULL && rnp_locate_key(ffi, "fingerprint", pfpr,
	    &primary) == RNP_SUCCESS && primary != NULL &&
	    rnp_key_is_revoked(primary, &revoked) == RNP_SUCCESS && revoked)
		sig->revoked = 1;
	rnp_buffer_destroy(pfpr);
	rnp_key_handle_destroy(primary);
}

/* no_key - the issuer the signature names: fingerprint, else key ID */
static void
no_key(rnp_op_verify_signature_t vs, struct openpgp_sig *sig)
{
	rnp_signature_handle_t h = NULL;
	char *id = NULL;

	if (rnp_op_verify_signature_get_handle(vs, &h) != RNP_SUCCESS)
		return;
	if (rnp_signature_get_key_fprint(h, &id) != RNP_SUCCESS || id == NULL)
		rnp_signature_get_keyid(h, &id);
	copy_fpr(sig->fpr, id);
	rnp_signature_handle_destroy(h);
}

/* signature_of - the one signature of a verified message, into sig */
static void
signature_of(rnp_ffi_t ffi, rnp_op_verify_signature_t vs,
    struct openpgp_sig *sig)
{
	rnp_key_handle_t key = NULL;
	rnp_result_t status = rnp_op_verify_signature_get_status(vs);
	uint32_t created = 0, expires = 0, key_created = 0;
	char *fpr = NULL;

	if (rnp_op_verify_signature_get_times(vs, &created, &expires) ==
	    RNP_SUCCESS)
		sig->when = (time_t)created;
	if (status == RNP_ERROR_KEY_NOT_FOUND) {
		sig->status = OPENPGP_NOKEY;
		no_key(vs, sig);
		return;
	}
	if (rnp_op_verify_signature_get_key(vs, &key) != RNP_SUCCESS ||
	    key == NULL) {
		sig->status = OPENPGP_UNUSABLE;
		snprintf(sig->detail, sizeof(sig->detail), "%s",
		    rnp_result_to_string(status));
		return;
	}
	if (rnp_key_get_fprint(key, &fpr) == RNP_SUCCESS)
		copy_fpr(sig->fpr, fpr);
	key_state(ffi, key, sig);
	if (rnp_key_get_creation(key, &key_created) != RNP_SUCCESS)
		key_created = 0;
	rnp_key_handle_destroy(key);
	switch (status) {
	case RNP_SUCCESS:
		sig->status = OPENPGP_GOOD;
		break;
	case RNP_ERROR_SIGNATURE_EXPIRED:
		sig->status = OPENPGP_SIG_EXPIRED;
		break;
	case RNP_ERROR_SIGNATURE_INVALID:
		/* librnp checks nothing more when the key was not valid */
		if (created < key_created || (sig->valid_till !=
		    OPENPGP_FOREVER && (time_t)created > sig->valid_till))
			sig->status = OPENPGP_KEY_INVALID;
		else
			sig->status = OPENPGP_BAD;
		break;
	default:
		sig->status = OPENPGP_UNUSABLE;
		snprintf(sig->detail, sizeof(sig->detail), "%s",
		    rnp_result_to_string(status));
		break;
	}
}

int
openpgp_verify(struct openpgp_keys *keys, const void *msg, size_t len,
    struct sbuf *plain, struct openpgp_sig *sig)
{
	unsigned char flat[OPENPGP_MSG_MAX];
	char why[OPENPGP_WHY_MAX];
	rnp_op_verify_signature_t vs = NULL;
	rnp_input_t in = NULL;
	rnp_output_t out = NULL;
	rnp_op_verify_t op = NULL;
	rnp_result_t rc;
	uint8_t *buf = NULL;
	size_t n = 0, got = 0;
	int ret = 0;

	memset(sig, 0, sizeof(*sig));
	sig->status = OPENPGP_UNUSABLE;
	sbuf_reset(plain);
	if ((ret = openpgp_msg_flat(msg, len, flat, &len, why)) != 0) {
		snprintf(sig->detail, sizeof(sig->detail), "not a message of "
		    "gpg --sign: %s", why);
		return ret == PA_ENOMEM ? ret : 0;
	}
	/* One byte over the cap tells a long content from one at the cap. */
	rc = rnp_input_from_memory(&in, flat, len, false);
	if (rc == RNP_SUCCESS)
		rc = rnp_output_to_memory(&out, plain->max == SBUF_NOMAX ? 0 :
		    plain->max + 1);
	if (rc == RNP_SUCCESS)
		rc = rnp_op_verify_create(&op, keys->ffi, in, out);
	if (rc == RNP_ERROR_OUT_OF_MEMORY) {
		ret = PA_ENOMEM;
		goto out;
	}
	if (rc != RNP_SUCCESS) {
		snprintf(sig->detail, sizeof(sig->detail), "%s",
		    rnp_result_to_string(rc));
		goto out;
	}
	rc = rnp_op_verify_execute(op);
	if (rnp_op_verify_get_signature_count(op, &n) != RNP_SUCCESS)
		n = 0;
	if (n > 1)
		snprintf(sig->detail, sizeof(sig->detail), "%zu signatures "
		    "(one is expected)", n);
	else if (n == 0)
		snprintf(sig->detail, sizeof(sig->detail), "no signature: %s",
		    rnp_result_to_string(rc));
	if (n != 1)
		goto out;
	if (rnp_op_verify_get_signature_at(op, 0, &vs) != RNP_SUCCESS) {
		snprintf(sig->detail, sizeof(sig->detail), "%s",
		    rnp_result_to_string(rc));
		goto out;
	}
	signature_of(keys->ffi, vs, sig);
	if (rnp_output_memory_get_buf(out, &buf, &got, false) ==
	    RNP_SUCCESS && got <= plain->max)
		ret = sbuf_add(plain, buf, got);
	else if (sig->status == OPENPGP_GOOD) {
		sig->status = OPENPGP_UNUSABLE;
		snprintf(sig->detail, sizeof(sig->detail), "signed content "
		    "over %zu bytes", plain->max);
	}
out:
	rnp_op_verify_destroy(op);
	rnp_input_destroy(in);
	rnp_output_destroy(out);
	return ret;
}
