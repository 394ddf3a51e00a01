/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pg-jwrite.c - StateDatabase's journal written whole (see
 * pg-journal-int.h): its header, a new empty journal, and a rewrite that
 * keeps only the unsent entries.  A new file is made beside the journal
 * as NAME.new, synced, renamed over it and the folder synced: at every
 * moment the name holds one whole journal, the old or the new.  Every
 * name is taken in the journal's folder as opened once (dirfd), and no
 * symbolic link is followed.
 */
#include "config.h"

#include <sys/random.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pg-journal-int.h"

#define COPY_BUF	((size_t)1 << 16)
#define COPY_SNAP	256	/* entries taken from the ring at once */

/* slot_write - h into the slot of its generation on fd */
static int
slot_write(int fd, const struct jslot *h)
{
	unsigned char raw[JSLOT_LEN];

	jslot_encode(raw, h);
	return jpwrite(fd, raw, sizeof(raw), h->gen & 1 ? JSLOT_B : 0);
}

int
jhead_write(struct journal *j, struct pa_err *err)
{
	j->h.gen++;
	if (slot_write(j->fd, &j->h) != 0 || fdatasync(j->fd) != 0)
		return jfail(j, err, "cannot write to", NULL);
	return 0;
}

/* new_name - NAME.new into out */
static int
new_name(const struct journal *j, char *out, size_t size,
    struct pa_err *err)
{
	if ((size_t)snprintf(out, size, "%s.new", j->name) < size)
		return 0;
	errno = ENAMETOOLONG;
	return jfail(j, err, "cannot rewrite", NULL);
}

int
jnewfile(struct journal *j, struct pa_err *err)
{
	char name[4096];
	int fd;

	if (new_name(j, name, sizeof(name), err) != 0)
		return -1;
	/* one left by a run that ended while making it */
	if (unlinkat(j->dirfd, name, 0) != 0 && errno != ENOENT) {
		jfail(j, err, "cannot rewrite", NULL);
		return -1;
	}
	if ((fd = openat(j->dirfd, name, O_RDWR | O_CREAT | O_EXCL |
	    O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0600)) < 0)
		jfail(j, err, "cannot rewrite", NULL);
	return fd;
}

/* discard - fd, NAME.new, given up */
static void
discard(struct journal *j, int fd)
{
	char name[4096];

	close(fd);
	if ((size_t)snprintf(name, sizeof(name), "%s.new", j->name) <
	    sizeof(name))
		(void)unlinkat(j->dirfd, name, 0);
}

int
jinstall(struct journal *j, int fd, struct pa_err *err)
{
	char name[4096];

	if (new_name(j, name, sizeof(name), err) != 0)
		return PA_ERROR;
	if (fdatasync(fd) != 0 ||
	    renameat(j->dirfd, name, j->dirfd, j->name) != 0)
		return jfail(j, err, "cannot rewrite", NULL);
	if (j->fd >= 0)
		close(j->fd);
	j->fd = fd;
	/* the name's change on the disk before anything more is put */
	if (fsync(j->dirfd) != 0)
		return jfail(j, err, "cannot rewrite", NULL);
	return 0;
}

/* head_new - both slots of h (generations gen and gen + 1) on fd */
static int
head_new(int fd, struct jslot *h)
{
	if (slot_write(fd, h) != 0)
		return -1;
	h->gen++;
	return slot_write(fd, h);
}

int
jfresh(struct journal *j, struct pa_err *err)
{
	struct jslot h = j->h;
	int fd, rc;

	if (getrandom(h.key, JKEY_LEN, 0) != JKEY_LEN)
		return jfail(j, err, "cannot make", NULL);
	if (j->next_seq == 0)
		j->next_seq = 1;
	h.gen++;
	h.sent = h.synced = j->last_seq = j->next_seq - 1;
	h.sent_off = JHEAD;
	if ((fd = jnewfile(j, err)) < 0)
		return PA_ERROR;
	if (head_new(fd, &h) != 0 || ftruncate(fd, JHEAD) != 0) {
		jfail(j, err, "cannot make", NULL);
		discard(j, fd);
		return PA_ERROR;
	}
	rc = jinstall(j, fd, err);
	if (j->fd != fd) {
		discard(j, fd);
		return rc;
	}
	j->h = h;
	j->end = JHEAD;
	j->head = j->count = j->live = 0;
	return rc;
}

