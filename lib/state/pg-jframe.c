/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pg-jframe.c - the stored form of StateDatabase's journal: its header
 * slots and its frames (see pg-journal-int.h).  Pure functions over
 * bytes, apart from the file, so that they can be fuzzed.
 */
#include "config.h"

#include <string.h>

#include <zlib.h>

#include "base.h"
#include "ledger-int.h"		/* ledger_msgid_hash() */
#include "pg-journal-int.h"

#define SLOT_MAGIC	"PAJOURN1"
#define SEAL_KEY_LEN	(JKEY_LEN + 8 + JID_LEN)
#define LMDB_MAGIC	0xBEEFC0DEu	/* MDB_meta's mm_magic */
#define LMDB_META_AT	16		/* after the page header */

static uint32_t
crc(const unsigned char *p, size_t n)
{
	return (uint32_t)crc32(crc32(0L, Z_NULL, 0), p, (uInt)n);
}

void
jslot_encode(unsigned char out[JSLOT_LEN], const struct jslot *s)
{
	memset(out, 0, JSLOT_LEN);
	memcpy(out, SLOT_MAGIC, 8);
	bigend_put64(out + 8, s->gen);
	memcpy(out + 16, s->key, JKEY_LEN);
	bigend_put64(out + 32, s->sent);
	bigend_put64(out + 40, s->synced);
	bigend_put64(out + 48, s->sent_off);
	bigend_put32(out + 56, crc(out, 56));
}

int
jslot_decode(const unsigned char in[JSLOT_LEN], struct jslot *s)
{
	if (memcmp(in, SLOT_MAGIC, 8) != 0 || bigend_get32(in + 56) != crc(in, 56))
		return -1;
	s->gen = bigend_get64(in + 8);
	memcpy(s->key, in + 16, JKEY_LEN);
	s->sent = bigend_get64(in + 32);
	s->synced = bigend_get64(in + 40);
	s->sent_off = bigend_get64(in + 48);
	/* a whole slot that says what cannot be is no slot either */
	if (s->synced > UINT64_MAX / 2 || s->sent > UINT64_MAX / 2 ||
	    s->sent_off < JHEAD || s->sent_off > UINT64_MAX / 2)
		return -1;
	return 0;
}

/* seal_key - what a frame's record is sealed under */
static void
seal_key(unsigned char out[SEAL_KEY_LEN], const unsigned char *key,
    uint64_t seq, const unsigned char *id)
{
	memcpy(out, key, JKEY_LEN);
	bigend_put64(out + JKEY_LEN, seq);
	memcpy(out + JKEY_LEN + 8, id, JID_LEN);
}

int
jframe_make(struct sbuf *sb, const unsigned char key[JKEY_LEN],
    uint64_t seq, uint64_t prev, const unsigned char id[JID_LEN],
    const struct arrival *a)
{
	unsigned char head[JFRAME_HEAD], sk[SEAL_KEY_LEN];
	size_t start = sb->len;
	int rc;

	seal_key(sk, key, seq, id);
	memset(head, 0, sizeof(head));
	if ((rc = sbuf_add(sb, head, sizeof(head))) != 0 ||
	    (rc = ledger_encode_arrival(sb, sk, sizeof(sk), a)) != 0) {
		sb->len = start;
		return rc;
	}
	memcpy(head, JFRAME_MAGIC, 4);
	bigend_put32(head + 4, (uint32_t)(sb->len - start - JFRAME_HEAD));
	bigend_put64(head + 8, seq);
	memcpy(head + 24, id, JID_LEN);
	memcpy(sb->buf + start, head, sizeof(head));
	jframe_relink((unsigned char *)sb->buf + start, prev);
	return 0;
}

void
jframe_relink(unsigned char *p, uint64_t prev)
{
	bigend_put64(p + 16, prev);
	bigend_put32(p + 40, crc(p, 40));
}

enum jframe
jframe_read(const unsigned char *p, size_t avail,
    const unsigned char key[JKEY_LEN], size_t *len, uint64_t *seq,
    uint64_t *prev, unsigned char id[JID_LEN], struct arrival *a)
{
	unsigned char sk[SEAL_KEY_LEN];
	uint32_t rlen;

	if (avail < JFRAME_HEAD) {
		/* a beginning of a frame, unfinished, or none */
		if (memcmp(p, JFRAME_MAGIC, avail < 4 ? avail : 4) != 0)
			return JFRAME_BAD;
		*len = JFRAME_HEAD;
		return JFRAME_SHORT;
	}
	if (memcmp(p, JFRAME_MAGIC, 4) != 0 ||
	    bigend_get32(p + 40) != crc(p, 40) ||
	    (rlen = bigend_get32(p + 4)) > LEDGER_VALUE_MAX)
		return JFRAME_BAD;
	*len = JFRAME_HEAD + rlen;
	if (avail < *len)
		return JFRAME_SHORT;
	*seq = bigend_get64(p + 8);
	*prev = bigend_get64(p + 16);
	memcpy(id, p + 24, JID_LEN);
	seal_key(sk, key, *seq, id);
	if (*seq == 0 || *seq > UINT64_MAX / 2 || *prev >= *seq ||
	    ledger_decode_arrival(p + JFRAME_HEAD, rlen, sk, sizeof(sk),
	    a) != 0)
		return JFRAME_BAD;
	return JFRAME_OK;
}

int
jframe_hash(const struct arrival *a, uint32_t *hash)
{
	unsigned char h[32];

	if (ledger_msgid_hash(a, h) != 0)
		return -1;
	*hash = bigend_get32(h);
	return 0;
}

int
jlmdb_probe(const unsigned char *p, size_t n)
{
	uint32_t magic;

	if (n < LMDB_META_AT + 4)
		return 0;
	/* in the order of the machine that wrote it: this one */
	memcpy(&magic, p + LMDB_META_AT, 4);
	return magic == LMDB_MAGIC;
}
