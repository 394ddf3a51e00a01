/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t-pins - the first-use pins (lib/state/pins.c) on real LMDB files: a
 * first use pins, the same key is PIN_SAME and another PIN_OTHER, for an
 * identity in any case; forget and list; what is pinned stays after a
 * reopen; a file that is missing, empty, not LMDB, LMDB but no pin
 * store, holding a damaged record, or cut before or while it is open is
 * an error, never a fresh start or a crash.
 */
#include "config.h"

#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lmdb.h>

#include "patchattest.h"
#include "base.h"
#include "state.h"
#include "tap.h"

static char dir[256];

/* at - a path in the scratch folder */
static const char *
at(const char *name)
{
	static char path[2][512];
	static int turn;

	turn ^= 1;
	snprintf(path[turn], sizeof(path[turn]), "%s/%s", dir, name);
	return path[turn];
}

/* raw_put - key -> value written straight into the LMDB file at path */
static int
raw_put(const char *path, const char *key, const char *value)
{
	MDB_env *env;
	MDB_txn *txn;
	MDB_dbi dbi;
	MDB_val k = { strlen(key), (void *)key };
	MDB_val v = { strlen(value), (void *)value };
	int rc;

	if ((rc = mdb_env_create(&env)) != 0)
		return rc;
	if ((rc = mdb_env_open(env, path, MDB_NOSUBDIR, 0600)) == 0 &&
	    (rc = mdb_txn_begin(env, NULL, 0, &txn)) == 0) {
		if ((rc = mdb_dbi_open(txn, NULL, 0, &dbi)) == 0 &&
		    (rc = mdb_put(txn, dbi, &k, &v, 0)) == 0)
			rc = mdb_txn_commit(txn);
		else
			mdb_txn_abort(txn);
	}
	mdb_env_close(env);
	return rc;
}

/* collect - pins_each's function: "identity=key;" for each pin */
static int
collect(void *arg, const struct pin *p)
{
	struct sbuf *list = arg;

	sbuf_addf(list, "%s=%s;", p->identity, p->key);
	return 0;
}

/* listing - the pins of p as collect() writes them, or "error" */
static void
listing(struct pins *p, struct sbuf *list)
{
	struct pa_err err;

	sbuf_reset(list);
	if (pins_each(p, collect, list, &err) != 0) {
		sbuf_reset(list);
		sbuf_addstr(list, "error");
	}
}

static void
test_first_use(void)
{
	struct pins *p = NULL;
	struct pin pin;
	struct pa_err err;
	struct sbuf list;
	enum pin_seen seen;

	sbuf_init(&list, 1 << 16);
	tap_check_int(pins_open(&p, at("pins.mdb"), 0, 1, &err),
	    PA_ENOTFOUND, "missing, not to be made: PA_ENOTFOUND");
	tap_check_int(pins_open(&p, at("pins.mdb"), 1, 1, &err), 0,
	    "missing, made");
	tap_check_int(pins_first_use(p, "Carol@Example.ORG", "K1", 100, &seen,
	    &pin, &err), 0, "first use of Carol@Example.ORG");
	tap_check_int(seen, PIN_NEW, "... pins");
	tap_check_str(pin.identity, "carol@example.org",
	    "... the canonical identity");
	tap_check_int(pins_first_use(p, "carol@example.org", "K1", 200, &seen,
	    &pin, &err), 0, "carol@example.org, the same key");
	tap_check_int(seen, PIN_SAME, "... PIN_SAME");
	tap_check_int(pin.since, 100, "... pinned at the first use");
	tap_check_int(pins_first_use(p, "CAROL@EXAMPLE.ORG", "K2", 300, &seen,
	    &pin, &err), 0, "CAROL@EXAMPLE.ORG, another key");
	tap_check_int(seen, PIN_OTHER, "... PIN_OTHER");
	tap_check_str(pin.key, "K1", "... naming the pinned key");
	tap_check_int(pins_first_use(p, "nobody", "K", 1, &seen, &pin, &err),
	    PA_ENOTFOUND, "no @: never pinned");
	tap_check_int(pins_first_use(p, "a\033[2J@example.org", "K", 1, &seen,
	    &pin, &err), PA_ENOTFOUND, "a control byte: never pinned");
	tap_check_int(pins_first_use(p, "d@example.org", "", 1, &seen, &pin,
	    &err), PA_ENOTFOUND, "an empty key: never pinned");
	tap_check_int(pins_get(p, "dave@example.org", &pin, &err),
	    PA_ENOTFOUND, "dave has no pin");
	tap_check_int(pins_first_use(p, "dave@example.org", "K3", 400, &seen,
	    &pin, &err), 0, "first use of dave");
	listing(p, &list);
	tap_check_str(list.buf, "carol@example.org=K1;dave@example.org=K3;",
	    "list: both, in order, no mark");
	tap_check_int(pins_forget(p, "Carol@EXAMPLE.org", &err), 0,
	    "forget Carol@EXAMPLE.org");
	tap_check_int(pins_forget(p, "carol@example.org", &err), PA_ENOTFOUND,
	    "forget again: PA_ENOTFOUND");
	tap_check_int(pins_first_use(p, "carol@example.org", "K2", 500, &seen,
	    &pin, &err) == 0 && seen == PIN_NEW, 1,
	    "forgotten: the next first use pins again");
	pins_close(p);

	tap_check_int(pins_open(&p, at("pins.mdb"), 0, 0, &err), 0,
	    "reopened read-only");
	tap_check_int(pins_get(p, "CAROL@example.org", &pin, &err), 0,
	    "carol's pin is kept");
	tap_check_str(pin.key, "K2", "... the key pinned after forgetting");
	tap_check_int(pin.since, 500, "... and its time");
	pins_close(p);
	tap_check_int(pins_check(at("pins.mdb"), &err), 0,
	    "pins_check: a pin store");
	tap_check_int(pins_check(at("nothing.mdb"), &err), PA_ENOTFOUND,
	    "pins_check: not there");
	tap_check_int(access(at("nothing.mdb-lock"), F_OK), -1,
	    "pins_check makes no lock file");
	sbuf_release(&list);
}

