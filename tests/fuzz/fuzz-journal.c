/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fuzz-journal - libFuzzer target: StateDatabase's journal read from a
 * file of any bytes (lib/state/pg-journal*).  The first byte picks how
 * the file is made: even, the rest of the input is the file; odd, the
 * rest is a list of changes to a whole journal of JOURNAL_N records made
 * once (op, offset, length, bytes: overwrite, cut, or copy one part
 * over another), so that the frames' checks are passed and damage meets
 * real entries.  The journal is opened, every entry taken and removed,
 * opened again.  No crash, no read out of bounds, no leak; an entry taken
 * from a changed journal is one of the records put, under the sequence
 * number it was put with, taken once; and what the first open set aside
 * is not told again by the second.  A file that LMDB would read (the
 * journal of earlier versions, converted through LMDB, which trusts its
 * pages) is passed over.
 */
#include "config.h"

#include <sys/stat.h>

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "patchattest.h"
#include "base.h"
#include "state.h"
#include "pg-journal-int.h"

#define JOURNAL_N	40

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static char		 path[512], aside[600], fresh[600];
static unsigned char	*template;
static size_t		 template_len;
static int		 told;

static void
damaged(void *arg, const char *why, uint64_t lost, uint64_t bytes)
{
	(void)arg, (void)why, (void)lost, (void)bytes;
	told++;
}

static const struct statedb_notice notice = { NULL, NULL, damaged };

/* record - record n of the template */
static void
record(struct arrival *a, int n)
{
	char id[64];

	memset(a, 0, sizeof(*a));
	snprintf(id, sizeof(id), "fuzz%d@example.org", n);
	arrival_set_message_id(a, id, strlen(id));
	a->arrived = 1700000000 + n;
	snprintf(a->subject, sizeof(a->subject), "[PATCH %d/%d] x", n,
	    JOURNAL_N);
	snprintf(a->identity, sizeof(a->identity), "dev%d@example.org", n);
	a->has_patch = n % 3 != 0;
	snprintf(a->result, sizeof(a->result), "pass");
}

static void
write_file(const void *p, size_t n)
{
	int fd;

	unlink(aside);
	unlink(fresh);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600)) < 0 ||
	    (n > 0 && write(fd, p, n) != (ssize_t)n))
		abort();
	close(fd);
}

/* setup - the scratch folder and the template journal, once */
static void
setup(void)
{
	const char *tmp = access("/dev/shm", W_OK) == 0 ? "/dev/shm" :
	    getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp";
	struct journal *j;
	struct arrival a;
	struct pa_err err;
	uint64_t seq;
	char dir[256];
	int i, fd;
	struct stat st;

	snprintf(dir, sizeof(dir), "%s/fuzz-journal.XXXXXX", tmp);
	if (mkdtemp(dir) == NULL)
		abort();
	snprintf(path, sizeof(path), "%s/j", dir);
	snprintf(aside, sizeof(aside), "%s-damaged", path);
	snprintf(fresh, sizeof(fresh), "%s.new", path);
	if (journal_open(&j, path, NULL, &err) != 0)
		abort();
	for (i = 0; i < JOURNAL_N; i++) {
		record(&a, i);
		if (journal_put(j, &a, &seq, &err) != 0)
			abort();
	}
	journal_close(j);
	if ((fd = open(path, O_RDONLY)) < 0 || fstat(fd, &st) != 0 ||
	    (template = malloc((size_t)st.st_size)) == NULL ||
	    read(fd, template, (size_t)st.st_size) != st.st_size)
		abort();
	template_len = (size_t)st.st_size;
	close(fd);
}

/* change - the changes of p applied to the template into out: its size */
static size_t
change(unsigned char *out, const uint8_t *p, size_t n)
{
	size_t len = template_len, at, k, from;

	memcpy(out, template, template_len);
	while (n >= 4 && len > 0) {
		at = ((size_t)p[1] << 8 | p[2]) * 7 % len;
		k = p[3];
		switch (p[0] % 3) {
		case 0:		/* bytes written over */
			p += 4, n -= 4;
			k = k < n ? k : n;
			k = k < len - at ? k : len - at;
			memcpy(out + at, p, k);
			p += k, n -= k;
			break;
		case 1:		/* cut */
			len = at;
			p += 4, n -= 4;
			break;
		default:	/* a part copied over another */
			from = (size_t)k * 97 % len;
			k = (size_t)p[3] * 4;
			k = k < len - at ? k : len - at;
			k = k < len - from ? k : len - from;
			memmove(out + at, out + from, k);
			p += 4, n -= 4;
			break;
		}
	}
	return len;
}

/* take_all - every entry taken and removed, checked if checked */
static void
take_all(struct journal *j, int checked)
{
	static struct journal_entry e[64];
	unsigned char seen[JOURNAL_N] = { 0 };
	struct arrival a;
	struct pa_err err;
	size_t n, i;

	while (journal_take(j, e, 64, &n, &err) == 0 && n > 0) {
		for (i = 0; checked && i < n; i++) {
			if (e[i].seq < 1 || e[i].seq > JOURNAL_N ||
			    seen[e[i].seq - 1]++)
				abort();
			record(&a, (int)e[i].seq - 1);
			if (memcmp(&a, &e[i].a, sizeof(a)) != 0)
				abort();
		}
		if (journal_remove(j, e, n, &err) != 0)
			break;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static unsigned char *buf;
	struct journal *j;
	struct pa_err err;
	int checked;

	if (template == NULL)
		setup();
	if (buf == NULL && (buf = malloc(template_len)) == NULL)
		abort();
	if (size < 1)
		return 0;
	checked = data[0] & 1;
	if (checked) {
		size = change(buf, data + 1, size - 1);
		data = buf;
	} else
		data++, size--;
	if (jlmdb_probe(data, size))
		return 0;
	write_file(data, size);
	(void)journal_check(path, &err);
	told = 0;
	if (journal_open(&j, path, &notice, &err) != 0)
		return 0;
	take_all(j, checked);
	journal_close(j);
	told = 0;
	if (journal_open(&j, path, &notice, &err) != 0 || told != 0)
		abort();
	journal_close(j);
	return 0;
}
