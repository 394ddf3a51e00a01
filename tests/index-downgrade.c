/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * index-downgrade - the index at DIR (of this schema) written again as
 * the versions of an earlier schema wrote it (rawindex.h): its documents
 * and archive marks, nothing else (built for make check, not a test itself;
 * tests/t-cli.sh and tests/t-milter.sh make the index that an upgrade
 * then meets).
 *
 *	index-downgrade DIR [SCHEMA]
 *
 * SCHEMA is 2 (the default), 1 or 3.  The program must be the index's
 * only user.  Exit status 0, 1 on a fault (said on standard error).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lmdb.h>

#include "attrec.h"
#include "rawindex.h"

#define MAX_DOCS	10000
#define MAX_MARKS	64

static struct old_doc	 docs[MAX_DOCS];
static struct archive_mark marks[MAX_MARKS];

/* copy_triples - the n triples at t, in memory of their own */
static const struct att_triple *
copy_triples(const unsigned char *t, size_t n)
{
	struct att_triple *c;

	if ((c = calloc(n ? n : 1, sizeof(*c))) != NULL)
		memcpy(c, t, n * sizeof(*c));
	return c;
}

/* read_index - the documents and marks of the index at dir; 0 or -1 */
static int
read_index(const char *dir, size_t *ndocs, size_t *nmarks)
{
	const unsigned char *docid, *t;
	MDB_env *env;
	MDB_txn *txn;
	MDB_dbi recs, meta;
	MDB_cursor *cur;
	MDB_val k, v;
	size_t n;
	int rc;

	*ndocs = *nmarks = 0;
	if (mdb_env_create(&env) != 0)
		return -1;
	mdb_env_set_maxdbs(env, 8);
	rc = mdb_env_open(env, dir, MDB_RDONLY, 0600);
	if (rc == 0)
		rc = mdb_txn_begin(env, NULL, MDB_RDONLY, &txn);
	if (rc != 0 || mdb_dbi_open(txn, "records4", MDB_INTEGERKEY,
	    &recs) != 0 || mdb_dbi_open(txn, "meta", 0, &meta) != 0 ||
	    mdb_cursor_open(txn, recs, &cur) != 0) {
		mdb_env_close(env);
		return -1;
	}
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0 &&
	    *ndocs < MAX_DOCS; rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
		if (attrec_decode(v.mv_data, v.mv_size, &docs[*ndocs].d,
		    &docid, &t, &n) != 0 ||
		    (docs[*ndocs].t = copy_triples(t, n)) == NULL)
			break;
		docs[(*ndocs)++].n = n;
	}
	mdb_cursor_close(cur);
	if (rc == MDB_NOTFOUND && mdb_cursor_open(txn, meta, &cur) == 0) {
		k.mv_data = "mark:";
		k.mv_size = 5;
		for (rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE); rc == 0 &&
		    k.mv_size > 5 && memcmp(k.mv_data, "mark:", 5) == 0 &&
		    *nmarks < MAX_MARKS;
		    rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
			snprintf(marks[*nmarks].name, sizeof(marks->name),
			    "%.*s", (int)k.mv_size - 5, (char *)k.mv_data + 5);
			snprintf(marks[*nmarks].value, sizeof(marks->value),
			    "%.*s", (int)v.mv_size, (char *)v.mv_data);
			(*nmarks)++;
		}
		mdb_cursor_close(cur);
		rc = 0;
	}
	mdb_txn_abort(txn);
	mdb_env_close(env);
	return rc == 0 ? 0 : -1;
}

int
main(int argc, char **argv)
{
	char path[4096];
	size_t ndocs, nmarks;
	int schema = argc == 3 ? atoi(argv[2]) : 2, rc;

	if (argc < 2 || argc > 3 || schema < 1 || schema > 3) {
		fprintf(stderr, "usage: index-downgrade DIR [1|2|3]\n");
		return 1;
	}
	if (read_index(argv[1], &ndocs, &nmarks) != 0) {
		fprintf(stderr, "index-downgrade: cannot read the index at "
		    "%s\n", argv[1]);
		return 1;
	}
	snprintf(path, sizeof(path), "%s/data.mdb", argv[1]);
	unlink(path);
	snprintf(path, sizeof(path), "%s/lock.mdb", argv[1]);
	unlink(path);
	if ((rc = rawindex_old(argv[1], schema, docs, ndocs, marks,
	    nmarks)) != 0) {
		fprintf(stderr, "index-downgrade: %s\n", mdb_strerror(rc));
		return 1;
	}
	printf("%zu documents, %zu marks, schema %d\n", ndocs, nmarks, schema);
	return 0;
}
