/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ledger-fields.c - which fields an arrival record and a signing habit
 * have as stored (see ledger-codec.h), each a table that ledger-codec.c
 * writes and reads: their tags, and what a field left out derives from
 * the others.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ledger-codec.h"
#include "ledger-field.h"

static int	 msgid_hash(const void *, unsigned char *);
static int	 author_address(const void *, unsigned char *);

#define A(tag, type, name) { tag, 0, type, offsetof(struct arrival, name), \
	sizeof(((struct arrival *)0)->name), NULL }
#define X(tag, bin, name) { tag, bin, F_HEX, offsetof(struct arrival, name), \
	sizeof(((struct arrival *)0)->name), NULL }
#define D(tag, type, name, derive) { tag, 0, type, \
	offsetof(struct arrival, name), sizeof(((struct arrival *)0)->name), \
	derive }
static const struct field arrival_fields[] = {
	A(1, F_STR, message_id),
	D(2, F_BYTES, message_id_sha256, msgid_hash),
	A(3, F_UINT, copy),
	A(4, F_TIME, arrived),
	A(5, F_STR, envelope_from),
	A(6, F_STR, author),
	D(7, F_STR, identity, author_address),
	A(8, F_STR, subject),
	A(9, F_STR, list_id),
	A(10, F_FLAG, has_patch),
	X(11, 32, i),
	X(12, 33, m),
	X(13, 34, p),
	X(14, 35, m_core),
	X(15, 36, patch_id),
	A(16, F_STR, trailers),
	A(17, F_STR, result),
	A(18, F_STR, v01),
	A(19, F_STR, patatt),
	A(20, F_STR, key),
	A(21, F_FLAG, signed_trusted),
	A(22, F_STR, dkim),
	A(23, F_STR, algo),
	A(24, F_STR, selector),
	A(25, F_STR, offered),
	A(26, F_STR, host),
	A(27, F_STR, queue_id),
	A(28, F_FLAG, differs),
	A(29, F_UINT, parts),
};
#undef A
#undef X
#undef D

#define H(tag, type, name) { tag, 0, type, \
	offsetof(struct habit_state, name), \
	sizeof(((struct habit_state *)0)->name), NULL }
static const struct field habit_fields[] = {
	H(1, F_STR, h.key),
	H(2, F_UINT, h.recent),
	H(3, F_UINT, h.recent_signed),
	H(4, F_UINT, h.run),
	H(5, F_TIME, h.first_signed),
	H(6, F_TIME, h.last_signed),
	H(7, F_UINT, window),
	H(8, F_BYTES, ids),
};
#undef H

#define NFIELDS(t)	(sizeof(t) / sizeof((t)[0]))

_Static_assert(NFIELDS(arrival_fields) <= 32 && NFIELDS(habit_fields) <= 32,
    "ledger_value_decode() marks the fields it has seen in a uint32_t");

_Static_assert(sizeof(((struct arrival *)0)->identity) <= DERIVED_MAX &&
    sizeof(((struct arrival *)0)->message_id_sha256) <= DERIVED_MAX,
    "a derived field fits in DERIVED_MAX");

/* msgid_hash - derive: the hash of message_id, as kept */
static int
msgid_hash(const void *obj, unsigned char *out)
{
	const struct arrival *a = obj;

	return digest_sha256(out, a->message_id, strnlen(a->message_id,
	    sizeof(a->message_id) - 1)) == 0 ? 0 : -1;
}

/*
 * author_address - derive: the author's address (between the last '<'
 * and a '>' that ends author, else all of it) lowered in ASCII, the
 * identity of unsigned mail; "" unless it is one that
 * patatt_identity_canon() takes (an '@', no space, control or byte
 * over 0x7e)
 */
static int
author_address(const void *obj, unsigned char *out)
{
	const struct arrival *a = obj;
	const char *addr = a->author;
	size_t len = strnlen(addr, sizeof(a->author) - 1), i;

	for (i = len; i > 0 && addr[i - 1] != '<'; i--)
		;
	if (i > 0 && addr[len - 1] == '>') {
		len -= i + 1;
		addr += i;
	}
	memset(out, 0, sizeof(a->identity));
	if (memchr(addr, '@', len) == NULL)
		return 0;
	for (i = 0; i < len; i++)
		if ((unsigned char)addr[i] <= ' ' ||
		    (unsigned char)addr[i] >= 0x7f)
			return 0;
	ascii_lower_copy((char *)out, addr, len);
	return 0;
}

int
ledger_encode_arrival(struct sbuf *sb, const void *key, size_t keylen,
    const struct arrival *a)
{
	return ledger_value_encode(sb, arrival_fields, NFIELDS(arrival_fields),
	    a, 1, key, keylen);
}

int
ledger_decode_arrival(const void *value, size_t len, const void *key,
    size_t keylen, struct arrival *out)
{
	return ledger_value_decode(arrival_fields, NFIELDS(arrival_fields),
	    value, len, key, keylen, out, sizeof(*out));
}

int
ledger_encode_habit(struct sbuf *sb, const struct habit_state *hs)
{
	return ledger_value_encode(sb, habit_fields, NFIELDS(habit_fields),
	    hs, 0, hs->h.identity, strlen(hs->h.identity));
}

/*
 * ledger_decode_habit - besides the checksum, the counts must agree with
 * the window: recent at most HABIT_WINDOW, recent_signed its bits set
 */
int
ledger_decode_habit(const void *value, size_t len, const char *identity,
    size_t identitylen, struct habit_state *out)
{
	uint32_t used;
	unsigned set = 0;

	if (identitylen == 0 || identitylen >= sizeof(out->h.identity) ||
	    memchr(identity, '\0', identitylen) != NULL ||
	    ledger_value_decode(habit_fields, NFIELDS(habit_fields), value,
	    len, identity, identitylen, out, sizeof(*out)) != 0)
		return PA_ERROR;
	_Static_assert(HABIT_WINDOW == 32, "the window is a uint32_t");
	if (out->h.recent > HABIT_WINDOW)
		return PA_ERROR;
	used = out->h.recent == HABIT_WINDOW ? UINT32_MAX :
	    ((uint32_t)1 << out->h.recent) - 1;
	for (uint32_t w = out->window; w != 0; w &= w - 1)
		set++;
	if ((out->window & ~used) != 0 || set != out->h.recent_signed)
		return PA_ERROR;
	memcpy(out->h.identity, identity, identitylen);
	out->h.identity[identitylen] = '\0';
	return 0;
}

void
arrival_set_message_id(struct arrival *a, const char *id, size_t len)
{
	size_t keep = len < sizeof(a->message_id) - 1 ? len :
	    sizeof(a->message_id) - 1;

	memcpy(a->message_id, id, keep);
	a->message_id[keep] = '\0';
	if (digest_sha256(a->message_id_sha256, id, len) != 0)
		memset(a->message_id_sha256, 0, sizeof(a->message_id_sha256));
}

int
ledger_patch_id(unsigned char out[LEDGER_PATCHID_LEN], const char *hex)
{
	return ledger_unhex(out, hex, LEDGER_PATCHID_LEN);
}
