/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * archive-pi - public-inbox mirrors, read with libgit2 (see archive.h).
 *
 * v2: the epochs git/0.git, git/1.git, ... in numeric order; in each, the
 * commits of refs/heads/master (else HEAD) oldest first; a commit whose
 * tree holds "m" is an ARCHIVE_ADD of that blob, "d" an ARCHIVE_REMOVE.
 * v1: one bare repository; each commit is compared with its first parent:
 * a blob added or changed is an ARCHIVE_ADD, a blob deleted an
 * ARCHIVE_REMOVE of the old blob.  A v2 epoch opened on its own (a bare
 * repository whose tip tree holds "m" or "d") is read as v2.
 *
 * Marks: one per epoch, "git/N.git" (v1 and a lone epoch: "repo"), the id
 * of the last commit read.  When that commit is an ancestor of the tip,
 * only the commits after it are walked; otherwise the history has been
 * rewritten and the whole epoch is read again (storing is idempotent).
 *
 * An unreadable commit, tree or blob, or a blob over ARCHIVE_MAX_ENTRY,
 * is an ARCHIVE_SKIP (archive-pi-git.c reads them); an epoch that cannot
 * be opened or walked is one ARCHIVE_SKIP, its mark unchanged so that
 * the next run tries again.
 */
#include "config.h"

#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <git2.h>

#include "archive-int.h"
#include "archive-pi-int.h"
#include "base.h"

#define PI_MAX_EPOCHS	100000		/* git/N.git folders taken */
#define PI_MAX_DIGITS	9		/* in N */

static int	pi2_probe(const char *);
static int	pi1_probe(const char *);
static int	pi2_open(struct archive *, struct pa_err *);
static int	pi1_open(struct archive *, struct pa_err *);
static int	pi_next(struct archive *, struct archive_entry *,
		    struct pa_err *);
static void	pi_close(struct archive *);

static int	pi_init(struct archive *, struct pa_err *);
static int	pi_isdir(const char *, const char *);
static int	pi_epoch_name(const char *, unsigned long *);
static int	pi_epoch_cmp(const void *, const void *);
static int	pi_list(struct archive *, struct pi *, struct pa_err *);
static int	pi_repo_path(const struct archive *, const struct pi *,
		    char *, size_t);
static int	pi_tip(git_repository *, git_oid *);
static int	pi_looks_v2(const char *);
static int	pi_start(struct archive *, struct pi *,
		    struct archive_entry *);
static void	pi_stop(struct pi *);
static int	pi_mark(struct archive *, struct pi *, struct pa_err *);

const struct archive_kind archive_pi2_kind = {
	"public-inbox v2",
	"a public-inbox v2 mirror (git/<N>.git)",
	pi2_probe, pi2_open, pi_next, pi_close
};

const struct archive_kind archive_pi1_kind = {
	"public-inbox v1",
	"a public-inbox v1 mirror (a bare git repository)",
	pi1_probe, pi1_open, pi_next, pi_close
};

static pthread_once_t pi_once = PTHREAD_ONCE_INIT;
static int pi_init_rc;

static void
pi_init_libgit2(void)
{
	pi_init_rc = git_libgit2_init();
}

/* pi_init - libgit2 set up, once per process (never shut down) */
static int
pi_init(struct archive *a, struct pa_err *err)
{
	if (pthread_once(&pi_once, pi_init_libgit2) != 0 || pi_init_rc < 0) {
		pa_err_set(err, "archive %s: libgit2 cannot start: %s",
		    a->path, pi_gitmsg());
		return PA_ERROR;
	}
	return 0;
}

