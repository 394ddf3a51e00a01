/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ledger-pack.c - the text fields of an arrival record deflated (RFC
 * 1951, raw) for ledger-codec.c: trailers, subjects, authors and list
 * names are most of a record, and a few hundred bytes of text deflate
 * to two thirds, to three fifths with a dictionary of what patch mail
 * repeats.  The dictionary is part of the stored form: it may never
 * change (a new one needs a new field tag).
 *
 * A 4 KiB window holds the dictionary and the longest record's text;
 * the deflater's state is some 32 KiB, made and freed for each record
 * (a record is written once).  It deflates at the fastest level: a few
 * hundred bytes come out as small as at the best (one byte more a
 * record, on real list mail) in half the time.
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include <zlib.h>

#include "ledger-codec.h"

#define PACK_WBITS	12	/* the window: 4 KiB */
#define PACK_MEMLEVEL	5

/*
 * What patch mail repeats, the most common last (deflate reaches what
 * is near for less): the verdicts and key types, trailer names, hosts
 * of addresses and links, subject prefixes, list names.
 */
static const char dictionary[] =
    "openssh/openpgp-sha256ed25519-sha256ed25519/openpgp/default "
    "untrusted nokey fail Co-developed-by: Suggested-by: Reported-by: "
    "Tested-by: Acked-by: Reviewed-by: Cc: stable@vger.kernel.org\n"
    "Fixes: Closes: https://Link: https://patch.msgid.link/"
    "Link: https://lore.kernel.org/r/@linux.intel.com@intel.com"
    "@redhat.com@suse.com@google.com@linaro.org@gmail.com@kernel.org>\n"
    "Re: [RFC PATCH [PATCH v3 [PATCH v2 0/ 1/ 2/ 3/ dt-bindings: arm64: "
    "dts: <linux-kernel.vger.kernel.org><netdev.vger.kernel.org><linux-"
    ".vger.kernel.org>nonepass[PATCH Signed-off-by: ";

_Static_assert(sizeof(dictionary) - 1 < (1 << PACK_WBITS) / 4,
    "the dictionary leaves the window to the text");

/*
 * through - len bytes at in through the stream z (made; set, its
 * dictionary; step, deflate() or inflate()) into out, at most *outlen
 * (set to those written): zlib's code
 */
static int
through(z_stream *z, int (*set)(z_streamp, const Bytef *, uInt),
    int (*step)(z_streamp, int), unsigned char *out, size_t *outlen,
    const void *in, size_t len)
{
	int rc;

	if ((rc = set(z, (const Bytef *)dictionary,
	    sizeof(dictionary) - 1)) == Z_OK) {
		z->next_in = (Bytef *)(uintptr_t)in;
		z->avail_in = (uInt)len;
		z->next_out = out;
		z->avail_out = (uInt)*outlen;
		rc = step(z, Z_FINISH);
	}
	*outlen -= z->avail_out;
	return rc;
}

int
ledger_pack(unsigned char *out, size_t *outlen, const void *in, size_t len)
{
	z_stream z;
	int rc;

	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, -PACK_WBITS,
	    PACK_MEMLEVEL, Z_DEFAULT_STRATEGY) != Z_OK)
		return PA_ENOMEM;
	rc = through(&z, deflateSetDictionary, deflate, out, outlen, in, len);
	deflateEnd(&z);
	if (rc == Z_MEM_ERROR)
		return PA_ENOMEM;
	return rc == Z_STREAM_END ? 0 : PA_ETOOBIG;
}

int
ledger_unpack(unsigned char *out, size_t *outlen, const void *in, size_t len)
{
	z_stream z;
	int rc;

	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, -PACK_WBITS) != Z_OK)
		return PA_ENOMEM;
	rc = through(&z, inflateSetDictionary, inflate, out, outlen, in, len);
	inflateEnd(&z);
	if (rc == Z_MEM_ERROR)
		return PA_ENOMEM;
	/* all of it, and no more than out holds */
	return rc == Z_STREAM_END && z.avail_in == 0 ? 0 : PA_ERROR;
}
