/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ledger-codec.c - arrival records and signing habits as stored (see
 * ledger-codec.h).  Each kind of value is a table of its fields; one pair
 * of functions writes and reads any table.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ledger-codec.h"

#define CODEC_VERSION	1
#define SUM_TAG		0xff
#define SUM_LEN		8
#define SUM_FIELD_LEN	(3 + SUM_LEN)	/* tag, length, checksum */

enum field_type {
	F_STR,		/* char[size], NUL-terminated; stored without it */
	F_BYTES,	/* unsigned char[size], stored whole */
	F_UINT,		/* unsigned (or uint32_t), 4 bytes */
	F_TIME,		/* time_t, 8 bytes, two's complement */
	F_FLAG		/* int, 0 or 1, 1 byte */
};

struct field {
	unsigned char	 tag;	/* stable: the file keeps it */
	enum field_type	 type;
	size_t		 off, size;
};

#define A(tag, type, name) { tag, type, offsetof(struct arrival, name), \
	sizeof(((struct arrival *)0)->name) }
static const struct field arrival_fields[] = {
	A(1, F_STR, message_id),
	A(2, F_BYTES, message_id_sha256),
	A(3, F_UINT, copy),
	A(4, F_TIME, arrived),
	A(5, F_STR, envelope_from),
	A(6, F_STR, author),
	A(7, F_STR, identity),
	A(8, F_STR, subject),
	A(9, F_STR, list_id),
	A(10, F_FLAG, has_patch),
	A(11, F_STR, i),
	A(12, F_STR, m),
	A(13, F_STR, p),
	A(14, F_STR, m_core),
	A(15, F_STR, patch_id),
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

#define H(tag, type, name) { tag, type, \
	offsetof(struct habit_state, name), \
	sizeof(((struct habit_state *)0)->name) }
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
    "decode() marks the fields it has seen in a uint32_t");

_Static_assert(sizeof(unsigned) == 4 && sizeof(uint32_t) == 4,
    "F_UINT fields are 4 bytes");

/* checksum - of key and the value's bytes before its checksum field */
static int
checksum(unsigned char sum[SUM_LEN], const void *key, size_t keylen,
    const void *val, size_t len)
{
	unsigned char md[DIGEST_LEN];
	struct digest dg;
	int rc;

	digest_init(&dg);
	digest_update(&dg, key, keylen);
	digest_update(&dg, val, len);
	rc = digest_final(&dg, md);
	digest_release(&dg);
	memcpy(sum, md, SUM_LEN);
	return rc;
}

static void
put_be(unsigned char *b, uint64_t v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		b[i] = (unsigned char)(v >> (8 * (n - 1 - i)));
}

static uint64_t
get_be(const unsigned char *b, size_t n)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < n; i++)
		v = v << 8 | b[i];
	return v;
}

static void
put_field(struct sbuf *sb, unsigned char tag, const void *p, size_t len)
{
	unsigned char head[3] = { tag };

	put_be(head + 1, len, 2);
	sbuf_add(sb, head, sizeof(head));
	sbuf_add(sb, p, len);
}

/* encode - the fields of obj that table names, then the checksum */
static int
encode(struct sbuf *sb, const struct field *t, size_t n, const void *obj,
    const void *key, size_t keylen)
{
	const unsigned char *base = obj;
	unsigned char num[8], version = CODEC_VERSION;
	size_t i, start = sb->len;

	sbuf_add(sb, &version, 1);
	for (i = 0; i < n; i++) {
		const void *f = base + t[i].off;

		switch (t[i].type) {
		case F_STR:
			if (((const char *)f)[0] != '\0')
				put_field(sb, t[i].tag, f,
				    strnlen(f, t[i].size - 1));
			break;
		case F_BYTES:
			put_field(sb, t[i].tag, f, t[i].size);
			break;
		case F_UINT:
			put_be(num, *(const uint32_t *)f, 4);
			put_field(sb, t[i].tag, num, 4);
			break;
		case F_TIME:
			put_be(num, (uint64_t)(int64_t)*(const time_t *)f, 8);
			put_field(sb, t[i].tag, num, 8);
			break;
		case F_FLAG:
			num[0] = *(const int *)f != 0;
			put_field(sb, t[i].tag, num, 1);
			break;
		}
	}
	return ledger_seal(sb, start, key, keylen);
}

