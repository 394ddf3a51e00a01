/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * archive - finding out what kind of archive a path holds and handing the
 * work to that kind's reader (see archive.h and archive-int.h).
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archive-int.h"

/* The kinds, in the order ARCHIVE_AUTO tries them. */
static const struct {
	enum archive_type		 type;
	const struct archive_kind	*kind;
} archive_kinds[] = {
	{ ARCHIVE_PUBLICINBOX, &archive_pi2_kind },
	{ ARCHIVE_PUBLICINBOX, &archive_pi1_kind },
	{ ARCHIVE_MAILDIR, &archive_maildir_kind },
	{ ARCHIVE_MBOX, &archive_mbox_kind },
};
#define NKINDS	(sizeof(archive_kinds) / sizeof(archive_kinds[0]))

static int	archive_pick(const struct archive_kind **, const char *,
		    enum archive_type, struct pa_err *);
static int	archive_copy_marks(struct archive *,
		    const struct archive_mark *, size_t);
static int	archive_mark_ok(const struct archive_mark *);

/* archive_pick - the kind for path: the first row of type whose probe agrees */
static int
archive_pick(const struct archive_kind **kp, const char *path,
    enum archive_type type, struct pa_err *err)
{
	struct stat st;
	char what[200];
	size_t i, n, len;

	if (stat(path, &st) == -1) {
		pa_err_set(err, "archive %s: %s", path, strerror(errno));
		return PA_ERROR;
	}
	for (i = 0; i < NKINDS; i++) {
		if (type != ARCHIVE_AUTO && archive_kinds[i].type != type)
			continue;
		if (archive_kinds[i].kind->probe(path)) {
			*kp = archive_kinds[i].kind;
			return 0;
		}
	}
	/* Name everything that was tried. */
	what[0] = '\0';
	for (i = n = 0; i < NKINDS; i++) {
		if (type != ARCHIVE_AUTO && archive_kinds[i].type != type)
			continue;
		len = strlen(what);
		snprintf(what + len, sizeof(what) - len, "%s%s",
		    n++ == 0 ? "" : ", nor ", archive_kinds[i].kind->what);
	}
	pa_err_set(err, "archive %s is not %s", path, what);
	return PA_ERROR;
}

/* archive_mark_ok - are name and value NUL-terminated, the name not empty? */
static int
archive_mark_ok(const struct archive_mark *m)
{
	return m->name[0] != '\0' &&
	    memchr(m->name, '\0', sizeof(m->name)) != NULL &&
	    memchr(m->value, '\0', sizeof(m->value)) != NULL;
}

/* archive_copy_marks - keep the caller's well-formed marks in a->in */
static int
archive_copy_marks(struct archive *a, const struct archive_mark *marks,
    size_t n)
{
	size_t i;

	if (n == 0)
		return 0;
	if ((a->in = calloc(n, sizeof(*a->in))) == NULL)
		return PA_ENOMEM;
	for (i = 0; i < n; i++)
		if (archive_mark_ok(&marks[i]))
			a->in[a->nin++] = marks[i];
	return 0;
}

int
archive_open(struct archive **ap, const char *path, enum archive_type type,
    const struct archive_mark *marks, size_t nmarks, struct pa_err *err)
{
	const struct archive_kind *kind;
	struct archive *a;
	int rc;

	*ap = NULL;
	if ((rc = archive_pick(&kind, path, type, err)) != 0)
		return rc;
	if ((a = calloc(1, sizeof(*a))) == NULL ||
	    (a->path = strdup(path)) == NULL ||
	    archive_copy_marks(a, marks, nmarks) != 0) {
		archive_close(a);
		pa_err_set(err, "archive %s: %s", path,
		    pa_strerror(PA_ENOMEM));
		return PA_ENOMEM;
	}
	a->kind = kind;
	if ((rc = kind->open(a, err)) != 0) {
		archive_close(a);
		return rc;
	}
	*ap = a;
	return 0;
}

int
archive_next(struct archive *a, struct archive_entry *e, struct pa_err *err)
{
	e->op = ARCHIVE_ADD;
	e->data = "";
	e->len = 0;
	e->where[0] = '\0';
	e->why[0] = '\0';
	return a->kind->next(a, e, err);
}

const struct archive_mark *
archive_marks(struct archive *a, size_t *n)
{
	*n = a->nmarks;
	return a->marks;
}

const char *
archive_type_name(const struct archive *a)
{
	return a->kind->name;
}

void
archive_close(struct archive *a)
{
	if (a == NULL)
		return;
	if (a->kind != NULL)
		a->kind->close(a);
	free(a->marks);
	free(a->in);
	free(a->path);
	free(a);
}
