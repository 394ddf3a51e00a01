/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * attindex-schema.c - the index's schema stamp, its databases, and the
 * upgrade of an index of an earlier schema, in the writer's first
 * transaction (so that a crash leaves it as it was).
 *
 * Schemas 1 and 2 kept three databases: docs (docid -> record), att
 * (the 26 characters of an attestation ID -> i|m|p|docid, duplicates)
 * and byi (i -> m|p|docid, duplicates); schema 1's records had no
 * checksum.  Schema 3 had this schema's layout with wider keys (a whole
 * docid, 8-byte numbers) in records, docids and attids, and records
 * that kept their text as it is (attrec.c).  This schema's databases
 * have names of their own.  The upgrade files each record of the old
 * schema anew (attindex-store.c), then drops the old databases and makes
 * each again, empty, with other flags: a program of an earlier schema
 * that still has the index open then gets an error from its next read
 * (LMDB's MDB_INCOMPATIBLE: the database was made again with other
 * flags), where a database merely gone would read as empty, and its mail
 * as attested by nothing.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <lmdb.h>

#include "attindex.h"
#include "attindex-int.h"
#include "attrec.h"
#include "base.h"

/*
 * The databases of earlier schemas, left empty by the upgrade and made
 * again with flags none of them had, so that a handle of theirs fails to
 * read; and which kept the records, keyed how.
 */
enum old_records { NO_RECORDS, BY_DOCID, BY_NUMBER };
static const struct {
	const char		*name;
	int			 schema;	/* 2 for schemas 1 and 2 */
	enum old_records	 records;
	unsigned		 flags;		/* made again with */
} old_dbs[] = {
	{ "docs", 2, BY_DOCID, MDB_INTEGERKEY },
	{ "att", 2, NO_RECORDS, MDB_INTEGERKEY },
	{ "byi", 2, NO_RECORDS, MDB_INTEGERKEY },
	{ "records", 3, BY_NUMBER, MDB_INTEGERKEY | MDB_DUPSORT },
	{ "docids", 3, NO_RECORDS, MDB_INTEGERKEY | MDB_DUPSORT },
	{ "attids", 3, NO_RECORDS, MDB_INTEGERKEY | MDB_DUPSORT },
};
#define OLD_DBS		(sizeof(old_dbs) / sizeof(old_dbs[0]))

static int	 upgrade(struct attindex *, MDB_txn *);
static int	 refile(struct attindex *, MDB_txn *, MDB_dbi, int);
static int	 stamp_get(struct attindex *, MDB_txn *, int *, int *);

int
idx_open_dbs(struct attindex *h, MDB_txn *txn, unsigned flags)
{
	static const struct {
		const char	*name;
		unsigned	 flags;
	} dbs[] = {
		{ "records4", MDB_INTEGERKEY },
		{ "docids4", MDB_DUPSORT | MDB_DUPFIXED },
		{ "attids4", 0 },
	};
	MDB_dbi *dbi[] = { &h->recs, &h->ids, &h->att };
	unsigned have;
	size_t i;
	int rc;

	for (i = 0; i < sizeof(dbs) / sizeof(dbs[0]); i++) {
		if ((rc = mdb_dbi_open(txn, dbs[i].name, dbs[i].flags | flags,
		    dbi[i])) != 0)
			return rc;
		/* LMDB opens a database with the flags it was made with. */
		if ((rc = mdb_dbi_flags(txn, *dbi[i], &have)) != 0)
			return rc;
		if (have != dbs[i].flags)
			return MDB_INCOMPATIBLE;
	}
	return 0;
}

/*
 * stamp_get - the stamp into h->oldstamp; *same when it is this schema's,
 * *old when it is one this program upgrades
 */
static int
stamp_get(struct attindex *h, MDB_txn *txn, int *same, int *old)
{
	MDB_val k, v;
	MDB_dbi meta;
	int rc;

	*same = *old = 0;
	rc = mdb_dbi_open(txn, "meta", 0, &meta);
	if (rc == 0) {
		k.mv_data = (void *)SCHEMA_KEY;
		k.mv_size = sizeof(SCHEMA_KEY) - 1;
		rc = mdb_get(txn, meta, &k, &v);
	}
	if (rc != 0)
		return rc;
	hdrfmt_printable(h->oldstamp, sizeof(h->oldstamp), v.mv_data,
	    v.mv_size);
	*same = strcmp(h->oldstamp, ATTINDEX_SCHEMA) == 0;
	*old = strcmp(h->oldstamp, SCHEMA_1) == 0 ||
	    strcmp(h->oldstamp, SCHEMA_2) == 0 ||
	    strcmp(h->oldstamp, SCHEMA_3) == 0;
	return 0;
}

