/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fuzz-ledger - libFuzzer target: the decoders of the ledger's values
 * (ledger-codec.c).  The first byte picks an arrival record (even) or a
 * signing habit (odd); the rest is a value, decoded as it is (its
 * checksum seldom matches) and again sealed with its right checksum, so
 * that the fields behind it are reached.  What decodes must encode to a
 * value that decodes to the same: no crash, no read past the value, no
 * field over its cap, no leak.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "patchattest.h"
#include "base.h"
#include "state.h"
#include "ledger-codec.h"

#define IDENTITY	"dev@example.org"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static const unsigned char key[16] = { 0x80, 0, 0, 0, 0x65, 0x53, 0xf1,
	0, 0, 0, 0, 0, 0, 0, 0, 7 };

/* arrival - p decoded as a record, and again from its encoding */
static void
arrival(const unsigned char *p, size_t len)
{
	struct arrival a, b;
	struct sbuf sb;

	if (ledger_decode_arrival(p, len, key, sizeof(key), &a) != 0)
		return;
	sbuf_init(&sb, LEDGER_VALUE_MAX);
	if (ledger_encode_arrival(&sb, key, sizeof(key), &a) != 0 ||
	    ledger_decode_arrival(sb.buf, sb.len, key, sizeof(key), &b) != 0 ||
	    memcmp(&a, &b, sizeof(a)) != 0)
		abort();
	sbuf_release(&sb);
}

/* habit - p decoded as a habit, and again from its encoding */
static void
habit(const unsigned char *p, size_t len)
{
	struct habit_state a, b;
	struct sbuf sb;

	if (ledger_decode_habit(p, len, IDENTITY, strlen(IDENTITY), &a) != 0)
		return;
	sbuf_init(&sb, LEDGER_VALUE_MAX);
	if (ledger_encode_habit(&sb, &a) != 0 ||
	    ledger_decode_habit(sb.buf, sb.len, IDENTITY, strlen(IDENTITY),
	    &b) != 0 || memcmp(&a, &b, sizeof(a)) != 0)
		abort();
	sbuf_release(&sb);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sbuf sealed;
	int kind;

	if (size < 1)
		return 0;
	kind = data[0] & 1;
	data++, size--;
	sbuf_init(&sealed, 1 << 17);
	sbuf_add(&sealed, data, size);
	if (kind == 0) {
		arrival(data, size);
		if (ledger_seal(&sealed, 0, key, sizeof(key)) == 0)
			arrival((unsigned char *)sealed.buf, sealed.len);
	} else {
		habit(data, size);
		if (ledger_seal(&sealed, 0, IDENTITY, strlen(IDENTITY)) == 0)
			habit((unsigned char *)sealed.buf, sealed.len);
	}
	sbuf_release(&sealed);
	return 0;
}
