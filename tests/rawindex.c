/* SPDX-License-Identifier: BSD-2-Clause */
/* rawindex - see rawindex.h */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <lmdb.h>

#include "base.h"
#include "rawindex.h"

#define OLD_MAP		((size_t)1 << 30)
#define ATTID_LEN	MSGHASH_ATTID_LEN

static void	 group_modes(const char *);
static void	 put_field(struct sbuf *, int, const void *, size_t);
static int	 record(struct sbuf *, int, const struct old_doc *);
static int	 put_doc(MDB_txn *, MDB_dbi[3], int, const struct old_doc *,
		    struct sbuf *);
static int	 put_doc3(MDB_txn *, MDB_dbi[3], size_t,
		    const struct old_doc *, struct sbuf *);

/* group_modes - the files at dir for the group to read, best effort */
static void
group_modes(const char *dir)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/data.mdb", dir);
	(void)chmod(path, 0640);
	snprintf(path, sizeof(path), "%s/lock.mdb", dir);
	(void)chmod(path, 0660);
}

/* put_field - tag, length (LEB128), value */
static void
put_field(struct sbuf *sb, int tag, const void *p, size_t len)
{
	size_t v = len;

	sbuf_addch(sb, tag);
	while (v >= 0x80) {
		sbuf_addch(sb, (int)(v & 0x7f) | 0x80);
		v >>= 7;
	}
	sbuf_addch(sb, (int)v);
	sbuf_add(sb, p, len);
}

/*
 * record - a document's record of schema 1 (no checksum), 2 (the first
 * 8 bytes of SHA-256 over its docid and the bytes before the field) or 3
 * (its docid as the first field, the checksum over the bytes before)
 */
static int
record(struct sbuf *sb, int schema, const struct old_doc *o)
{
	static const unsigned char codes[] = {
		[PGP_SIG_GOOD] = 1, [PGP_SIG_BAD] = 2, [PGP_SIG_NOKEY] = 3,
		[PGP_SIG_ERROR] = 4,
	};
	const struct att_docinfo *d = &o->d;
	const char *str[] = { d->fpr, d->uids, d->where, d->msgid };
	unsigned char when[8], md[DIGEST_LEN], code;
	struct digest dg;
	uint64_t w = (uint64_t)(int64_t)d->when;
	size_t i;

	code = codes[d->status];
	for (i = 0; i < 8; i++)
		when[i] = (unsigned char)(w >> (56 - 8 * i));
	sbuf_reset(sb);
	sbuf_addch(sb, schema);
	if (schema == 3)
		put_field(sb, 9, d->docid, 32);
	put_field(sb, 1, &code, 1);
	put_field(sb, 2, when, 8);
	for (i = 0; i < 4; i++)
		if (str[i][0] != '\0')
			put_field(sb, 3 + (int)i, str[i], strlen(str[i]));
	put_field(sb, 7, o->t, o->n * 96);
	if (schema >= 2) {
		digest_init(&dg);
		if (schema == 2)
			digest_update(&dg, d->docid, 32);
		digest_update(&dg, sb->buf, sb->len);
		digest_final(&dg, md);
		digest_release(&dg);
		put_field(sb, 8, md, 8);
	}
	return sbuf_failed(sb);
}

/* put_doc - its record in docs, its triples in att and byi */
static int
put_doc(MDB_txn *txn, MDB_dbi dbi[3], int schema, const struct old_doc *o,
    struct sbuf *sb)
{
	unsigned char val[128];
	char attid[ATTID_LEN + 1];
	MDB_val k, v;
	size_t i;
	int rc;

	if ((rc = record(sb, schema, o)) != 0)
		return ENOMEM;
	k.mv_data = (void *)o->d.docid;
	k.mv_size = 32;
	v.mv_data = sb->buf;
	v.mv_size = sb->len;
	if ((rc = mdb_put(txn, dbi[0], &k, &v, 0)) != 0)
		return rc;
	for (i = 0; i < o->n; i++) {
		memcpy(val, &o->t[i], 96);
		memcpy(val + 96, o->d.docid, 32);
		msghash_attid(attid, val, val + 32, val + 64);
		k.mv_data = attid;
		k.mv_size = ATTID_LEN;
		v.mv_data = val;
		v.mv_size = 128;
		rc = mdb_put(txn, dbi[1], &k, &v, MDB_NODUPDATA);
		if (rc != 0 && rc != MDB_KEYEXIST)
			return rc;
		k.mv_data = val;
		k.mv_size = 32;
		v.mv_data = val + 32;
		v.mv_size = 96;
		rc = mdb_put(txn, dbi[2], &k, &v, MDB_NODUPDATA);
		if (rc != 0 && rc != MDB_KEYEXIST)
			return rc;
	}
	return 0;
}

/*
 * put_doc3 - schema 3: its record under number num in records, its docid
 * in docids, an attids entry for each of its triples' IDs
 */
static int
put_doc3(MDB_txn *txn, MDB_dbi dbi[3], size_t num, const struct old_doc *o,
    struct sbuf *sb)
{
	unsigned char key[20];
	MDB_val k, v;
	size_t i;
	int rc;

