/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * journal-util.c - what the journal's tests share (see journal-util.h).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "patchattest.h"
#include "base.h"
#include "state.h"
#include "pg-journal-int.h"
#include "tap.h"
#include "journal-util.h"

static char dir[256];

void
jt_scratch(const char *name)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(dir, sizeof(dir), "%s/%s.XXXXXX", tmp && tmp[0] ? tmp :
	    "/tmp", name);
	if (mkdtemp(dir) == NULL)
		tap_skip_all("cannot make a scratch folder");
}

const char *
jt_at(const char *name)
{
	static char path[2][512];
	static int turn;

	turn ^= 1;
	snprintf(path[turn], sizeof(path[turn]), "%s/%s", dir, name);
	return path[turn];
}

void
jt_done(void)
{
	tap_rmtree(dir);
}

static void
damaged(void *arg, const char *why, uint64_t lost, uint64_t bytes)
{
	struct told *t = arg;

	t->times++;
	t->lost += lost;
	t->bytes += bytes;
	snprintf(t->why, sizeof(t->why), "%s", why);
}

const struct statedb_notice *
jt_notice(struct told *t)
{
	t->notice.fn = NULL;
	t->notice.arg = t;
	t->notice.damaged = damaged;
	return &t->notice;
}

void
jt_fill(struct arrival *a, int n)
{
	char id[64];

	memset(a, 0, sizeof(*a));
	snprintf(id, sizeof(id), "msg%d@example.org", n);
	arrival_set_message_id(a, id, strlen(id));
	a->arrived = JT_WHEN + n;
	snprintf(a->envelope_from, sizeof(a->envelope_from),
	    "bounce%d@example.org", n);
	snprintf(a->author, sizeof(a->author), "Dev %d <dev%d@example.org>",
	    n, n);
	snprintf(a->identity, sizeof(a->identity), "dev%d@example.org", n);
	snprintf(a->subject, sizeof(a->subject), "[PATCH %d/9] fix %d", n, n);
	a->has_patch = 1;
	snprintf(a->m, sizeof(a->m), "%064x", n + 2);
	snprintf(a->patch_id, sizeof(a->patch_id), "%040x", n + 5);
	snprintf(a->result, sizeof(a->result), "pass");
	snprintf(a->patatt, sizeof(a->patatt), "pass");
	snprintf(a->key, sizeof(a->key), "openpgp/dev%d@example.org/default",
	    n);
	a->signed_trusted = 1;
}

size_t
jt_frame_len(int n)
{
	static const unsigned char key[JKEY_LEN], id[JID_LEN];
	struct arrival a;
	struct sbuf sb;
	size_t len;

	jt_fill(&a, n);
	sbuf_init(&sb, JFRAME_MAX);
	len = jframe_make(&sb, key, 1, 0, id, &a) == 0 ? sb.len : 0;
	sbuf_release(&sb);
	return len;
}

int
jt_collect(void *arg, const struct journal_entry *e)
{
	struct got *g = arg;

	if (g->n < 8)
		g->a[g->n] = e->a;
	g->n++;
	return 0;
}

int
jt_count(void *arg, const struct journal_entry *e)
{
	(void)e;
	++*(int *)arg;
	return 0;
}
