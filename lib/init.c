/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * init.c - what the libraries under libpatchattest need done once per
 * process, before any thread starts.
 */
#include "config.h"

#include <sodium.h>

#include "patchattest.h"
#include "base.h"
#include "sig.h"
#include "verdict.h"

int
pa_global_init(struct pa_err *err)
{
	if (sodium_init() < 0) {
		pa_err_set(err, "libsodium cannot start (no random source?)");
		return PA_ERROR;
	}
	if (mapguard_init(err) != 0 || dkim_global_init(err) != 0)
		return PA_ERROR;
	return pgp_global_init(err);
}
