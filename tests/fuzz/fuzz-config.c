/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fuzz-config - libFuzzer target: the input as a configuration file,
 * loaded whole, then partially (as -n does): no crash, no leak, no hang.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "paconfig.h"
#include "patchattest.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[] = "/tmp/fuzz-config.XXXXXX";
	static int fd = -1;
	struct pa_config cf;
	struct sbuf problems;

	if (fd < 0 && (fd = mkstemp(path)) < 0)
		abort();
	if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) !=
	    (ssize_t)size)
		abort();
	sbuf_init(&problems, 1 << 20);
	if (config_init(&cf) == 0)
		(void)config_load(&cf, path, &problems);
	config_release(&cf);
	sbuf_reset(&problems);
	if (config_init(&cf) == 0)
		(void)config_load_partial(&cf, path, &problems);
	config_release(&cf);
	sbuf_release(&problems);
	return 0;
}
