/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * copylog.c - what the milter says when a Message-ID arrives again: the
 * ledger's watcher (ledger_watch()), called from its writing thread once
 * a copy is written.
 *
 * A copy whose patch (or a cover letter's subject) is not the first's is
 * either an attack (someone sent their own version of a patch that went
 * to the list, before or after it) or a relay that changes mail: both
 * want an admin, so it is a warning, naming where each copy came from.
 * A copy the same as the first is a line at info level.  Each is
 * counted for the metrics.
 */
#include "config.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "milter.h"

static atomic_ullong	counted[2];	/* the same as the first, differing */

void
copylog_counts(unsigned long long *identical, unsigned long long *differing)
{
	*identical = atomic_load_explicit(&counted[0], memory_order_relaxed);
	*differing = atomic_load_explicit(&counted[1], memory_order_relaxed);
}

/* count - a copy, and more written with it */
static void
count(int differs, unsigned more, unsigned more_differing)
{
	atomic_fetch_add_explicit(&counted[differs != 0], 1,
	    memory_order_relaxed);
	atomic_fetch_add_explicit(&counted[0], more - more_differing,
	    memory_order_relaxed);
	atomic_fetch_add_explicit(&counted[1], more_differing,
	    memory_order_relaxed);
}

/* origin - where a came from, as the record keeps it, each field quoted */
static void
origin(struct sbuf *line, const char *what, const struct arrival *a)
{
	char when[32];
	struct tm tm;

	if (gmtime_r(&a->arrived, &tm) == NULL ||
	    strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(when, sizeof(when), "%lld", (long long)a->arrived);
	sbuf_addf(line, " %s=%u arrived=%s from=", what, a->copy, when);
	hdrfmt_quoted(line, a->envelope_from);
	sbuf_addstr(line, " host=");
	hdrfmt_quoted(line, a->host);
	sbuf_addstr(line, " queue=");
	hdrfmt_quoted(line, a->queue_id);
	sbuf_addstr(line, " list=");
	hdrfmt_quoted(line, a->list_id);
}

/* parts - the parts that differ, in words */
static void
parts(struct sbuf *line, unsigned p)
{
	if (p & ARRIVAL_PART_I)
		sbuf_addstr(line, "author-or-subject");
	if (p & ARRIVAL_PART_M)
		sbuf_addstr(line, p & ARRIVAL_PART_I ? ",commit-message" :
		    "commit-message");
	if (p & ARRIVAL_PART_P)
		sbuf_addstr(line, p & (ARRIVAL_PART_I | ARRIVAL_PART_M) ?
		    ",diff" : "diff");
}

void
copylog_copy(void *arg, const struct ledger_copy_event *ev)
{
	const struct arrival *a = ev->copy;
	struct sbuf line, id;

	(void)arg;
	count(a->differs, ev->untold, ev->untold_differing);
	sbuf_init(&id, ARRIVAL_MSGID_MAX + 2);
	sbuf_init(&line, 4096);
	/* as the decision's line writes it: with its <> */
	sbuf_addf(&id, "<%s>", a->message_id);
	sbuf_addstr(&line, "message-id=");
	hdrfmt_quoted(&line, id.buf);
	sbuf_release(&id);
	if (a->differs) {
		sbuf_addstr(&line, " arrived again with other content: ");
		parts(&line, a->parts);
		sbuf_addstr(&line, " differs from the first copy;");
	} else
		sbuf_addstr(&line, " arrived again, the same as the first "
		    "copy;");
	sbuf_addf(&line, " %u copies, %u differing;", ev->copies.arrived,
	    ev->copies.differing);
	origin(&line, "copy", a);
	if (ev->first != NULL)
		origin(&line, "first", ev->first);
	if (!ev->kept)
		sbuf_addstr(&line, "; only counted, not kept");
	if (ev->untold > 0)
		sbuf_addf(&line, "; %u more copies written with it are not "
		    "logged, %u of them differing", ev->untold,
		    ev->untold_differing);
	if (sbuf_failed(&line))
		mlog(LOG_LEVEL_WARNING, "a copy of a Message-ID arrived; its "
		    "log line did not fit");
	else if (a->differs || ev->untold_differing > 0)
		mlog(LOG_LEVEL_WARNING, "%s%s%s (an attack, or a relay that "
		    "changes mail: patchattest arrived lists the copies)",
		    a->queue_id[0] ? a->queue_id : "", a->queue_id[0] ?
		    ": " : "", line.buf);
	else
		mlog(LOG_LEVEL_INFO, "%s%s%s", a->queue_id[0] ? a->queue_id :
		    "", a->queue_id[0] ? ": " : "", line.buf);
	sbuf_release(&line);
}
