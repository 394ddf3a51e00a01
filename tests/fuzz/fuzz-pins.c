/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fuzz-pins - libFuzzer target: the input as records of a pin store, one
 * a line, "IDENTITY<TAB>VALUE" (VALUE the stored bytes: 8 of time, then
 * the key), written straight into a real LMDB pin store; then the pins
 * listed, each identity looked up and offered a first use: no crash, no
 * read past a record, no leak.  The LMDB file itself is not fuzzed: LMDB
 * trusts its own pages (t-pins checks the damage it can tell).
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lmdb.h>

#include "patchattest.h"
#include "base.h"
#include "state.h"

#define RECORDS_MAX	64

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* count - pins_each's function */
static int
count(void *arg, const struct pin *p)
{
	size_t *n = arg;

	*n += strlen(p->identity) + strlen(p->key);
	return 0;
}

/* put_records - each line of data as a record of the store at path */
static void
put_records(const char *path, const uint8_t *data, size_t size)
{
	const uint8_t *line = data, *end = data + size, *nl, *tab;
	MDB_env *env;
	MDB_txn *txn;
	MDB_dbi dbi;
	MDB_val k, v;
	int n;

	if (mdb_env_create(&env) != 0)
		abort();
	if (mdb_env_open(env, path, MDB_NOSUBDIR | MDB_NOSYNC, 0600) != 0 ||
	    mdb_txn_begin(env, NULL, 0, &txn) != 0 ||
	    mdb_dbi_open(txn, NULL, 0, &dbi) != 0)
		abort();
	for (n = 0; line < end && n < RECORDS_MAX; n++, line = nl + 1) {
		if ((nl = memchr(line, '\n', (size_t)(end - line))) == NULL)
			nl = end;
		if ((tab = memchr(line, '\t', (size_t)(nl - line))) == NULL)
			continue;
		k.mv_data = (void *)line;
		k.mv_size = (size_t)(tab - line);
		v.mv_data = (void *)(tab + 1);
		v.mv_size = (size_t)(nl - tab - 1);
		if (k.mv_size > 0 && k.mv_size <= 511)
			(void)mdb_put(txn, dbi, &k, &v, 0);
	}
	if (mdb_txn_commit(txn) != 0)
		abort();
	mdb_env_close(env);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char dir[] = "/tmp/fuzz-pins.XXXXXX";
	static int made;
	char path[64], lock[72], who[PIN_IDENTITY_MAX];
	const uint8_t *line = data, *end = data + size, *tab;
	struct pins *p;
	struct pin pin;
	struct pa_err err;
	enum pin_seen seen;
	size_t n = 0, len;

	if (!made && (mkdtemp(dir) == NULL || mapguard_init(&err) != 0))
		abort();
	made = 1;
	snprintf(path, sizeof(path), "%s/pins.mdb", dir);
	snprintf(lock, sizeof(lock), "%s-lock", path);
	unlink(path);
	unlink(lock);
	if (pins_open(&p, path, 1, 1, &err) != 0)
		abort();
	pins_close(p);
	put_records(path, data, size);
	if (pins_open(&p, path, 0, 1, &err) != 0)
		return 0;
	(void)pins_each(p, count, &n, &err);
	for (; line < end && (tab = memchr(line, '\t', (size_t)(end -
	    line))) != NULL; line = tab + 1) {
		len = (size_t)(tab - line) < sizeof(who) - 1 ?
		    (size_t)(tab - line) : sizeof(who) - 1;
		memcpy(who, line, len);
		who[len] = '\0';
		(void)pins_get(p, who, &pin, &err);
		(void)pins_first_use(p, who, "fuzz-key", 1, &seen, &pin, &err);
	}
	pins_close(p);
	return 0;
}
