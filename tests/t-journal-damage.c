/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t-journal-damage - StateDatabase's journal (lib/state/pg-journal*)
 * when its file is not whole: 8 KiB of random bytes written inside a
 * journal of 2,000 entries, entries gone from its end (at an entry's
 * end, inside one, inside the header), an empty file, a file of
 * something else, an entry damaged while it waits to be sent.  Each
 * time, every entry that can be read is taken as it was put, the rest
 * is set aside in PATH-damaged (the bytes as they were) and counted,
 * told once and not again; -n's reading says so before and after.  The
 * LMDB journal of earlier versions is converted, its entries kept with
 * their sequence numbers and record ids.  No link is followed.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lmdb.h>

#include "patchattest.h"
#include "base.h"
#include "state.h"
#include "ledger-codec.h"
#include "pg-journal-int.h"
#include "tap.h"
#include "journal-util.h"

#define MANY		2000
#define DAMAGE_LEN	8192

static uint64_t off[MANY + 1];	/* where entry i is, when all are there */

/* put_many - a journal at name of records 0..n-1, closed: 0 or -1 */
static int
put_many(const char *name, int n)
{
	struct journal *j;
	struct arrival a;
	struct pa_err err;
	uint64_t seq;
	int i;

	if (journal_open(&j, jt_at(name), NULL, &err) != 0)
		return -1;
	for (i = 0; i < n; i++) {
		jt_fill(&a, i);
		if (journal_put(j, &a, &seq, &err) != 0)
			break;
	}
	journal_close(j);
	return i == n ? 0 : -1;
}

/*
 * take_all - every entry of the journal taken (and removed), each
 * checked against the record its seq was put with; seen[i]: times
 * record i was taken.  The number taken, or -1.
 */
static int
take_all(struct journal *j, unsigned char *seen, int n, int *wrong)
{
	struct journal_entry *e;
	struct arrival a;
	struct pa_err err;
	size_t got, i;
	int total = 0;
	long k;

	if ((e = malloc(256 * sizeof(*e))) == NULL)
		return -1;
	while (journal_take(j, e, 256, &got, &err) == 0 && got > 0) {
		for (i = 0; i < got; i++) {
			k = (long)e[i].seq - 1;
			if (k < 0 || k >= n) {
				(*wrong)++;
				continue;
			}
			jt_fill(&a, (int)k);
			if (memcmp(&a, &e[i].a, sizeof(a)) != 0)
				(*wrong)++;
			seen[k]++;
		}
		total += (int)got;
		if (journal_remove(j, e, got, &err) != 0)
			break;
	}
	free(e);
	return total;
}

/* random_bytes - n bytes of a fixed xorshift sequence */
static void
random_bytes(unsigned char *p, size_t n)
{
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	size_t i;

	for (i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		p[i] = (unsigned char)(x >> 24);
	}
}

/* overwrite - n bytes at p written over path at where */
static int
overwrite(const char *path, const void *p, size_t n, uint64_t where)
{
	int fd, rc;

	if ((fd = open(path, O_WRONLY)) < 0)
		return -1;
	rc = pwrite(fd, p, n, (off_t)where) == (ssize_t)n ? 0 : -1;
	close(fd);
	return rc;
}

/* aside_is - whether PATH-damaged holds exactly len bytes at want */
static int
aside_is(const char *name, const void *want, size_t len)
{
	char path[600];
	size_t got = 0;
	char *data;
	int rc;

	snprintf(path, sizeof(path), "%s-damaged", jt_at(name));
	data = tap_read_file(path, &got);
	rc = data != NULL && got == len && memcmp(data, want, len) == 0;
	free(data);
	return rc;
}

