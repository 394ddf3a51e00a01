/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t-attrec - the index's document record (attrec.c): every field comes
 * back as it went in, hex runs kept as bytes or as text; records that
 * are damaged, or well summed but hostile, are refused.
 */
#include "config.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "attrec.h"
#include "base.h"
#include "tap.h"

#define SUM_FIELD_LEN	10	/* tag, length, 8 bytes of SHA-256 */

static struct att_triple	 triples[3];

/* doc - a document whose texts are the ones given */
static void
doc(struct att_docinfo *d, const char *fpr, const char *where, time_t when)
{
	size_t b;

	memset(d, 0, sizeof(*d));
	for (b = 0; b < sizeof(d->docid); b++)
		d->docid[b] = (unsigned char)(b * 7 + 1);
	d->status = PGP_SIG_GOOD;
	d->when = when;
	snprintf(d->fpr, sizeof(d->fpr), "%s", fpr);
	snprintf(d->uids, sizeof(d->uids), "A Developer <dev@example.org>");
	snprintf(d->where, sizeof(d->where), "%s", where);
	snprintf(d->msgid, sizeof(d->msgid), "<1@example.org>");
}

/* same - the decoded record is d, with its triples */
static int
same(const struct sbuf *rec, const struct att_docinfo *d)
{
	struct att_docinfo got;
	const unsigned char *docid, *t;
	size_t n;

	if (attrec_decode((const unsigned char *)rec->buf, rec->len, &got,
	    &docid, &t, &n) != 0)
		return 0;
	if (strcmp(got.fpr, d->fpr) != 0 || strcmp(got.where, d->where) != 0)
		tap_diag("got fpr \"%s\" where \"%s\"", got.fpr, got.where);
	return memcmp(got.docid, d->docid, 32) == 0 &&
	    memcmp(docid, d->docid, 32) == 0 && got.status == d->status &&
	    got.when == d->when && strcmp(got.fpr, d->fpr) == 0 &&
	    strcmp(got.uids, d->uids) == 0 &&
	    strcmp(got.where, d->where) == 0 &&
	    strcmp(got.msgid, d->msgid) == 0 && n == 3 &&
	    memcmp(t, triples, sizeof(triples)) == 0;
}

/* roundtrip - d encoded and decoded; the record into rec */
static int
roundtrip(struct sbuf *rec, const struct att_docinfo *d)
{
	sbuf_reset(rec);
	return attrec_encode(rec, d, triples, 3) == 0 && same(rec, d);
}

static void
t_round_trips(void)
{
	static const char commit[] = "0123456789abcdef0123456789abcdef01234567";
	static const char fpr[] = "0123456789ABCDEF0123456789ABCDEF01234567";
	static const unsigned char fpr_bytes[] = { 0x01, 0x23, 0x45, 0x67,
		0x89, 0xab, 0xcd, 0xef };
	static const time_t whens[] = { 0, 1, 255, 256, 1600000000,
		-1, -1600000000, (time_t)INT64_MAX, (time_t)INT64_MIN };
	struct att_docinfo d;
	struct sbuf rec;
	char where[300], text[300];
	size_t i, bad, len;

	sbuf_init(&rec, SBUF_NOMAX);
	snprintf(where, sizeof(where), "git/0.git:%s", commit);
	doc(&d, fpr, where, 1600000000);
	tap_check(roundtrip(&rec, &d), "a fingerprint and a commit come back");
	tap_check(memmem(rec.buf, rec.len, fpr, 16) == NULL &&
	    memmem(rec.buf, rec.len, commit, 16) == NULL &&
	    memmem(rec.buf, rec.len, fpr_bytes, sizeof(fpr_bytes)) != NULL,
	    "  kept as the bytes their digits spell");
	len = rec.len;
	memset(d.fpr, 'x', strlen(d.fpr));
	memset(d.where + 10, 'x', strlen(d.where) - 10);
	tap_check(roundtrip(&rec, &d) && rec.len == len + 38,
	    "  38 bytes fewer than texts of their length");

	for (i = 0, bad = 0; i < sizeof(whens) / sizeof(whens[0]); i++) {
		doc(&d, fpr, where, whens[i]);
		bad += !roundtrip(&rec, &d);
	}
	tap_check_int((long long)bad, 0, "signature times of 1 to 8 bytes, "
	    "negative ones too, come back");

	/* Digits of the other case end a run: left as text, as they are. */
	doc(&d, "0123456789abcdef0123456789abcdef01234567",
	    "git/0.git:0123456789ABCDEF0123456789ABCDEF01234567", 1);
	tap_check(roundtrip(&rec, &d), "hex of the other case comes back");
	tap_check(memmem(rec.buf, rec.len, "ABCDEF0123456789", 16) != NULL,
	    "  kept as text");
	/* An odd run: one digit stays with the text. */
	doc(&d, "F0123456789ABCDEF0123456789ABCDEF01234567",
	    "maildir/cur/1600000000.123456789012345.host:2,S", 1);
	tap_check(roundtrip(&rec, &d), "odd runs, runs of digits, come back");
	doc(&d, "", "", 1);
	snprintf(d.uids, sizeof(d.uids), "%s", "");
	snprintf(d.msgid, sizeof(d.msgid), "%s", "");
	tap_check(roundtrip(&rec, &d), "empty texts come back");
	doc(&d, "", "", 1);
	memset(d.fpr, 'A', sizeof(d.fpr) - 1);
	memset(d.where, '7', sizeof(d.where) - 1);
	tap_check(roundtrip(&rec, &d), "texts of the longest length come back");
	doc(&d, "0123456789ABCDEF", "0123456789abcde", 1);
	tap_check(roundtrip(&rec, &d), "short runs come back");
	snprintf(text, sizeof(text), "%s", d.where);
	tap_check(memmem(rec.buf, rec.len, text, strlen(text)) != NULL,
	    "  kept as text");
	sbuf_release(&rec);
}

