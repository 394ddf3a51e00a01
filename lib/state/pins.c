/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pins.c - the first-use pins in an LMDB file of their own (see pins.h).
 *
 * Records: canonical identity -> 8 bytes of first-use time (big-endian
 * seconds) and the key; and MARK_NAME (with a space, which no identity
 * has) -> PINS_MAGIC, written when the file is made, so that a file
 * emptied or replaced is told from a store with no pins.  First uses are
 * rare (one per new signer), so the write transaction runs on the
 * deciding thread; LMDB lets one writer in at a time, which is what makes
 * the first use atomic.
 *
 * A file cut under us must not kill the process: every call that reads
 * the map catches its thread's SIGBUS (mapguard_catch), so that a lost
 * page reads as zeros and the handle is damaged from then on.  The map
 * cannot be watched as a region: LMDB tells where it is only for
 * MDB_FIXEDMAP (mdb_env_info()'s me_mapaddr is NULL otherwise).
 */
#include "config.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lmdb.h>

#include "store-int.h"
#include "statefile.h"
#include "sig.h"

#define NOUN		"the first-use pins"
#define PINS_MAGIC	"patchattest pins 1"
#define MARK_NAME	" mark"
#define PINS_MAPSIZE	((size_t)64 << 20)	/* some 200,000 pins */
#define PINS_READERS	512

struct pins_lmdb {
	struct pins		 base;		/* first: the handle */
	MDB_env			*env;
	MDB_dbi			 dbi;
	char			*path;
	atomic_int		 damaged;	/* the file was cut */
};

static int	 lmdb_first_use(struct pins *, const char *, const char *,
		    time_t, enum pin_seen *, struct pin *, struct pa_err *);
static int	 lmdb_get(struct pins *, const char *, struct pin *,
		    struct pa_err *);
static int	 lmdb_forget(struct pins *, const char *, struct pa_err *);
static int	 lmdb_each(struct pins *, int (*)(void *, const struct pin *),
		    void *, struct pa_err *);
static void	 lmdb_close(struct pins *);

static const struct pins_ops lmdb_ops = {
	.first_use = lmdb_first_use,
	.get = lmdb_get,
	.forget = lmdb_forget,
	.each = lmdb_each,
	.close = lmdb_close
};

#define lmdb_pins(base)	((struct pins_lmdb *)(void *)(base))

static int	 mdb_fail(const struct pins_lmdb *, struct pa_err *, const char *,
		    int);
static int	 env_open(struct pins_lmdb *, int, unsigned int, struct pa_err *);
static int	 first_use(struct pins_lmdb *, const char *, const char *, time_t,
		    enum pin_seen *, struct pin *, struct pa_err *);
static int	 get(struct pins_lmdb *, const char *, struct pin *,
		    struct pa_err *);
static int	 forget(struct pins_lmdb *, const char *, struct pa_err *);
static int	 each(struct pins_lmdb *, int (*)(void *, const struct pin *),
		    void *, struct pa_err *);
static int	 intact(const struct pins_lmdb *, struct pa_err *);
static int	 make_magic(struct pins_lmdb *, struct pa_err *);
static int	 check_magic(struct pins_lmdb *, struct pa_err *);
static int	 canon(const char *, char *, MDB_val *, struct pa_err *);
static int	 decode(const MDB_val *, const MDB_val *, struct pin *);
static void	 encode(unsigned char *, time_t, const char *, MDB_val *);

/* mdb_fail - "WHAT pins at PATH: REASON"; PA_ERROR */
static int
mdb_fail(const struct pins_lmdb *p, struct pa_err *err, const char *what,
    int rc)
{
	if (intact(p, err) != 0)
		return PA_ERROR;
	pa_err_set(err, "%s the first-use pins at %s: %s", what, p->path,
	    rc == MDB_INVALID ? "not a pin store" : rc == MDB_CORRUPTED ?
	    "the file is damaged" : mdb_strerror(rc));
	return rc == ENOMEM ? PA_ENOMEM : PA_ERROR;
}

/*
 * intact - 0, or PA_ERROR when the file was cut while mapped: what was
 * read from it since is not to be believed
 */
static int
intact(const struct pins_lmdb *p, struct pa_err *err)
{
	if (!atomic_load(&p->damaged))
		return 0;
	pa_err_set(err, "the first-use pins at %s are damaged: the file was "
	    "cut while in use (restore it, or remove it to start again, and "
	    "reload)", p->path);
	return PA_ERROR;
}

/*
 * env_open - p's LMDB file opened with flags (MDB_*), its mark made
 * (fresh) or checked, this thread catching
 */
static int
env_open(struct pins_lmdb *p, int fresh, unsigned int flags, struct pa_err *err)
{
	MDB_txn *txn;
	int rc;

	if ((rc = mdb_env_create(&p->env)) != 0) {
		p->env = NULL;
		return mdb_fail(p, err, "opening", rc);
	}
	mapguard_catch(&p->damaged);
	if ((rc = mdb_env_set_mapsize(p->env, PINS_MAPSIZE)) != 0 ||
	    (rc = mdb_env_set_maxreaders(p->env, PINS_READERS)) != 0 ||
	    (rc = mdb_env_open(p->env, p->path, MDB_NOSUBDIR | MDB_NOTLS |
	    flags, 0600)) != 0 ||
	    (rc = mdb_txn_begin(p->env, NULL, MDB_RDONLY, &txn)) != 0)
		rc = mdb_fail(p, err, "opening", rc);
	else {
		rc = mdb_dbi_open(txn, NULL, 0, &p->dbi);
		mdb_txn_abort(txn);
		if (rc != 0)
			rc = mdb_fail(p, err, "opening", rc);
		else
			rc = fresh ? make_magic(p, err) : check_magic(p, err);
	}
	mapguard_catch(NULL);
	return rc == 0 ? intact(p, err) : rc;
}

/* pins_new - an unopened handle for path into *out */
static int
pins_new(struct pins_lmdb **out, const char *path, struct pa_err *err)
{
	struct pins_lmdb *p;

	if ((p = calloc(1, sizeof(*p))) == NULL ||
	    (p->path = strdup(path)) == NULL) {
		free(p);
		pa_err_set(err, "%s", pa_strerror(PA_ENOMEM));
		return PA_ENOMEM;
	}
	p->base.ops = &lmdb_ops;
	*out = p;
	return 0;
}

int
pins_open(struct pins **out, const char *path, int create, int writable,
    struct pa_err *err)
{
	struct pins_lmdb *p;
	int rc, fresh;

	*out = NULL;
	if ((rc = statefile_there(path, create, NOUN, err)) < 0)
		return rc;
	fresh = rc == 0;
	if ((rc = pins_new(&p, path, err)) != 0)
		return rc;
	if ((rc = env_open(p, fresh, writable || fresh ? 0 : MDB_RDONLY,
	    err)) != 0) {
		lmdb_close(&p->base);
		return rc;
	}
	*out = &p->base;
	return 0;
}

int
pins_check(const char *path, struct pa_err *err)
{
	struct pins_lmdb *p;
	int rc;

	if ((rc = statefile_there(path, 0, NOUN, err)) < 0)
		return rc;
	if ((rc = pins_new(&p, path, err)) != 0)
		return rc;
	rc = env_open(p, 0, MDB_RDONLY | MDB_NOLOCK, err);
	lmdb_close(&p->base);
	return rc;
}

static void
lmdb_close(struct pins *base)
{
	struct pins_lmdb *p = lmdb_pins(base);

	if (p->env != NULL)
		mdb_env_close(p->env);
	free(p->path);
	free(p);
}

/* make_magic - the mark of a pin store, in a file just made */
static int
make_magic(struct pins_lmdb *p, struct pa_err *err)
{
	MDB_val k = { sizeof(MARK_NAME) - 1, MARK_NAME };
	MDB_val v = { sizeof(PINS_MAGIC) - 1, PINS_MAGIC };
	MDB_txn *txn;
	int rc;

	if ((rc = mdb_txn_begin(p->env, NULL, 0, &txn)) != 0)
		return mdb_fail(p, err, "making", rc);
	if ((rc = mdb_put(txn, p->dbi, &k, &v, 0)) != 0) {
		mdb_txn_abort(txn);
		return mdb_fail(p, err, "making", rc);
	}
	if ((rc = mdb_txn_commit(txn)) != 0)
		return mdb_fail(p, err, "making", rc);
	return 0;
}

/* check_magic - the file is a pin store: 0, else PA_ERROR */
static int
check_magic(struct pins_lmdb *p, struct pa_err *err)
{
	MDB_val k = { sizeof(MARK_NAME) - 1, MARK_NAME }, v;
	MDB_txn *txn;
	int rc, ok;

	if ((rc = mdb_txn_begin(p->env, NULL, MDB_RDONLY, &txn)) != 0)
		return mdb_fail(p, err, "reading", rc);
	rc = mdb_get(txn, p->dbi, &k, &v);
	ok = rc == 0 && v.mv_size == sizeof(PINS_MAGIC) - 1 &&
	    memcmp(v.mv_data, PINS_MAGIC, v.mv_size) == 0;
	mdb_txn_abort(txn);
	if (rc != 0 && rc != MDB_NOTFOUND)
		return mdb_fail(p, err, "reading", rc);
	if (!ok) {
		pa_err_set(err, "the first-use pins at %s: not a pin store "
		    "(damaged or another file; restore it, or remove it to "
		    "start again)", p->path);
		return PA_ERROR;
	}
	return 0;
}

/* canon - identity's canonical form into name and k: 0, PA_ENOTFOUND */
static int
canon(const char *identity, char *name, MDB_val *k, struct pa_err *err)
{
	if (patatt_identity_canon(name, PIN_IDENTITY_MAX, identity) != 0) {
		pa_err_set(err, "an identity is an address of printable "
		    "ASCII, with an @, under %d bytes", PIN_IDENTITY_MAX);
		return PA_ENOTFOUND;
	}
	k->mv_size = strlen(name);
	k->mv_data = name;
	return 0;
}

static void
encode(unsigned char *buf, time_t since, const char *key, MDB_val *v)
{
	uint64_t t = (uint64_t)since;
	size_t i, len = strlen(key);

	for (i = 0; i < 8; i++)
		buf[i] = (unsigned char)(t >> (56 - 8 * i));
	memcpy(buf + 8, key, len);
	v->mv_size = 8 + len;
	v->mv_data = buf;
}

/* decode - a record into out: 0, or PA_ERROR when it is not one */
static int
decode(const MDB_val *k, const MDB_val *v, struct pin *out)
{
	const unsigned char *b = v->mv_data;
	uint64_t t = 0;
	size_t i;

	if (k->mv_size == 0 || k->mv_size >= sizeof(out->identity) ||
	    v->mv_size < 8 || v->mv_size - 8 >= sizeof(out->key))
		return PA_ERROR;
	for (i = 0; i < 8; i++)
		t = t << 8 | b[i];
	memcpy(out->identity, k->mv_data, k->mv_size);
	out->identity[k->mv_size] = '\0';
	memcpy(out->key, b + 8, v->mv_size - 8);
	out->key[v->mv_size - 8] = '\0';
	out->since = (time_t)t;
	return 0;
}

/* first_use - pins_first_use(), its thread catching */
static int
first_use(struct pins_lmdb *p, const char *identity, const char *key,
    time_t now, enum pin_seen *seen, struct pin *pinned, struct pa_err *err)
{
	unsigned char buf[8 + PIN_KEY_MAX];
	char name[PIN_IDENTITY_MAX];
	MDB_val k, v;
	MDB_txn *txn;
	int rc;

	if ((rc = canon(identity, name, &k, err)) != 0)
		return rc;
	if (key[0] == '\0' || strlen(key) >= PIN_KEY_MAX) {
		pa_err_set(err, "a key to pin is 1 to %d bytes",
		    PIN_KEY_MAX - 1);
		return PA_ENOTFOUND;
	}
	encode(buf, now, key, &v);
	if (intact(p, err) != 0)
		return PA_ERROR;
	if ((rc = mdb_txn_begin(p->env, NULL, 0, &txn)) != 0)
		return mdb_fail(p, err, "writing", rc);
	rc = mdb_put(txn, p->dbi, &k, &v, MDB_NOOVERWRITE);
	if (rc == MDB_KEYEXIST) {	/* v is the pin, until the abort */
		rc = decode(&k, &v, pinned);
		mdb_txn_abort(txn);
		if (intact(p, err) != 0)
			return PA_ERROR;
		if (rc != 0) {
			pa_err_set(err, "the first-use pins at %s: the pin of "
			    "%s is damaged", p->path, name);
			return PA_ERROR;
		}
		*seen = strcmp(pinned->key, key) == 0 ? PIN_SAME : PIN_OTHER;
		return 0;
	}
	if (rc != 0) {
		mdb_txn_abort(txn);
		return mdb_fail(p, err, "writing", rc);
	}
	if ((rc = mdb_txn_commit(txn)) != 0)
		return mdb_fail(p, err, "writing", rc);
	*seen = PIN_NEW;
	decode(&k, &v, pinned);
	return 0;
}

/* get - pins_get(), its thread catching */
static int
get(struct pins_lmdb *p, const char *identity, struct pin *out,
    struct pa_err *err)
{
	char name[PIN_IDENTITY_MAX];
	MDB_val k, v;
	MDB_txn *txn;
	int rc;

	if ((rc = canon(identity, name, &k, err)) != 0)
		return rc;
	if (intact(p, err) != 0)
		return PA_ERROR;
	if ((rc = mdb_txn_begin(p->env, NULL, MDB_RDONLY, &txn)) != 0)
		return mdb_fail(p, err, "reading", rc);
	if ((rc = mdb_get(txn, p->dbi, &k, &v)) == 0 &&
	    decode(&k, &v, out) != 0) {
		pa_err_set(err, "the first-use pins at %s: the pin of %s is "
		    "damaged", p->path, name);
		rc = PA_ERROR;
	} else if (rc == MDB_NOTFOUND)
		rc = PA_ENOTFOUND;
	else if (rc != 0)
		rc = mdb_fail(p, err, "reading", rc);
	mdb_txn_abort(txn);
	return intact(p, err) != 0 ? PA_ERROR : rc;
}

/* forget - pins_forget(), its thread catching */
static int
forget(struct pins_lmdb *p, const char *identity, struct pa_err *err)
{
	char name[PIN_IDENTITY_MAX];
	MDB_val k;
	MDB_txn *txn;
	int rc;

	if ((rc = canon(identity, name, &k, err)) != 0)
		return rc;
	if (intact(p, err) != 0)
		return PA_ERROR;
	if ((rc = mdb_txn_begin(p->env, NULL, 0, &txn)) != 0)
		return mdb_fail(p, err, "writing", rc);
	if ((rc = mdb_del(txn, p->dbi, &k, NULL)) != 0) {
		mdb_txn_abort(txn);
		if (rc != MDB_NOTFOUND)
			return mdb_fail(p, err, "writing", rc);
		pa_err_set(err, "%s has no first-use pin", name);
		return PA_ENOTFOUND;
	}
	if ((rc = mdb_txn_commit(txn)) != 0)
		return mdb_fail(p, err, "writing", rc);
	return 0;
}

/* each - pins_each(), its thread catching */
static int
each(struct pins_lmdb *p, int (*fn)(void *, const struct pin *), void *arg,
    struct pa_err *err)
{
	struct pin pin;
	MDB_cursor *cur;
	MDB_txn *txn;
	MDB_val k, v;
	int rc, stop = 0;

	if (intact(p, err) != 0)
		return PA_ERROR;
	if ((rc = mdb_txn_begin(p->env, NULL, MDB_RDONLY, &txn)) != 0)
		return mdb_fail(p, err, "reading", rc);
	if ((rc = mdb_cursor_open(txn, p->dbi, &cur)) != 0) {
		mdb_txn_abort(txn);
		return mdb_fail(p, err, "reading", rc);
	}
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0 && !stop;
	    rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
		if (k.mv_size == sizeof(MARK_NAME) - 1 &&
		    memcmp(k.mv_data, MARK_NAME, k.mv_size) == 0)
			continue;
		if (decode(&k, &v, &pin) != 0) {
			stop = PA_ERROR;
			pa_err_set(err, "the first-use pins at %s: a pin is "
			    "damaged", p->path);
		} else
			stop = fn(arg, &pin);
	}
	mdb_cursor_close(cur);
	mdb_txn_abort(txn);
	if (intact(p, err) != 0)
		return PA_ERROR;
	if (rc != 0 && rc != MDB_NOTFOUND && !stop)
		return mdb_fail(p, err, "reading", rc);
	return stop;
}

