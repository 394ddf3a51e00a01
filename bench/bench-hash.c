/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bench-hash - how fast the library hashes mail, against SHA-256 alone.
 *
 * usage: bench-hash [-r ROUNDS] DIR|FILE...
 *
 * Every regular file of each DIR (in name order) and each FILE is read
 * into memory first; then, best of ROUNDS (default 5) rounds each:
 *  (a) mailmsg_parse + msghash_compute, primary hashes only,
 *  (b) the same with MSGHASH_VARIANTS,
 *  (c) digest_sha256 over each message's raw bytes once,
 * reported as messages/s and MB/s, with the time ratio (a)/(c).  The
 * report is for reading and for bench.sh, which picks the "primary" line.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "patchattest.h"
#include "base.h"
#include "benchutil.h"

#define BENCH_MAX_FILE	(64 * 1024 * 1024)
#define BENCH_ROUNDS	5

struct corpus {
	struct sbuf	*msg;
	size_t		 n;
	size_t		 alloc;
	size_t		 bytes;
};

struct tally {
	size_t		 hashed;	/* messages with an attestation ID */
	size_t		 nopatch;
	size_t		 other;		/* any other failure */
	size_t		 entries;	/* msghash entries, variants included */
};

static int	 name_cmp(const void *, const void *);
static void	 load_file(struct corpus *, const char *);
static void	 load_dir(struct corpus *, const char *);
static double	 round_hash(const struct corpus *, struct mailmsg *, unsigned,
		    struct tally *);
static double	 round_sha(const struct corpus *);
static void	 report(const char *, const struct corpus *, double);

static volatile unsigned char sink;

static int
name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* load_file - one message into the corpus; files over the cap are skipped */
static void
load_file(struct corpus *c, const char *path)
{
	struct sbuf *sb;
	char chunk[65536];
	ssize_t n;
	int fd;

	if (c->n == c->alloc) {
		c->alloc = c->alloc ? 2 * c->alloc : 1024;
		if ((c->msg = realloc(c->msg, c->alloc * sizeof(*c->msg))) ==
		    NULL)
			bench_die(path, strerror(errno));
	}
	sb = &c->msg[c->n];
	sbuf_init(sb, BENCH_MAX_FILE);
	if ((fd = open(path, O_RDONLY)) == -1)
		bench_die(path, strerror(errno));
	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			bench_die(path, strerror(errno));
		sbuf_add(sb, chunk, (size_t)n);
	}
	close(fd);
	if (sbuf_failed(sb)) {
		fprintf(stderr, "bench-hash: %s: %s, skipped\n", path,
		    pa_strerror(sbuf_failed(sb)));
		sbuf_release(sb);
		return;
	}
	c->bytes += sb->len;
	c->n++;
}

/* load_dir - every regular file of dir, in name order */
static void
load_dir(struct corpus *c, const char *dir)
{
	struct sbuf path;
	struct dirent *de;
	struct stat st;
	char **names = NULL;
	size_t n = 0, alloc = 0, i;
	DIR *d;

	if ((d = opendir(dir)) == NULL)
		bench_die(dir, strerror(errno));
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		if (n == alloc) {
			alloc = alloc ? 2 * alloc : 1024;
			if ((names = realloc(names, alloc * sizeof(*names))) ==
			    NULL)
				bench_die(dir, strerror(errno));
		}
		if ((names[n++] = strdup(de->d_name)) == NULL)
			bench_die(dir, strerror(errno));
	}
	closedir(d);
	if (n > 0)
		qsort(names, n, sizeof(*names), name_cmp);
	sbuf_init(&path, SBUF_NOMAX);
	for (i = 0; i < n; i++) {
		sbuf_reset(&path);
		sbuf_addf(&path, "%s/%s", dir, names[i]);
		if (sbuf_failed(&path))
			bench_die(dir, pa_strerror(sbuf_failed(&path)));
		if (stat(path.buf, &st) == 0 && S_ISREG(st.st_mode))
			load_file(c, path.buf);
		free(names[i]);
	}
	sbuf_release(&path);
	free(names);
}

