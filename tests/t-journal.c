/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t-journal - the local journal of StateDatabase (lib/state/pg-journal*)
 * on real files, without a database: entries put, taken and removed
 * across a restart, found again by Message-ID, and cut back; puts from
 * threads while entries are sent and the file rewritten; a put the disk
 * refuses.  Damage is t-journal-damage's.
 */
#include "config.h"

#include <sys/ioctl.h>
#include <sys/stat.h>

#include <linux/fs.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "patchattest.h"
#include "base.h"
#include "state.h"
#include "pg-journal-int.h"
#include "tap.h"
#include "journal-util.h"

static void
test_round_trip(void)
{
	struct journal *j;
	struct journal_entry e[8];
	struct arrival a;
	struct told t = { 0 };
	struct pa_err err;
	struct stat st;
	uint64_t seq, put, sent;
	char first_id[33];
	size_t n;
	int i, hits = 0;

	if (!tap_check_int(journal_open(&j, jt_at("rt"), jt_notice(&t), &err),
	    0, "a new journal"))
		return;
	tap_check(stat(jt_at("rt"), &st) == 0 && (st.st_mode & 077) == 0,
	    "... made for its owner alone (%o)", (unsigned)st.st_mode & 0777);
	for (i = 0; i < 3; i++) {
		jt_fill(&a, i);
		tap_check_int(journal_put(j, &a, &seq, &err), 0, "put %d", i);
		tap_check_int((long long)seq, i + 1, "... its seq");
	}
	tap_check_int(journal_take(j, e, 8, &n, &err), 0, "taken");
	tap_check_int((long long)n, 3, "... all three");
	for (i = 0; i < 3 && (size_t)i < n; i++) {
		jt_fill(&a, i);
		tap_check(memcmp(&a, &e[i].a, sizeof(a)) == 0 &&
		    e[i].seq == (uint64_t)i + 1 && strlen(e[i].record_id) == 32,
		    "... entry %d as put, with a record id", i);
	}
	tap_check(strcmp(e[0].record_id, e[1].record_id) != 0,
	    "... each id its own");
	snprintf(first_id, sizeof(first_id), "%s", e[2].record_id);
	tap_check_int(journal_remove(j, e, 2, &err), 0, "two removed");
	journal_close(j);

	if (!tap_check_int(journal_open(&j, jt_at("rt"), jt_notice(&t), &err),
	    0, "opened again"))
		return;
	journal_left(j, &put, &sent);
	tap_check(put == 3 && sent == 2, "... 3 put, 2 sent (%llu, %llu)",
	    (unsigned long long)put, (unsigned long long)sent);
	tap_check_int(journal_take(j, e, 8, &n, &err), 0, "taken again");
	tap_check(n == 1 && e[0].seq == 3 &&
	    strcmp(e[0].record_id, first_id) == 0,
	    "... the third alone, its record id kept");
	jt_fill(&a, 2);
	tap_check_int(journal_each_msgid(j, a.message_id_sha256, jt_count,
	    &hits, &err), 0, "the unsent one by Message-ID");
	tap_check_int(hits, 1, "... found");
	hits = 0;
	jt_fill(&a, 0);
	journal_each_msgid(j, a.message_id_sha256, jt_count, &hits, &err);
	tap_check_int(hits, 0, "a sent one is not there");
	jt_fill(&a, 3);
	tap_check(journal_put(j, &a, &seq, &err) == 0 && seq == 4,
	    "the next put: seq 4");
	journal_take(j, e, 8, &n, &err);
	tap_check_int(journal_remove(j, e, n, &err), 0, "all removed");
	tap_check(stat(jt_at("rt"), &st) == 0 && st.st_size == JHEAD,
	    "... the file cut back to its header (%lld)",
	    (long long)st.st_size);
	journal_close(j);
	if (journal_open(&j, jt_at("rt"), jt_notice(&t), &err) != 0)
		return;
	journal_left(j, &put, &sent);
	tap_check(put == 4 && sent == 4, "opened again: all sent");
	tap_check(journal_put(j, &a, &seq, &err) == 0 && seq == 5,
	    "... and the next put seq 5");
	journal_close(j);
	tap_check_int(t.times, 0, "no damage told");
}

