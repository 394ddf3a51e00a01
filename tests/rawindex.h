/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rawindex - an index's file written and edited with LMDB itself, for
 * the tests: an index of schema 1, 2 or 3 written as the versions of
 * those schemas wrote it (schemas 1 and 2: the databases docs, att, byi
 * and meta; schema 3: records, docids, attids and meta; their keys and
 * their record forms, kept here as they were), for the upgrade and a
 * reader to meet; and a database of any index edited, to damage it.
 */
#ifndef PA_TESTS_RAWINDEX_H
#define PA_TESTS_RAWINDEX_H

#include <stddef.h>

#include <lmdb.h>

#include "attindex.h"

struct old_doc {
	struct att_docinfo	 d;
	const struct att_triple	*t;
	size_t			 n;
};

/*
 * rawindex_old - a new index of schema (1, 2 or 3) at dir (made, and
 * empty), holding the n documents of docs and the marks; 0 or an LMDB
 * or errno code
 */
int	rawindex_old(const char *dir, int schema, const struct old_doc *docs,
	    size_t n, const struct archive_mark *marks, size_t nmarks);

/*
 * rawindex_edit - fn on the database db of the index at dir, in a write
 * transaction committed when fn returns 0; fn's code, or LMDB's
 */
int	rawindex_edit(const char *dir, const char *db,
	    int (*fn)(MDB_txn *, MDB_dbi, void *), void *arg);

#endif
