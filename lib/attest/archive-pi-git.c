/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * archive-pi-git.c - the git objects of a public-inbox mirror read as
 * archive entries (archive-pi.c walks the commits): a v2 commit's "m" or
 * "d", a v1 commit's changes against its first parent, each blob's bytes
 * or why it cannot be read; and libgit2's errors, as text.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <git2.h>

#include "archive-int.h"
#include "archive-pi-int.h"
#include "base.h"

static void	pi_blob(struct pi *, const git_oid *, enum archive_op,
		    struct archive_entry *);

const char *
pi_gitmsg(void)
{
	const git_error *ge;

	ge = git_error_last();
	return ge != NULL && ge->message != NULL ? ge->message :
	    "unknown libgit2 error";
}

/* pi_blob - e becomes op with the blob's bytes, or an ARCHIVE_SKIP */
static void
pi_blob(struct pi *p, const git_oid *id, enum archive_op op,
    struct archive_entry *e)
{
	char hex[PI_HEXLEN + 1];
	git_object_t type;
	size_t len;
	const void *data;

	git_oid_tostr(hex, sizeof(hex), id);
	if (git_odb_read_header(&len, &type, p->odb, id) != 0) {
		archive_skip(e, "blob %.12s unreadable: %s", hex, pi_gitmsg());
		return;
	}
	if (type != GIT_OBJECT_BLOB) {
		archive_skip(e, "object %.12s is not a blob", hex);
		return;
	}
	if (len > ARCHIVE_MAX_ENTRY) {
		archive_skip(e, "message of %zu bytes, over the limit of %u",
		    len, ARCHIVE_MAX_ENTRY);
		return;
	}
	if (git_blob_lookup(&p->blob, p->repo, id) != 0) {
		p->blob = NULL;
		archive_skip(e, "blob %.12s unreadable: %s", hex, pi_gitmsg());
		return;
	}
	if (git_blob_rawsize(p->blob) != (git_object_size_t)len) {
		archive_skip(e, "blob %.12s: size differs from its header",
		    hex);
		return;
	}
	data = git_blob_rawcontent(p->blob);
	e->op = op;
	e->data = data != NULL ? data : "";
	e->len = len;
}

void
pi2_commit(struct pi *p, const git_oid *id, struct archive_entry *e)
{
	const git_tree_entry *te;
	enum archive_op op = ARCHIVE_ADD;
	git_commit *c;
	git_tree *tree;

	if (git_commit_lookup(&c, p->repo, id) != 0) {
		archive_skip(e, "commit unreadable: %s", pi_gitmsg());
		return;
	}
	if (git_commit_tree(&tree, c) != 0) {
		archive_skip(e, "tree unreadable: %s", pi_gitmsg());
		git_commit_free(c);
		return;
	}
	if ((te = git_tree_entry_byname(tree, "m")) == NULL) {
		op = ARCHIVE_REMOVE;
		te = git_tree_entry_byname(tree, "d");
	}
	if (te == NULL)
		archive_skip(e, "the tree holds neither \"m\" nor \"d\"");
	else if (git_tree_entry_type(te) != GIT_OBJECT_BLOB)
		archive_skip(e, "\"%s\" is not a file",
		    git_tree_entry_name(te));
	else
		pi_blob(p, git_tree_entry_id(te), op, e);
	git_tree_free(tree);
	git_commit_free(c);
}

int
pi1_commit(struct pi *p, const git_oid *id, struct archive_entry *e)
{
	git_diff_options opts;
	git_commit *c, *parent = NULL;
	git_tree *tree = NULL, *ptree = NULL;
	int skip = 1;

	if (git_commit_lookup(&c, p->repo, id) != 0) {
		archive_skip(e, "commit unreadable: %s", pi_gitmsg());
		return 1;
	}
	if (git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION) != 0) {
		archive_skip(e, "%s", pi_gitmsg());
		git_commit_free(c);
		return 1;
	}
	/* Only tree ids are compared: no blob is read here. */
	opts.flags = GIT_DIFF_SKIP_BINARY_CHECK;
	if (git_commit_tree(&tree, c) != 0)
		archive_skip(e, "tree unreadable: %s", pi_gitmsg());
	else if (git_commit_parentcount(c) > 0 &&
	    (git_commit_parent(&parent, c, 0) != 0 ||
	    git_commit_tree(&ptree, parent) != 0))
		archive_skip(e, "parent unreadable: %s", pi_gitmsg());
	else if (git_diff_tree_to_tree(&p->diff, p->repo, ptree, tree,
	    &opts) != 0) {
		p->diff = NULL;
		archive_skip(e, "cannot compare with the parent: %s",
		    pi_gitmsg());
	} else {
		p->delta = 0;
		skip = 0;
	}
	git_tree_free(ptree);
	git_commit_free(parent);
	git_tree_free(tree);
	git_commit_free(c);
	return skip;
}

int
pi1_delta(struct pi *p, struct archive_entry *e)
{
	const git_diff_delta *d;
	const git_diff_file *f;
	enum archive_op op;
	size_t n;

	n = git_diff_num_deltas(p->diff);
	while (p->delta < n) {
		d = git_diff_get_delta(p->diff, p->delta++);
		switch (d->status) {
		case GIT_DELTA_ADDED:
		case GIT_DELTA_MODIFIED:
		case GIT_DELTA_TYPECHANGE:
			f = &d->new_file;
			op = ARCHIVE_ADD;
			break;
		case GIT_DELTA_DELETED:
			f = &d->old_file;
			op = ARCHIVE_REMOVE;
			break;
		default:
			continue;
		}
		if (f->mode != GIT_FILEMODE_BLOB &&
		    f->mode != GIT_FILEMODE_BLOB_EXECUTABLE)
			continue;	/* symbolic links, submodules */
		archive_where(e, "%s:%s", p->hex, f->path);
		pi_blob(p, &f->id, op, e);
		return 1;
	}
	git_diff_free(p->diff);
	p->diff = NULL;
	return 0;
}
