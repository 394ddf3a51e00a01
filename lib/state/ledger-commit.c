/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ledger-commit.c - one batch of arrival records written in one
 * transaction (ledger-int.h has the layout): each record under the next
 * sequence number, numbered as a copy of its Message-ID, indexed by
 * Message-ID and patch-id, and learnt into its identity's habit; then
 * some records older than the retention removed, so that removal keeps
 * pace with arrival without a long transaction of its own.
 *
 * The habit rules: a record with a patch and an identity counts.  The
 * window holds the identity's last HABIT_WINDOW such records, a bit set
 * for each signed with a trusted key; key is that of the latest one so
 * signed, run how many of the latest were, in a row, with that key.  A
 * damaged habit is learnt again from the next patch mail.
 *
 * The bound (max_size): while the pages in use are more, the oldest
 * records go, up to SHRINK_PER_RECORD for each record written (the
 * largest record with its index entries is some 40 times the smallest,
 * so that no mix of sizes outgrows the bound) and SHRINK_EXTRA more (a
 * bound lowered under a larger file is reached over some commits,
 * rather than in one long one).  With no record left, the habits of
 * identities that never signed go (a flood from made-up authors leaves
 * them); a signing habit is never removed.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "ledger-codec.h"
#include "ledger-int.h"

#define PRUNE_EXTRA	64	/* old records removed per batch, beyond
				   one for each record written */
#define SHRINK_PER_RECORD 64	/* records removed over the bound, per
				   record written, at most */
#define SHRINK_EXTRA	1024	/* and more */
#define DAY		86400

struct batch {
	struct ledger_lmdb	*l;
	MDB_txn		*txn;
	uint64_t	 seq;	/* the next record's */
	struct sbuf	 val;
	uint64_t	 used;	/* the bytes in use, as last counted */
};

static int	 put_arrival(struct batch *, const struct arrival *);
static int	 next_copy(struct batch *, MDB_val *, unsigned *);
static int	 learn(struct batch *, const struct arrival *);
static int	 prune(struct batch *, time_t, size_t);
static int	 shrink(struct batch *, const char *, size_t);
static int	 expire(struct batch *, const unsigned char *, size_t);
static int	 over(struct batch *);
static int	 forget_unsigned(struct batch *, const char *, size_t);
static int	 unindex(struct batch *, const MDB_val *, const MDB_val *);
static void	 index_value(unsigned char *, unsigned, const void *);
static int	 seq_get(struct batch *);
static int	 seq_put(struct batch *);

int
ledger_commit(struct ledger_lmdb *l, size_t head, size_t n, time_t now,
    struct pa_err *err)
{
	struct batch b = { .l = l };
	size_t i;
	int rc;

	if (ledger_intact(l, err) != 0)
		return EIO;
	if ((rc = ledger_txn_begin(l, 0, &b.txn)) != 0) {
		ledger_fail(l, err, "cannot write", rc);
		return rc;
	}
	sbuf_init(&b.val, LEDGER_VALUE_MAX);
	rc = seq_get(&b);
	for (i = 0; i < n && rc == 0; i++)
		rc = put_arrival(&b, &l->queue[(head + i) % LEDGER_QUEUE_MAX]);
	if (rc == 0)
		rc = prune(&b, now, n + PRUNE_EXTRA);
	if (rc == 0)
		rc = shrink(&b, n ? l->queue[(head + n - 1) %
		    LEDGER_QUEUE_MAX].identity : "", n * SHRINK_PER_RECORD +
		    SHRINK_EXTRA);
	if (rc == 0 && (rc = seq_put(&b)) == 0) {
		rc = mdb_txn_commit(b.txn);
		b.txn = NULL;
	}
	ledger_txn_end(l, b.txn);
	sbuf_release(&b.val);
	/* committed and in the map: a failed sync is made good by the next */
	if (rc == 0) {
		(void)mdb_env_sync(l->env, 1);
		atomic_store(&l->used, b.used);
	} else
		ledger_fail(l, err, "cannot write", rc);
	return ledger_intact(l, err) != 0 ? EIO : rc;
}

static int
seq_get(struct batch *b)
{
	MDB_val k = { 3, "seq" }, v;
	const unsigned char *p;
	int rc, i;

	b->seq = 0;
	if ((rc = mdb_get(b->txn, b->l->meta, &k, &v)) == MDB_NOTFOUND)
		return 0;
	if (rc != 0)
		return rc;
	if (v.mv_size != 8)
		return MDB_CORRUPTED;
	for (p = v.mv_data, i = 0; i < 8; i++)
		b->seq = b->seq << 8 | p[i];
	return 0;
}

