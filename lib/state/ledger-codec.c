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

#define CODEC_VERSION	2	/* written; version 1 is read too */
#define SUM_TAG		0xff
#define SUM_LEN		8
#define PACK_TAG	0xfe	/* version 2: text fields, deflated */
#define LEN_LONG	0x80	/* version 2: a length whose first byte has
				   it set is two bytes, the rest of both */
#define DERIVED_MAX	ARRIVAL_TEXT_MAX	/* a derived field, at most */

enum field_type {
	F_STR,		/* char[size], NUL-terminated; stored without it */
	F_HEX,		/* an F_STR; size - 1 lower-case hex digits are
			   stored as their bytes under the tag bin */
	F_BYTES,	/* unsigned char[size], stored whole */
	F_UINT,		/* unsigned (or uint32_t), 4 bytes */
	F_TIME,		/* time_t, 8 bytes, two's complement */
	F_FLAG		/* int, 0 or 1, 1 byte */
};

struct field {
	unsigned char	 tag;	/* stable: the file keeps it */
	unsigned char	 bin;	/* F_HEX: the tag of its bytes */
	enum field_type	 type;
	size_t		 off, size;
	/* version 2: the value the other fields give, which is then not
	   stored (size bytes into out; 0, or -1 when there is none) */
	int		(*derive)(const void *obj, unsigned char *out);
};

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
    "decode() marks the fields it has seen in a uint32_t");

_Static_assert(sizeof(unsigned) == 4 && sizeof(uint32_t) == 4,
    "F_UINT fields are 4 bytes");

_Static_assert(LEDGER_VALUE_MAX < LEN_LONG << 8,
    "a version 2 length fits in two bytes");

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

/* put_field - tag, len and the bytes at p, in version's form */
static void
put_field(struct sbuf *sb, int version, unsigned char tag, const void *p,
    size_t len)
{
	unsigned char head[3] = { tag };
	size_t n = 3;

	if (version == 1)
		put_be(head + 1, len, 2);
	else if (len < LEN_LONG) {
		head[1] = (unsigned char)len;
		n = 2;
	} else
		put_be(head + 1, len | LEN_LONG << 8, 2);
	sbuf_add(sb, head, n);
	sbuf_add(sb, p, len);
}

/* put_number - v without its leading zero bytes; nothing when it is 0 */
static void
put_number(struct sbuf *sb, unsigned char tag, uint64_t v)
{
	unsigned char num[8];
	size_t n;

	for (n = 0; n < 8 && v >> (8 * n) != 0; n++)
		;
	put_be(num, v, n);
	if (n > 0)
		put_field(sb, CODEC_VERSION, tag, num, n);
}

/*
 * derived - whether the field f of obj holds what its derivation gives
 * (then it is not stored)
 */
static int
derived(const struct field *f, const void *obj)
{
	const unsigned char *v = (const unsigned char *)obj + f->off;
	unsigned char d[DERIVED_MAX];

	if (f->derive == NULL || f->derive(obj, d) != 0)
		return 0;
	if (f->type == F_STR)
		return strncmp((const char *)d, (const char *)v, f->size) == 0;
	return memcmp(d, v, f->size) == 0;
}

/* put_text - the F_STR or F_HEX field f whose value is s */
static void
put_text(struct sbuf *sb, const struct field *f, const char *s, int derive)
{
	unsigned char bin[DERIVED_MAX];
	size_t len = strnlen(s, f->size - 1);

	if (f->type == F_HEX && ledger_unhex(bin, s, (f->size - 1) / 2) == 0)
		put_field(sb, CODEC_VERSION, f->bin, bin, (f->size - 1) / 2);
	/* a field that may be derived is stored even empty: "" is a value */
	else if (len > 0 || derive)
		put_field(sb, CODEC_VERSION, f->tag, s, len);
}

/* put_value - the field f of obj, unless it is what it derives to */
static void
put_value(struct sbuf *sb, const struct field *f, const void *obj)
{
	const void *v = (const unsigned char *)obj + f->off;
	unsigned char flag = 1;

	if (derived(f, obj))
		return;
	switch (f->type) {
	case F_STR:
	case F_HEX:
		put_text(sb, f, v, f->derive != NULL);
		break;
	case F_BYTES:
		put_field(sb, CODEC_VERSION, f->tag, v, f->size);
		break;
	case F_UINT:
		put_number(sb, f->tag, *(const uint32_t *)v);
		break;
	case F_TIME:
		put_number(sb, f->tag, (uint64_t)(int64_t)*(const time_t *)v);
		break;
	case F_FLAG:
		if (*(const int *)v != 0)
			put_field(sb, CODEC_VERSION, f->tag, &flag, 1);
		break;
	}
}

