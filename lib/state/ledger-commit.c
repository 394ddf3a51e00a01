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

#include <sys/stat.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arrival.h"
#include "base.h"
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
	struct arrival	 rec, first;	/* the one being put, its first copy */
	int		 has_first, kept;
	uint64_t	 used;	/* the bytes in use, as last counted */
};

static int	 put_arrival(struct batch *, const struct arrival *);
static int	 learn(struct batch *, const struct arrival *);
static int	 prune(struct batch *, time_t, size_t);
static int	 shrink(struct batch *, const char *, size_t);
static int	 expire(struct batch *, const unsigned char *, size_t);
static int	 over(struct batch *);
static int	 forget_unsigned(struct batch *, const char *, size_t);
static int	 unindex(struct batch *, const MDB_val *, const MDB_val *);
static void	 index_value(unsigned char *, unsigned, const void *);

/*
 * note_file - the file's size kept for ledger_size(), looked at after
 * each commit rather than at each message
 */
static void
note_file(struct ledger_lmdb *l)
{
	struct stat st;
	int fd;

	if (mdb_env_get_fd(l->env, &fd) == 0 && fstat(fd, &st) == 0)
		atomic_store(&l->file_bytes, (uint64_t)st.st_size);
}

int
ledger_commit(struct ledger_lmdb *l, size_t head, size_t n, uint64_t accepted,
    time_t now, struct pa_err *err)
{
	struct batch *b;
	uint64_t used;
	size_t i;
	int rc;

	if (ledger_intact(l, err) != 0)
		return EIO;
	if ((b = calloc(1, sizeof(*b))) == NULL) {
		ledger_fail(l, err, "cannot write", ENOMEM);
		return ENOMEM;
	}
	b->l = l;
	copy_news_clear(&l->news);
	if ((rc = ledger_txn_begin(l, 0, &b->txn)) != 0) {
		ledger_fail(l, err, "cannot write", rc);
		free(b);
		return rc;
	}
	sbuf_init(&b->val, LEDGER_VALUE_MAX);
	rc = ledger_meta_get(l, b->txn, LEDGER_META_SEQ, &b->seq);
	for (i = 0; i < n && rc == 0; i++)
		rc = put_arrival(b, l->queue[(head + i) % LEDGER_QUEUE_MAX]);
	if (rc == 0)
		rc = prune(b, now, n + PRUNE_EXTRA);
	if (rc == 0)
		rc = shrink(b, n ? l->queue[(head + n - 1) %
		    LEDGER_QUEUE_MAX]->identity : "", n * SHRINK_PER_RECORD +
		    SHRINK_EXTRA);
	if (rc == 0 && (rc = ledger_meta_put(l, b->txn, LEDGER_META_SEQ,
	    b->seq)) == 0 && (rc = ledger_meta_put(l, b->txn,
	    LEDGER_META_ACCEPTED, accepted + n)) == 0) {
		rc = mdb_txn_commit(b->txn);
		b->txn = NULL;
	}
	ledger_txn_end(l, b->txn);
	sbuf_release(&b->val);
	used = b->used;
	free(b);
	/* committed and in the map: a failed sync is made good by the next */
	if (rc == 0) {
		(void)mdb_env_sync(l->env, 1);
		atomic_store(&l->used, used);
		note_file(l);
	} else {
		copy_news_clear(&l->news);
		ledger_fail(l, err, "cannot write", rc);
	}
	return ledger_intact(l, err) != 0 ? EIO : rc;
}

/* index_value - the Message-ID index's value: copy, then the record key */
static void
index_value(unsigned char *idx, unsigned copy, const void *key)
{
	bigend_put32(idx, copy);
	memcpy(idx + 4, key, LEDGER_KEY_LEN);
}

/*
 * number - rec numbered as the next copy of the Message-ID hashed in hk,
 * set beside its first kept copy (b->first), counted in *cs and, past
 * the first, in copies: whether it is kept (b->kept), 0, or LMDB's error
 */