static int
seq_put(struct batch *b)
{
	unsigned char buf[8];
	MDB_val k = { 3, "seq" }, v = { 8, buf };
	int i;

	for (i = 0; i < 8; i++)
		buf[i] = (unsigned char)(b->seq >> (56 - 8 * i));
	return mdb_put(b->txn, b->l->meta, &k, &v, 0);
}

/* index_value - the Message-ID index's value: copy, then the record key */
static void
index_value(unsigned char *idx, unsigned copy, const void *key)
{
	int i;

	for (i = 0; i < 4; i++)
		idx[i] = (unsigned char)(copy >> (24 - 8 * i));
	memcpy(idx + 4, key, LEDGER_KEY_LEN);
}

/* put_arrival - a's record, its index entries and its habit */
static int
put_arrival(struct batch *b, const struct arrival *a)
{
	unsigned char key[LEDGER_KEY_LEN], hash[32], idx[LEDGER_MSGID_VAL_LEN],
	    pid[LEDGER_PATCHID_LEN];
	MDB_val hk = { sizeof(hash), hash }, rk = { sizeof(key), key };
	MDB_val iv = { sizeof(idx), idx }, pk = { sizeof(pid), pid }, v;
	struct arrival rec = *a;
	int rc;

	if (ledger_msgid_hash(a, hash) != 0)
		return ENOMEM;
	memcpy(rec.message_id_sha256, hash, sizeof(hash));
	ledger_time_key(key, a->arrived, b->seq++);
	if ((rc = next_copy(b, &hk, &rec.copy)) != 0)
		return rc;
	sbuf_reset(&b->val);
	if (ledger_encode_arrival(&b->val, key, sizeof(key), &rec) != 0)
		return ENOMEM;
	v.mv_size = b->val.len;
	v.mv_data = b->val.buf;
	/* records come in time order as a rule: appended, LMDB fills each
	   page instead of splitting it in half */
	if ((rc = mdb_put(b->txn, b->l->records, &rk, &v, MDB_APPEND)) ==
	    MDB_KEYEXIST)
		rc = mdb_put(b->txn, b->l->records, &rk, &v, 0);
	if (rc != 0)
		return rc;
	index_value(idx, rec.copy, key);
	if ((rc = mdb_put(b->txn, b->l->msgid, &hk, &iv, 0)) != 0)
		return rc;
	if (a->has_patch && ledger_patch_id(pid, a->patch_id) == 0 &&
	    (rc = mdb_put(b->txn, b->l->patchid, &pk, &rk, 0)) != 0)
		return rc;
	return a->has_patch && a->identity[0] != '\0' ? learn(b, &rec) : 0;
}

/*
 * next_copy - the copy number of the next record of the Message-ID
 * hashed in hk: one more than its latest copy's, kept even when older
 * copies were removed
 */
static int
next_copy(struct batch *b, MDB_val *hk, unsigned *copy)
{
	const unsigned char *p;
	MDB_cursor *cur;
	MDB_val k = *hk, v;
	size_t dups;
	int rc;

	*copy = 1;
	if ((rc = mdb_cursor_open(b->txn, b->l->msgid, &cur)) != 0)
		return rc;
	if ((rc = mdb_cursor_get(cur, &k, &v, MDB_SET_KEY)) == 0 &&
	    (rc = mdb_cursor_get(cur, &k, &v, MDB_LAST_DUP)) == 0) {
		p = v.mv_data;
		if (v.mv_size == LEDGER_MSGID_VAL_LEN)
			*copy = ((unsigned)p[0] << 24 | (unsigned)p[1] << 16 |
			    (unsigned)p[2] << 8 | p[3]) + 1;
		else if ((rc = mdb_cursor_count(cur, &dups)) == 0)
			*copy = (unsigned)dups + 1;
	}
	mdb_cursor_close(cur);
	return rc == MDB_NOTFOUND ? 0 : rc;
}

/* learn - a's patch mail added to its identity's habit */
static int
learn(struct batch *b, const struct arrival *a)
{
	struct habit_state hs;
	MDB_val k = { strlen(a->identity), (void *)a->identity }, v;
	int rc;

	rc = mdb_get(b->txn, b->l->habits, &k, &v);
	if (rc != 0 && rc != MDB_NOTFOUND)
		return rc;
	if (rc != 0 || ledger_decode_habit(v.mv_data, v.mv_size, k.mv_data,
	    k.mv_size, &hs) != 0) {
		memset(&hs, 0, sizeof(hs));
		memcpy(hs.h.identity, a->identity, k.mv_size + 1);
	}
	ledger_habit_add(&hs, a);
	sbuf_reset(&b->val);
	if (ledger_encode_habit(&b->val, &hs) != 0)
		return ENOMEM;
	v.mv_size = b->val.len;
	v.mv_data = b->val.buf;
	return mdb_put(b->txn, b->l->habits, &k, &v, 0);
}


