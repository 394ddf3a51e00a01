/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ledger-codec.c - the stored form of a value of the ledger (see
 * ledger-codec.h): the version byte, fields as tag, length and value,
 * the text fields packed, the checksum; what any table of fields
 * (ledger-field.h) writes and reads.  Which fields an arrival record and
 * a habit have: ledger-fields.c.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ledger-codec.h"
#include "ledger-field.h"

#define CODEC_VERSION	2	/* written; version 1 is read too */
#define SUM_TAG		0xff
#define SUM_LEN		8
#define PACK_TAG	0xfe	/* version 2: text fields, deflated */
#define LEN_LONG	0x80	/* version 2: a length whose first byte has
				   it set is two bytes, the rest of both */

_Static_assert(sizeof(unsigned) == 4 && sizeof(uint32_t) == 4,
    "F_UINT fields are 4 bytes");

_Static_assert(LEDGER_VALUE_MAX < LEN_LONG << 8,
    "a version 2 length fits in two bytes");

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

int
ledger_value_encode(struct sbuf *sb, const struct field *t, size_t n,
    const void *obj, int pack, const void *key, size_t keylen)
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
	if (strnlen(hex, 2 * n + 1) != 2 * n ||
	    codec_unhex(out, hex, n, 0) != 0)
		return -1;
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

	if (bin) {
		if (len != (f->size - 1) / 2)
			return PA_ERROR;
		codec_hex((char *)dst, p, len, 0);
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

/* One ledger_value_decode(): the table, the version, the fields seen. */
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

int
ledger_value_decode(const struct field *t, size_t n, const unsigned char *p,
    size_t len, const void *key, size_t keylen, void *obj, size_t objsize)
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