/*
 * put_packed - the fields in text, deflated into one PACK_TAG field when
 * that is smaller, else as they are
 */
static void
put_packed(struct sbuf *sb, const struct sbuf *text)
{
	unsigned char packed[LEDGER_VALUE_MAX];
	size_t len = sizeof(packed);

	if (text->len > 0 && ledger_pack(packed, &len, text->buf,
	    text->len) == 0 && len + 3 < text->len)
		put_field(sb, CODEC_VERSION, PACK_TAG, packed, len);
	else
		sbuf_add(sb, text->buf, text->len);
}

/*
 * encode - the fields of obj that table names (with pack, its text
 * fields packed), then the checksum
 */
static int
encode(struct sbuf *sb, const struct field *t, size_t n, const void *obj,
    int pack, const void *key, size_t keylen)
{
	unsigned char version = CODEC_VERSION;
	struct sbuf text;
	size_t i, start = sb->len;
	int rc;

	sbuf_init(&text, LEDGER_VALUE_MAX);
	sbuf_add(sb, &version, 1);
	for (i = 0; i < n; i++)
		put_value(pack && t[i].type == F_STR ? &text : sb, &t[i], obj);
	if ((rc = sbuf_failed(&text)) == 0) {
		put_packed(sb, &text);
		rc = ledger_seal(sb, start, key, keylen);
	}
	sbuf_release(&text);
	return rc;
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
	put_field(sb, sb->len > start && sb->buf[start] == 1 ? 1 :
	    CODEC_VERSION, SUM_TAG, sum, SUM_LEN);
	return sbuf_failed(sb);
}

int
ledger_unhex(unsigned char *out, const char *hex, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	const char *hi, *lo;
	size_t i;

	if (strnlen(hex, 2 * n + 1) != 2 * n)
		return -1;
	for (i = 0; i < n; i++) {
		if ((hi = memchr(digits, hex[2 * i], 16)) == NULL ||
		    (lo = memchr(digits, hex[2 * i + 1], 16)) == NULL)
			return -1;
		out[i] = (unsigned char)((hi - digits) << 4 | (lo - digits));
	}
	return 0;
}

/*
 * decode_number - a number of len bytes (4 or 8 in version 1, at most
 * that in version 2) as a uint64_t: 0, or PA_ERROR
 */
static int
decode_number(const unsigned char *p, size_t len, size_t max, int version,
    uint64_t *v)
{
	if (version == 1 ? len != max : len > max)
		return PA_ERROR;
	*v = get_be(p, len);
	return 0;
}

/*
 * decode_field - one field's len bytes at p into obj (bin: under the tag
 * of its bytes): 0, or PA_ERROR
 */
