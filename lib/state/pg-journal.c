/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pg-journal.c - the local journal of arrival records on their way to
 * StateDatabase (see pg-int.h): a file of our own form, appended to and
 * read with pread() (pg-journal-int.h), with a ring in memory of the
 * entries not yet sent (where each is, and its Message-ID's hash).
 *
 * A put is one write that waits on no disk: the sender syncs the file
 * once per batch (journal_sync(), LEDGER_GATHER_MS after the batch's
 * first put, the database there or not), then writes in the header that
 * the entries up to there are synced: an entry found missing at the next
 * open that the header says was synced is counted lost, not forgotten.
 * A batch the database committed is marked sent in the header (synced);
 * the file is cut back when all is sent, or rewritten with the unsent
 * entries alone when the sent ones before them fill COMPACT_MIN and
 * outweigh them.  A record therefore stays until the database has it,
 * across an outage, a restart or a power loss once its batch is synced,
 * and a record sent twice (the process ended between the commit and the
 * mark) is stored once by its record id.
 *
 * Damage (bytes that are no trusted frame, entries missing, a file cut
 * short, empty, or not a journal) is found when the file is opened, or
 * when an entry is read again to be sent: what can be read is kept and
 * sent, the rest is set aside in PATH-damaged and counted, the journal
 * rewritten without it, and statedb_notice's damaged told.
 */
#include "config.h"

#include <sys/random.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base.h"
#include "ledger-int.h"		/* ledger_msgid_hash() */
#include "pg-journal-int.h"

#define COMPACT_MIN	((uint64_t)4 << 20)	/* sent bytes worth a rewrite */

static int
nomem(struct pa_err *err)
{
	pa_err_set(err, "%s", pa_strerror(PA_ENOMEM));
	return PA_ENOMEM;
}

/* place_at - path's folder opened into j->dirfd and its name j->name */
static int
place_at(struct journal *j, const char *path, struct pa_err *err)
{
	char *d, *n;

	if ((d = strdup(path)) == NULL || (n = strdup(path)) == NULL) {
		free(d);
		return nomem(err);
	}
	j->dirfd = open(dirname(d), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	j->name = strdup(basename(n));
	free(d);
	free(n);
	if (j->name == NULL)
		return nomem(err);
	if (j->dirfd < 0)
		return jfail(j, err, "cannot open the folder of", NULL);
	return 0;
}

/* open_file - the file there: 1, 0 when there is none, or PA_ERROR */
static int
open_file(struct journal *j, struct pa_err *err)
{
	struct stat st;

	if ((j->fd = openat(j->dirfd, j->name, O_RDWR | O_NOFOLLOW |
	    O_CLOEXEC | O_NOCTTY | O_NONBLOCK)) < 0) {
		if (errno == ENOENT)
			return 0;
		return jfail(j, err, "cannot open", errno == ELOOP ? "it is "
		    "a symbolic link (not followed)" : NULL);
	}
	if (fstat(j->fd, &st) != 0 || !S_ISREG(st.st_mode))
		return jfail(j, err, "cannot open", "not a regular file");
	return 1;
}

/* settle - after the reading: a new file, a rewrite, or the header's
   synced mark brought up to what is there */
static int
settle(struct journal *j, const struct jdamage *d, struct pa_err *err)
{
	struct stat st;

	if (d->empty || d->headless)
		return jfresh(j, err);
	if (d->bytes > 0 || d->lost > 0 || d->cut > 0 || d->headcut ||
	    fstat(j->fd, &st) != 0 || (uint64_t)st.st_size != j->end ||
	    j->h.sent_off > j->end)
		return jrewrite(j, err);
	return journal_sync(j, err);
}

/* load - the journal at j's place read, made or converted */
static int
load(struct journal *j, struct pa_err *err)
{
	unsigned char probe[32];
	struct jdamage d;
	ssize_t n;
	int rc;

	memset(&d, 0, sizeof(d));
	if ((rc = open_file(j, err)) <= 0)
		return rc == 0 ? jfresh(j, err) : rc;
	if ((n = jpread(j->fd, probe, sizeof(probe), 0)) < 0)
		return jfail(j, err, "cannot read", NULL);
	if (jlmdb_probe(probe, (size_t)n) &&
	    (rc = jconvert(j, &d, err)) != 0)
		return rc;
	jreport(j, &d);		/* what the conversion could not read */
	if ((rc = jscan_file(j, &d, err)) != 0 ||
	    (rc = settle(j, &d, err)) != 0)
		return rc;
	jreport(j, &d);
	return 0;
}

int
journal_open(struct journal **out, const char *path,
    const struct statedb_notice *notice, struct pa_err *err)
{
	struct journal *j;
	int rc;

	*out = NULL;
	if ((j = calloc(1, sizeof(*j))) == NULL ||
	    (j->path = strdup(path)) == NULL) {
		free(j);
		return nomem(err);
	}
	j->dirfd = j->fd = j->aside = -1;
	if (notice != NULL)
		j->notice = *notice;
	pthread_mutex_init(&j->lock, NULL);
	if ((rc = place_at(j, path, err)) != 0 ||
	    (rc = load(j, err)) != 0) {
		/* left as it was found: no sync, no mark written */
		if (j->fd >= 0)
			close(j->fd);
		j->fd = -1;
		journal_close(j);
		return rc;
	}
	*out = j;
	return 0;
}

void
journal_close(struct journal *j)
{
	struct pa_err err;

	if (j == NULL)
		return;
	if (j->fd >= 0) {
		(void)journal_sync(j, &err);
		close(j->fd);
	}
	if (j->aside >= 0)
		close(j->aside);
	if (j->dirfd >= 0)
		close(j->dirfd);
	pthread_mutex_destroy(&j->lock);
	free(j->ring);
	free(j->name);
	free(j->path);
	free(j);
}

void
journal_left(struct journal *j, uint64_t *put, uint64_t *sent)
{
	pthread_mutex_lock(&j->lock);
	*put = j->next_seq - 1;
	*sent = *put - j->live;
	pthread_mutex_unlock(&j->lock);
}

/* append - the frame in sb as the next entry (j->lock held) */
static int
append(struct journal *j, const struct sbuf *sb, uint32_t hash,
    struct pa_err *err)
{
	struct jent e = { j->next_seq, j->end, (uint32_t)sb->len, hash };
	int rc, saved;

	if (j->count >= JOURNAL_RING ||
	    j->end - j->h.sent_off + sb->len > JOURNAL_CAP)
		return jfail(j, err, "cannot write to", "it is full (the state "
		    "database has been away too long)");
	if (jring_add(j, &e) != 0)
		return nomem(err);
	if (jpwrite(j->fd, sb->buf, sb->len, j->end) != 0) {
		saved = errno;
		/* No torn frame: the next one is written where it began. */
		if (ftruncate(j->fd, (off_t)j->end) != 0) {
			pa_err_set(err, "cannot write to the journal of arrival "
			    "records at %s: %s, nor cut off the part written "
			    "(%s), which its next reading may set aside as "
			    "damaged bytes", j->path, strerror(saved),
			    strerror(errno));
			rc = PA_ERROR;
		} else {
			errno = saved;
			rc = jfail(j, err, "cannot write to", NULL);
		}
		j->count--;
		j->live--;
		return rc;
	}
	j->end += sb->len;
	j->last_seq = j->next_seq++;
	return 0;
}

int
journal_put(struct journal *j, const struct arrival *a, uint64_t *seq,
    struct pa_err *err)
{
	unsigned char id[JID_LEN];
	struct sbuf sb;
	uint32_t hash;
	int rc;

	if (getrandom(id, sizeof(id), 0) != (ssize_t)sizeof(id)) {
		pa_err_set(err, "no random bytes for a record id: %s",
		    strerror(errno));
		return PA_ERROR;
	}
	if (jframe_hash(a, &hash) != 0)
		return nomem(err);
	sbuf_init(&sb, JFRAME_MAX);
	pthread_mutex_lock(&j->lock);
	if (jframe_make(&sb, j->h.key, j->next_seq, j->last_seq, id, a) != 0)
		rc = nomem(err);
	else if ((rc = append(j, &sb, hash, err)) == 0)
		*seq = j->last_seq;
	pthread_mutex_unlock(&j->lock);
	sbuf_release(&sb);
	return rc;
}

int
journal_sync(struct journal *j, struct pa_err *err)
{
	uint64_t last;

	pthread_mutex_lock(&j->lock);
	last = j->last_seq;
	pthread_mutex_unlock(&j->lock);
	if (last == j->h.synced)
		return 0;
	/* the entries on the disk first, then the mark that says so */
	if (fdatasync(j->fd) != 0)
		return jfail(j, err, "cannot sync", NULL);
	j->h.synced = last;
	return jhead_write(j, err);
}

/* find - the ring index of seq (j->lock held), or count */
static size_t
find(struct journal *j, uint64_t seq)
{
	size_t lo = 0, hi = j->count, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (JRING(j, mid).seq < seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < j->count && JRING(j, lo).seq == seq ? lo : j->count;
}

/* gone - the entry of seq sent or lost (j->lock held) */
static void
gone(struct journal *j, uint64_t seq)
{
	size_t k = find(j, seq);

	if (k < j->count && JRING(j, k).len != 0) {
		JRING(j, k).len = 0;
		j->live--;
	}
}

/* advance - the ring's head past the entries gone, the header's sent
   mark with it (j->lock held): whether none is left */
static int
advance(struct journal *j)
{
	while (j->count > 0 && JRING(j, 0).len == 0) {
		j->h.sent = JRING(j, 0).seq;
		j->head = (j->head + 1) & (j->cap - 1);
		j->count--;
	}
	if (j->count == 0)
		j->h.sent = j->last_seq;
	j->h.sent_off = j->count > 0 ? JRING(j, 0).off : JHEAD;
	return j->count == 0;
}

/* entry - the entry r read into e: 0, or -1 when it is damaged */
static int
entry(struct journal *j, const struct jent *r, unsigned char *buf,
    struct journal_entry *e)
{
	unsigned char id[JID_LEN];
	uint64_t prev;
	size_t len;

	if (jpread(j->fd, buf, r->len, r->off) != (ssize_t)r->len ||
	    jframe_read(buf, r->len, j->h.key, &len, &e->seq, &prev, id,
	    &e->a) != JFRAME_OK || len != r->len || e->seq != r->seq)
		return -1;
	codec_hex(e->record_id, id, JID_LEN, 0);
	return 0;
}

/* lose - the entry r, found damaged: set aside, gone */
static int
lose(struct journal *j, const struct jent *r, struct jdamage *d,
    struct pa_err *err)
{
	if (jaside(j, j->fd, r->off, r->off + r->len, d, err) != 0)
		return PA_ERROR;
	if (d->bytes == 0)
		d->first = r->off;
	d->bytes += r->len;
	d->lost++;
	pthread_mutex_lock(&j->lock);
	gone(j, r->seq);
	pthread_mutex_unlock(&j->lock);
	return 0;
}

int
journal_take(struct journal *j, struct journal_entry *e, size_t max,
    size_t *n, struct pa_err *err)
{
	struct jdamage d;
	struct jent *r;
	unsigned char *buf;
	size_t count = 0, i;
	int rc;

	*n = 0;
	/* what is sent is on the disk first: a record is never in the
	   database and lost here, which a crash could otherwise do */
	if ((rc = journal_sync(j, err)) != 0)
		return rc;
	if ((buf = malloc(JFRAME_MAX)) == NULL ||
	    (r = malloc((max > 0 ? max : 1) * sizeof(*r))) == NULL) {
		free(buf);
		return nomem(err);
	}
	memset(&d, 0, sizeof(d));
	pthread_mutex_lock(&j->lock);
	for (i = 0; i < j->count && count < max; i++)
		if (JRING(j, i).len != 0)
			r[count++] = JRING(j, i);
	pthread_mutex_unlock(&j->lock);
	for (i = 0; i < count && rc == 0; i++) {
		if (entry(j, &r[i], buf, &e[*n]) == 0)
			(*n)++;
		else
			rc = lose(j, &r[i], &d, err);
	}
	free(r);
	free(buf);
	if (d.bytes > 0) {
		jreport(j, &d);
		/* without the damage: the next open does not find it again */
		pthread_mutex_lock(&j->lock);
		advance(j);
		pthread_mutex_unlock(&j->lock);
		if (rc == 0)
			rc = jrewrite(j, err);
	}
	return rc;
}

int
journal_remove(struct journal *j, const struct journal_entry *e, size_t n,
    struct pa_err *err)
{
	uint64_t prefix, rest;
	size_t i;
	int all, rc;

	pthread_mutex_lock(&j->lock);
	for (i = 0; i < n; i++)
		gone(j, e[i].seq);
	all = advance(j);
	prefix = j->count > 0 ? JRING(j, 0).off - JHEAD : 0;
	rest = j->end - (j->count > 0 ? JRING(j, 0).off : j->end);
	pthread_mutex_unlock(&j->lock);
	if ((rc = jhead_write(j, err)) != 0)
		return rc;
	if (all) {
		/* the header says all is sent: cut back, unless a put came
		   meanwhile (the next removal cuts it) */
		pthread_mutex_lock(&j->lock);
		if (j->count == 0 && ftruncate(j->fd, JHEAD) == 0)
			j->end = JHEAD;
		pthread_mutex_unlock(&j->lock);
		return 0;
	}
	if (prefix >= COMPACT_MIN && prefix >= rest)
		return jrewrite(j, err);
	return 0;
}

int
journal_each_msgid(struct journal *j, const unsigned char msgid[32],
    int (*fn)(void *, const struct journal_entry *), void *arg,
    struct pa_err *err)
{
	struct journal_entry *e;
	unsigned char *buf, hash[32];
	uint32_t want = bigend_get32(msgid);
	size_t i;
	int rc = 0;

	if ((e = malloc(sizeof(*e))) == NULL ||
	    (buf = malloc(JFRAME_MAX)) == NULL) {
		free(e);
		return nomem(err);
	}
	pthread_mutex_lock(&j->lock);
	for (i = 0; i < j->count && rc == 0; i++)
		/* one that cannot be read is the sender's to set aside */
		if (JRING(j, i).len != 0 && JRING(j, i).hash == want &&
		    entry(j, &JRING(j, i), buf, e) == 0 &&
		    ledger_msgid_hash(&e->a, hash) == 0 &&
		    memcmp(hash, msgid, 32) == 0)
			rc = fn(arg, e);
	pthread_mutex_unlock(&j->lock);
	free(buf);
	free(e);
	return rc;
}