/* stop_at - a callback that stops at its second record */
static int
stop_at(void *arg, const struct journal_entry *e)
{
	struct told *t = arg;

	(void)e;
	return ++t->times == 2 ? 7 : 0;
}

static void
test_by_msgid(void)
{
	struct journal *j;
	struct arrival a;
	struct got g = { 0 };
	struct told t = { 0 };
	struct pa_err err;
	uint64_t seq;
	int i;

	if (journal_open(&j, jt_at("msgid"), NULL, &err) != 0)
		return;
	for (i = 0; i < 20; i++) {
		jt_fill(&a, i % 4 == 0 ? 100 : i);
		a.arrived = 1000 + i;	/* each copy told apart */
		journal_put(j, &a, &seq, &err);
	}
	jt_fill(&a, 100);
	tap_check_int(journal_each_msgid(j, a.message_id_sha256, jt_collect,
	    &g, &err), 0, "five copies of one Message-ID in the journal");
	tap_check_int(g.n, 5, "... each found");
	for (i = 0; i < 5 && i < g.n; i++)
		tap_check_int((long long)g.a[i].arrived, 1000 + 4 * i,
		    "... copy %d in the order put", i);
	tap_check_int(journal_each_msgid(j, a.message_id_sha256, stop_at, &t,
	    &err), 7, "a callback's non-zero stops it and is returned");
	tap_check_int(t.times, 2, "... after the second");
	journal_close(j);
}

#define THREADS		4
#define EACH		5000

/* The sender's side of test_threads(): what it took. */
struct race {
	struct journal	*j;
	unsigned char	 seen[THREADS * EACH];
	int		 dups, wrong, taken;
};

/* A putter's part. */
struct part {
	struct journal	*j;
	int		 base;
};

static void *
putter(void *arg)
{
	struct part *p = arg;
	struct arrival a;
	struct pa_err err;
	uint64_t seq;
	int i;

	for (i = 0; i < EACH; i++) {
		jt_fill(&a, p->base + i);
		if (journal_put(p->j, &a, &seq, &err) != 0)
			break;
	}
	return NULL;
}

/* drain - what the sender does: take, check, remove; how many, or -1 */
static int
drain(struct race *r, struct journal_entry *e)
{
	struct arrival a;
	struct pa_err err;
	size_t n, i;
	long k;

	if (journal_take(r->j, e, 256, &n, &err) != 0)
		return -1;
	for (i = 0; i < n; i++) {
		k = (long)e[i].a.arrived - JT_WHEN;
		if (k < 0 || k >= THREADS * EACH) {
			r->wrong++;
			continue;
		}
		jt_fill(&a, (int)k);
		if (memcmp(&a, &e[i].a, sizeof(a)) != 0)
			r->wrong++;
		else if (r->seen[k]++)
			r->dups++;
	}
	r->taken += (int)n;
	return journal_remove(r->j, e, n, &err) != 0 ? -1 : (int)n;
}

