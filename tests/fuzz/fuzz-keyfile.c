/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fuzz-keyfile - libFuzzer target: any bytes as a patatt keyring file.
 * The first byte chooses the kind (ed25519, OpenPGP, OpenSSH, as enum
 * patatt_algo counts them), the rest is the file, parsed as the keyring
 * parses it: OpenPGP exports armored or binary are counted against the
 * limits of openpgp.h, then handed to librnp.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "patchattest.h"
#include "patatt-int.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	struct patatt_keyfile kf;
	struct pa_err err;
	int rc;

	if (!ready) {
		if (pa_global_init(&err) != 0) {
			fprintf(stderr, "fuzz-keyfile: %s\n", err.msg);
			abort();
		}
		ready = 1;
	}
	if (size == 0 || size - 1 > PATATT_KEYFILE_MAX)
		return 0;
	memset(&kf, 0, sizeof(kf));
	kf.algo = (enum patatt_algo)(data[0] % PATATT_ALGO_UNKNOWN);
	kf.rel = "fuzz/example.org/key/default";
	sbuf_init(&kf.blob, PATATT_KEYFILE_MAX);
	rc = patatt_keyfile_parse(&kf, (const char *)data + 1, size - 1);
	if (rc != 0 && rc != PA_EBADDOC && rc != PA_ENOMEM)
		abort();	/* no other outcome is documented */
	if (rc == PA_EBADDOC && kf.why[0] == '\0')
		abort();	/* a refusal always says why */
	openpgp_keys_free(kf.pgp);
	sbuf_release(&kf.blob);
	return 0;
}
