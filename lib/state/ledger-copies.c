/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ledger-copies.c - the copies of one Message-ID in the LMDB store
 * (ledger.h says what they are, ledger-int.h where they are kept): how
 * many arrived, were kept and differ, and the first kept one.
 *
 * The kept copies are the Message-ID's msgid entries, so that a
 * Message-ID that arrived once costs no entry of its own in copies; the
 * entry there counts what the msgid entries cannot: copies not kept, and
 * those that differed.  A file written before copies were counted has
 * none: its copies are then its kept ones, none known to differ.
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "base.h"
#include "ledger-codec.h"
#include "ledger-int.h"

/* first_kept - the record of the msgid entry v into *first: 1, or 0 */
static int
first_kept(MDB_txn *txn, const struct ledger_lmdb *l, const MDB_val *v,
    struct arrival *first)
{
	MDB_val rk, rv;

	if (v->mv_size != LEDGER_MSGID_VAL_LEN)
		return 0;
	rk.mv_size = LEDGER_KEY_LEN;
	rk.mv_data = (unsigned char *)v->mv_data + 4;
	return mdb_get(txn, l->records, &rk, &rv) == 0 &&
	    rv.mv_size <= LEDGER_VALUE_MAX && ledger_decode_arrival(rv.mv_data, rv.mv_size, rk.mv_data,
	    rk.mv_size, first) == 0;
}

int
ledger_copies_get(struct ledger_lmdb *l, MDB_txn *txn, const MDB_val *hk,
    struct ledger_copies *cs, struct arrival *first)
{
	MDB_cursor *cur;
	MDB_val k = *hk, v;
	size_t kept = 0;
	int rc, got = 0;

	memset(cs, 0, sizeof(*cs));
	if ((rc = mdb_cursor_open(txn, l->msgid, &cur)) != 0)
		return -rc;
	if ((rc = mdb_cursor_get(cur, &k, &v, MDB_SET_KEY)) == 0) {
		if (first != NULL)
			got = first_kept(txn, l, &v, first);
		if ((rc = mdb_cursor_count(cur, &kept)) == 0 &&
		    (rc = mdb_cursor_get(cur, &k, &v, MDB_LAST_DUP)) == 0 &&
		    v.mv_size == LEDGER_MSGID_VAL_LEN)
			cs->arrived = bigend_get32(v.mv_data);
	}
	mdb_cursor_close(cur);
	if (rc != 0 && rc != MDB_NOTFOUND)
		return -rc;
	cs->kept = (unsigned)kept;
	if (cs->arrived < cs->kept)
		cs->arrived = cs->kept;
	k = *hk;
	/* a damaged count is passed: the kept copies are still counted */
	if (l->has_copies && (rc = mdb_get(txn, l->copies, &k, &v)) == 0 &&
	    v.mv_size == LEDGER_COPIES_VAL_LEN &&
	    bigend_get32(v.mv_data) >= cs->arrived) {
		cs->arrived = bigend_get32(v.mv_data);
		cs->differing = bigend_get32((unsigned char *)v.mv_data + 4);
	} else if (l->has_copies && rc != 0 && rc != MDB_NOTFOUND)
		return -rc;
	return got;
}

int
lmdb_ledger_copies(struct ledger *base, const char *message_id, size_t len,
    struct ledger_copies *out, struct pa_err *err)
{
	struct ledger_lmdb *l = lmdb_ledger(base);
	unsigned char hash[32];
	MDB_val hk = { sizeof(hash), hash };
	MDB_txn *txn;
	int rc, tries, settled;

	memset(out, 0, sizeof(*out));
	if (digest_sha256(hash, message_id, len) != 0) {
		pa_err_set(err, "%s", pa_strerror(PA_ENOMEM));
		return PA_ENOMEM;
	}
	/* unlocked, read again until a read settled (ledger-int.h) */
	for (tries = 0, settled = 0; !settled && tries < LEDGER_READ_TRIES;
	    tries++) {
		if (ledger_intact(l, err) != 0)
			return PA_ERROR;
		mapguard_catch(&l->damaged);
		/* a transaction not begun has let go of maplock */
		if ((rc = ledger_txn_begin(l, MDB_RDONLY, &txn)) == 0) {
			rc = ledger_copies_get(l, txn, &hk, out, NULL);
			rc = rc < 0 ? -rc : 0;
			settled = ledger_txn_settled(l, txn);
			ledger_txn_end(l, txn);
		} else
			settled = 1;
		mapguard_catch(NULL);
	}
	if (ledger_intact(l, err) != 0)
		return PA_ERROR;
	if (!settled)
		rc = LEDGER_UNSETTLED;
	if (rc != 0)
		return ledger_fail(l, err, "reading", rc);
	return out->arrived > 0 ? 0 : PA_ENOTFOUND;
}

void
lmdb_ledger_watch(struct ledger *base,
    void (*fn)(void *, const struct ledger_copy_event *), void *arg)
{
	struct ledger_lmdb *l = lmdb_ledger(base);

	copy_news_watch(&l->news, fn, arg);
}