static void
test_threads(void)
{
	static struct race r;
	struct part part[THREADS];
	struct journal_entry *e;
	struct pa_err err;
	struct stat st;
	pthread_t th[THREADS];
	int i;

	if ((e = malloc(256 * sizeof(*e))) == NULL ||
	    journal_open(&r.j, jt_at("threads"), NULL, &err) != 0) {
		free(e);
		return;
	}
	for (i = 0; i < THREADS; i++) {
		part[i].j = r.j;
		part[i].base = i * EACH;
		pthread_create(&th[i], NULL, putter, &part[i]);
	}
	for (i = 0; i < 1000000 && r.taken < THREADS * EACH; i++)
		if (drain(&r, e) < 0)
			break;
	for (i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	while (drain(&r, e) > 0)
		;
	tap_check_int(r.taken, THREADS * EACH, "%d threads put %d each while "
	    "they are sent: each taken", THREADS, EACH);
	tap_check_int(r.dups + r.wrong, 0, "... once, as put");
	tap_check(stat(jt_at("threads"), &st) == 0 && st.st_size == JHEAD,
	    "... and the file cut back");
	journal_close(r.j);
	free(e);
}

static void
test_rewrite(void)
{
	struct journal *j;
	struct journal_entry *e;
	struct arrival a;
	struct pa_err err;
	struct stat st;
	uint64_t seq;
	off_t full;
	size_t n, total = 0;
	int i, ok = 1;

	if ((e = malloc(256 * sizeof(*e))) == NULL ||
	    journal_open(&j, jt_at("rewrite"), NULL, &err) != 0) {
		free(e);
		return;
	}
	for (i = 0; i < 24000; i++) {
		jt_fill(&a, i);
		journal_put(j, &a, &seq, &err);
	}
	stat(jt_at("rewrite"), &st);
	full = st.st_size;
	/* all but the last 100 sent */
	while (total < 23900 && journal_take(j, e, 23900 - total < 256 ?
	    23900 - total : 256, &n, &err) == 0 && n > 0) {
		total += n;
		journal_remove(j, e, n, &err);
	}
	stat(jt_at("rewrite"), &st);
	tap_check(st.st_size < full / 4, "the sent entries before the unsent "
	    "ones are rewritten away (%lld bytes of %lld)",
	    (long long)st.st_size, (long long)full);
	journal_close(j);
	if (journal_open(&j, jt_at("rewrite"), NULL, &err) != 0)
		return;
	journal_take(j, e, 256, &n, &err);
	for (i = 0; i < 100 && (size_t)i < n; i++) {
		jt_fill(&a, 23900 + i);
		ok &= e[i].seq == 23901 + (uint64_t)i &&
		    memcmp(&a, &e[i].a, sizeof(a)) == 0;
	}
	tap_check(n == 100 && ok, "... the last 100 there after a restart");
	journal_close(j);
	free(e);
}

/* set_immutable - the file at path made immutable or not again: 0 or -1 */
static int
set_immutable(const char *path, int on)
{
	int fd, flags, rc = -1;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	if (ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0) {
		flags = on ? flags | FS_IMMUTABLE_FL : flags & ~FS_IMMUTABLE_FL;
		rc = ioctl(fd, FS_IOC_SETFLAGS, &flags);
	}
	close(fd);
	return rc;
}

/*
 * test_refused - a put that the file refuses (made immutable: neither
 * written nor cut back) fails and says both; once the file takes writes
 * again, the next put follows the last good one
 */
static void
test_refused(void)
{
	struct journal *j;
	struct journal_entry e[4];
	struct arrival a;
	struct pa_err err;
	uint64_t seq;
	size_t n;

	if (journal_open(&j, jt_at("refused"), NULL, &err) != 0)
		return;
	jt_fill(&a, 0);
	journal_put(j, &a, &seq, &err);
	if (set_immutable(jt_at("refused"), 1) != 0) {
		tap_skip("a put the file refuses: cannot make it immutable "
		    "(%s)", strerror(errno));
		journal_close(j);
		return;
	}
	jt_fill(&a, 1);
	tap_check(journal_put(j, &a, &seq, &err) == PA_ERROR &&
	    strstr(err.msg, ": Operation not permitted, nor cut off the part "
	    "written (Operation not permitted)") != NULL,
	    "a put the file refuses fails, and says that it could not be "
	    "cut back either: %s", err.msg);
	set_immutable(jt_at("refused"), 0);
	jt_fill(&a, 2);
	tap_check_int(journal_put(j, &a, &seq, &err), 0, "... the next put, "
	    "once it can be written");
	journal_close(j);
	if (journal_open(&j, jt_at("refused"), NULL, &err) != 0)
		return;
	tap_check(journal_take(j, e, 4, &n, &err) == 0 && n == 2 &&
	    e[0].seq == 1 && e[1].seq == 2, "... after a restart: the first "
	    "and the last, one after the other");
	journal_close(j);
}

int
main(void)
{
	jt_scratch("t-journal");
	test_round_trip();
	test_by_msgid();
	test_threads();
	test_rewrite();
	test_refused();
	jt_done();
	return tap_done();
}
