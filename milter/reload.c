/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * reload.c - what a reload reads, and what of the configuration in force
 * it may keep.  The configuration file is read and checked here, before
 * anything in force is touched: a file with a problem changes nothing,
 * and a key only a start can carry out (the socket, the user, the
 * metrics endpoint) keeps the value in use, said in the log.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "milter.h"

static int
same(const char *a, const char *b)
{
	return a && b ? strcmp(a, b) == 0 : a == b;
}

int
reload_keeps_keyring(const struct pa_config *a, const struct pa_config *b)
{
	size_t i;

	if (a->patatt_keyrings.n != b->patatt_keyrings.n)
		return 0;
	for (i = 0; i < a->patatt_keyrings.n; i++)
		if (strcmp(a->patatt_keyrings.v[i], b->patatt_keyrings.v[i]))
			return 0;
	return 1;
}

int
reload_keeps_gnupg(const struct pa_config *a, const struct pa_config *b)
{
	return a->trust_model == b->trust_model &&
	    same(a->gnupg_home, b->gnupg_home);
}

int
reload_keeps_index(const struct pa_config *a, const struct pa_config *b)
{
	return same(a->index_path, b->index_path) &&
	    (a->archive == NULL) == (b->archive == NULL) &&
	    (a->archive_refresh > 0) == (b->archive_refresh > 0) &&
	    a->learn_from_mail == b->learn_from_mail;
}

/* log_problems - each problem of a configuration refused on reload */
static void
log_problems(const struct sbuf *problems, int rc)
{
	const char *p, *nl;

	if (problems->len == 0)
		mlog(LOG_LEVEL_ERROR, "reload: %s", pa_strerror(rc));
	for (p = problems->buf; p && *p; p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		mlog(LOG_LEVEL_ERROR, "reload: %.*s", nl ? (int)(nl - p) :
		    (int)strlen(p), p);
	}
	mlog(LOG_LEVEL_ERROR, "reload refused: the configuration in force "
	    "stays");
}

/* restart_keys - say which changes a reload cannot carry out */
static void
restart_keys(const struct pa_config *was, const struct pa_config *now)
{
	if (!same(was->socket, now->socket))
		mlog(LOG_LEVEL_WARNING, "reload: Socket changed; it takes "
		    "effect at the next start");
	if (!same(was->user_id, now->user_id) || was->umask != now->umask ||
	    !same(was->pid_file, now->pid_file))
		mlog(LOG_LEVEL_WARNING, "reload: UserID, UMask or PidFile "
		    "changed; they take effect at the next start");
	if (!same(was->metrics_listen, now->metrics_listen) ||
	    was->metrics_remote != now->metrics_remote)
		mlog(LOG_LEVEL_WARNING, "reload: MetricsListen or "
		    "MetricsRemote changed; they take effect at the next start "
		    "(the endpoint is bound before privileges are dropped)");
}

/*
 * keep_start_keys - now takes in_use's values of the keys only a start
 * carries out (-p's socket among them), so that the generation says what
 * is in use and the next reload compares with that, not with the file
 * as an earlier reload read it
 */
static int
keep_start_keys(struct pa_config *now, const struct pa_config *in_use)
{
	char **texts[] = { &now->socket, &now->user_id, &now->pid_file,
	    &now->metrics_listen };
	const char *used[] = { in_use->socket, in_use->user_id,
	    in_use->pid_file, in_use->metrics_listen };
	char *copy;
	size_t i;

	for (i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		copy = NULL;
		if (used[i] != NULL && (copy = strdup(used[i])) == NULL)
			return PA_ENOMEM;
		free(*texts[i]);
		*texts[i] = copy;
	}
	now->umask = in_use->umask;
	now->metrics_remote = in_use->metrics_remote;
	return 0;
}

int
reload_read(const char *path, const struct pa_config *in_use,
    struct pa_config *cf)
{
	struct sbuf problems;
	int rc;

	sbuf_init(&problems, 1 << 16);
	if ((rc = config_init(cf)) == 0)
		rc = config_load(cf, path, &problems);
	if (rc != 0)
		log_problems(&problems, rc);
	sbuf_release(&problems);
	if (rc != 0) {
		config_release(cf);
		return rc;
	}
	restart_keys(in_use, cf);
	if (keep_start_keys(cf, in_use) != 0) {
		mlog(LOG_LEVEL_ERROR, "reload: %s", pa_strerror(PA_ENOMEM));
		config_release(cf);
		return PA_ENOMEM;
	}
	return 0;
}
