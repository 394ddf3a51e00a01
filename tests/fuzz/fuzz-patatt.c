/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fuzz-patatt - libFuzzer target: any bytes as a mail whose
 * X-Developer-Signature headers are judged.  FUZZ_KEYRING names a patatt
 * keyring (say, the corpus's), FUZZ_GNUPGHOME a GnuPG home, whose keys
 * are listed and exported once (no gpg runs per input).
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "patchattest.h"
#include "patatt.h"
#include "pgp.h"

#define FUZZ_MAIL_MAX	((size_t)4 << 20)

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct mailmsg *m;
	static struct patatt_keyring *kr;
	static struct patatt *pt;
	struct patatt_report r;
	struct pa_err err;
	char *ring = getenv("FUZZ_KEYRING");

	if (pt == NULL) {
		if (pa_global_init(&err) != 0 ||
		    patatt_keyring_new(&kr, &ring, ring != NULL, &err) != 0 ||
		    patatt_new(&pt, kr, getenv("FUZZ_GNUPGHOME"), &err) != 0) {
			fprintf(stderr, "fuzz-patatt: %s\n", err.msg);
			abort();
		}
		if (mailmsg_new(&m, FUZZ_MAIL_MAX) != 0)
			abort();
	}
	mailmsg_reset(m);
	if (mailmsg_parse(m, data, size) != 0)
		return 0;
	(void)patatt_check(pt, m, time(NULL), &r, &err);
	return 0;
}