static int
decode_field(const struct field *f, int version, int bin,
    const unsigned char *p, size_t len, void *obj)
{
	unsigned char *dst = (unsigned char *)obj + f->off;
	uint64_t v;
	size_t i;

	if (bin) {
		if (len != (f->size - 1) / 2)
			return PA_ERROR;
		for (i = 0; i < len; i++) {
			dst[2 * i] = "0123456789abcdef"[p[i] >> 4];
			dst[2 * i + 1] = "0123456789abcdef"[p[i] & 15];
		}
		dst[2 * len] = '\0';
		return 0;
	}
	switch (f->type) {
	case F_STR:
	case F_HEX:
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
		if (decode_number(p, len, 4, version, &v) != 0)
			return PA_ERROR;
		*(uint32_t *)(void *)dst = (uint32_t)v;
		return 0;
	case F_TIME:
		if (decode_number(p, len, 8, version, &v) != 0)
			return PA_ERROR;
		*(time_t *)(void *)dst = (time_t)(int64_t)v;
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
 * get_head - the head of the field at p[*off] in version's form, p[end]
 * the end: its length into *len, *off moved to its value; 0, or PA_ERROR
 * when it does not fit
 */
static int
get_head(const unsigned char *p, int version, size_t end, size_t *off,
    size_t *len)
{
	size_t n = 3;

	if (end - *off < 2)
		return PA_ERROR;
	if (version != 1 && (p[*off + 1] & LEN_LONG) == 0)
		n = 2;
	if (end - *off < n)
		return PA_ERROR;
	if (n == 2)
		*len = p[*off + 1];
	else if (version == 1)
		*len = (size_t)get_be(p + *off + 1, 2);
	else
		*len = (size_t)(p[*off + 1] & ~LEN_LONG) << 8 | p[*off + 2];
	*off += n;
	return *len > end - *off ? PA_ERROR : 0;
}

/* One decode(): the table, the version, the fields seen. */
struct reading {
	const struct field	*t;
	size_t			 n;
	int			 version;
	uint32_t		 seen;	/* bit i: t[i] was given */
	int			 unpacked;
};

static int	 decode_fields(struct reading *, const unsigned char *,
		    size_t, size_t, void *);

/* decode_packed - the fields deflated in p[0..len) into obj */
static int
decode_packed(struct reading *r, const unsigned char *p, size_t len,
    void *obj)
{
	unsigned char text[LEDGER_VALUE_MAX];
	size_t tlen = sizeof(text);
	int rc;

	/* once, and not inside itself */
	if (r->unpacked++ > 0)
		return PA_ERROR;
	if ((rc = ledger_unpack(text, &tlen, p, len)) != 0)
		return rc;
	return decode_fields(r, text, 0, tlen, obj);
}

/*
 * decode_fields - the fields in p[off..end) into obj: 0, PA_ERROR or
 * PA_ENOMEM
 */
static int
decode_fields(struct reading *r, const unsigned char *p, size_t off,
    size_t end, void *obj)
{
	const struct field *f;
	size_t flen, at, i;
	int rc;

	for (; off < end; off += flen) {
		at = off;
		if (get_head(p, r->version, end, &off, &flen) != 0)
			return PA_ERROR;
		if (p[at] == PACK_TAG && r->version > 1) {
			if ((rc = decode_packed(r, p + off, flen, obj)) != 0)
				return rc;
			continue;
		}
		for (i = 0; i < r->n && r->t[i].tag != p[at] &&
		    (r->t[i].bin == 0 || r->t[i].bin != p[at]); i++)
			;
		if (i == r->n)
			continue;
		f = &r->t[i];
		if (r->seen & (uint32_t)1 << i || decode_field(f, r->version,
		    f->bin == p[at], p + off, flen, obj) != 0)
			return PA_ERROR;
		r->seen |= (uint32_t)1 << i;
	}
	return 0;
}

/*
 * decode - a value made by encode() with table t into obj (zeroed
 * first): 0, PA_ERROR when it is damaged, or PA_ENOMEM
 */
static int
decode(const struct field *t, size_t n, const unsigned char *p, size_t len,
    const void *key, size_t keylen, void *obj, size_t objsize)
{
	struct reading r = { t, n, 0, 0, 0 };
	unsigned char sum[SUM_LEN];
	size_t off, flen, body, i;
	int rc;

	if (len < 1 || (p[0] != 1 && p[0] != CODEC_VERSION))
		return PA_ERROR;
	r.version = p[0];
	/* the checksum field: tag, SUM_LEN as a length, the sum */
	if (len < 1 + (r.version == 1 ? 3 : 2) + SUM_LEN)
		return PA_ERROR;
	body = len - SUM_LEN - (r.version == 1 ? 3 : 2);
	off = body;
	if (p[body] != SUM_TAG || get_head(p, r.version, len, &off,
	    &flen) != 0 || flen != SUM_LEN ||
	    checksum(sum, key, keylen, p, body) != 0 ||
	    memcmp(sum, p + off, SUM_LEN) != 0)
		return PA_ERROR;
	memset(obj, 0, objsize);
	if ((rc = decode_fields(&r, p, 1, body, obj)) != 0)
		return rc;
	/* version 2 leaves out what the other fields give */
	for (i = 0; i < n && r.version > 1; i++)
		if (t[i].derive != NULL && !(r.seen & (uint32_t)1 << i) &&
		    t[i].derive(obj, (unsigned char *)obj + t[i].off) != 0)
			return PA_ERROR;
	return 0;
}

int
ledger_encode_arrival(struct sbuf *sb, const void *key, size_t keylen,
    const struct arrival *a)
{
	return encode(sb, arrival_fields, NFIELDS(arrival_fields), a, 1, key,
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
	return encode(sb, habit_fields, NFIELDS(habit_fields), hs, 0,
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
	return ledger_unhex(out, hex, LEDGER_PATCHID_LEN);
}
