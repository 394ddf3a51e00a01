/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fuzz-attdoc - libFuzzer target: any bytes as the signed text of an
 * attestation document, as the indexer reads it from an archive.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>

#include "patchattest.h"
#include "attdoc.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct attdoc d;
	struct pa_err err;

	attdoc_init(&d);
	(void)attdoc_parse(&d, (const char *)data, size, &err);
	attdoc_release(&d);
	return 0;
}