/* pi_isdir - is dir/name (name may be NULL) a directory? */
static int
pi_isdir(const char *dir, const char *name)
{
	char path[PATH_MAX];
	struct stat st;
	int n;

	n = snprintf(path, sizeof(path), "%s%s%s", dir, name ? "/" : "",
	    name ? name : "");
	if (n < 0 || (size_t)n >= sizeof(path))
		return 0;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* pi_epoch_name - is name "N.git" (N decimal, no leading zero)? */
static int
pi_epoch_name(const char *name, unsigned long *n)
{
	size_t i;

	*n = 0;
	for (i = 0; name[i] >= '0' && name[i] <= '9'; i++) {
		if (i == PI_MAX_DIGITS || (i == 1 && name[0] == '0'))
			return 0;
		*n = *n * 10 + (unsigned long)(name[i] - '0');
	}
	return i > 0 && strcmp(name + i, ".git") == 0;
}

static int
pi_epoch_cmp(const void *x, const void *y)
{
	const struct pi_epoch *a = x, *b = y;

	return a->n < b->n ? -1 : a->n > b->n;
}

static int
pi2_probe(const char *path)
{
	char git[PATH_MAX];
	struct dirent *de;
	unsigned long n;
	DIR *d;
	int found = 0, len;

	len = snprintf(git, sizeof(git), "%s/git", path);
	if (len < 0 || (size_t)len >= sizeof(git) || (d = opendir(git)) == NULL)
		return 0;
	while (!found && (de = readdir(d)) != NULL)
		found = pi_epoch_name(de->d_name, &n) &&
		    pi_isdir(git, de->d_name);
	closedir(d);
	return found;
}

static int
pi1_probe(const char *path)
{
	char head[PATH_MAX];
	struct stat st;
	int len;

	len = snprintf(head, sizeof(head), "%s/HEAD", path);
	return len > 0 && (size_t)len < sizeof(head) &&
	    stat(head, &st) == 0 && S_ISREG(st.st_mode) &&
	    pi_isdir(path, "objects") && pi_isdir(path, "refs");
}

/* pi_list - the epochs of a v2 mirror, in numeric order */
static int
pi_list(struct archive *a, struct pi *p, struct pa_err *err)
{
	char git[PATH_MAX];
	struct pi_epoch *ep;
	struct dirent *de;
	unsigned long n;
	size_t alloc = 0;
	DIR *d;
	int len, rc = 0;

	len = snprintf(git, sizeof(git), "%s/git", a->path);
	if (len < 0 || (size_t)len >= sizeof(git)) {
		pa_err_set(err, "archive %s: path too long", a->path);
		return PA_ERROR;
	}
	if ((d = opendir(git)) == NULL) {
		pa_err_set(err, "archive %s: %s", git, strerror(errno));
		return PA_ERROR;
	}
	while ((de = readdir(d)) != NULL) {
		if (!pi_epoch_name(de->d_name, &n) ||
		    !pi_isdir(git, de->d_name))
			continue;
		if (p->nepochs == PI_MAX_EPOCHS) {
			pa_err_set(err, "archive %s holds more than %d epochs",
			    a->path, PI_MAX_EPOCHS);
			rc = PA_ETOOBIG;
			break;
		}
		if ((rc = GROW(p->epochs, p->nepochs, alloc, 16,
		    PI_MAX_EPOCHS)) != 0) {
			pa_err_set(err, "archive %s: %s", a->path,
			    pa_strerror(rc));
			break;
		}
		ep = &p->epochs[p->nepochs++];
		ep->n = n;
		snprintf(ep->name, sizeof(ep->name), "git/%lu.git", n);
	}
	closedir(d);
	if (rc == 0 && p->nepochs > 0)
		qsort(p->epochs, p->nepochs, sizeof(*p->epochs), pi_epoch_cmp);
	return rc;
}

/* pi_open - the state, and the marks of the epochs present */
static int
pi_open(struct archive *a, int v2, struct pa_err *err)
{
	const char *in;
	struct pi *p;
	size_t i;
	int rc;

	if ((rc = pi_init(a, err)) != 0)
		return rc;
	if ((p = calloc(1, sizeof(*p))) == NULL)
		goto nomem;
	a->priv = p;
	p->v2 = p->ingit = v2;
	if (v2) {
		if ((rc = pi_list(a, p, err)) != 0)
			return rc;
	} else {
		if ((p->epochs = calloc(1, sizeof(*p->epochs))) == NULL)
			goto nomem;
		p->nepochs = 1;
		snprintf(p->epochs[0].name, sizeof(p->epochs[0].name), "repo");
	}
	for (i = 0; i < p->nepochs; i++) {
		in = archive_mark_in(a, p->epochs[i].name);
		if (in != NULL &&
		    archive_mark_set(a, p->epochs[i].name, in) != 0)
			goto nomem;
	}
	return 0;
nomem:
	pa_err_set(err, "archive %s: %s", a->path, pa_strerror(PA_ENOMEM));
	return PA_ENOMEM;
}

static int
pi2_open(struct archive *a, struct pa_err *err)
{
	return pi_open(a, 1, err);
}

static int
pi1_open(struct archive *a, struct pa_err *err)
{
	int rc;

	if ((rc = pi_open(a, 0, err)) != 0)
		return rc;
	if (pi_looks_v2(a->path)) {
		/* One epoch of a v2 mirror given on its own. */
		((struct pi *)a->priv)->v2 = 1;
		a->kind = &archive_pi2_kind;
	}
	return 0;
}

/* pi_tip - the commit to walk from: 0, GIT_ENOTFOUND, or an error */
static int
pi_tip(git_repository *repo, git_oid *tip)
{
	int rc;

	rc = git_reference_name_to_id(tip, repo, "refs/heads/master");
	if (rc == GIT_ENOTFOUND)
		rc = git_reference_name_to_id(tip, repo, "HEAD");
	return rc;
}

/* pi_looks_v2 - does the tip tree of the bare repository hold "m" or "d"? */
static int
pi_looks_v2(const char *path)
{
	git_repository *repo;
	git_commit *c;
	git_tree *tree;
	git_oid tip;
	int v2 = 0;

	if (git_repository_open_bare(&repo, path) != 0)
		return 0;
	if (pi_tip(repo, &tip) == 0 && git_commit_lookup(&c, repo, &tip) == 0) {
		if (git_commit_tree(&tree, c) == 0) {
			v2 = git_tree_entry_byname(tree, "m") != NULL ||
			    git_tree_entry_byname(tree, "d") != NULL;
			git_tree_free(tree);
		}
		git_commit_free(c);
	}
	git_repository_free(repo);
	return v2;
}

static int
pi_repo_path(const struct archive *a, const struct pi *p, char *buf,
    size_t len)
{
	int n;

	if (p->ingit)
		n = snprintf(buf, len, "%s/%s", a->path,
		    p->epochs[p->cur].name);
	else
		n = snprintf(buf, len, "%s", a->path);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

/*
 * pi_start - open epochs[cur] and set up its walk: 0 (p->walk is NULL
 * when there is nothing in it), or 1 with e an ARCHIVE_SKIP when the epoch
 * cannot be read.
 */
static int
pi_start(struct archive *a, struct pi *p, struct archive_entry *e)
{
	const char *name = p->epochs[p->cur].name, *in;
	char path[PATH_MAX];
	git_oid tip, mark;
	int rc;

	archive_where(e, "%s", name);
	if (pi_repo_path(a, p, path, sizeof(path)) != 0) {
		archive_skip(e, "path too long");
		return 1;
	}
	if (git_repository_open_bare(&p->repo, path) != 0 ||
	    git_repository_odb(&p->odb, p->repo) != 0) {
		archive_skip(e, "cannot open the repository: %s", pi_gitmsg());
		goto fail;
	}
	if ((rc = pi_tip(p->repo, &tip)) == GIT_ENOTFOUND)
		return 0;	/* no commit yet */
	if (rc != 0 || git_revwalk_new(&p->walk, p->repo) != 0 ||
	    git_revwalk_sorting(p->walk,
	    GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE) != 0 ||
	    git_revwalk_push(p->walk, &tip) != 0) {
		archive_skip(e, "cannot walk the history: %s", pi_gitmsg());
		goto fail;
	}
	in = archive_mark_in(a, name);
	if (in == NULL || strlen(in) != PI_HEXLEN ||
	    git_oid_fromstrn(&mark, in, PI_HEXLEN) != 0)
		return 0;	/* from the start */
	if (git_oid_equal(&mark, &tip) ||
	    git_graph_descendant_of(p->repo, &tip, &mark) == 1) {
		if (git_revwalk_hide(p->walk, &mark) != 0) {
			archive_skip(e, "cannot walk the history: %s",
			    pi_gitmsg());
			goto fail;
		}
	}
	/* Else the history was rewritten: the whole epoch again. */
	return 0;
fail:
	pi_stop(p);
	return 1;
}

/* pi_stop - done with the current epoch */
static void
pi_stop(struct pi *p)
{
	git_diff_free(p->diff);
	p->diff = NULL;
	git_revwalk_free(p->walk);
	p->walk = NULL;
	git_odb_free(p->odb);
	p->odb = NULL;
	git_repository_free(p->repo);
	p->repo = NULL;
}

/* pi_mark - every entry of commit p->hex has been returned */
static int
pi_mark(struct archive *a, struct pi *p, struct pa_err *err)
{
	if (archive_mark_set(a, p->epochs[p->cur].name, p->hex) != 0) {
		pa_err_set(err, "archive %s: %s", a->path,
		    pa_strerror(PA_ENOMEM));
		return PA_ENOMEM;
	}
	return 0;
}

static int
pi_next(struct archive *a, struct archive_entry *e, struct pa_err *err)
{
	struct pi *p = a->priv;
	git_oid id;
	int rc;

	git_blob_free(p->blob);
	p->blob = NULL;
	for (;;) {
		if (p->diff != NULL) {
			rc = pi1_delta(p, e);
			/* The commit is done when its last change is out. */
			if ((rc == 0 ||
			    p->delta == git_diff_num_deltas(p->diff)) &&
			    pi_mark(a, p, err) != 0)
				return PA_ENOMEM;
			if (rc == 1)
				return 1;
			continue;
		}
		if (p->repo == NULL) {
			if (p->cur == p->nepochs)
				return 0;
			if (pi_start(a, p, e) == 1) {
				p->cur++;
				return 1;
			}
		}
		if (p->walk == NULL ||
		    (rc = git_revwalk_next(&id, p->walk)) == GIT_ITEROVER) {
			pi_stop(p);
			p->cur++;
			continue;
		}
		if (rc != 0) {
			archive_where(e, "%s", p->epochs[p->cur].name);
			archive_skip(e, "cannot walk the history: %s",
			    pi_gitmsg());
			pi_stop(p);
			p->cur++;
			return 1;
		}
		git_oid_tostr(p->hex, sizeof(p->hex), &id);
		if (p->v2) {
			archive_where(e, "%s:%s", p->epochs[p->cur].name,
			    p->hex);
			pi2_commit(p, &id, e);
			return pi_mark(a, p, err) == 0 ? 1 : PA_ENOMEM;
		}
		if (pi1_commit(p, &id, e) == 1) {
			archive_where(e, "%s", p->hex);
			return pi_mark(a, p, err) == 0 ? 1 : PA_ENOMEM;
		}
	}
}

static void
pi_close(struct archive *a)
{
	struct pi *p = a->priv;

	if (p == NULL)
		return;
	git_blob_free(p->blob);
	pi_stop(p);
	free(p->epochs);
	free(p);
	a->priv = NULL;
}