static void
test_random_inside(void)
{
	static unsigned char seen[MANY], junk[DAMAGE_LEN];
	struct journal *j;
	struct told t = { 0 };
	struct pa_err err;
	struct stat st;
	uint64_t from;
	char *before;
	size_t len;
	int i, first = -1, last = -1, wrong = 0, ok = 1;

	for (i = 0, off[0] = JHEAD; i < MANY; i++)
		off[i + 1] = off[i] + jt_frame_len(i);
	if (!tap_check_int(put_many("many", MANY), 0, "a journal of %d "
	    "entries", MANY))
		return;
	tap_check(stat(jt_at("many"), &st) == 0 && (uint64_t)st.st_size ==
	    off[MANY], "... laid out as put (%lld bytes)",
	    (long long)st.st_size);
	from = off[MANY] / 2;
	random_bytes(junk, sizeof(junk));
	tap_check_int(overwrite(jt_at("many"), junk, sizeof(junk), from), 0,
	    "%d random bytes written inside it at %llu", DAMAGE_LEN,
	    (unsigned long long)from);
	for (i = 0; i < MANY; i++)
		if (off[i + 1] > from && off[i] < from + DAMAGE_LEN) {
			if (first < 0)
				first = i;
			last = i;
		}
	before = tap_read_file(jt_at("many"), &len);
	tap_check_int(journal_check(jt_at("many"), &err), PA_ERROR,
	    "-n's reading: damaged");
	tap_check(strstr(err.msg, "many is damaged: ") != NULL &&
	    strstr(err.msg, "to be set aside") != NULL, "... said: %s",
	    err.msg);
	if (!tap_check_int(journal_open(&j, jt_at("many"), jt_notice(&t), &err),
	    0, "the damaged journal opens: %s", t.why))
		return;
	tap_check_int(t.times, 1, "... the damage told");
	tap_check_int((long long)t.lost, last - first + 1, "... the %d "
	    "entries it touched counted lost", last - first + 1);
	tap_check_int((long long)t.bytes, (long long)(off[last + 1] -
	    off[first]), "... their bytes set aside");
	tap_check(strstr(t.why, jt_at("many")) != NULL &&
	    strstr(t.why, "many-damaged") != NULL,
	    "... naming the journal and where they are");
	tap_check(before != NULL && aside_is("many", before + off[first],
	    off[last + 1] - off[first]), "... kept in it as they were");
	free(before);
	journal_close(j);
	if (!tap_check_int(journal_open(&j, jt_at("many"), jt_notice(&t), &err),
	    0, "opened again before anything is sent"))
		return;
	tap_check_int(t.times, 1, "... nothing more to tell");
	tap_check_int(take_all(j, seen, MANY, &wrong), MANY - (last - first +
	    1), "every other entry taken");
	for (i = 0; i < MANY; i++)
		ok &= seen[i] == (i < first || i > last);
	tap_check(ok && wrong == 0, "... once each, as put");
	journal_close(j);
	tap_check_int(journal_check(jt_at("many"), &err), PA_ERROR,
	    "-n's reading after: the bytes set aside");
	tap_check(strstr(err.msg, "many-damaged holds ") != NULL,
	    "... said: %s", err.msg);
	if (journal_open(&j, jt_at("many"), jt_notice(&t), &err) == 0)
		journal_close(j);
	tap_check_int(t.times, 1, "opened again: nothing more to tell");
}

/* cut - a journal of n entries cut to size; what opening it tells */
static void
cut(const char *name, int n, uint64_t size, int lost, uint64_t bytes,
    const char *what)
{
	static unsigned char seen[MANY];
	struct journal *j;
	struct told t = { 0 };
	struct pa_err err;
	int wrong = 0, left;

	memset(seen, 0, sizeof(seen));
	if (put_many(name, n) != 0 || truncate(jt_at(name), (off_t)size) != 0) {
		tap_check(0, "%s: made", what);
		return;
	}
	tap_check_int(journal_check(jt_at(name), &err), PA_ERROR,
	    "%s: -n says so", what);
	if (!tap_check_int(journal_open(&j, jt_at(name), jt_notice(&t),
	    &err), 0, "%s: opens", what))
		return;
	tap_check(t.times == 1 && strstr(t.why, "cut short") != NULL,
	    "... told: %s", t.why);
	if (lost >= 0)
		tap_check_int((long long)t.lost, lost, "... %d lost", lost);
	else	/* its header's newer slot is gone too: a count from before */
		tap_check(t.lost <= (unsigned long long)n &&
		    strstr(t.why, "inside its header") != NULL,
		    "... that it is cut inside its header (%llu lost)",
		    t.lost);
	tap_check_int((long long)t.bytes, (long long)bytes, "... %llu bytes "
	    "set aside", (unsigned long long)bytes);
	left = take_all(j, seen, n, &wrong);
	tap_check(wrong == 0 && (lost < 0 || left == n - lost),
	    "... the rest taken (%d)", left);
	journal_close(j);
}

static void
test_cut(void)
{
	cut("cut-mid", 100, off[90] + 10, 10, 10,
	    "100 entries cut inside the 91st");
	cut("cut-end", 50, off[45], 5, 0, "50 entries cut after the 45th");
	cut("cut-head", 50, 100, -1, 0, "50 entries cut inside the header");
}

