/* SPDX-License-Identifier: BSD-2-Clause */
/* ledgersize - see ledgersize.h */
#include "config.h"

#include <sys/stat.h>

#include <stdio.h>

#include <lmdb.h>

#include "benchutil.h"
#include "ledgersize.h"

/* The ledger's databases (lib/state/ledger-int.h), records first. */
static const char *const dbs[] = {
	"records", "msgid", "patchid", "habits", "meta"
};
#define NDBS	(sizeof(dbs) / sizeof(dbs[0]))

/* value_bytes - the bytes of the values of the database dbi */
static unsigned long long
value_bytes(MDB_txn *txn, MDB_dbi dbi)
{
	unsigned long long sum = 0;
	MDB_cursor *cur;
	MDB_val k, v;
	int rc;

	if (mdb_cursor_open(txn, dbi, &cur) != 0)
		return 0;
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0;
	    rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT))
		sum += v.mv_size;
	mdb_cursor_close(cur);
	return sum;
}

void
bench_ledger_sizes(const char *path, const char *prefix)
{
	unsigned long long pages[NDBS], inuse = 0, values = 0;
	double n = 1;
	struct stat st;
	MDB_env *env;
	MDB_txn *txn;
	MDB_dbi dbi;
	MDB_stat ms;
	size_t i;

	if (stat(path, &st) != 0 || mdb_env_create(&env) != 0)
		bench_die(path, "cannot be looked at");
	mdb_env_set_maxdbs(env, NDBS);
	if (mdb_env_open(env, path, MDB_NOSUBDIR | MDB_RDONLY | MDB_NOLOCK,
	    0600) != 0 || mdb_txn_begin(env, NULL, MDB_RDONLY, &txn) != 0)
		bench_die(path, "cannot be read as LMDB");
	for (i = 0; i < NDBS; i++) {
		if (mdb_dbi_open(txn, dbs[i], 0, &dbi) != 0 ||
		    mdb_stat(txn, dbi, &ms) != 0)
			bench_die(path, "is not a ledger");
		pages[i] = ((unsigned long long)ms.ms_branch_pages +
		    ms.ms_leaf_pages + ms.ms_overflow_pages) * ms.ms_psize;
		inuse += pages[i];
		if (i == 0) {
			n = ms.ms_entries > 0 ? (double)ms.ms_entries : 1;
			values = value_bytes(txn, dbi);
			printf("%s_records %zu records\n", prefix,
			    ms.ms_entries);
		}
	}
	mdb_txn_abort(txn);
	mdb_env_close(env);
	printf("%s_file %lld bytes\n", prefix, (long long)st.st_size);
	printf("%s_bytes_per_record %.0f bytes\n", prefix,
	    (double)st.st_size / n);
	printf("%s_value_per_record %.0f bytes\n", prefix, (double)values / n);
	for (i = 0; i < NDBS - 1; i++)
		printf("%s_%s_per_record %.0f bytes\n", prefix, dbs[i],
		    (double)pages[i] / n);
	/* meta, and the pages LMDB keeps for reuse */
	printf("%s_rest_per_record %.0f bytes\n", prefix,
	    ((double)st.st_size - (double)(inuse - pages[NDBS - 1])) / n);
}
