/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * store-open.c - the pins and the ledger opened where the configuration
 * keeps them: StateDatabase when it is set (StateDatabaseReader, when
 * set, for reading only), else their files.
 */
#include "config.h"

#include "pg-int.h"

int
statedb_pins_open(struct pins **out, const struct pa_config *cf,
    int create, int writable, const struct statedb_notice *notice,
    struct pa_err *err)
{
	if (cf->state_database != NULL)
		return pg_pins_open(out, cf, writable, notice, err);
	return pins_open(out, cf->patatt_tofu_pins, create, writable, err);
}

int
statedb_ledger_open(struct ledger **out, const struct pa_config *cf,
    int writable, const struct statedb_notice *notice, struct pa_err *err)
{
	*out = NULL;
	if (cf->state_database != NULL && (!writable ||
	    cf->state_file != NULL))
		return pg_ledger_open(out, cf, writable, notice, err);
	if (cf->state_file == NULL)
		return 0;
	return ledger_open(out, cf->state_file, writable, writable,
	    (unsigned)cf->arrival_retention_days,
	    (uint64_t)cf->state_max_size << 20, err);
}