/* opens_after - the journal at name opens, tells once (with text), and
   takes and gives back a record */
static void
opens_after(const char *name, const char *text, uint64_t bytes)
{
	struct journal *j;
	struct journal_entry e;
	struct arrival a;
	struct told t = { 0 };
	struct pa_err err;
	uint64_t seq;
	size_t n;

	if (!tap_check_int(journal_open(&j, jt_at(name), jt_notice(&t),
	    &err), 0, "%s: opens", name))
		return;
	tap_check(t.times == 1 && strstr(t.why, text) != NULL &&
	    t.bytes == bytes, "... told: %s", t.why);
	jt_fill(&a, 1);
	tap_check(journal_put(j, &a, &seq, &err) == 0 &&
	    journal_take(j, &e, 1, &n, &err) == 0 && n == 1 &&
	    memcmp(&a, &e.a, sizeof(a)) == 0, "... and serves");
	journal_close(j);
}

static void
test_not_journals(void)
{
	char text[20000];
	size_t i;

	tap_write_file(jt_at("empty"), "", 0);
	opens_after("empty", "was empty", 0);
	for (i = 0; i < sizeof(text); i++)
		text[i] = "not a journal\n"[i % 14];
	tap_write_file(jt_at("other"), text, sizeof(text));
	opens_after("other", "or not a journal", sizeof(text));
	tap_check(aside_is("other", text, sizeof(text)),
	    "... its bytes set aside as they were");
}

static void
test_while_waiting(void)
{
	static unsigned char seen[10];
	struct journal *j;
	struct journal_entry *e;
	struct arrival a;
	struct told t = { 0 };
	struct pa_err err;
	uint64_t seq, put, sent;
	size_t n;
	int i, wrong = 0;

	if ((e = malloc(10 * sizeof(*e))) == NULL ||
	    journal_open(&j, jt_at("wait"), jt_notice(&t), &err) != 0) {
		free(e);
		return;
	}
	for (i = 0; i < 10; i++) {
		jt_fill(&a, i);
		journal_put(j, &a, &seq, &err);
	}
	journal_sync(j, &err);
	tap_check_int(overwrite(jt_at("wait"), "X", 1, off[4] + 60), 0,
	    "a byte of the 5th entry changed while it waits");
	tap_check(journal_take(j, e, 10, &n, &err) == 0 && n == 9 &&
	    e[3].seq == 4 && e[4].seq == 6, "the other 9 taken");
	tap_check(t.times == 1 && t.lost == 1 && t.bytes == off[5] - off[4],
	    "... the 5th told, set aside: %s", t.why);
	journal_close(j);	/* none sent */
	free(e);
	if (journal_open(&j, jt_at("wait"), jt_notice(&t), &err) != 0)
		return;
	journal_left(j, &put, &sent);
	tap_check(t.times == 1 && put == 10 && sent == 1, "opened again: "
	    "nothing more to tell, 9 waiting");
	tap_check_int(take_all(j, seen, 10, &wrong), 9, "... taken");
	tap_check(seen[4] == 0 && wrong == 0, "... as put");
	journal_close(j);
}

/* old_put - record n as entry seq of an LMDB journal (the old form) */
static int
old_put(MDB_txn *txn, MDB_dbi dbi, uint64_t seq, int n, int damage)
{
	unsigned char key[8];
	struct arrival a;
	struct sbuf sb;
	MDB_val k = { sizeof(key), key }, v;
	int i, rc;

	for (i = 0; i < 8; i++)
		key[i] = (unsigned char)(seq >> (56 - 8 * i));
	jt_fill(&a, n);
	sbuf_init(&sb, LEDGER_VALUE_MAX + 32);
	sbuf_addf(&sb, "%032x", n + 100);
	if (ledger_encode_arrival(&sb, key, sizeof(key), &a) != 0)
		return -1;
	if (damage)
		sb.buf[40] ^= 1;
	v.mv_size = sb.len;
	v.mv_data = sb.buf;
	rc = mdb_put(txn, dbi, &k, &v, 0);
	sbuf_release(&sb);
	return rc;
}

/* make_old - an LMDB journal of records 0..4 as entries 3..7, the 3rd
   damaged, as the earlier versions wrote it */
