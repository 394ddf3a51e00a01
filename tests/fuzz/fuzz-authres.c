/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fuzz-authres - libFuzzer target: any bytes as the value of an
 * Authentication-Results field, as a verifier or a sender wrote it, read
 * whole and for its authserv-id alone; what is kept must fit its caps.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "patchattest.h"
#include "authres.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct authres a;
	char id[AUTHRES_ID_MAX];
	size_t k;

	if (authres_parse(&a, (const char *)data, size) == 0) {
		if (a.id[0] == '\0' || a.n > AUTHRES_RESULTS)
			abort();
		for (k = 0; k < a.n; k++)
			if (strlen(a.r[k].method) == 0 ||
			    strlen(a.r[k].result) == 0)
				abort();
	}
	(void)authres_id(id, sizeof(id), (const char *)data, size);
	return 0;
}
