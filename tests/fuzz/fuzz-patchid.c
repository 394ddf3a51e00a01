/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fuzz-patchid - libFuzzer target: any bytes as the patch text of a mail
 * (git mailinfo's patch output), its "git patch-id --stable" computed;
 * the id is 40 hex digits whenever there is one.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "patchattest.h"
#include "patchid.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char id[PATCHID_HEXLEN + 1];

	memset(id, 'x', sizeof(id));
	if (patchid_compute(id, (const char *)data, size) == 0 &&
	    (strlen(id) != PATCHID_HEXLEN ||
	    strspn(id, "0123456789abcdef") != PATCHID_HEXLEN))
		__builtin_trap();
	return 0;
}
