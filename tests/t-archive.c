/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t-archive - the archive readers on real archives made at test time in a
 * temporary directory (removed at the end): public-inbox v2 and v1 git
 * repositories written with libgit2, a Maildir, an mbox.  Each kind is
 * read whole, then again with the marks after it has grown, been
 * rewritten or been damaged.
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <git2.h>

#include "archive.h"
#include "patchattest.h"
#include "tap.h"

#define MAXE	16
#define MAXM	8
#define T0	1600000000	/* file times: seconds since the epoch */

struct got {
	int			 rc;		/* of archive_open or _next */
	char			 err[256];
	char			 type[32];
	size_t			 n;
	enum archive_op		 op[MAXE];
	char			*data[MAXE];
	size_t			 len[MAXE];
	char			 where[MAXE][256];
	char			 why[MAXE][160];
	size_t			 nmarks;
	struct archive_mark	 marks[MAXM];
	size_t			 first_nmarks;	/* after the first entry */
	struct archive_mark	 first_marks[MAXM];
};

static char tmproot[64];
static git_time_t gclock = T0;

static void
got_release(struct got *g)
{
	size_t i;

	for (i = 0; i < g->n; i++)
		free(g->data[i]);
	memset(g, 0, sizeof(*g));
}

static void
copy_marks(struct archive *a, struct archive_mark *to, size_t *n)
{
	const struct archive_mark *m;
	size_t i;

	m = archive_marks(a, n);
	if (*n > MAXM)
		*n = MAXM;
	for (i = 0; i < *n; i++)
		to[i] = m[i];
}

/* readall - every entry of the archive at path, and its marks after */
static void
readall(struct got *g, const char *path, enum archive_type type,
    const struct archive_mark *in, size_t nin)
{
	struct archive_entry e;
	struct archive *a;
	struct pa_err err;

	memset(g, 0, sizeof(*g));
	memset(&err, 0, sizeof(err));
	if ((g->rc = archive_open(&a, path, type, in, nin, &err)) != 0) {
		snprintf(g->err, sizeof(g->err), "%s", err.msg);
		return;
	}
	snprintf(g->type, sizeof(g->type), "%s", archive_type_name(a));
	while ((g->rc = archive_next(a, &e, &err)) == 1) {
		if (g->n == MAXE)
			continue;
		g->op[g->n] = e.op;
		g->len[g->n] = e.len;
		if ((g->data[g->n] = malloc(e.len + 1)) != NULL) {
			memcpy(g->data[g->n], e.data, e.len);
			g->data[g->n][e.len] = '\0';
		}
		snprintf(g->where[g->n], sizeof(g->where[0]), "%s", e.where);
		snprintf(g->why[g->n], sizeof(g->why[0]), "%s", e.why);
		if (g->n++ == 0)
			copy_marks(a, g->first_marks, &g->first_nmarks);
	}
	if (g->rc != 0)
		snprintf(g->err, sizeof(g->err), "%s", err.msg);
	copy_marks(a, g->marks, &g->nmarks);
	archive_close(a);
}

static const char *
mark_of(const struct archive_mark *m, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(m[i].name, name) == 0)
			return m[i].value;
	return NULL;
}

/* want - entry i of g is op with the bytes of data */
static void
want(const struct got *g, size_t i, enum archive_op op, const char *data,
    const char *name)
{
	if (i >= g->n) {
		tap_check(0, "%s: entry %zu is there (only %zu)", name, i, g->n);
		return;
	}
	tap_check_int(g->op[i], op, "%s: entry %zu op", name, i);
	tap_check_mem(g->data[i], g->len[i], data, strlen(data),
	    "%s: entry %zu bytes", name, i);
}