static int
number(struct batch *b, const MDB_val *hk, struct arrival *rec,
    struct ledger_copies *cs)
{
	unsigned char val[LEDGER_COPIES_VAL_LEN];
	MDB_val k = *hk, v = { sizeof(val), val };
	int rc;

	if (!copies_known(hk->mv_data)) {
		memset(cs, 0, sizeof(*cs));
		b->has_first = 0;
		b->kept = copies_next(rec, NULL, cs);
		return 0;
	}
	if ((rc = ledger_copies_get(b->l, b->txn, hk, cs, &b->first)) < 0)
		return -rc;
	b->has_first = rc;
	b->kept = copies_next(rec, b->has_first ? &b->first : NULL, cs);
	if (rec->copy == 1)
		return 0;
	bigend_put32(val, cs->arrived);
	bigend_put32(val + 4, cs->differing);
	return mdb_put(b->txn, b->l->copies, &k, &v, 0);
}

/*
 * put_arrival - a's record, its index entries and its habit; a copy past
 * those kept is only counted
 */
static int
put_arrival(struct batch *b, const struct arrival *a)
{
	unsigned char key[LEDGER_KEY_LEN], hash[32], idx[LEDGER_MSGID_VAL_LEN],
	    pid[LEDGER_PATCHID_LEN];
	MDB_val hk = { sizeof(hash), hash }, rk = { sizeof(key), key };
	MDB_val iv = { sizeof(idx), idx }, pk = { sizeof(pid), pid }, v;
	struct arrival *rec = &b->rec;
	struct ledger_copies cs;
	int rc;

	if (ledger_msgid_hash(a, hash) != 0)
		return ENOMEM;
	*rec = *a;
	memcpy(rec->message_id_sha256, hash, sizeof(hash));
	if ((rc = number(b, &hk, rec, &cs)) != 0)
		return rc;
	if (rec->copy > 1 && copy_news_add(&b->l->news, rec, b->has_first ?
	    &b->first : NULL, &cs, b->kept) != 0)
		return ENOMEM;
	if (rec->has_patch && rec->identity[0] != '\0' &&
	    (rc = learn(b, rec)) != 0)
		return rc;
	if (!b->kept)
		return 0;
	ledger_time_key(key, rec->arrived, b->seq++);
	sbuf_reset(&b->val);
	if (ledger_encode_arrival(&b->val, key, sizeof(key), rec) != 0)
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
	index_value(idx, rec->copy, key);
	if (copies_known(hash) &&
	    (rc = mdb_put(b->txn, b->l->msgid, &hk, &iv, 0)) != 0)
		return rc;
	if (rec->has_patch && ledger_patch_id(pid, rec->patch_id) == 0 &&
	    (rc = mdb_put(b->txn, b->l->patchid, &pk, &rk, 0)) != 0)
		return rc;
	return 0;
}

/* learn - a's patch mail added to its identity's habit, when it adds */
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
	if (!ledger_habit_add(&hs, a))
		return 0;
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
	MDB_val pk = { sizeof(pid), pid }, rk = *k, v2;
	int rc;

	if (ledger_decode_arrival(v->mv_data, v->mv_size, k->mv_data,
	    k->mv_size, &a) != 0)
		return 0;
	index_value(idx, a.copy, k->mv_data);
	if ((rc = mdb_del(b->txn, b->l->msgid, &hk, &iv)) != 0 &&
	    rc != MDB_NOTFOUND)
		return rc;
	/* the last kept copy gone: what counted the others goes too */
	if ((rc = mdb_get(b->txn, b->l->msgid, &hk, &v2)) == MDB_NOTFOUND &&
	    (rc = mdb_del(b->txn, b->l->copies, &hk, NULL)) != 0 &&
	    rc != MDB_NOTFOUND)
		return rc;
	if (a.has_patch && ledger_patch_id(pid, a.patch_id) == 0 &&
	    (rc = mdb_del(b->txn, b->l->patchid, &pk, &rk)) != 0 &&
	    rc != MDB_NOTFOUND)
		return rc;
	return 0;
}