int
ledger_seal(struct sbuf *sb, size_t start, const void *key, size_t keylen)
{
	unsigned char sum[SUM_LEN];
	int rc;

	if ((rc = sbuf_failed(sb)) != 0)
		return rc;
	if ((rc = checksum(sum, key, keylen, sb->buf + start,
	    sb->len - start)) != 0)
		return rc;
	put_field(sb, SUM_TAG, sum, SUM_LEN);
	return sbuf_failed(sb);
}

/* decode_field - one field's len bytes at p into obj: 0, or PA_ERROR */
static int
decode_field(const struct field *f, const unsigned char *p, size_t len,
    void *obj)
{
	unsigned char *dst = (unsigned char *)obj + f->off;

	switch (f->type) {
	case F_STR:
		if (len >= f->size || memchr(p, '\0', len) != NULL)
			return PA_ERROR;
		memcpy(dst, p, len);
		dst[len] = '\0';
		return 0;
	case F_BYTES:
		if (len != f->size)
			return PA_ERROR;
		memcpy(dst, p, len);
		return 0;
	case F_UINT:
		if (len != 4)
			return PA_ERROR;
		*(uint32_t *)(void *)dst = (uint32_t)get_be(p, 4);
		return 0;
	case F_TIME:
		if (len != 8)
			return PA_ERROR;
		*(time_t *)(void *)dst = (time_t)(int64_t)get_be(p, 8);
		return 0;
	case F_FLAG:
		if (len != 1 || p[0] > 1)
			return PA_ERROR;
		*(int *)(void *)dst = p[0];
		return 0;
	}
	return PA_ERROR;
}

/*
 * decode - a value made by encode() with table t into obj (zeroed
 * first): 0, or PA_ERROR when it is damaged
 */
static int
decode(const struct field *t, size_t n, const unsigned char *p, size_t len,
    const void *key, size_t keylen, void *obj, size_t objsize)
{
	unsigned char sum[SUM_LEN];
	size_t off, flen, body, i;
	uint32_t seen = 0;

	if (len < 1 + SUM_FIELD_LEN || p[0] != CODEC_VERSION)
		return PA_ERROR;
	body = len - SUM_FIELD_LEN;
	if (p[body] != SUM_TAG || get_be(p + body + 1, 2) != SUM_LEN ||
	    checksum(sum, key, keylen, p, body) != 0 ||
	    memcmp(sum, p + body + 3, SUM_LEN) != 0)
		return PA_ERROR;
	memset(obj, 0, objsize);
	for (off = 1; off < body; off += flen) {
		if (body - off < 3)
			return PA_ERROR;
		flen = (size_t)get_be(p + off + 1, 2);
		off += 3;
		if (flen > body - off)
			return PA_ERROR;
		for (i = 0; i < n && t[i].tag != p[off - 3]; i++)
			;
		if (i == n)
			continue;
		if (seen & (uint32_t)1 << i ||
		    decode_field(&t[i], p + off, flen, obj) != 0)
			return PA_ERROR;
		seen |= (uint32_t)1 << i;
	}
	return 0;
}

int
ledger_encode_arrival(struct sbuf *sb, const void *key, size_t keylen,
    const struct arrival *a)
{
	return encode(sb, arrival_fields, NFIELDS(arrival_fields), a, key,
	    keylen);
}

int
ledger_decode_arrival(const void *value, size_t len, const void *key,
    size_t keylen, struct arrival *out)
{
	return decode(arrival_fields, NFIELDS(arrival_fields), value, len,
	    key, keylen, out, sizeof(*out));
}

