/* SPDX-License-Identifier: BSD-2-Clause */
/* replay - see replay.h */
#include "config.h"

#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "patchattest.h"
#include "mail.h"
#include "replay.h"

#define REPLAY_MAIL_MAX		((size_t)64 << 20)

/* by_name - qsort() order of file names: position order */
static int
by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* list - the .eml files of dir, sorted, into r->files */
static int
list(struct replay *r, const char *dir, struct pa_err *err)
{
	struct dirent *e;
	size_t cap = 0, len;
	char **grown;
	DIR *d;

	if ((d = opendir(dir)) == NULL) {
		pa_err_set(err, "%s: %s", dir, strerror(errno));
		return PA_ERROR;
	}
	while ((e = readdir(d)) != NULL) {
		len = strlen(e->d_name);
		if (len < 5 || strcmp(e->d_name + len - 4, ".eml") != 0)
			continue;
		if (r->nfiles == cap) {
			cap = cap ? 2 * cap : 1024;
			if ((grown = realloc(r->files, cap *
			    sizeof(*grown))) == NULL)
				break;
			r->files = grown;
		}
		if ((r->files[r->nfiles] = malloc(strlen(dir) + len + 2)) ==
		    NULL)
			break;
		snprintf(r->files[r->nfiles++], strlen(dir) + len + 2, "%s/%s",
		    dir, e->d_name);
	}
	closedir(d);
	if (e != NULL) {
		pa_err_set(err, "%s", pa_strerror(PA_ENOMEM));
		return PA_ENOMEM;
	}
	if (r->nfiles > 1)	/* an empty corpus has no array to sort */
		qsort(r->files, r->nfiles, sizeof(*r->files), by_name);
	return 0;
}

/* add_path - one more PatattKeyring folder: corpus/name */
static int
add_path(struct config_list *l, const char *corpus, const char *name)
{
	char **v;
	size_t len = strlen(corpus) + strlen(name) + 2;

	if ((v = realloc(l->v, (l->n + 1) * sizeof(*v))) == NULL)
		return PA_ENOMEM;
	l->v = v;
	if ((v[l->n] = malloc(len)) == NULL)
		return PA_ENOMEM;
	snprintf(v[l->n++], len, "%s/%s", corpus, name);
	return 0;
}

int
replay_open(struct replay *r, const char *corpus, const char *scratch,
    long habit_minimum, struct pa_err *err)
{
	char path[4096];
	int rc;

	memset(r, 0, sizeof(*r));
	sbuf_init(&r->raw, REPLAY_MAIL_MAX);
	if ((rc = config_init(&r->cf)) != 0)
		return rc;
	r->cf.signer_habit_minimum = habit_minimum;
	snprintf(path, sizeof(path), "%s/gnupg", scratch);
	if (mkdir(path, 0700) != 0 && errno != EEXIST) {
		pa_err_set(err, "%s: %s", path, strerror(errno));
		return PA_ERROR;
	}
	free(r->cf.gnupg_home);
	if ((r->cf.gnupg_home = strdup(path)) == NULL ||
	    add_path(&r->cf.patatt_keyrings, corpus, "patatt-keys") != 0 ||
	    add_path(&r->cf.patatt_keyrings, corpus, "kernel-keyring") != 0) {
		pa_err_set(err, "%s", pa_strerror(PA_ENOMEM));
		return PA_ENOMEM;
	}
	snprintf(path, sizeof(path), "%s/messages", corpus);
	if ((rc = list(r, path, err)) != 0)
		return rc;
	snprintf(path, sizeof(path), "%s/state.mdb", scratch);
	if ((rc = mailmsg_new(&r->msg, REPLAY_MAIL_MAX)) != 0) {
		pa_err_set(err, "%s", pa_strerror(rc));
		return rc;
	}
	if ((rc = decider_new(&r->dc, &r->cf, NULL, err)) != 0 ||
	    (rc = ledger_open(&r->lg, path, 1, 1, 0, 0, err)) != 0)
		return rc;
	decider_use_ledger(r->dc, r->lg, NULL);
	return 0;
}

/* read_one - file k into r->msg, and the clock moved to its Date */
static int
read_one(struct replay *r, size_t k, struct pa_err *err)
{
	const char *v;
	time_t date;
	size_t len;
	FILE *fp;
	char buf[65536];
	int rc;

	sbuf_reset(&r->raw);
	if ((fp = fopen(r->files[k], "rb")) == NULL) {
		pa_err_set(err, "%s: %s", r->files[k], strerror(errno));
		return PA_ERROR;
	}
	while ((len = fread(buf, 1, sizeof(buf), fp)) > 0)
		sbuf_add(&r->raw, buf, len);
	fclose(fp);
	mailmsg_reset(r->msg);
	if ((rc = sbuf_failed(&r->raw)) != 0 ||
	    (rc = mailmsg_parse(r->msg, r->raw.buf, r->raw.len)) != 0) {
		pa_err_set(err, "%s: %s", r->files[k], pa_strerror(rc));
		return rc;
	}
	if ((v = mailmsg_get(r->msg, "Date", &len)) != NULL &&
	    maildate_parse(v, len, &date) == 0 && date > r->now)
		r->now = date;
	return 0;
}

int
replay_one(struct replay *r, size_t k, struct decision *d, struct arrival *a,
    struct habit *h, struct pa_err *err)
{
	int rc;

	if ((rc = read_one(r, k, err)) != 0)
		return rc;
	if (decide_begin(r->dc, r->msg, r->now) != 0)
		return PA_ENOPATCH;
	memset(h, 0, sizeof(*h));
	if (decide_habit_identity(r->dc)[0] != '\0' &&
	    (rc = ledger_habit(r->lg, decide_habit_identity(r->dc), h,
	    err)) != 0 &&
	    rc != PA_ENOTFOUND)
		return rc;
	decide_end(r->dc, NULL, NULL, d);
	decide_arrival(r->dc, d, &(struct arrival_origin){ 0 }, a);
	if ((rc = ledger_record(r->lg, a, err)) != 0)
		return rc;
	return ledger_sync(r->lg, err);
}

void
replay_close(struct replay *r)
{
	size_t k;

	decider_free(r->dc);
	ledger_close(r->lg);
	mailmsg_free(r->msg);
	sbuf_release(&r->raw);
	for (k = 0; k < r->nfiles; k++)
		free(r->files[k]);
	free(r->files);
	config_release(&r->cf);
}
