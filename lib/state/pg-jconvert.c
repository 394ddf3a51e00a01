/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pg-jconvert.c - the journal of earlier versions, an LMDB file (key: the
 * sequence number, 8 bytes big-endian; value: the record id in 32 hex
 * digits and the record sealed under the key), made a journal of this
 * form once, when it is opened: its records written to NAME.new with
 * their sequence numbers and ids (a record the database has already is
 * still known by its id), that file renamed over the old one, and the
 * old lock file (NAME-lock) removed.
 *
 * This reading trusts the old file as the old code did: LMDB follows the
 * pages it finds, and a damaged B-tree can stop the process.  A record
 * whose seal does not hold is set aside and counted, as in a journal of
 * this form.  Until the rename the old file is whole, so that a
 * conversion cut short is done again at the next start.
 */
#include "config.h"

#include <sys/random.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lmdb.h>

#include "base.h"
#include "pg-journal-int.h"

#define OLD_MAPSIZE	((size_t)256 << 20)	/* the old journal's map */
#define OLD_ID_HEX	(2 * JID_LEN)	/* the record id, in hex */

/* The conversion under way. */
struct conv {
	struct journal	*j;
	int		 fd;		/* NAME.new */
	uint64_t	 out;		/* where the next frame goes */
	uint64_t	 first, last;	/* sequence numbers written */
	struct arrival	 a;
	struct sbuf	 sb;
	struct jdamage	*d;
	struct pa_err	*err;
};

/* readable - the old entry (k, v), after sequence number after, into
   seq, id and a: whether it is whole */
static int
readable(const MDB_val *k, const MDB_val *v, uint64_t after, uint64_t *seq,
    unsigned char id[JID_LEN], struct arrival *a)
{
	if (k->mv_size != 8 || v->mv_size < OLD_ID_HEX)
		return 0;
	*seq = bigend_get64(k->mv_data);
	return *seq > after && *seq <= UINT64_MAX / 2 &&
	    codec_unhex(id, v->mv_data, JID_LEN, 0) == 0 &&
	    ledger_decode_arrival((const char *)v->mv_data + OLD_ID_HEX,
	    v->mv_size - OLD_ID_HEX, k->mv_data, k->mv_size, a) == 0;
}

/* one - the old entry (k, v) as a frame, or set aside when damaged */
static int
one(struct conv *c, const MDB_val *k, const MDB_val *v)
{
	unsigned char id[JID_LEN];
	uint64_t seq;

	if (!readable(k, v, c->last, &seq, id, &c->a)) {
		c->d->converted = 1;
		c->d->bytes += k->mv_size + v->mv_size;
		c->d->lost++;
		if (jaside_put(c->j, k->mv_data, k->mv_size, c->d,
		    c->err) != 0)
			return PA_ERROR;
		return jaside_put(c->j, v->mv_data, v->mv_size, c->d, c->err);
	}
	sbuf_reset(&c->sb);
	if (jframe_make(&c->sb, c->j->h.key, seq, c->first > 0 ? c->last :
	    seq - 1, id, &c->a) != 0) {
		pa_err_set(c->err, "%s", pa_strerror(PA_ENOMEM));
		return PA_ENOMEM;
	}
	if (jpwrite(c->fd, c->sb.buf, c->sb.len, c->out) != 0)
		return jfail(c->j, c->err, "cannot convert", NULL);
	c->out += c->sb.len;
	if (c->first == 0)
		c->first = seq;
	c->last = seq;
	return 0;
}

/* entries - every entry of the old file, in order, through one */
static int
entries(struct conv *c)
{
	MDB_env *env;
	MDB_txn *txn;
	MDB_cursor *cur;
	MDB_dbi dbi;
	MDB_val k, v;
	int rc, mrc;

	if ((mrc = mdb_env_create(&env)) != 0)
		return jfail(c->j, c->err, "cannot convert",
		    mdb_strerror(mrc));
	if ((mrc = mdb_env_set_mapsize(env, OLD_MAPSIZE)) == 0 &&
	    (mrc = mdb_env_open(env, c->j->path, MDB_NOSUBDIR | MDB_RDONLY |
	    MDB_NOLOCK | MDB_NOTLS, 0600)) == 0 &&
	    (mrc = mdb_txn_begin(env, NULL, MDB_RDONLY, &txn)) == 0) {
		if ((mrc = mdb_dbi_open(txn, NULL, 0, &dbi)) == 0 &&
		    (mrc = mdb_cursor_open(txn, dbi, &cur)) == 0) {
			rc = 0;
			for (mrc = mdb_cursor_get(cur, &k, &v, MDB_FIRST);
			    mrc == 0 && rc == 0;
			    mrc = mdb_cursor_get(cur, &k, &v, MDB_NEXT))
				rc = one(c, &k, &v);
			mdb_cursor_close(cur);
			if (rc != 0) {
				mdb_txn_abort(txn);
				mdb_env_close(env);
				return rc;
			}
		}
		mdb_txn_abort(txn);
	}
	mdb_env_close(env);
	if (mrc != 0 && mrc != MDB_NOTFOUND)
		return jfail(c->j, c->err, "cannot convert",
		    mdb_strerror(mrc));
	return 0;
}

/* finish - the header of the new file, then the file in place */
static int
finish(struct conv *c)
{
	struct journal *j = c->j;
	unsigned char raw[JSLOT_LEN];
	char lock[4096];
	int i;

	j->next_seq = c->last + 1;
	j->h.sent = c->first > 0 ? c->first - 1 : c->last;
	j->h.synced = c->last;
	j->h.sent_off = JHEAD;
	for (i = 0; i < 2; i++) {
		j->h.gen++;
		jslot_encode(raw, &j->h);
		if (jpwrite(c->fd, raw, sizeof(raw), j->h.gen & 1 ? JSLOT_B :
		    0) != 0)
			return jfail(j, c->err, "cannot convert", NULL);
	}
	if (ftruncate(c->fd, (off_t)c->out) != 0)
		return jfail(j, c->err, "cannot convert", NULL);
	if (jinstall(j, c->fd, c->err) != 0)
		return PA_ERROR;
	if ((size_t)snprintf(lock, sizeof(lock), "%s-lock", j->name) <
	    sizeof(lock) && unlinkat(j->dirfd, lock, 0) != 0 &&
	    errno != ENOENT)
		return jfail(j, c->err, "cannot remove the old lock file of",
		    NULL);
	return 0;
}

int
jconvert(struct journal *j, struct jdamage *d, struct pa_err *err)
{
	struct conv *c;
	int rc;

	if ((c = calloc(1, sizeof(*c))) == NULL) {
		pa_err_set(err, "%s", pa_strerror(PA_ENOMEM));
		return PA_ENOMEM;
	}
	c->j = j;
	c->d = d;
	c->err = err;
	c->out = JHEAD;
	sbuf_init(&c->sb, JFRAME_MAX);
	memset(&j->h, 0, sizeof(j->h));
	if (getrandom(j->h.key, JKEY_LEN, 0) != JKEY_LEN)
		rc = jfail(j, err, "cannot convert", NULL);
	else if ((c->fd = jnewfile(j, err)) < 0)
		rc = PA_ERROR;
	else if (((rc = entries(c)) != 0 || (rc = finish(c)) != 0) &&
	    j->fd != c->fd)
		close(c->fd);	/* NAME.new: made again at the next try */
	sbuf_release(&c->sb);
	free(c);
	return rc;
}