/* flush - the n bytes of buf at *out on fd */
static int
flush(int fd, const unsigned char *buf, size_t *n, uint64_t *out)
{
	if (*n > 0 && jpwrite(fd, buf, *n, *out) != 0)
		return -1;
	*out += *n;
	*n = 0;
	return 0;
}

/*
 * copy - the frames of ring entries [from, to) read from j->fd and
 * written to fd from *out on, adjacent ones in one read, each linked to
 * the one before it (*prev, the last one's seq after); held: j->lock is,
 * else the entries are copied under it a few at a time
 */
static int
copy(struct journal *j, int fd, size_t from, size_t to, int held,
    uint64_t *out, uint64_t *prev, unsigned char *buf)
{
	struct jent snap[COPY_SNAP];
	const struct jent *e;
	uint64_t at = 0;	/* where buf's bytes were read from */
	size_t n = 0, i, k, m;

	for (i = from; i < to; i += m) {
		m = to - i < COPY_SNAP ? to - i : COPY_SNAP;
		if (!held)
			pthread_mutex_lock(&j->lock);
		for (k = 0; k < m; k++)
			snap[k] = JRING(j, i + k);
		if (!held)
			pthread_mutex_unlock(&j->lock);
		for (k = 0, e = snap; k < m; k++, e++) {
			if (e->len == 0)
				continue;
			if (n > 0 && (e->off != at + n ||
			    n + e->len > COPY_BUF) &&
			    flush(fd, buf, &n, out) != 0)
				return -1;
			if (n == 0)
				at = e->off;
			if (jpread(j->fd, buf + n, e->len, e->off) !=
			    (ssize_t)e->len) {
				if (errno == 0)
					errno = EIO;	/* cut under us */
				return -1;
			}
			jframe_relink(buf + n, *prev);
			*prev = e->seq;
			n += e->len;
		}
	}
	return flush(fd, buf, &n, out);
}

/* place - each entry's offset in the rewritten file; its end */
static uint64_t
place(struct journal *j)
{
	uint64_t o = JHEAD;
	size_t i;

	for (i = 0; i < j->count; i++)
		if (JRING(j, i).len != 0) {
			JRING(j, i).off = o;
			o += JRING(j, i).len;
		}
	return o;
}

/*
 * install - the rewritten file fd (out bytes, its last entry prev) in
 * place of j's, under the header h (j->lock held)
 */
static int
install(struct journal *j, int fd, struct jslot *h, uint64_t out,
    uint64_t prev, struct pa_err *err)
{
	int rc;

	h->synced = prev;	/* all of them, once synced */
	h->sent_off = JHEAD;
	if (head_new(fd, h) != 0 || ftruncate(fd, (off_t)out) != 0)
		return jfail(j, err, "cannot rewrite", NULL);
	rc = jinstall(j, fd, err);
	if (j->fd == fd) {
		j->end = place(j);
		j->h = *h;
		j->last_seq = prev;
	}
	return rc;
}

int
jrewrite(struct journal *j, struct pa_err *err)
{
	unsigned char *buf;
	struct jslot h;
	uint64_t out = JHEAD, prev = j->h.sent;
	size_t first;
	int fd, rc = PA_ERROR;

	if ((buf = malloc(COPY_BUF)) == NULL) {
		pa_err_set(err, "%s", pa_strerror(PA_ENOMEM));
		return PA_ENOMEM;
	}
	if ((fd = jnewfile(j, err)) < 0) {
		free(buf);
		return PA_ERROR;
	}
	/* the bulk while puts go on (they only append), then the rest */
	pthread_mutex_lock(&j->lock);
	first = j->count;
	pthread_mutex_unlock(&j->lock);
	errno = 0;
	if (copy(j, fd, 0, first, 0, &out, &prev, buf) != 0 ||
	    fdatasync(fd) != 0) {
		jfail(j, err, "cannot rewrite", NULL);
		goto out;
	}
	pthread_mutex_lock(&j->lock);
	h = j->h;
	h.gen++;
	if (copy(j, fd, first, j->count, 1, &out, &prev, buf) != 0)
		jfail(j, err, "cannot rewrite", NULL);
	else
		rc = install(j, fd, &h, out, prev, err);
	pthread_mutex_unlock(&j->lock);
out:
	if (rc != 0 && j->fd != fd)
		discard(j, fd);
	free(buf);
	return rc;
}
