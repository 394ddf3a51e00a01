/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t-arrival-corpus - the corpus replayed in arrival order through the
 * decider and a ledger (bench/replay.c, as make bench replays it): every
 * patch mail has its record, found by its Message-ID with the hashes it
 * was judged with, and by its patch-id when it has one, and no message that is neither a patch nor signed has
 * one.
 *
 * CORPUS is $PATCHATTEST_CORPUS/linux-leds, else
 * $srcdir/../shared/corpus/linux-leds; without it the test is skipped.
 */
#include "config.h"

#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "patchattest.h"
#include "mail.h"
#include "replay.h"
#include "tap.h"

static char home[64];

static void
cleanup(void)
{
	char gnupg[128];

	snprintf(gnupg, sizeof(gnupg), "%s/gnupg", home);
	tap_run(NULL, "gpgconf", "--homedir", gnupg, "--kill", "all", NULL);
	tap_rmtree(home);
}

/* same_record - fn of ledger_by_message_id(): the record of arg's mail */
static int
same_record(void *arg, const struct arrival *a)
{
	const struct arrival *want = arg;

	return a->arrived == want->arrived &&
	    strcmp(a->i, want->i) == 0 && strcmp(a->m, want->m) == 0 &&
	    strcmp(a->p, want->p) == 0;
}

/* any - fn of ledger_by_message_id(): there is a record */
static int
any(void *arg, const struct arrival *a)
{
	(void)arg;
	(void)a;
	return 1;
}

/* message_id - the Message-ID of file k, as the record keeps it */
static void
message_id(struct replay *r, char *out, size_t size)
{
	const char *v;
	size_t len;

	out[0] = '\0';
	if ((v = mailmsg_get(r->msg, "Message-ID", &len)) == NULL)
		return;
	while (len > 0 && strchr(" \t\r\n<", *v) != NULL) {
		v++;
		len--;
	}
	while (len > 0 && strchr(" \t\r\n>", v[len - 1]) != NULL)
		len--;
	snprintf(out, size, "%.*s", (int)len, v);
}

int
main(void)
{
	const char *corpus = getenv("PATCHATTEST_CORPUS"), *tmp;
	size_t k, patches = 0, found = 0, unjudged = 0, stray = 0, noid = 0;
	size_t withpid = 0, bypid = 0;
	char dir[4096], id[ARRIVAL_MSGID_MAX];
	struct replay r;
	struct decision d;
	struct arrival a;
	struct habit h;
	struct pa_err err;
	struct stat st;
	int rc;

	if (corpus && *corpus)
		snprintf(dir, sizeof(dir), "%s/linux-leds", corpus);
	else
		snprintf(dir, sizeof(dir), "%s/../shared/corpus/linux-leds",
		    tap_srcdir());
	if (stat(dir, &st) != 0)
		tap_skip_all("no corpus: %s not found (set PATCHATTEST_CORPUS "
		    "to the folder that holds linux-leds/)", dir);
	if (pa_global_init(&err) != 0)
		tap_skip_all("GnuPG not usable: %s", err.msg);
	tmp = getenv("TMPDIR");
	snprintf(home, sizeof(home), "%s/t-arrc.XXXXXX",
	    tmp && tmp[0] && strlen(tmp) < 40 ? tmp : "/tmp");
	if (mkdtemp(home) == NULL)
		tap_skip_all("cannot make a temporary folder");
	atexit(cleanup);
	if (!tap_check_int(replay_open(&r, dir, home, 3, &err), 0,
	    "replay %s", dir)) {
		tap_diag("%s", err.msg);
		return tap_done();
	}
	for (k = 0; k < r.nfiles; k++) {
		rc = replay_one(&r, k, &d, &a, &h, &err);
		if (rc == PA_ENOPATCH) {
			/* not judged: nothing may be recorded under its ID */
			unjudged++;
			message_id(&r, id, sizeof(id));
			if (id[0] != '\0' && ledger_by_message_id(r.lg, id,
			    any, NULL, &err) == 1 && stray++ < 5)
				tap_diag("%s: not judged, yet recorded",
				    r.files[k]);
			continue;
		}
		if (rc != 0) {
			tap_check(0, "%s: %s", r.files[k], err.msg);
			break;
		}
		if (!d.has_patch)
			continue;
		patches++;
		if (a.patch_id[0] != '\0') {
			withpid++;
			if (ledger_by_patch_id(r.lg, a.patch_id, same_record,
			    &a, &err) == 1)
				bypid++;
			else if (withpid - bypid <= 5)
				tap_diag("%s: not found by patch-id %s",
				    r.files[k], a.patch_id);
		}
		if (a.message_id[0] == '\0') {
			noid++;
			continue;
		}
		if (ledger_by_message_id(r.lg, a.message_id, same_record, &a,
		    &err) == 1)
			found++;
		else if (patches - found - noid <= 5)
			tap_diag("%s: no record of <%s>", r.files[k],
			    a.message_id);
	}
	tap_check(patches > 1000, "%zu patch mails judged (of %zu messages)",
	    patches, r.nfiles);
	tap_check_int(found + noid, patches, "every patch mail with a "
	    "Message-ID has its record, with its hashes (%zu without one)",
	    noid);
	tap_check(withpid > 1000, "%zu of them have a patch-id", withpid);
	tap_check_int(bypid, withpid, "each is found by its patch-id");
	tap_check_int(stray, 0, "none of the %zu messages not judged is "
	    "recorded", unjudged);
	replay_close(&r);
	return tap_done();
}
