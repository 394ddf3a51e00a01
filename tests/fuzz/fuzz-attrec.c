/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fuzz-attrec - libFuzzer target: any bytes as a document record of the
 * index, read as the lookups read one and as the upgrade reads an
 * earlier schema's; a record that reads is written again, and must read
 * the same.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "attrec.h"
#include "base.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* same - a and b are the same document, of the same triples */
static int
same(const struct att_docinfo *a, const unsigned char *ta, size_t na,
    const struct att_docinfo *b, const unsigned char *tb, size_t nb)
{
	return memcmp(a->docid, b->docid, sizeof(a->docid)) == 0 &&
	    a->status == b->status && a->when == b->when &&
	    strcmp(a->fpr, b->fpr) == 0 && strcmp(a->uids, b->uids) == 0 &&
	    strcmp(a->where, b->where) == 0 &&
	    strcmp(a->msgid, b->msgid) == 0 && na == nb &&
	    memcmp(ta, tb, na * TRIPLE_LEN) == 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned char key[32];
	static struct att_docinfo d, again;
	static struct sbuf sb;
	static int ready;
	const unsigned char *docid, *t, *t2;
	size_t n, n2;

	if (!ready) {
		sbuf_init(&sb, SBUF_NOMAX);
		ready = 1;
	}
	(void)attrec_decode_old(data, size, key, &d, &t, &n);
	if (attrec_decode(data, size, NULL, &docid, &t, &n) != 0 ||
	    attrec_decode(data, size, &d, &docid, &t, &n) != 0)
		return 0;
	sbuf_reset(&sb);
	if (attrec_encode(&sb, &d, (const struct att_triple *)t, n) != 0)
		return 0;
	if (attrec_decode((const unsigned char *)sb.buf, sb.len, &again,
	    &docid, &t2, &n2) != 0 || !same(&d, t, n, &again, t2, n2))
		__builtin_trap();
	return 0;
}