static void
path_of(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
path_of(char *buf, size_t len, const char *fmt, ...)
{
	char rel[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	if ((size_t)snprintf(buf, len, "%s/%s", tmproot, rel) >= len) {
		tap_diag("path %s/%s is too long for the test", tmproot, rel);
		exit(1);
	}
}

static int
rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int
write_file(const char *path, const char *data, size_t len, int flags)
{
	int fd;
	ssize_t r;

	if ((fd = open(path, O_WRONLY | O_CREAT | flags, 0644)) == -1)
		return -1;
	r = write(fd, data, len);
	close(fd);
	return r == (ssize_t)len ? 0 : -1;
}

static int
set_mtime(const char *path, time_t sec, int nofollow)
{
	struct timespec ts[2];

	ts[0].tv_sec = ts[1].tv_sec = sec;
	ts[0].tv_nsec = ts[1].tv_nsec = 0;
	return utimensat(AT_FDCWD, path, ts,
	    nofollow ? AT_SYMLINK_NOFOLLOW : 0);
}

/* A message as public-inbox stores it. */
static const char *
message(int n)
{
	static char buf[8][256];
	char *b = buf[n % 8];

	snprintf(b, sizeof(buf[0]),
	    "From: Dev One <dev@example.org>\n"
	    "Subject: [PATCH %d/9] change %d\n"
	    "Date: Thu, 13 Feb 2020 10:00:%02d +0000\n"
	    "Message-Id: <%d-dev@example.org>\n"
	    "\n"
	    "body of %d\n", n, n, n % 60, n, n);
	return b;
}

/* --- git repositories ------------------------------------------------- */

static git_repository *
repo_init(const char *path)
{
	git_repository *r;

	if (git_repository_init(&r, path, 1) != 0) {
		tap_diag("git init %s: %s", path, git_error_last() ?
		    git_error_last()->message : "?");
		return NULL;
	}
	return r;
}

/* commit_tree - a commit of tree on master (after its tip unless root) */
static int
commit_tree(git_repository *r, const git_oid *treeid, const char *subject,
    int root, git_oid *out)
{
	const git_commit *parents[1];
	git_commit *pc = NULL;
	git_signature *sig = NULL;
	git_reference *ref = NULL;
	git_tree *tree = NULL;
	git_oid tip;
	int rc = -1;

	if (git_tree_lookup(&tree, r, treeid) != 0)
		goto out;
	if (!root && git_reference_name_to_id(&tip, r, "refs/heads/master") ==
	    0 && git_commit_lookup(&pc, r, &tip) != 0)
		goto out;
	parents[0] = pc;
	if (git_signature_new(&sig, "Inbox", "list@example.org", ++gclock,
	    0) != 0)
		goto out;
	if (git_commit_create(out, r, NULL, sig, sig, NULL, subject, tree,
	    pc ? 1 : 0, parents) != 0)
		goto out;
	if (git_reference_create(&ref, r, "refs/heads/master", out, 1,
	    "t-archive") != 0)
		goto out;
	rc = 0;
out:
	if (rc != 0)
		tap_diag("commit: %s", git_error_last() ?
		    git_error_last()->message : "?");
	git_reference_free(ref);
	git_signature_free(sig);
	git_commit_free(pc);
	git_tree_free(tree);
	return rc;
}

/* v2_commit - a public-inbox v2 commit: file "m" or "d" holding data */
static int
v2_commit(git_repository *r, const char *file, const char *data, int root,
    git_oid *commit, git_oid *blob)
{
	git_treebuilder *tb;
	git_oid b, t;
	char subject[128];
	const char *s;
	int rc;

	if (git_blob_create_from_buffer(&b, r, data, strlen(data)) != 0 ||
	    git_treebuilder_new(&tb, r, NULL) != 0)
		return -1;
	rc = git_treebuilder_insert(NULL, tb, file, &b, GIT_FILEMODE_BLOB);
	if (rc == 0)
		rc = git_treebuilder_write(&t, tb);
	git_treebuilder_free(tb);
	if (rc != 0)
		return -1;
	if (blob != NULL)
		*blob = b;
	if (*file == 'd')
		snprintf(subject, sizeof(subject), "rm\n");
	else {
		s = strstr(data, "Subject: ");
		snprintf(subject, sizeof(subject), "%.*s\n",
		    s ? (int)strcspn(s + 9, "\n") : 1, s ? s + 9 : "?");
	}
	return commit_tree(r, &t, subject, root, commit);
}

/* v1_commit - a public-inbox v1 commit: path set to data (NULL: removed) */
static int
v1_commit(git_repository *r, const char *path, const char *data,
    git_oid *commit)
{
	git_tree_update u;
	git_treebuilder *tb;
	git_tree *base = NULL;
	git_commit *c;
	git_oid tip, t;
	int rc;

	memset(&u, 0, sizeof(u));
	u.path = path;
	u.filemode = GIT_FILEMODE_BLOB;
	u.action = data ? GIT_TREE_UPDATE_UPSERT : GIT_TREE_UPDATE_REMOVE;
	if (data != NULL &&
	    git_blob_create_from_buffer(&u.id, r, data, strlen(data)) != 0)
		return -1;
	if (git_reference_name_to_id(&tip, r, "refs/heads/master") == 0) {
		if (git_commit_lookup(&c, r, &tip) != 0)
			return -1;
		rc = git_commit_tree(&base, c);
		git_commit_free(c);
	} else {
		/* An empty tree to start from. */
		if (git_treebuilder_new(&tb, r, NULL) != 0)
			return -1;
		rc = git_treebuilder_write(&t, tb);
		git_treebuilder_free(tb);
		if (rc == 0)
			rc = git_tree_lookup(&base, r, &t);
	}
	if (rc == 0)
		rc = git_tree_create_updated(&t, r, base, 1, &u);
	git_tree_free(base);
	if (rc != 0)
		return -1;
	return commit_tree(r, &t, data ? "deliver\n" : "rm\n", 0, commit);
}

static const char *
hex(const git_oid *id)
{
	static char buf[4][41];
	static int i;

	i = (i + 1) % 4;
	return git_oid_tostr(buf[i], sizeof(buf[0]), id);
}

/* loose_path - the file of a loose object of the repository at repo */
static void
loose_path(char *buf, size_t len, const char *repo, const git_oid *id)
{
	const char *h = hex(id);

	snprintf(buf, len, "%s/objects/%.2s/%s", repo, h, h + 2);
}

/* --- public-inbox v2 ---------------------------------------------------- */

static void
test_pi2(void)
{
	git_repository *e0, *e1, *e2, *e10;
	git_oid c[16];
	struct archive_mark marks[MAXM];
	char inbox[256], p[512];
	struct got g;
	size_t n;

	path_of(inbox, sizeof(inbox), "v2");
	path_of(p, sizeof(p), "v2/git/0.git");
	if ((e0 = repo_init(p)) == NULL)
		return;
	path_of(p, sizeof(p), "v2/git/1.git");
	if ((e1 = repo_init(p)) == NULL)
		return;
	if (v2_commit(e0, "m", message(1), 1, &c[0], NULL) != 0 ||
	    v2_commit(e0, "m", message(2), 0, &c[1], NULL) != 0 ||
	    v2_commit(e0, "d", message(1), 0, &c[2], NULL) != 0 ||
	    v2_commit(e1, "m", message(3), 1, &c[3], NULL) != 0 ||
	    v2_commit(e1, "m", message(4), 0, &c[4], NULL) != 0) {
		tap_check(0, "v2: making the mirror");
		return;
	}

	readall(&g, inbox, ARCHIVE_AUTO, NULL, 0);
	tap_check_int(g.rc, 0, "v2: read whole (%s)", g.err);
	tap_check_str(g.type, "public-inbox v2", "v2: detected");
	tap_check_int((long long)g.n, 5, "v2: five entries");
	want(&g, 0, ARCHIVE_ADD, message(1), "v2");
	want(&g, 1, ARCHIVE_ADD, message(2), "v2");
	want(&g, 2, ARCHIVE_REMOVE, message(1), "v2");
	want(&g, 3, ARCHIVE_ADD, message(3), "v2");
	want(&g, 4, ARCHIVE_ADD, message(4), "v2");
	snprintf(p, sizeof(p), "git/0.git:%s", hex(&c[0]));
	tap_check_str(g.where[0], p, "v2: where of the first entry");
	snprintf(p, sizeof(p), "git/1.git:%s", hex(&c[4]));
	tap_check_str(g.where[4], p, "v2: where of the last entry");
	tap_check_int((long long)g.nmarks, 2, "v2: one mark per epoch");
	tap_check_str(mark_of(g.marks, g.nmarks, "git/0.git"), hex(&c[2]),
	    "v2: mark of epoch 0 is its tip");
	tap_check_str(mark_of(g.marks, g.nmarks, "git/1.git"), hex(&c[4]),
	    "v2: mark of epoch 1 is its tip");
	tap_check_int((long long)g.first_nmarks, 1,
	    "v2: after one entry, one mark");
	tap_check_str(mark_of(g.first_marks, g.first_nmarks, "git/0.git"),
	    hex(&c[0]), "v2: after one entry, the mark is its commit");
	memcpy(marks, g.marks, sizeof(marks));
	n = g.nmarks;
	got_release(&g);

	readall(&g, inbox, ARCHIVE_PUBLICINBOX, marks, n);
	tap_check_int((long long)g.n, 0, "v2: nothing new, nothing read");
	tap_check_int((long long)g.nmarks, 2, "v2: marks kept");
	got_release(&g);

	/* Two more commits on epoch 1. */
	if (v2_commit(e1, "m", message(5), 0, &c[5], NULL) != 0 ||
	    v2_commit(e1, "m", message(6), 0, &c[6], NULL) != 0) {
		tap_check(0, "v2: growing epoch 1");
		return;
	}
	readall(&g, inbox, ARCHIVE_AUTO, marks, n);
	tap_check_int(g.rc, 0, "v2: incremental read (%s)", g.err);
	tap_check_int((long long)g.n, 2, "v2: only the two new entries");
	want(&g, 0, ARCHIVE_ADD, message(5), "v2 incremental");
	want(&g, 1, ARCHIVE_ADD, message(6), "v2 incremental");
	tap_check_str(mark_of(g.marks, g.nmarks, "git/0.git"), hex(&c[2]),
	    "v2 incremental: epoch 0 mark unchanged");
	tap_check_str(mark_of(g.marks, g.nmarks, "git/1.git"), hex(&c[6]),
	    "v2 incremental: epoch 1 mark moved on");
	memcpy(marks, g.marks, sizeof(marks));
	n = g.nmarks;
	got_release(&g);

	/* Epoch 0 rewritten: a new root commit and one after it. */
	if (v2_commit(e0, "m", message(7), 1, &c[7], NULL) != 0 ||
	    v2_commit(e0, "m", message(2), 0, &c[8], NULL) != 0) {
		tap_check(0, "v2: rewriting epoch 0");
		return;
	}
	readall(&g, inbox, ARCHIVE_AUTO, marks, n);
	tap_check_int((long long)g.n, 2, "v2 rewritten: epoch 0 read whole");
	want(&g, 0, ARCHIVE_ADD, message(7), "v2 rewritten");
	want(&g, 1, ARCHIVE_ADD, message(2), "v2 rewritten");
	tap_check_str(mark_of(g.marks, g.nmarks, "git/0.git"), hex(&c[8]),
	    "v2 rewritten: mark on the new tip");
	memcpy(marks, g.marks, sizeof(marks));
	n = g.nmarks;
	got_release(&g);

	/* New epochs 2 and 10: numeric order, not "10" before "2". */
	path_of(p, sizeof(p), "v2/git/10.git");
	if ((e10 = repo_init(p)) == NULL)
		return;
	path_of(p, sizeof(p), "v2/git/2.git");
	if ((e2 = repo_init(p)) == NULL)
		return;
	if (v2_commit(e10, "m", message(10), 1, &c[10], NULL) != 0 ||
	    v2_commit(e2, "m", message(9), 1, &c[9], NULL) != 0) {
		tap_check(0, "v2: new epochs");
		return;
	}
	/* Not epochs: a leading zero, a file, a stray name. */
	path_of(p, sizeof(p), "v2/git/03.git");
	mkdir(p, 0755);
	path_of(p, sizeof(p), "v2/git/4.git");
	write_file(p, "x", 1, O_TRUNC);
	path_of(p, sizeof(p), "v2/git/all.git");
	mkdir(p, 0755);
	readall(&g, inbox, ARCHIVE_AUTO, marks, n);
	tap_check_int(g.rc, 0, "v2 epochs: read (%s)", g.err);
	tap_check_int((long long)g.n, 2, "v2 epochs: two entries");
	want(&g, 0, ARCHIVE_ADD, message(9), "v2 epochs: 2.git first");
	want(&g, 1, ARCHIVE_ADD, message(10), "v2 epochs: 10.git after");
	snprintf(p, sizeof(p), "git/10.git:%s", hex(&c[10]));
	tap_check_str(g.where[1], p, "v2 epochs: where names 10.git");
	tap_check_int((long long)g.nmarks, 4, "v2 epochs: four marks");
	got_release(&g);

	/* A damaged mark reads the epoch again; an unknown one is dropped. */
	snprintf(marks[0].value, sizeof(marks[0].value), "not a commit");
	snprintf(marks[n].name, sizeof(marks[n].name), "git/99.git");
	snprintf(marks[n].value, sizeof(marks[n].value), "%s", hex(&c[0]));
	readall(&g, inbox, ARCHIVE_AUTO, marks, n + 1);
	tap_check_int(g.rc, 0, "v2 bad mark: read (%s)", g.err);
	tap_check_int((long long)g.n, 4,
	    "v2 bad mark: that epoch read again, and the new ones");
	tap_check(mark_of(g.marks, g.nmarks, "git/99.git") == NULL,
	    "v2 bad mark: marks of absent epochs not kept");
	got_release(&g);

	/* An epoch given on its own is read as v2, not as v1. */
	path_of(p, sizeof(p), "v2/git/1.git");
	readall(&g, p, ARCHIVE_AUTO, NULL, 0);
	tap_check_str(g.type, "public-inbox v2", "v2 lone epoch: detected");
	tap_check_int((long long)g.n, 4, "v2 lone epoch: four entries");
	want(&g, 0, ARCHIVE_ADD, message(3), "v2 lone epoch");
	tap_check(mark_of(g.marks, g.nmarks, "repo") != NULL,
	    "v2 lone epoch: mark \"repo\"");
	got_release(&g);

	/* Wrong type asked for. */
	readall(&g, inbox, ARCHIVE_MBOX, NULL, 0);
	tap_check(g.rc != 0 && strstr(g.err, "mbox") != NULL,
	    "v2 as mbox: refused (%s)", g.err);
	got_release(&g);

	git_repository_free(e0);
	git_repository_free(e1);
	git_repository_free(e2);
	git_repository_free(e10);
}

/* --- public-inbox v1 ---------------------------------------------------- */

static void
test_pi1(void)
{
	static const char p1[] = "3f/786850e387550fdab836ed7e6dc881de23001b";
	static const char p2[] = "89/e6c98d92887913cadf06b2adb97f26cde4849b";
	struct archive_mark marks[MAXM];
	git_repository *r;
	git_oid c[8];
	char path[256], w[256];
	struct got g;
	size_t n;

	path_of(path, sizeof(path), "v1.git");
	if ((r = repo_init(path)) == NULL)
		return;
	if (v1_commit(r, p1, message(1), &c[0]) != 0 ||
	    v1_commit(r, p1, message(2), &c[1]) != 0 ||
	    v1_commit(r, p1, NULL, &c[2]) != 0) {
		tap_check(0, "v1: making the repository");
		git_repository_free(r);
		return;
	}
	readall(&g, path, ARCHIVE_AUTO, NULL, 0);
	tap_check_int(g.rc, 0, "v1: read whole (%s)", g.err);
	tap_check_str(g.type, "public-inbox v1", "v1: detected");
	tap_check_int((long long)g.n, 3, "v1: three entries");
	want(&g, 0, ARCHIVE_ADD, message(1), "v1 add");
	want(&g, 1, ARCHIVE_ADD, message(2), "v1 modify");
	want(&g, 2, ARCHIVE_REMOVE, message(2), "v1 delete");
	snprintf(w, sizeof(w), "%s:%s", hex(&c[1]), p1);
	tap_check_str(g.where[1], w, "v1: where is commit:path");
	tap_check_int((long long)g.nmarks, 1, "v1: one mark");
	tap_check_str(mark_of(g.marks, g.nmarks, "repo"), hex(&c[2]),
	    "v1: mark \"repo\" is the tip");
	memcpy(marks, g.marks, sizeof(marks));
	n = g.nmarks;
	got_release(&g);

	if (v1_commit(r, p2, message(3), &c[3]) != 0) {
		tap_check(0, "v1: growing");
		git_repository_free(r);
		return;
	}
	readall(&g, path, ARCHIVE_PUBLICINBOX, marks, n);
	tap_check_int((long long)g.n, 1, "v1 incremental: one entry");
	want(&g, 0, ARCHIVE_ADD, message(3), "v1 incremental");
	got_release(&g);
	git_repository_free(r);
}

/* --- damaged repositories ----------------------------------------------- */

static void
test_pi_damaged(void)
{
	git_repository *r;
	git_commit *cm;
	git_oid c[4], b[4];
	char inbox[256], p[512], obj[600];
	struct got g;
	int ok;

	path_of(inbox, sizeof(inbox), "bad");
	path_of(p, sizeof(p), "bad/git/0.git");
	if ((r = repo_init(p)) == NULL)
		return;
	if (v2_commit(r, "m", message(1), 1, &c[0], &b[0]) != 0 ||
	    v2_commit(r, "m", message(2), 0, &c[1], &b[1]) != 0 ||
	    v2_commit(r, "m", message(3), 0, &c[2], &b[2]) != 0 ||
	    v2_commit(r, "m", message(4), 0, &c[3], &b[3]) != 0) {
		tap_check(0, "damaged: making the mirror");
		git_repository_free(r);
		return;
	}
	git_repository_free(r);

	/* Blob 2 overwritten with garbage, blob 3 gone. */
	loose_path(obj, sizeof(obj), p, &b[1]);
	tap_check(unlink(obj) == 0 &&
	    write_file(obj, "garbage, not zlib\n", 18, O_EXCL) == 0,
	    "damaged: blob overwritten");
	loose_path(obj, sizeof(obj), p, &b[2]);
	tap_check(unlink(obj) == 0, "damaged: blob removed");

	readall(&g, inbox, ARCHIVE_AUTO, NULL, 0);
	tap_check_int(g.rc, 0, "damaged: read to the end (%s)", g.err);
	tap_check_int((long long)g.n, 4, "damaged: four entries");
	want(&g, 0, ARCHIVE_ADD, message(1), "damaged");
	tap_check_int(g.op[1], ARCHIVE_SKIP, "damaged: corrupt blob skipped");
	tap_check(g.why[1][0] != '\0', "damaged: why: %s", g.why[1]);
	tap_check_int(g.op[2], ARCHIVE_SKIP, "damaged: missing blob skipped");
	tap_check(g.why[2][0] != '\0', "damaged: why: %s", g.why[2]);
	want(&g, 3, ARCHIVE_ADD, message(4), "damaged");
	tap_check_str(mark_of(g.marks, g.nmarks, "git/0.git"), hex(&c[3]),
	    "damaged: mark moved past the skipped entries");
	got_release(&g);

	/* A damaged tree, then a damaged commit. */
	path_of(p, sizeof(p), "bad/git/2.git");
	if ((r = repo_init(p)) == NULL)
		return;
	ok = v2_commit(r, "m", message(5), 1, &c[0], NULL) == 0 &&
	    v2_commit(r, "m", message(6), 0, &c[1], NULL) == 0 &&
	    v2_commit(r, "m", message(7), 0, &c[2], NULL) == 0 &&
	    git_commit_lookup(&cm, r, &c[1]) == 0;
	if (ok) {
		loose_path(obj, sizeof(obj), p, git_commit_tree_id(cm));
		git_commit_free(cm);
		ok = unlink(obj) == 0 &&
		    write_file(obj, "x", 1, O_EXCL) == 0;
	}
	git_repository_free(r);
	tap_check(ok, "damaged: tree overwritten");
	readall(&g, inbox, ARCHIVE_AUTO, NULL, 0);
	tap_check_int(g.rc, 0, "damaged tree: read to the end (%s)", g.err);
	tap_check(g.n == 7 && g.op[4] == ARCHIVE_ADD && g.op[5] == ARCHIVE_SKIP &&
	    g.op[6] == ARCHIVE_ADD, "damaged tree: skipped (%s)",
	    g.n == 7 ? g.why[5] : "");
	got_release(&g);
	loose_path(obj, sizeof(obj), p, &c[2]);
	tap_check(unlink(obj) == 0 && write_file(obj, "x", 1, O_EXCL) == 0,
	    "damaged: tip commit overwritten");
	readall(&g, inbox, ARCHIVE_AUTO, NULL, 0);
	tap_check_int(g.rc, 0, "damaged commit: read to the end (%s)", g.err);
	tap_check(g.n == 5 && g.op[4] == ARCHIVE_SKIP &&
	    strcmp(g.where[4], "git/2.git") == 0,
	    "damaged commit: the epoch is one SKIP (%s)",
	    g.n == 5 ? g.why[4] : "");
	got_release(&g);
	path_of(p, sizeof(p), "bad/git/2.git");
	nftw(p, rm_one, 16, FTW_DEPTH | FTW_PHYS);

	/* An epoch that is no repository: one SKIP, the rest still read. */
	path_of(p, sizeof(p), "bad/git/1.git");
	mkdir(p, 0755);
	readall(&g, inbox, ARCHIVE_AUTO, NULL, 0);
	tap_check_int(g.rc, 0, "broken epoch: read to the end (%s)", g.err);
	tap_check(g.n == 5 && g.op[4] == ARCHIVE_SKIP &&
	    strcmp(g.where[4], "git/1.git") == 0,
	    "broken epoch: one SKIP (%s)", g.n == 5 ? g.why[4] : "");
	tap_check(mark_of(g.marks, g.nmarks, "git/1.git") == NULL,
	    "broken epoch: no mark");
	got_release(&g);
}

/* --- Maildir ------------------------------------------------------------ */

static void
test_maildir(void)
{
	struct archive_mark marks[MAXM];
	char md[256], p[512];
	const char *m;
	struct got g;
	size_t n;
	int fd, ok;

	path_of(md, sizeof(md), "Maildir");
	mkdir(md, 0755);
	path_of(p, sizeof(p), "Maildir/cur");
	mkdir(p, 0755);
	path_of(p, sizeof(p), "Maildir/new");
	mkdir(p, 0755);
	path_of(p, sizeof(p), "Maildir/tmp");
	mkdir(p, 0755);
	path_of(p, sizeof(p), "Maildir/cur/folder");
	mkdir(p, 0755);

	ok = 1;
	path_of(p, sizeof(p), "Maildir/new/1000.a.host");
	ok &= write_file(p, message(1), strlen(message(1)), O_TRUNC) == 0;
	ok &= set_mtime(p, T0 + 10, 0) == 0;
	path_of(p, sizeof(p), "Maildir/cur/1001.b.host:2,S");
	ok &= write_file(p, message(2), strlen(message(2)), O_TRUNC) == 0;
	ok &= set_mtime(p, T0 + 20, 0) == 0;
	path_of(p, sizeof(p), "Maildir/new/.hidden");
	ok &= write_file(p, message(3), strlen(message(3)), O_TRUNC) == 0;
	path_of(p, sizeof(p), "Maildir/tmp/1003.c.host");
	ok &= write_file(p, message(3), strlen(message(3)), O_TRUNC) == 0;
	path_of(p, sizeof(p), "Maildir/new/link");
	ok &= symlink("../../v1.git/HEAD", p) == 0;
	ok &= set_mtime(p, T0 + 15, 1) == 0;
	/* 70 MB, sparse. */
	path_of(p, sizeof(p), "Maildir/new/1002.big.host");
	if ((fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644)) == -1 ||
	    ftruncate(fd, 70 << 20) != 0)
		ok = 0;
	if (fd != -1)
		close(fd);
	ok &= set_mtime(p, T0 + 30, 0) == 0;
	tap_check(ok, "maildir: made");

	readall(&g, md, ARCHIVE_AUTO, NULL, 0);
	tap_check_int(g.rc, 0, "maildir: read (%s)", g.err);
	tap_check_str(g.type, "maildir", "maildir: detected");
	tap_check_int((long long)g.n, 4, "maildir: four entries");
	want(&g, 0, ARCHIVE_ADD, message(1), "maildir");
	tap_check_str(g.where[0], "new/1000.a.host", "maildir: where");
	tap_check_int(g.op[1], ARCHIVE_SKIP, "maildir: symbolic link skipped");
	tap_check_str(g.where[1], "new/link", "maildir: the link");
	want(&g, 2, ARCHIVE_ADD, message(2), "maildir");
	tap_check_str(g.where[2], "cur/1001.b.host:2,S", "maildir: cur/ too");
	tap_check_int(g.op[3], ARCHIVE_SKIP, "maildir: 70 MB file skipped");
	tap_check(strstr(g.why[3], "limit") != NULL, "maildir: why: %s",
	    g.why[3]);
	m = mark_of(g.marks, g.nmarks, "maildir");
	tap_check_str(m, "1600000030000000000", "maildir: mark is the newest");
	tap_check_str(mark_of(g.first_marks, g.first_nmarks, "maildir"),
	    "1600000010000000000", "maildir: mark after the first entry");
	memcpy(marks, g.marks, sizeof(marks));
	n = g.nmarks;
	got_release(&g);

	readall(&g, md, ARCHIVE_MAILDIR, marks, n);
	tap_check_int((long long)g.n, 0, "maildir: nothing new");
	got_release(&g);

	/* One new file, touched now. */
	path_of(p, sizeof(p), "Maildir/new/1004.d.host");
	tap_check(write_file(p, message(4), strlen(message(4)), O_TRUNC) == 0,
	    "maildir: new file");
	readall(&g, md, ARCHIVE_AUTO, marks, n);
	tap_check_int((long long)g.n, 1, "maildir incremental: one entry");
	want(&g, 0, ARCHIVE_ADD, message(4), "maildir incremental");
	tap_check_str(mark_of(g.marks, g.nmarks, "maildir"),
	    "1600000030000000000",
	    "maildir incremental: a file of just now stays after the mark");
	got_release(&g);

	/* Once it has settled, the mark moves past it. */
	tap_check(set_mtime(p, T0 + 40, 0) == 0, "maildir: file settled");
	readall(&g, md, ARCHIVE_AUTO, marks, n);
	tap_check_int((long long)g.n, 1, "maildir settled: one entry");
	tap_check_str(mark_of(g.marks, g.nmarks, "maildir"),
	    "1600000040000000000", "maildir settled: mark moved");
	memcpy(marks, g.marks, sizeof(marks));
	n = g.nmarks;
	got_release(&g);
	readall(&g, md, ARCHIVE_AUTO, marks, n);
	tap_check_int((long long)g.n, 0, "maildir settled: then nothing");
	got_release(&g);
}

/* --- mbox --------------------------------------------------------------- */

static const char mbox3[] =
    "From dev@example.org Thu Feb 13 10:00:00 2020\n"
    "Subject: one\n\nbody 1\n\n"
    "From dev@example.org Thu Feb 13 10:00:01 2020\n"
    "Subject: two\n\n>From here\nbody 2\n\n"
    "From dev@example.org Thu Feb 13 10:00:02 2020\n"
    "Subject: three\n\nbody 3\n";

static const char mbox4th[] =
    "\nFrom dev@example.org Thu Feb 13 10:00:03 2020\n"
    "Subject: four\n\nbody 4\n";

static const char mboxbig[] =
    "From dev@example.org Thu Feb 13 10:00:01 2020\n"
    "Subject: big\n\n";

static void
test_mbox(void)
{
	struct archive_mark marks[MAXM];
	char path[256], other[256], w[64];
	const char *m;
	struct got g;
	size_t n;
	int fd, ok;

	path_of(path, sizeof(path), "mbox");
	tap_check(write_file(path, "junk before\n", 12, O_TRUNC) == 0 &&
	    write_file(path, mbox3, sizeof(mbox3) - 1, O_APPEND) == 0,
	    "mbox: made");
	readall(&g, path, ARCHIVE_AUTO, NULL, 0);
	tap_check_int(g.rc, 0, "mbox: read (%s)", g.err);
	tap_check_str(g.type, "mbox", "mbox: detected");
	tap_check_int((long long)g.n, 3, "mbox: three entries");
	want(&g, 0, ARCHIVE_ADD, "Subject: one\n\nbody 1\n", "mbox");
	want(&g, 1, ARCHIVE_ADD, "Subject: two\n\n>From here\nbody 2\n",
	    "mbox");
	want(&g, 2, ARCHIVE_ADD, "Subject: three\n\nbody 3\n", "mbox");
	tap_check_str(g.where[0], "mbox:12", "mbox: where is the offset");
	m = mark_of(g.marks, g.nmarks, "mbox");
	snprintf(w, sizeof(w), "%zu:%zu:", sizeof(mbox3) + 11,
	    sizeof(mbox3) + 11);
	tap_check(m != NULL && strncmp(m, w, strlen(w)) == 0,
	    "mbox: mark at the end (%s)", m ? m : "none");
	memcpy(marks, g.marks, sizeof(marks));
	n = g.nmarks;
	got_release(&g);

	tap_check(write_file(path, mbox4th, sizeof(mbox4th) - 1, O_APPEND) == 0,
	    "mbox: one appended");
	readall(&g, path, ARCHIVE_AUTO, marks, n);
	tap_check_int(g.rc, 0, "mbox appended: read (%s)", g.err);
	tap_check_int((long long)g.n, 1, "mbox appended: only the new one");
	want(&g, 0, ARCHIVE_ADD, "Subject: four\n\nbody 4\n", "mbox appended");
	snprintf(w, sizeof(w), "mbox:%zu", sizeof(mbox3) + 12);
	tap_check_str(g.where[0], w, "mbox appended: where");
	memcpy(marks, g.marks, sizeof(marks));
	n = g.nmarks;
	got_release(&g);

	readall(&g, path, ARCHIVE_MBOX, marks, n);
	tap_check_int((long long)g.n, 0, "mbox: nothing new");
	got_release(&g);

	/* Truncated and written again, longer: from the start. */
	ok = write_file(path, mbox3, sizeof(mbox3) - 1, O_TRUNC) == 0 &&
	    write_file(path, mbox4th, sizeof(mbox4th) - 1, O_APPEND) == 0 &&
	    write_file(path, mbox4th, sizeof(mbox4th) - 1, O_APPEND) == 0;
	tap_check(ok, "mbox: rewritten");
	readall(&g, path, ARCHIVE_AUTO, marks, n);
	tap_check_int((long long)g.n, 5, "mbox rewritten: read from the start");
	want(&g, 0, ARCHIVE_ADD, "Subject: one\n\nbody 1\n", "mbox rewritten");
	memcpy(marks, g.marks, sizeof(marks));
	n = g.nmarks;
	got_release(&g);

	/* Shrunk: from the start. */
	tap_check(truncate(path, sizeof(mbox3) - 1) == 0, "mbox: shrunk");
	readall(&g, path, ARCHIVE_AUTO, marks, n);
	tap_check_int((long long)g.n, 3, "mbox shrunk: from the start");
	memcpy(marks, g.marks, sizeof(marks));
	n = g.nmarks;
	got_release(&g);

	/* The last message grew (it was still being written): again. */
	tap_check(write_file(path, "more of 3\n", 10, O_APPEND) == 0,
	    "mbox: last message grown");
	readall(&g, path, ARCHIVE_AUTO, marks, n);
	tap_check_int((long long)g.n, 3, "mbox grown message: from the start");
	want(&g, 2, ARCHIVE_ADD, "Subject: three\n\nbody 3\nmore of 3\n",
	    "mbox grown message");
	memcpy(marks, g.marks, sizeof(marks));
	n = g.nmarks;
	got_release(&g);

	/* Replaced by another file (another inode): from the start. */
	path_of(other, sizeof(other), "mbox.new");
	ok = write_file(other, mbox3, sizeof(mbox3) - 1, O_TRUNC) == 0 &&
	    write_file(other, "more of 3\n", 10, O_APPEND) == 0 &&
	    write_file(other, mbox4th, sizeof(mbox4th) - 1, O_APPEND) == 0 &&
	    rename(other, path) == 0;
	tap_check(ok, "mbox: replaced");
	readall(&g, path, ARCHIVE_AUTO, marks, n);
	tap_check_int((long long)g.n, 4, "mbox replaced: from the start");
	got_release(&g);

	/* A 70 MB message (a line of NULs) between two small ones. */
	ok = (fd = open(path, O_WRONLY | O_TRUNC)) != -1 &&
	    write(fd, mbox3, 68) == 68 &&
	    write(fd, mboxbig, sizeof(mboxbig) - 1) ==
	    (ssize_t)sizeof(mboxbig) - 1 &&
	    pwrite(fd, mbox4th, sizeof(mbox4th) - 1, 100 + (70 << 20)) ==
	    (ssize_t)sizeof(mbox4th) - 1;
	if (fd != -1)
		close(fd);
	tap_check(ok, "mbox: big message");
	readall(&g, path, ARCHIVE_AUTO, NULL, 0);
	tap_check_int(g.rc, 0, "mbox big: read (%s)", g.err);
	tap_check_int((long long)g.n, 3, "mbox big: three entries");
	want(&g, 0, ARCHIVE_ADD, "Subject: one\n\nbody 1\n", "mbox big");
	tap_check_int(g.op[1], ARCHIVE_SKIP, "mbox big: skipped");
	tap_check(strstr(g.why[1], "limit") != NULL, "mbox big: why: %s",
	    g.why[1]);
	tap_check_str(g.where[1], "mbox:68", "mbox big: where");
	want(&g, 2, ARCHIVE_ADD, "Subject: four\n\nbody 4\n",
	    "mbox big: found the next");
	got_release(&g);

	/* A "From " line of 70 MB: skipped too. */
	ok = (fd = open(path, O_WRONLY | O_TRUNC)) != -1 &&
	    write(fd, mbox3, 100) == 100 &&
	    pwrite(fd, mbox4th, sizeof(mbox4th) - 1, 100 + (70 << 20)) ==
	    (ssize_t)sizeof(mbox4th) - 1;
	if (fd != -1)
		close(fd);
	readall(&g, path, ARCHIVE_AUTO, NULL, 0);
	tap_check(ok && g.rc == 0 && g.n == 3 && g.op[1] == ARCHIVE_SKIP &&
	    g.op[2] == ARCHIVE_ADD, "mbox long From line: skipped (%s)",
	    g.err);
	got_release(&g);

	/* Empty. */
	ok = write_file(path, "", 0, O_TRUNC) == 0;
	tap_check(ok, "mbox: emptied");
	readall(&g, path, ARCHIVE_AUTO, NULL, 0);
	tap_check(g.rc == 0 && g.n == 0, "mbox empty: no entry");
	got_release(&g);
}

/* --- nothing there ------------------------------------------------------ */

static void
test_nothing(void)
{
	char p[256];
	struct got g;

	path_of(p, sizeof(p), "no-such-thing");
	readall(&g, p, ARCHIVE_AUTO, NULL, 0);
	tap_check(g.rc != 0, "nothing: refused");
	tap_check(strstr(g.err, p) != NULL, "nothing: names the path (%s)", g.err);
	got_release(&g);

	path_of(p, sizeof(p), "empty-dir");
	mkdir(p, 0755);
	readall(&g, p, ARCHIVE_AUTO, NULL, 0);
	tap_check(g.rc != 0 && strstr(g.err, p) != NULL && strstr(g.err,
	    "Maildir") != NULL, "empty folder: refused (%s)", g.err);
	got_release(&g);

	readall(&g, p, ARCHIVE_MAILDIR, NULL, 0);
	tap_check(g.rc != 0 && strstr(g.err, "Maildir") != NULL,
	    "empty folder as Maildir: refused (%s)", g.err);
	got_release(&g);

	readall(&g, "/dev/null", ARCHIVE_AUTO, NULL, 0);
	tap_check(g.rc != 0, "a device: refused (%s)", g.err);
	got_release(&g);
}

int
main(void)
{
	const char *tmp;

	if (git_libgit2_init() < 0)
		tap_skip_all("libgit2 does not start");
	if ((tmp = getenv("TMPDIR")) == NULL || *tmp == '\0' ||
	    strlen(tmp) > 40)
		tmp = "/tmp";
	snprintf(tmproot, sizeof(tmproot), "%s/t-archive.XXXXXX", tmp);
	if (mkdtemp(tmproot) == NULL)
		tap_skip_all("mkdtemp: %s", strerror(errno));

	test_pi2();
	test_pi1();
	test_pi_damaged();
	test_maildir();
	test_mbox();
	test_nothing();

	nftw(tmproot, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	git_libgit2_shutdown();
	return tap_done();
}