static void
test_damage(void)
{
	struct pins *p = NULL;
	struct pin pin;
	struct pa_err err;
	struct sbuf list;
	enum pin_seen seen;
	char junk[8192];

	sbuf_init(&list, 1 << 16);
	tap_write_file(at("empty.mdb"), "", 0);
	tap_check_int(pins_open(&p, at("empty.mdb"), 1, 1, &err), PA_ERROR,
	    "an empty file is damage, not a fresh start");
	tap_check_int(pins_check(at("empty.mdb"), &err), PA_ERROR,
	    "... and pins_check says so");
	memset(junk, 'x', sizeof(junk));
	tap_write_file(at("junk.mdb"), junk, sizeof(junk));
	tap_check_int(pins_open(&p, at("junk.mdb"), 1, 1, &err), PA_ERROR,
	    "a file that is not LMDB: an error");
	tap_check_int(raw_put(at("other.mdb"), "x", "y"), 0,
	    "an LMDB file of something else");
	tap_check_int(pins_open(&p, at("other.mdb"), 1, 1, &err), PA_ERROR,
	    "... is no pin store");
	tap_check(strstr(err.msg, "not a pin store") != NULL, "... says %s",
	    err.msg);
	tap_check_int(pins_check(at("other.mdb"), &err), PA_ERROR,
	    "... and pins_check says so");

	tap_check_int(pins_open(&p, at("bad.mdb"), 1, 1, &err), 0,
	    "a pin store");
	pins_close(p);
	tap_check_int(raw_put(at("bad.mdb"), "eve@example.org", "abc"), 0,
	    "with a record too short to be a pin");
	tap_check_int(pins_open(&p, at("bad.mdb"), 0, 1, &err), 0,
	    "... opens");
	tap_check_int(pins_get(p, "eve@example.org", &pin, &err), PA_ERROR,
	    "... the damaged pin is an error");
	tap_check_int(pins_first_use(p, "eve@example.org", "K", 1, &seen,
	    &pin, &err), PA_ERROR, "... not a first use");
	listing(p, &list);
	tap_check_str(list.buf, "error", "... and the list fails");
	pins_close(p);
	sbuf_release(&list);
}

/* test_cut - the file cut to its two meta pages, before and while open */
static void
test_cut(void)
{
	struct pins *p = NULL;
	struct pin pin;
	struct pa_err err;
	enum pin_seen seen;
	char who[64];
	long page = sysconf(_SC_PAGESIZE);
	int i, ok = 1;

	tap_check_int(pins_open(&p, at("cut.mdb"), 1, 1, &err), 0,
	    "a pin store to cut");
	for (i = 0; i < 2000 && ok; i++) {
		snprintf(who, sizeof(who), "dev%d@example.org", i);
		ok = pins_first_use(p, who, "KEY-OF-SOME-LENGTH", i, &seen,
		    &pin, &err) == 0;
	}
	tap_check_int(ok, 1, "2000 pins");
	tap_check_int(truncate(at("cut.mdb"), 2 * page), 0,
	    "the file cut under the open store");
	tap_check_int(pins_get(p, "dev1999@example.org", &pin, &err),
	    PA_ERROR, "a read is an error, not SIGBUS");
	tap_check(strstr(err.msg, "damaged") != NULL, "... says %s", err.msg);
	tap_check_int(pins_get(p, "dev1@example.org", &pin, &err), PA_ERROR,
	    "... and so is every read after");
	pins_close(p);
	tap_check_int(pins_open(&p, at("cut.mdb"), 0, 0, &err), PA_ERROR,
	    "the cut file does not open");
	tap_check_int(pins_check(at("cut.mdb"), &err), PA_ERROR,
	    "... nor passes pins_check");
}

int
main(void)
{
	const char *tmp = getenv("TMPDIR");
	struct pa_err err;

	snprintf(dir, sizeof(dir), "%s/t-pins.XXXXXX",
	    tmp && tmp[0] ? tmp : "/tmp");
	if (mkdtemp(dir) == NULL)
		tap_skip_all("cannot make a scratch folder");
	if (mapguard_init(&err) != 0)
		tap_skip_all("%s", err.msg);
	test_first_use();
	test_damage();
	test_cut();
	tap_rmtree(dir);
	return tap_done();
}
