/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pg-jbase.c - what the files of StateDatabase's journal share (see
 * pg-journal-int.h): its messages, whole reads and writes at an offset,
 * and the ring of unsent entries.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pg-journal-int.h"

int
jfail(const struct journal *j, struct pa_err *err, const char *what,
    const char *why)
{
	int e = errno;

	pa_err_set(err, "%s the journal of arrival records at %s: %s", what,
	    j->path, why != NULL ? why : strerror(e));
	return why == NULL && e == ENOMEM ? PA_ENOMEM : PA_ERROR;
}

ssize_t
jpread(int fd, void *buf, size_t n, uint64_t off)
{
	size_t got = 0;
	ssize_t r;

	while (got < n) {
		r = pread(fd, (char *)buf + got, n - got, (off_t)(off + got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

int
jpwrite(int fd, const void *p, size_t n, uint64_t off)
{
	ssize_t w;
	size_t done = 0;

	while (done < n) {
		w = pwrite(fd, (const char *)p + done, n - done,
		    (off_t)(off + done));
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		if (w == 0) {
			errno = ENOSPC;
			return -1;
		}
		done += (size_t)w;
	}
	return 0;
}

int
jring_add(struct journal *j, const struct jent *e)
{
	struct jent *ring;
	size_t cap, i;

	if (j->count == j->cap) {
		if (j->cap >= JOURNAL_RING)
			return -1;
		cap = j->cap == 0 ? JRING_FIRST : 2 * j->cap;
		if ((ring = malloc(cap * sizeof(*ring))) == NULL) {
			errno = ENOMEM;
			return -1;
		}
		for (i = 0; i < j->count; i++)
			ring[i] = JRING(j, i);
		free(j->ring);
		j->ring = ring;
		j->cap = cap;
		j->head = 0;
	}
	JRING(j, j->count) = *e;
	j->count++;
	if (e->len != 0)
		j->live++;
	return 0;
}