/*
 * idx_setup - check the schema stamp, upgrade an index of schema 1 or
 * 2, make the databases.  An environment with data but not our stamp is
 * refused (h->foreign), not emptied.
 */
int
idx_setup(struct attindex *h, MDB_txn *txn)
{
	static const char stamp[] = ATTINDEX_SCHEMA;
	MDB_val k, v;
	MDB_dbi main;
	MDB_stat st;
	int rc, same, old;

	h->foreign = h->oldrec = 0;
	h->upgraded = 0;
	snprintf(h->oldstamp, sizeof(h->oldstamp), "%s", "");
	if ((rc = mdb_dbi_open(txn, NULL, 0, &main)) != 0 ||
	    (rc = mdb_stat(txn, main, &st)) != 0)
		return rc;
	rc = stamp_get(h, txn, &same, &old);
	if (rc != 0 && rc != MDB_NOTFOUND && rc != MDB_INCOMPATIBLE)
		return rc;
	if (!same && !old && st.ms_entries > 0) {
		h->foreign = 1;
		return MDB_INCOMPATIBLE;
	}
	if ((rc = mdb_dbi_open(txn, "meta", MDB_CREATE, &h->meta)) != 0 ||
	    (rc = idx_open_dbs(h, txn, MDB_CREATE)) != 0)
		return rc;
	if (same)
		return 0;
	if (old && (rc = upgrade(h, txn)) != 0)
		return rc;
	k.mv_data = (void *)SCHEMA_KEY;
	k.mv_size = sizeof(SCHEMA_KEY) - 1;
	v.mv_data = (void *)stamp;
	v.mv_size = sizeof(stamp) - 1;
	return mdb_put(txn, h->meta, &k, &v, 0);
}

/*
 * refile - every record of an earlier schema in db (keyed by docid, or
 * by number with the docid inside), filed in this schema's form; one
 * that cannot be read fails the upgrade (h->oldrec): dropped, its
 * patches would read as attested by nothing
 */
static int
refile(struct attindex *h, MDB_txn *txn, MDB_dbi db, int by_docid)
{
	struct att_docinfo d;
	const unsigned char *t;
	MDB_cursor *cur;
	MDB_val k, v;
	size_t n;
	int rc;

	if ((rc = mdb_cursor_open(txn, db, &cur)) != 0)
		return rc;
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0;
	    rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
		if ((by_docid && k.mv_size != sizeof(d.docid)) ||
		    attrec_decode_old(v.mv_data, v.mv_size,
		    by_docid ? k.mv_data : NULL, &d, &t, &n) != 0) {
			h->oldrec = 1;
			rc = MDB_CORRUPTED;
			break;
		}
		sbuf_reset(&h->scratch);
		if (attrec_encode(&h->scratch, &d,
		    (const struct att_triple *)t, n) != 0) {
			rc = ENOMEM;
			break;
		}
		if ((rc = idx_doc_add(h, txn,
		    (const unsigned char *)h->scratch.buf,
		    h->scratch.len)) != 0)
			break;
		h->upgraded++;
	}
	mdb_cursor_close(cur);
	return rc == MDB_NOTFOUND ? 0 : rc;
}

/*
 * upgrade - schema 1, 2 or 3 to this one (see the top of the file): the
 * records of the stamp's schema filed anew, numbered from 1 again, then
 * every database of an earlier schema emptied and made again
 */
static int
upgrade(struct attindex *h, MDB_txn *txn)
{
	int from = strcmp(h->oldstamp, SCHEMA_3) == 0 ? 3 : 2;
	MDB_val k;
	MDB_dbi dbi;
	size_t i;
	int rc;

	k.mv_data = (void *)NEXT_KEY;
	k.mv_size = sizeof(NEXT_KEY) - 1;
	if ((rc = mdb_del(txn, h->meta, &k, NULL)) != 0 && rc != MDB_NOTFOUND)
		return rc;
	for (i = 0; i < OLD_DBS; i++) {
		rc = mdb_dbi_open(txn, old_dbs[i].name, 0, &dbi);
		if (rc == MDB_NOTFOUND)
			continue;
		if (rc == 0 && old_dbs[i].schema == from &&
		    old_dbs[i].records != NO_RECORDS)
			rc = refile(h, txn, dbi,
			    old_dbs[i].records == BY_DOCID);
		if (rc == 0)
			rc = mdb_drop(txn, dbi, 1);
		if (rc == 0)
			rc = mdb_dbi_open(txn, old_dbs[i].name,
			    MDB_CREATE | old_dbs[i].flags, &dbi);
		if (rc != 0)
			return rc;
	}
	return 0;
}
