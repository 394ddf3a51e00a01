/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fuzz-callbacks - libFuzzer target: the milter's callbacks in whatever
 * order, with whatever header names, values and body pieces, huge or
 * empty, aborted anywhere, the MTA refusing changes now and then
 * (fakemilter.c stands in for libmilter).  Nothing may crash, leak or
 * hang; every message that ends is answered.
 *
 * The input is a sequence of operations: one byte, its value modulo 12
 * (connect, helo, envfrom, envrcpt, data, header, eoh, body, eom, abort,
 * close, the MTA refusing changes from now on), a header followed by two
 * strings and a body piece by one, each string a two-byte big-endian
 * length and its bytes (cut at a NUL: the MTA hands over C strings).
 * A step the milter registers no callback for (it asks the MTA to skip
 * helo, envrcpt and data) is skipped, as libmilter skips it.
 * FUZZ_KEYRING, when set, is a patatt keyring folder.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fakemilter.h"
#include "milter.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* take - the next string of the input into out, NUL-terminated */
static void
take(const uint8_t **p, const uint8_t *end, struct sbuf *out)
{
	size_t len;

	sbuf_reset(out);
	if (end - *p < 2) {
		*p = end;
		return;
	}
	len = (size_t)(*p)[0] << 8 | (*p)[1];
	*p += 2;
	if (len > (size_t)(end - *p))
		len = (size_t)(end - *p);
	sbuf_add(out, *p, strnlen((const char *)*p, len));
	*p += len;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sbuf a, b;
	static int started;
	static char dir[] = "/tmp/fuzz-callbacks.XXXXXX";
	const uint8_t *p = data, *end = data + size;
	struct smfi_str ctx;
	char host[] = "client.example", *argv[] = { "<a@example.org>", NULL };

	if (!started) {
		if (mkdtemp(dir) == NULL ||
		    fake_start(dir, getenv("FUZZ_KEYRING"),
		    "MaximumBodySize 1048576\nLearnFromMail yes\n") != 0)
			abort();
		sbuf_init(&a, 1 << 20);
		sbuf_init(&b, 1 << 20);
		started = 1;
	}
	memset(&ctx, 0, sizeof(ctx));
	fake_reset(&ctx);
	while (p < end) {
		switch (*p++ % 12) {
		case 0:
			if (ctx.priv != NULL)
				milter_desc.xxfi_close(&ctx);
			milter_desc.xxfi_connect(&ctx, host, NULL);
			break;
		case 1:
			if (milter_desc.xxfi_helo != NULL)
				milter_desc.xxfi_helo(&ctx, host);
			break;
		case 2:
			milter_desc.xxfi_envfrom(&ctx, argv);
			break;
		case 3:
			if (milter_desc.xxfi_envrcpt != NULL)
				milter_desc.xxfi_envrcpt(&ctx, argv);
			break;
		case 4:
			if (milter_desc.xxfi_data != NULL)
				milter_desc.xxfi_data(&ctx);
			break;
		case 5:
			take(&p, end, &a);
			take(&p, end, &b);
			milter_desc.xxfi_header(&ctx, a.buf, b.buf);
			break;
		case 6:
			milter_desc.xxfi_eoh(&ctx);
			break;
		case 7:
			take(&p, end, &a);
			milter_desc.xxfi_body(&ctx, (unsigned char *)a.buf,
			    a.len);
			break;
		case 8:
			milter_desc.xxfi_eom(&ctx);
			break;
		case 9:
			milter_desc.xxfi_abort(&ctx);
			break;
		case 10:
			milter_desc.xxfi_close(&ctx);
			break;
		default:
			ctx.refuse = 1;
			break;
		}
	}
	if (ctx.priv != NULL)
		milter_desc.xxfi_close(&ctx);
	return 0;
}