/* resum - rec's checksum field made again over its bytes before it */
static void
resum(struct sbuf *rec)
{
	unsigned char md[DIGEST_LEN];
	struct digest dg;
	size_t body = rec->len - SUM_FIELD_LEN;

	digest_init(&dg);
	digest_update(&dg, rec->buf, body);
	digest_final(&dg, md);
	digest_release(&dg);
	memcpy(rec->buf + body + 2, md, 8);
}

/*
 * with_field - d's record with the field (tag, len bytes of fill) put
 * before its triples, summed again
 */
static void
with_field(struct sbuf *rec, const struct att_docinfo *d, int tag,
    size_t len, int fill)
{
	struct sbuf tail;
	unsigned char *at;
	size_t off, i;

	sbuf_reset(rec);
	attrec_encode(rec, d, triples, 3);
	at = memmem(rec->buf, rec->len, triples, sizeof(triples));
	off = (size_t)(at - (unsigned char *)rec->buf) - 3;	/* tag, 2 */
	sbuf_init(&tail, SBUF_NOMAX);
	sbuf_add(&tail, rec->buf + off, rec->len - off);
	rec->len = off;
	sbuf_addch(rec, tag);
	sbuf_addch(rec, (int)(len & 0x7f) | (len >= 0x80 ? 0x80 : 0));
	if (len >= 0x80)
		sbuf_addch(rec, (int)(len >> 7));
	for (i = 0; i < len; i++)
		sbuf_addch(rec, fill);
	sbuf_add(rec, tail.buf, tail.len);
	sbuf_release(&tail);
	resum(rec);
}

static void
t_refused(void)
{
	struct att_docinfo d, got;
	const unsigned char *docid, *t;
	struct sbuf rec;
	size_t n;

	sbuf_init(&rec, SBUF_NOMAX);
	doc(&d, "0123456789ABCDEF0123456789ABCDEF01234567", "", 1600000000);
	attrec_encode(&rec, &d, triples, 3);
	rec.buf[rec.len / 2] ^= 0x10;
	tap_check_int(attrec_decode((unsigned char *)rec.buf, rec.len, &got,
	    &docid, &t, &n), -1, "a byte changed: refused");

	/* 40 bytes of fingerprint are 80 digits: no room for them. */
	with_field(&rec, &d, 10, 40, 0xab);
	tap_check(same(&rec, &d) == 0 &&
	    attrec_decode((unsigned char *)rec.buf, rec.len, NULL, &docid,
	    &t, &n) == 0, "a summed record with a fingerprint too long "
	    "(in bytes) is refused when read, its ID still found");
	/* Each half of the where fits, not both. */
	doc(&d, "", "git/0.git:", 1);
	memset(d.where + 10, 'x', 200);
	with_field(&rec, &d, 11, 30, 0xcd);
	tap_check_int(attrec_decode((unsigned char *)rec.buf, rec.len, &got,
	    &docid, &t, &n), -1, "a where whose hex overflows it: refused");
	with_field(&rec, &d, 2, 9, 0x01);
	tap_check_int(attrec_decode((unsigned char *)rec.buf, rec.len, &got,
	    &docid, &t, &n), -1, "a time of 9 bytes: refused");
	with_field(&rec, &d, 2, 0, 0x01);
	tap_check_int(attrec_decode((unsigned char *)rec.buf, rec.len, &got,
	    &docid, &t, &n), -1, "a time of no bytes: refused");
	with_field(&rec, &d, 99, 300, 0x01);
	tap_check_int(attrec_decode((unsigned char *)rec.buf, rec.len, &got,
	    &docid, &t, &n), 0, "a field of a later version: read past");
	sbuf_release(&rec);
}

int
main(void)
{
	size_t b;

	for (b = 0; b < sizeof(triples); b++)
		((unsigned char *)triples)[b] = (unsigned char)(b * 31 + 5);
	t_round_trips();
	t_refused();
	return tap_done();
}