	if ((rc = record(sb, 3, o)) != 0)
		return ENOMEM;
	k.mv_data = &num;
	k.mv_size = sizeof(num);
	v.mv_data = sb->buf;
	v.mv_size = sb->len;
	if ((rc = mdb_put(txn, dbi[0], &k, &v, 0)) != 0)
		return rc;
	bigend_put64(key + 12, num);
	k.mv_data = (void *)o->d.docid;
	k.mv_size = 32;
	v.mv_data = key + 12;
	v.mv_size = 8;
	if ((rc = mdb_put(txn, dbi[1], &k, &v, 0)) != 0)
		return rc;
	for (i = 0; i < o->n; i++) {
		memcpy(key, o->t[i].i, 4);
		memcpy(key + 4, o->t[i].m, 4);
		memcpy(key + 8, o->t[i].p, 4);
		k.mv_data = key;
		k.mv_size = sizeof(key);
		v.mv_size = 0;
		if ((rc = mdb_put(txn, dbi[2], &k, &v, 0)) != 0)
			return rc;
	}
	return 0;
}

int
rawindex_old(const char *dir, int schema, const struct old_doc *docs,
    size_t n, const struct archive_mark *marks, size_t nmarks)
{
	char stamp[32], key[80];
	struct sbuf sb;
	MDB_env *env;
	MDB_txn *txn;
	MDB_dbi dbi[3], meta;
	MDB_val k, v;
	size_t i;
	int rc;

	if (mkdir(dir, 0750) != 0 && errno != EEXIST)
		return errno;
	if ((rc = mdb_env_create(&env)) != 0)
		return rc;
	sbuf_init(&sb, SBUF_NOMAX);
	mdb_env_set_maxdbs(env, 8);
	mdb_env_set_mapsize(env, OLD_MAP);
	if ((rc = mdb_env_open(env, dir, MDB_NOTLS, 0600)) != 0 ||
	    (rc = mdb_txn_begin(env, NULL, 0, &txn)) != 0)
		goto out;
	/* For the group to read, as those versions made them. */
	group_modes(dir);
	if ((rc = mdb_dbi_open(txn, "meta", MDB_CREATE, &meta)) != 0)
		goto abort;
	if (schema == 3 ? (rc = mdb_dbi_open(txn, "records",
	    MDB_CREATE | MDB_INTEGERKEY, &dbi[0])) != 0 ||
	    (rc = mdb_dbi_open(txn, "docids", MDB_CREATE, &dbi[1])) != 0 ||
	    (rc = mdb_dbi_open(txn, "attids", MDB_CREATE, &dbi[2])) != 0 :
	    (rc = mdb_dbi_open(txn, "docs", MDB_CREATE, &dbi[0])) != 0 ||
	    (rc = mdb_dbi_open(txn, "att",
	    MDB_CREATE | MDB_DUPSORT | MDB_DUPFIXED, &dbi[1])) != 0 ||
	    (rc = mdb_dbi_open(txn, "byi",
	    MDB_CREATE | MDB_DUPSORT | MDB_DUPFIXED, &dbi[2])) != 0)
		goto abort;
	for (i = 0; i < n; i++)
		if ((rc = schema == 3 ?
		    put_doc3(txn, dbi, i + 1, &docs[i], &sb) :
		    put_doc(txn, dbi, schema, &docs[i], &sb)) != 0)
			goto abort;
	for (i = 0; i < nmarks; i++) {
		snprintf(key, sizeof(key), "mark:%s", marks[i].name);
		k.mv_data = key;
		k.mv_size = strlen(key);
		v.mv_data = (void *)marks[i].value;
		v.mv_size = strlen(marks[i].value);
		if ((rc = mdb_put(txn, meta, &k, &v, 0)) != 0)
			goto abort;
	}
	bigend_put64((unsigned char *)key, n + 1);
	k.mv_data = "next";
	k.mv_size = 4;
	v.mv_data = key;
	v.mv_size = 8;
	if (schema == 3 && (rc = mdb_put(txn, meta, &k, &v, 0)) != 0)
		goto abort;
	snprintf(stamp, sizeof(stamp), "patchattest-index %d", schema);
	k.mv_data = "schema";
	k.mv_size = 6;
	v.mv_data = stamp;
	v.mv_size = strlen(stamp);
	if ((rc = mdb_put(txn, meta, &k, &v, 0)) != 0)
		goto abort;
	rc = mdb_txn_commit(txn);
	goto out;
abort:
	mdb_txn_abort(txn);
out:
	mdb_env_close(env);
	sbuf_release(&sb);
	return rc;
}

int
rawindex_edit(const char *dir, const char *db,
    int (*fn)(MDB_txn *, MDB_dbi, void *), void *arg)
{
	MDB_env *env;
	MDB_txn *txn;
	MDB_dbi dbi;
	int rc;

	if ((rc = mdb_env_create(&env)) != 0)
		return rc;
	mdb_env_set_maxdbs(env, 16);
	if ((rc = mdb_env_open(env, dir, 0, 0600)) == 0 &&
	    (rc = mdb_txn_begin(env, NULL, 0, &txn)) == 0) {
		if ((rc = mdb_dbi_open(txn, db, 0, &dbi)) == 0 &&
		    (rc = fn(txn, dbi, arg)) == 0)
			rc = mdb_txn_commit(txn);
		else
			mdb_txn_abort(txn);
	}
	mdb_env_close(env);
	return rc;
}