static int
lmdb_first_use(struct pins *base, const char *identity, const char *key,
    time_t now, enum pin_seen *seen, struct pin *pinned, struct pa_err *err)
{
	struct pins_lmdb *p = lmdb_pins(base);
	int rc;

	mapguard_catch(&p->damaged);
	rc = first_use(p, identity, key, now, seen, pinned, err);
	mapguard_catch(NULL);
	return rc;
}

static int
lmdb_get(struct pins *base, const char *identity, struct pin *out,
    struct pa_err *err)
{
	struct pins_lmdb *p = lmdb_pins(base);
	int rc;

	mapguard_catch(&p->damaged);
	rc = get(p, identity, out, err);
	mapguard_catch(NULL);
	return rc;
}

static int
lmdb_forget(struct pins *base, const char *identity, struct pa_err *err)
{
	struct pins_lmdb *p = lmdb_pins(base);
	int rc;

	mapguard_catch(&p->damaged);
	rc = forget(p, identity, err);
	mapguard_catch(NULL);
	return rc;
}

static int
lmdb_each(struct pins *base, int (*fn)(void *, const struct pin *), void *arg,
    struct pa_err *err)
{
	struct pins_lmdb *p = lmdb_pins(base);
	int rc;

	mapguard_catch(&p->damaged);
	rc = each(p, fn, arg, err);
	mapguard_catch(NULL);
	return rc;
}
