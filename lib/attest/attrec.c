/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * attrec - the stored form of a document record: a version byte, then
 * fields as tag, length (LEB128), value.  Unknown tags are skipped, so a
 * later version may add fields that this one reads past.
 *
 * Version 4 (schema 4) opens with the document's ID and ends with a
 * checksum field: the first 8 bytes of SHA-256 over every byte before
 * the field.  LMDB keeps no checksums of its own, so this is what tells
 * a record that was damaged from a real one; the ID inside it is what
 * ties it to its document, now that records are filed by number.  A
 * fingerprint, and the commit a "where" ends with, are long runs of hex
 * digits: such a run is kept as the bytes it spells, half its size, in a
 * field of its own that the decoder appends to the text before it; the
 * signature time takes the bytes it needs.  Records are four fifths of
 * an index of a million documents: fourteen of them fit a page, twelve
 * did in version 3.
 *
 * Version 3 (schema 3) kept every text as it is and the time in 8 bytes.
 * Version 2 (schema 2) had no ID field: its checksum covered the ID it
 * was filed under, then its bytes.  Version 1 had no checksum.  Those
 * three are only read, by the upgrade (attindex-schema.c).
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "attrec.h"

#define REC_VERSION	4
#define REC_VERSION_3	3	/* text as it is: only read */
#define REC_VERSION_2	2	/* checksum over the key too: only read */
#define REC_VERSION_1	1	/* no checksum: only read */
#define SUM_LEN		8
#define SUM_FIELD_LEN	(2 + SUM_LEN)	/* tag, length, checksum */
#define DOCID_FIELD_LEN	(2 + 32)
#define HEX_RUN_MIN	16	/* digits worth a field of their own */
enum rec_tag {
	REC_STATUS = 1,		/* one byte: status_codes[].code */
	REC_WHEN,		/* 1 to 8 bytes, big-endian two's complement
				   (version 3: always 8) */
	REC_FPR,
	REC_UIDS,
	REC_WHERE,
	REC_MSGID,
	REC_TRIPLES,		/* n * (i|m|p) */
	REC_SUM,		/* SUM_LEN bytes, the last field */
	REC_DOCID,		/* 32 bytes, the first field (since version 3) */
	REC_FPR_HEX,		/* bytes, upper-case hex after REC_FPR's */
	REC_WHERE_HEX		/* bytes, lower-case hex after REC_WHERE's */
};

/* Stable stored codes: the enum may be reordered, the file may not. */
static const struct {
	enum pgp_sigstatus	 status;
	unsigned char		 code;
} status_codes[] = {
	{ PGP_SIG_GOOD, 1 },
	{ PGP_SIG_BAD, 2 },
	{ PGP_SIG_NOKEY, 3 },
	{ PGP_SIG_ERROR, 4 },
};

static void
put_varint(struct sbuf *sb, uint32_t v)
{
	while (v >= 0x80) {
		sbuf_addch(sb, (int)(v & 0x7f) | 0x80);
		v >>= 7;
	}
	sbuf_addch(sb, (int)v);
}

/* get_varint - bytes used, or 0 when p does not hold a valid one */
static size_t
get_varint(const unsigned char *p, size_t len, uint32_t *v)
{
	uint32_t r = 0;
	size_t i;

	for (i = 0; i < len && i < 5; i++) {
		if (i == 4 && p[i] > 0x0f)
			return 0;
		r |= (uint32_t)(p[i] & 0x7f) << (7 * i);
		if (!(p[i] & 0x80)) {
			*v = r;
			return i + 1;
		}
	}
	return 0;
}

static void
put_field(struct sbuf *sb, int tag, const void *p, size_t len)
{
	sbuf_addch(sb, tag);
	put_varint(sb, (uint32_t)len);
	sbuf_add(sb, p, len);
}

/*
 * checksum - of the record's bytes before its checksum field, after
 * docid when there is one (version 2)
 */
static int
checksum(unsigned char sum[SUM_LEN], const unsigned char *docid,
    const void *rec, size_t len)
{
	unsigned char md[DIGEST_LEN];
	struct digest dg;
	int rc;

	digest_init(&dg);
	if (docid != NULL)
		digest_update(&dg, docid, 32);
	digest_update(&dg, rec, len);
	rc = digest_final(&dg, md);
	digest_release(&dg);
	memcpy(sum, md, SUM_LEN);
	return rc;
}

