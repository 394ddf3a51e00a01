/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fuzz-openpgp - libFuzzer target: any bytes as the b= of a patatt
 * OpenPGP signature, read by the bounded packet reader and, when it
 * accepts them, by librnp with FUZZ_PGPKEY's keys (a key file), or none.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "patchattest.h"
#include "base.h"
#include "openpgp.h"

#define FUZZ_KEYFILE_MAX	((size_t)1 << 20)

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* keys - FUZZ_PGPKEY's keys, else an empty set */
static struct openpgp_keys *
keys(void)
{
	struct openpgp_keys *k = NULL;
	const char *path = getenv("FUZZ_PGPKEY");
	static char buf[FUZZ_KEYFILE_MAX];
	struct pa_err err;
	size_t n = 0;
	FILE *f;

	if (path != NULL && (f = fopen(path, "rb")) != NULL) {
		n = fread(buf, 1, sizeof(buf), f);
		fclose(f);
		if (openpgp_keys_load(&k, buf, n, &err) != 0)
			fprintf(stderr, "fuzz-openpgp: %s: %s\n", path, err.msg);
	}
	if (k == NULL && openpgp_keys_empty(&k) != 0)
		abort();
	return k;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct openpgp_keys *k;
	struct openpgp_sig sig;
	struct sbuf plain;

	if (k == NULL)
		k = keys();
	sbuf_init(&plain, 1024);
	if (openpgp_verify(k, data, size, &plain, &sig) != 0)
		abort();
	if (sig.status == OPENPGP_GOOD && plain.len > 1024)
		abort();
	sbuf_release(&plain);
	return 0;
}