/* prune - up to max records that arrived before the retention removed */
static int
prune(struct batch *b, time_t now, size_t max)
{
	unsigned char cut[LEDGER_KEY_LEN];

	if (b->l->retention_days == 0)
		return 0;
	ledger_time_key(cut, now - (time_t)b->l->retention_days * DAY, 0);
	return expire(b, cut, max);
}

/*
 * shrink - while the file is over its bound, up to max records removed,
 * the oldest first, then as many habits looked at for those that never
 * signed, from identity's on; b->used counted
 */
static int
shrink(struct batch *b, const char *identity, size_t max)
{
	MDB_stat st;
	int rc;

	if ((rc = expire(b, NULL, max)) != 0 ||
	    (rc = mdb_stat(b->txn, b->l->records, &st)) != 0)
		return rc;
	if (st.ms_entries == 0 && over(b))
		rc = forget_unsigned(b, identity, max);
	return rc == 0 ? ledger_used(b->l, b->txn, &b->used) : rc;
}

/* over - the pages in use are more than the bound (counted into b) */
static int
over(struct batch *b)
{
	return b->l->max_size > 0 && ledger_used(b->l, b->txn, &b->used) == 0 &&
	    b->used > b->l->max_size;
}

/*
 * expire - up to max records removed, the oldest first: those that
 * arrived before cut, or (cut NULL) while the file is over its bound
 */
static int
expire(struct batch *b, const unsigned char *cut, size_t max)
{
	MDB_cursor *cur;
	MDB_val k, v;
	size_t done = 0;
	int rc;

	if ((rc = mdb_cursor_open(b->txn, b->l->records, &cur)) != 0)
		return rc;
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0 &&
	    done < max && k.mv_size == LEDGER_KEY_LEN && (cut != NULL ?
	    memcmp(k.mv_data, cut, LEDGER_KEY_LEN) < 0 : over(b));
	    rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT), done++) {
		if ((rc = unindex(b, &k, &v)) != 0 ||
		    (rc = mdb_cursor_del(cur, 0)) != 0)
			break;
	}
	mdb_cursor_close(cur);
	return rc == MDB_NOTFOUND ? 0 : rc;
}

/*
 * forget_unsigned - of up to max habits from identity's on (the batch's
 * last: somewhere at random in a flood), round from the first after the
 * last, those that never signed (and damaged ones, learnt again anyway)
 * removed while the file is over its bound: an identity's first trusted
 * signature makes its habit one that stays
 */
static int
forget_unsigned(struct batch *b, const char *identity, size_t max)
{
	struct habit_state hs;
	MDB_cursor *cur;
	MDB_val k = { strlen(identity), (void *)identity }, v;
	size_t seen = 0;
	int rc;

	if ((rc = mdb_cursor_open(b->txn, b->l->habits, &cur)) != 0)
		return rc;
	rc = mdb_cursor_get(cur, &k, &v, k.mv_size > 0 ? MDB_SET_RANGE :
	    MDB_FIRST);
	for (; rc == 0 && seen < max && over(b); seen++) {
		if (ledger_decode_habit(v.mv_data, v.mv_size, k.mv_data,
		    k.mv_size, &hs) != 0 || hs.h.first_signed == 0)
			rc = mdb_cursor_del(cur, 0);
		if (rc == 0 && (rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) ==
		    MDB_NOTFOUND)
			rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST);
	}
	mdb_cursor_close(cur);
	return rc == MDB_NOTFOUND ? 0 : rc;
}

/*
 * unindex - the index entries of the record v under key k removed; a
 * damaged record's stay, and are passed as those of a removed one
 */
static int
unindex(struct batch *b, const MDB_val *k, const MDB_val *v)
{
	unsigned char idx[LEDGER_MSGID_VAL_LEN], pid[LEDGER_PATCHID_LEN];
	struct arrival a;
	MDB_val hk = { 32, a.message_id_sha256 }, iv = { sizeof(idx), idx };
	MDB_val pk = { sizeof(pid), pid }, rk = *k;
	int rc;

	if (ledger_decode_arrival(v->mv_data, v->mv_size, k->mv_data,
	    k->mv_size, &a) != 0)
		return 0;
	index_value(idx, a.copy, k->mv_data);
	if ((rc = mdb_del(b->txn, b->l->msgid, &hk, &iv)) != 0 &&
	    rc != MDB_NOTFOUND)
		return rc;
	if (a.has_patch && ledger_patch_id(pid, a.patch_id) == 0 &&
	    (rc = mdb_del(b->txn, b->l->patchid, &pk, &rk)) != 0 &&
	    rc != MDB_NOTFOUND)
		return rc;
	return 0;
}
