/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fuzz-msghash - libFuzzer target: any bytes as a mail, parsed and hashed
 * with every variant, as the milter does with what SMTP hands it.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>

#include "patchattest.h"

#define FUZZ_MAIL_MAX	((size_t)4 << 20)

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct mailmsg *m;
	struct msghash h;
	struct pa_err err;

	if (m == NULL && mailmsg_new(&m, FUZZ_MAIL_MAX) != 0)
		return 0;
	mailmsg_reset(m);
	if (mailmsg_parse(m, data, size) != 0)
		return 0;
	msghash_init(&h);
	(void)msghash_compute(&h, m, MSGHASH_VARIANTS, &err);
	msghash_release(&h);
	return 0;
}
