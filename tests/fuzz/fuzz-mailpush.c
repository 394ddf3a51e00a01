/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fuzz-mailpush - libFuzzer target: a mail fed the way the milter feeds
 * it, header by header and then the body in pieces, and hashed with
 * every variant.  The input's first byte sets the size of the body
 * pieces; then header lines ("name:value", up to an empty line; a line
 * without a colon is a name with an empty value) and the body.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "patchattest.h"
#include "sbuf.h"

#define FUZZ_MAIL_MAX	((size_t)4 << 20)

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct mailmsg *m;
	static struct sbuf name, value;
	const char *p = (const char *)data + 1, *end = (const char *)data + size;
	const char *nl, *colon;
	size_t piece, n;
	struct msghash h;
	struct pa_err err;

	if (size == 0)
		return 0;
	if (m == NULL) {
		if (mailmsg_new(&m, FUZZ_MAIL_MAX) != 0)
			return 0;
		sbuf_init(&name, FUZZ_MAIL_MAX);
		sbuf_init(&value, FUZZ_MAIL_MAX);
	}
	piece = (size_t)data[0] + 1;
	mailmsg_reset(m);
	while (p < end && *p != '\n') {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		if ((colon = memchr(p, ':', (size_t)(nl - p))) == NULL)
			colon = nl;
		sbuf_reset(&name);
		sbuf_reset(&value);
		sbuf_add(&name, p, (size_t)(colon - p));
		if (colon < nl)
			sbuf_add(&value, colon + 1, (size_t)(nl - colon - 1));
		/* the MTA hands over C strings */
		if (memchr(name.buf, '\0', name.len) == NULL &&
		    memchr(value.buf, '\0', value.len) == NULL &&
		    mailmsg_header(m, name.buf, value.buf) != 0)
			return 0;
		p = nl < end ? nl + 1 : end;
	}
	if (p < end)
		p++;
	if (mailmsg_eoh(m) != 0)
		return 0;
	for (; p < end; p += n) {
		n = (size_t)(end - p) < piece ? (size_t)(end - p) : piece;
		if (mailmsg_body(m, p, n) != 0)
			return 0;
	}
	if (mailmsg_eom(m) != 0)
		return 0;
	msghash_init(&h);
	(void)msghash_compute(&h, m, MSGHASH_VARIANTS, &err);
	msghash_release(&h);
	return 0;
}
