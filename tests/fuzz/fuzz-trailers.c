/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fuzz-trailers - libFuzzer target: any bytes as a commit message (git
 * mailinfo's msg output), its trailer block found, its lines, its core
 * and the core's hash made; the block lies within the message.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>

#include "patchattest.h"
#include "trailers.h"

#define FUZZ_TEXT_MAX	((size_t)1 << 20)

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *msg = (const char *)data;
	unsigned char core_hash[DIGEST_LEN];
	struct trailers t;
	struct sbuf lines, core;

	trailers_find(&t, msg, size);
	if (t.start > t.end || t.end > size)
		__builtin_trap();
	sbuf_init(&lines, FUZZ_TEXT_MAX);
	sbuf_init(&core, FUZZ_TEXT_MAX);
	(void)trailers_lines(&lines, msg, &t);
	(void)trailers_core(&core, msg, size, &t);
	(void)trailers_core_hash(core_hash, msg, size, &t);
	sbuf_release(&lines);
	sbuf_release(&core);
	return 0;
}