/*
 * put_text - s (of at most size - 1 bytes) as a text field, its hex
 * tail, when it has one worth it, as the bytes it spells (hextag, 0 for
 * none): an even number of digits, HEX_RUN_MIN or more, of one case
 */
static void
put_text(struct sbuf *sb, int tag, int hextag, int upper, const char *s,
    size_t size)
{
	size_t len = strnlen(s, size - 1), run = 0;
	unsigned char byte;

	/* Pairs of digits, counted from the end: an odd one out stays text. */
	while (hextag != 0 && len - run >= 2 &&
	    codec_unhex(&byte, s + len - run - 2, 1, upper) == 0)
		run += 2;
	if (run < HEX_RUN_MIN)
		run = 0;
	if (len > run)
		put_field(sb, tag, s, len - run);
	if (run == 0)
		return;
	sbuf_addch(sb, hextag);
	put_varint(sb, (uint32_t)(run / 2));
	if (sbuf_grow(sb, run / 2) != 0)
		return;
	codec_unhex(sb->buf + sb->len, s + len - run, run / 2, upper);
	sb->len += run / 2;
	sb->buf[sb->len] = '\0';
}

int
attrec_encode(struct sbuf *sb, const struct att_docinfo *d,
    const struct att_triple *t, size_t n)
{
	unsigned char code = 4, when[8], sum[SUM_LEN];
	size_t i, wlen, start = sb->len;
	uint64_t w;
	int rc;

	_Static_assert(sizeof(struct att_triple) == TRIPLE_LEN,
	    "a triple is stored as it is in memory");
	for (i = 0; i < sizeof(status_codes) / sizeof(status_codes[0]); i++)
		if (status_codes[i].status == d->status)
			code = status_codes[i].code;
	w = (uint64_t)(int64_t)d->when;
	for (wlen = 8; wlen > 1 && w >> (8 * (wlen - 1)) == 0; wlen--)
		;
	for (i = 0; i < wlen; i++)
		when[i] = (unsigned char)(w >> (8 * (wlen - 1 - i)));

	sbuf_addch(sb, REC_VERSION);
	put_field(sb, REC_DOCID, d->docid, 32);
	put_field(sb, REC_STATUS, &code, 1);
	put_field(sb, REC_WHEN, when, wlen);
	put_text(sb, REC_FPR, REC_FPR_HEX, 1, d->fpr, sizeof(d->fpr));
	put_text(sb, REC_UIDS, 0, 0, d->uids, sizeof(d->uids));
	put_text(sb, REC_WHERE, REC_WHERE_HEX, 0, d->where, sizeof(d->where));
	put_text(sb, REC_MSGID, 0, 0, d->msgid, sizeof(d->msgid));
	put_field(sb, REC_TRIPLES, t, n * TRIPLE_LEN);
	if ((rc = sbuf_failed(sb)) != 0)
		return rc;
	if ((rc = checksum(sum, NULL, sb->buf + start, sb->len - start)) != 0)
		return rc;
	put_field(sb, REC_SUM, sum, SUM_LEN);
	return sbuf_failed(sb);
}

/*
 * put_hex - the len bytes at p appended to the text str (of size bytes)
 * as hex digits of the case given; -1 when they do not fit
 */
static int
put_hex(char *str, size_t size, const unsigned char *p, size_t len,
    int upper)
{
	size_t at = strlen(str);

	if (len > (size - at - 1) / 2)
		return -1;
	codec_hex(str + at, p, len, upper);
	return 0;
}

/*
 * fields - the fields of p (after the version byte) into d, *docid (the
 * ID field's bytes, NULL without one), *t and *n
 */
