/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fuzz-arrival - libFuzzer target: any bytes as a mail, read into an
 * arrival record as the milter and "patchattest arrived" read it
 * (patch-id, trailers and m_core through git mailinfo's reading), then
 * set beside itself: a record is always identical to itself.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>

#include "patchattest.h"
#include "state.h"
#include "verdict.h"

#define FUZZ_MAIL_MAX	((size_t)4 << 20)

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct mailmsg *m;
	static struct arrival a;
	struct mailfacts f;
	struct pa_err err;
	unsigned parts;

	if (m == NULL && mailmsg_new(&m, FUZZ_MAIL_MAX) != 0)
		return 0;
	mailmsg_reset(m);
	if (mailmsg_parse(m, (const char *)data, size) != 0)
		return 0;
	mailfacts_init(&f);
	(void)mailfacts_read(&f, m, 0);
	if (mailfacts_record(&f, &a, &err) == 0 &&
	    arrival_compare(&a, &a, &parts) != ARRIVAL_SAME)
		__builtin_trap();
	mailfacts_release(&f);
	return 0;
}