/* round_hash - one pass of (a) or (b); the time it took */
static double
round_hash(const struct corpus *c, struct mailmsg *mm, unsigned flags,
    struct tally *t)
{
	struct msghash h;
	struct pa_err err;
	double start, took;
	size_t i;
	int rc;

	memset(t, 0, sizeof(*t));
	msghash_init(&h);
	start = bench_now();
	for (i = 0; i < c->n; i++) {
		rc = mailmsg_parse(mm, c->msg[i].buf, c->msg[i].len);
		if (rc == 0)
			rc = msghash_compute(&h, mm, flags, &err);
		if (rc == 0) {
			t->hashed++;
			t->entries += h.n;
			sink ^= h.entry[0].p[0];
		} else if (rc == PA_ENOPATCH)
			t->nopatch++;
		else
			t->other++;
	}
	took = bench_now() - start;
	msghash_release(&h);
	return took;
}

/* round_sha - one pass of (c) */
static double
round_sha(const struct corpus *c)
{
	unsigned char out[DIGEST_LEN];
	double start;
	size_t i;

	start = bench_now();
	for (i = 0; i < c->n; i++) {
		if (digest_sha256(out, c->msg[i].buf, c->msg[i].len) != 0)
			bench_die("sha256", "digest failed");
		sink ^= out[0];
	}
	return bench_now() - start;
}

static void
report(const char *label, const struct corpus *c, double secs)
{
	if (secs <= 0)
		secs = 1e-9;
	printf("%-9s %12.1f messages/s %10.2f MB/s %10.4f s\n", label,
	    (double)c->n / secs, (double)c->bytes / 1e6 / secs, secs);
}

int
main(int argc, char **argv)
{
	struct corpus c = { NULL, 0, 0, 0 };
	struct tally ta, tb;
	struct mailmsg *mm;
	struct stat st;
	double a, b, s, t;
	char *end;
	long rounds = BENCH_ROUNDS;
	size_t k;
	int i, r;

	bench_name = "bench-hash";
	i = 1;
	if (i + 1 < argc && strcmp(argv[i], "-r") == 0) {
		errno = 0;
		rounds = strtol(argv[i + 1], &end, 10);
		if (errno || *end || rounds < 1 || rounds > 1000)
			bench_die(argv[i + 1], "rounds must be 1 to 1000");
		i += 2;
	}
	if (i >= argc) {
		fputs("usage: bench-hash [-r ROUNDS] DIR|FILE...\n", stderr);
		return 2;
	}
	for (; i < argc; i++) {
		if (stat(argv[i], &st) == -1)
			bench_die(argv[i], strerror(errno));
		if (S_ISDIR(st.st_mode))
			load_dir(&c, argv[i]);
		else
			load_file(&c, argv[i]);
	}
	if (c.n == 0)
		bench_die("corpus", "no messages");
	if (mailmsg_new(&mm, BENCH_MAX_FILE) != 0)
		bench_die("mailmsg_new", pa_strerror(PA_ENOMEM));

	a = b = s = 0;
	for (r = 0; r < rounds; r++) {
		t = round_hash(&c, mm, 0, &ta);
		a = r == 0 || t < a ? t : a;
		t = round_hash(&c, mm, MSGHASH_VARIANTS, &tb);
		b = r == 0 || t < b ? t : b;
		t = round_sha(&c);
		s = r == 0 || t < s ? t : s;
	}

	printf("bench-hash: %zu messages, %.2f MB, best of %ld rounds\n",
	    c.n, (double)c.bytes / 1e6, rounds);
	printf("  %zu with an attestation ID, %zu without a patch, "
	    "%zu other failures; %.2f hash entries per message with variants\n",
	    ta.hashed, ta.nopatch, ta.other,
	    tb.hashed ? (double)tb.entries / (double)tb.hashed : 0.0);
	report("primary", &c, a);
	report("variants", &c, b);
	report("sha256", &c, s);
	printf("ratio primary/sha256 time: %.1f\n", s > 0 ? a / s : 0.0);
	printf("ratio variants/primary time: %.2f\n", a > 0 ? b / a : 0.0);

	mailmsg_free(mm);
	for (k = 0; k < c.n; k++)
		sbuf_release(&c.msg[k]);
	free(c.msg);
	return 0;
}