static int
fields(const unsigned char *p, size_t len, struct att_docinfo *d,
    const unsigned char **docid, const unsigned char **t, size_t *n)
{
	char *str[4] = { NULL };
	size_t size[4] = { 0 }, off, used, i;
	uint32_t flen;
	uint64_t w;
	int tag;

	if (d != NULL) {
		d->status = PGP_SIG_ERROR;
		d->when = 0;
		d->fpr[0] = d->uids[0] = d->where[0] = d->msgid[0] = '\0';
		str[0] = d->fpr, size[0] = sizeof(d->fpr);
		str[1] = d->uids, size[1] = sizeof(d->uids);
		str[2] = d->where, size[2] = sizeof(d->where);
		str[3] = d->msgid, size[3] = sizeof(d->msgid);
	}
	*docid = NULL;
	if (t != NULL) {
		*t = NULL;
		*n = 0;
	}
	for (off = 1; off < len; off += flen) {
		tag = p[off++];
		if ((used = get_varint(p + off, len - off, &flen)) == 0)
			return -1;
		off += used;
		if (flen > len - off)
			return -1;
		switch (tag) {
		case REC_DOCID:
			if (flen != 32)
				return -1;
			*docid = p + off;
			break;
		case REC_STATUS:
			if (flen != 1)
				return -1;
			for (i = 0; d != NULL && i < sizeof(status_codes) /
			    sizeof(status_codes[0]); i++)
				if (status_codes[i].code == p[off])
					d->status = status_codes[i].status;
			break;
		case REC_WHEN:
			if (flen < 1 || flen > 8)
				return -1;
			for (w = 0, i = 0; i < flen; i++)
				w = w << 8 | p[off + i];
			if (d != NULL)
				d->when = (time_t)(int64_t)w;
			break;
		case REC_FPR:
		case REC_UIDS:
		case REC_WHERE:
		case REC_MSGID:
			i = (size_t)(tag - REC_FPR);
			if (d == NULL)
				break;
			if (flen >= size[i])
				return -1;
			memcpy(str[i], p + off, flen);
			str[i][flen] = '\0';
			break;
		case REC_FPR_HEX:
		case REC_WHERE_HEX:
			i = tag == REC_FPR_HEX ? 0 : 2;
			if (d != NULL && put_hex(str[i], size[i], p + off, flen,
			    tag == REC_FPR_HEX) != 0)
				return -1;
			break;
		case REC_TRIPLES:
			if (flen % TRIPLE_LEN != 0)
				return -1;
			if (t != NULL) {
				*t = p + off;
				*n = flen / TRIPLE_LEN;
			}
			break;
		default:
			break;
		}
	}
	return 0;
}

/* summed - the length of p before its checksum field when it matches */
static int
summed(const unsigned char *p, size_t len, const unsigned char *docid,
    size_t *body)
{
	unsigned char sum[SUM_LEN];

	if (len < 1 + SUM_FIELD_LEN)
		return -1;
	*body = len - SUM_FIELD_LEN;
	if (p[*body] != REC_SUM || p[*body + 1] != SUM_LEN ||
	    checksum(sum, docid, p, *body) != 0 ||
	    memcmp(sum, p + *body + 2, SUM_LEN) != 0)
		return -1;
	return 0;
}

int
attrec_decode(const unsigned char *p, size_t len, struct att_docinfo *d,
    const unsigned char **docid, const unsigned char **t, size_t *n)
{
	size_t body;

	if (len < 1 + DOCID_FIELD_LEN || p[0] != REC_VERSION ||
	    summed(p, len, NULL, &body) != 0 ||
	    fields(p, body, d, docid, t, n) != 0 || *docid == NULL)
		return -1;
	if (d != NULL)
		memcpy(d->docid, *docid, 32);
	return 0;
}

int
attrec_decode_old(const unsigned char *p, size_t len,
    const unsigned char *docid, struct att_docinfo *d,
    const unsigned char **t, size_t *n)
{
	const unsigned char *inner;
	size_t body = len;

	if (len < 1 || p[0] < REC_VERSION_1 || p[0] > REC_VERSION_3)
		return -1;
	if (p[0] == REC_VERSION_3)
		docid = NULL;
	if ((p[0] != REC_VERSION_1 && summed(p, len, docid, &body) != 0) ||
	    fields(p, body, d, &inner, t, n) != 0)
		return -1;
	/* Version 3 names its document, the earlier two are named by
	   their key. */
	if (p[0] == REC_VERSION_3 ? inner == NULL :
	    inner != NULL || docid == NULL)
		return -1;
	if (d != NULL)
		memcpy(d->docid, p[0] == REC_VERSION_3 ? inner : docid, 32);
	return 0;
}