int
ledger_encode_habit(struct sbuf *sb, const struct habit_state *hs)
{
	return encode(sb, habit_fields, NFIELDS(habit_fields), hs,
	    hs->h.identity, strlen(hs->h.identity));
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
	    decode(habit_fields, NFIELDS(habit_fields), value, len, identity,
	    identitylen, out, sizeof(*out)) != 0)
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
	static const char digits[] = "0123456789abcdef";
	const char *hi, *lo;
	size_t i;

	if (strlen(hex) != 2 * LEDGER_PATCHID_LEN)
		return -1;
	for (i = 0; i < LEDGER_PATCHID_LEN; i++) {
		if ((hi = memchr(digits, hex[2 * i], 16)) == NULL ||
		    (lo = memchr(digits, hex[2 * i + 1], 16)) == NULL)
			return -1;
		out[i] = (unsigned char)((hi - digits) << 4 | (lo - digits));
	}
	return 0;
}

/* habit_id - what a's place in a habit's window remembers of it */
static void
habit_id(struct habit_id *id, const struct arrival *a)
{
	unsigned char pid[LEDGER_PATCHID_LEN];

	memset(id, 0, sizeof(*id));
	memcpy(id->msgid, a->message_id_sha256, sizeof(id->msgid));
	if (ledger_patch_id(pid, a->patch_id) == 0)
		memcpy(id->patch, pid, sizeof(id->patch));
}

/* habit_find - the place in hs's window of the mail or patch id: its
   bit, or -1 */
static int
habit_find(const struct habit_state *hs, const struct habit_id *id)
{
	static const unsigned char none[8];
	unsigned k;

	for (k = 0; k < hs->h.recent && k < HABIT_WINDOW; k++)
		if (memcmp(hs->ids[k].msgid, id->msgid, 8) == 0 ||
		    (memcmp(id->patch, none, 8) != 0 &&
		    memcmp(hs->ids[k].patch, id->patch, 8) == 0))
			return (int)k;
	return -1;
}

/* signed_by - a, the latest signed mail of hs, signed with its key */
static void
signed_by(struct habit_state *hs, const struct arrival *a, int latest)
{
	if (latest && hs->h.run > 0 && strcmp(hs->h.key, a->key) == 0)
		hs->h.run++;
	else if (latest)
		hs->h.run = 1;
	if (latest || hs->h.key[0] == '\0')
		memcpy(hs->h.key, a->key, sizeof(hs->h.key));
	if (hs->h.first_signed == 0)
		hs->h.first_signed = a->arrived;
	if (a->arrived > hs->h.last_signed)
		hs->h.last_signed = a->arrived;
}

static void
count_signed(struct habit_state *hs)
{
	uint32_t w;

	for (hs->h.recent_signed = 0, w = hs->window; w != 0; w &= w - 1)
		hs->h.recent_signed++;
}

/* ledger_habit_add - see ledger-codec.h */
int
ledger_habit_add(struct habit_state *hs, const struct arrival *a)
{
	struct habit_id id;
	int k;

	habit_id(&id, a);
	if ((k = habit_find(hs, &id)) >= 0) {
		if (!a->signed_trusted || (hs->window >> k & 1) != 0)
			return 0;
		hs->window |= (uint32_t)1 << k;
		count_signed(hs);
		signed_by(hs, a, k == 0);
		return 1;
	}
	if (a->copy > 1)
		return 0;
	if (hs->h.recent < HABIT_WINDOW)
		hs->h.recent++;
	hs->window = hs->window << 1 | (a->signed_trusted != 0);
	if (hs->h.recent < HABIT_WINDOW)
		hs->window &= ((uint32_t)1 << hs->h.recent) - 1;
	memmove(&hs->ids[1], &hs->ids[0], sizeof(hs->ids) - sizeof(id));
	hs->ids[0] = id;
	count_signed(hs);
	if (a->signed_trusted)
		signed_by(hs, a, 1);
	else
		hs->h.run = 0;
	return 1;
}