static int
make_old(const char *path)
{
	MDB_env *env;
	MDB_txn *txn;
	MDB_dbi dbi;
	int i, rc;

	if (mdb_env_create(&env) != 0)
		return -1;
	rc = mdb_env_set_mapsize(env, (size_t)1 << 24) || mdb_env_open(env,
	    path, MDB_NOSUBDIR, 0600) || mdb_txn_begin(env, NULL, 0, &txn);
	if (rc == 0) {
		rc = mdb_dbi_open(txn, NULL, 0, &dbi);
		for (i = 0; i < 5 && rc == 0; i++)
			rc = old_put(txn, dbi, 3 + (uint64_t)i, i, i == 2);
		rc = rc == 0 ? mdb_txn_commit(txn) : (mdb_txn_abort(txn), rc);
	}
	mdb_env_close(env);
	return rc;
}

static void
test_lmdb(void)
{
	static const uint64_t seqs[] = { 3, 4, 6, 7 };
	struct journal *j;
	struct journal_entry e[8];
	struct told t = { 0 };
	struct pa_err err;
	struct stat st;
	uint64_t put, sent;
	char head[8] = { 0 }, id[40];
	size_t n, i;
	int fd, ok = 1;

	if (!tap_check_int(make_old(jt_at("old")), 0, "an LMDB journal of 5 "
	    "entries (3 to 7), the 3rd damaged, as written before"))
		return;
	tap_check_int(journal_check(jt_at("old"), &err), 0,
	    "-n's reading: nothing to say yet");
	if (!tap_check_int(journal_open(&j, jt_at("old"), jt_notice(&t), &err),
	    0, "it opens: %s", t.why))
		return;
	tap_check(t.times == 1 && t.lost == 1, "... the damaged one told, "
	    "counted: %s", t.why);
	journal_left(j, &put, &sent);
	tap_check(put == 7 && sent == 3, "... 4 waiting, the last seq 7");
	tap_check(journal_take(j, e, 8, &n, &err) == 0 && n == 4,
	    "... the other 4 taken");
	for (i = 0; i < n && i < 4; i++) {
		snprintf(id, sizeof(id), "%032x", (int)(seqs[i] - 3) + 100);
		ok &= e[i].seq == seqs[i] && strcmp(e[i].record_id, id) == 0 &&
		    e[i].a.arrived == JT_WHEN + (time_t)(seqs[i] - 3);
	}
	tap_check(ok, "... with their seqs, record ids and records");
	journal_close(j);
	if ((fd = open(jt_at("old"), O_RDONLY)) >= 0) {
		if (read(fd, head, sizeof(head)) != (ssize_t)sizeof(head))
			head[0] = '\0';
		close(fd);
	}
	tap_check(memcmp(head, "PAJOURN1", 8) == 0, "... now a journal of "
	    "the new form");
	tap_check(stat(jt_at("old-lock"), &st) != 0 && errno == ENOENT,
	    "... its old lock file removed");
	if (journal_open(&j, jt_at("old"), jt_notice(&t), &err) == 0)
		journal_close(j);
	tap_check_int(t.times, 1, "opened again: nothing more to tell");
}

static void
test_links(void)
{
	struct journal *j;
	struct pa_err err;
	struct stat st;
	char *data;
	size_t len;

	tap_write_file(jt_at("target"), "keep me\n", 8);
	if (symlink(jt_at("target"), jt_at("link")) != 0)
		return;
	tap_check_int(journal_open(&j, jt_at("link"), NULL, &err), PA_ERROR,
	    "a journal that is a symbolic link is refused");
	tap_check(strstr(err.msg, "symbolic link (not followed)") != NULL,
	    "... said: %s", err.msg);
	/* damage to set aside, and a link where it would go */
	tap_write_file(jt_at("linked"), "not a journal\n", 14);
	if (symlink(jt_at("target"), jt_at("linked-damaged")) != 0)
		return;
	tap_check_int(journal_open(&j, jt_at("linked"), NULL, &err), PA_ERROR,
	    "damage that cannot be set aside (a link there): refused");
	tap_check(strstr(err.msg, "symbolic link (not followed)") != NULL,
	    "... said: %s", err.msg);
	data = tap_read_file(jt_at("target"), &len);
	tap_check(data != NULL && len == 8 &&
	    lstat(jt_at("linked"), &st) == 0 && st.st_size == 14,
	    "... nothing written through it, the journal left as it was");
	free(data);
}

int
main(void)
{
	jt_scratch("t-journal-damage");
	test_random_inside();
	test_cut();
	test_not_journals();
	test_while_waiting();
	test_lmdb();
	test_links();
	jt_done();
	return tap_done();
}
