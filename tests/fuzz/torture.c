/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * torture - every allocation of a message's way through the milter made
 * to fail in turn: no crash, no leak, and the message answered as the
 * configuration says (OnError accept: marked, or passed with its forged
 * header removed).
 *
 * usage: torture MESSAGE...
 *
 * The milter's callbacks run on fakemilter.c's libmilter, in this one
 * thread.  Each message, with a forged X-Patch-Attested on top, is sent
 * once to warm what is kept between messages (a decider, GnuPG's key
 * listing, the index), then again in a child process for N = 1, 2, ...
 * with the Nth allocation made after the connection opens failing (the
 * malloc family of this program stands in for glibc's), until a run
 * makes fewer than N allocations.  A child reports how its message ended
 * and how many of the allocations made during the run are still live
 * after the connection closed.  Exit status 0 when every run was sound;
 * one line per message with the runs made.
 */
#include "config.h"

#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fakemilter.h"
#include "milter.h"

void	*__libc_malloc(size_t);
void	*__libc_calloc(size_t, size_t);
void	*__libc_realloc(void *, size_t);
void	 __libc_free(void *);
void	*__libc_memalign(size_t, size_t);

#define LIVE_SLOTS	(1u << 20)	/* allocations of one run tracked */

static long		 made;		/* allocations in the window */
static long		 fail_at;	/* the one to fail; 0: none */
static int		 window;	/* counting */
static uintptr_t	*live;		/* open addressing, 0: free */
static long		 nlive;

static size_t
slot(uintptr_t p)
{
	return (size_t)((p >> 4) * 0x9e3779b97f4a7c15ULL >> 44) &
	    (LIVE_SLOTS - 1);
}

static void
track(void *p)
{
	size_t i;

	if (!window || p == NULL || live == NULL)
		return;
	for (i = slot((uintptr_t)p); live[i] != 0; i = (i + 1) &
	    (LIVE_SLOTS - 1))
		;
	live[i] = (uintptr_t)p;
	nlive++;
}

static void
untrack(void *p)
{
	size_t i, j, k;

	if (p == NULL || live == NULL || nlive == 0)
		return;
	for (i = slot((uintptr_t)p); live[i] != 0; i = (i + 1) &
	    (LIVE_SLOTS - 1))
		if (live[i] == (uintptr_t)p)
			break;
	if (live[i] == 0)
		return;
	/* remove, moving back the entries that probed past it */
	live[i] = 0;
	nlive--;
	for (j = (i + 1) & (LIVE_SLOTS - 1); live[j] != 0;
	    j = (j + 1) & (LIVE_SLOTS - 1)) {
		k = slot(live[j]);
		if ((j > i && (k <= i || k > j)) || (j < i && k <= i && k > j)) {
			live[i] = live[j];
			live[j] = 0;
			i = j;
		}
	}
}

/* fails - whether this allocation is the one to fail */
static int
fails(void)
{
	if (!window)
		return 0;
	return ++made == fail_at;
}

void *
malloc(size_t n)
{
	void *p;

	if (fails()) {
		errno = ENOMEM;
		return NULL;
	}
	p = __libc_malloc(n);
	track(p);
	return p;
}

void *
calloc(size_t n, size_t size)
{
	void *p;

	if (fails()) {
		errno = ENOMEM;
		return NULL;
	}
	p = __libc_calloc(n, size);
	track(p);
	return p;
}

void *
realloc(void *old, size_t n)
{
	void *p;

	if (fails()) {
		errno = ENOMEM;
		return NULL;
	}
	p = __libc_realloc(old, n);
	if (p != NULL || n == 0) {
		untrack(old);
		track(p);
	}
	return p;
}

void
free(void *p)
{
	untrack(p);
	__libc_free(p);
}

int
posix_memalign(void **out, size_t align, size_t n)
{
	if (fails())
		return ENOMEM;
	if ((*out = __libc_memalign(align, n)) == NULL)
		return ENOMEM;
	track(*out);
	return 0;
}

void *
aligned_alloc(size_t align, size_t n)
{
	void *p;

	if (fails()) {
		errno = ENOMEM;
		return NULL;
	}
	p = __libc_memalign(align, n);
	track(p);
	return p;
}

void *
memalign(size_t align, size_t n)
{
	return aligned_alloc(align, n);
}

/* How a run ended, from the child to the parent. */
enum ending {
	ENDED_MARKED = 10,	/* our header added */
	ENDED_REPLIED,		/* a reply: the configured action */
	ENDED_STRIPPED,		/* passed, the forged header removed */
	ENDED_UNSOUND,		/* passed with the forged header, or no eom */
	ENDED_LEAKED		/* allocations of the run still live */
};

/* run_message - the message through the callbacks; how it ended */
static enum ending
run_message(const char *raw, size_t len)
{
	char host[] = "client.example", *argv[] = { "<a@example.org>", NULL };
	char name[256], value[8192], *colon;
	const char *p = raw, *end = raw + len, *nl;
	struct smfi_str ctx;
	sfsistat rc;
	size_t n;

	memset(&ctx, 0, sizeof(ctx));
	fake_reset(&ctx);
	if (milter_desc.xxfi_connect(&ctx, host, NULL) != SMFIS_CONTINUE)
		return ENDED_REPLIED;
	milter_desc.xxfi_envfrom(&ctx, argv);
	milter_desc.xxfi_header(&ctx, "X-Patch-Attested", "pass; forged");
	while (p < end && *p != '\n') {
		nl = memchr(p, '\n', (size_t)(end - p));
		n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		/* the continuation lines of a field are rare in the seeds */
		if (n < sizeof(value) && (colon = memchr(p, ':', n)) != NULL &&
		    (size_t)(colon - p) < sizeof(name)) {
			snprintf(name, sizeof(name), "%.*s", (int)(colon - p),
			    p);
			snprintf(value, sizeof(value), "%.*s",
			    (int)(n - (size_t)(colon - p) - 1), colon + 1);
			milter_desc.xxfi_header(&ctx, name, value);
		}
		p = nl ? nl + 1 : end;
	}
	milter_desc.xxfi_eoh(&ctx);
	if (p < end)
		p++;
	milter_desc.xxfi_body(&ctx, (unsigned char *)p, (size_t)(end - p));
	rc = milter_desc.xxfi_eom(&ctx);
	milter_desc.xxfi_close(&ctx);
	if (ctx.replied || rc == SMFIS_TEMPFAIL || rc == SMFIS_REJECT)
		return ENDED_REPLIED;
	if (ctx.inserted)
		return ENDED_MARKED;
	return ctx.stripped ? ENDED_STRIPPED : ENDED_UNSOUND;
}

/* one - the message with allocation n failing, in a child; its ending */
static int
one(const char *raw, size_t len, long n, long *nmade)
{
	enum ending e;
	int fd[2], st;
	pid_t pid;

	if (pipe(fd) != 0 || (pid = fork()) < 0)
		return -1;
	if (pid == 0) {
		close(fd[0]);
		fail_at = n;
		made = 0;
		window = 1;
		e = run_message(raw, len);
		window = 0;
		if (nlive > 0)
			e = ENDED_LEAKED;
		if (write(fd[1], &made, sizeof(made)) != sizeof(made))
			_exit(1);
		_exit((int)e);
	}
	close(fd[1]);
	if (read(fd[0], nmade, sizeof(*nmade)) != sizeof(*nmade))
		*nmade = -1;
	close(fd[0]);
	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int
main(int argc, char **argv)
{
	char dir[] = "/tmp/torture.XXXXXX";
	struct sbuf raw;
	long n, nmade, counts[4];
	int i, e, bad = 0, fd;

	if (argc < 2) {
		fprintf(stderr, "usage: torture MESSAGE...\n");
		return 2;
	}
	live = __libc_calloc(LIVE_SLOTS, sizeof(*live));
	if (live == NULL || mkdtemp(dir) == NULL ||
	    fake_start(dir, getenv("FUZZ_KEYRING"), NULL) != 0)
		return 2;
	sbuf_init(&raw, 64u << 20);
	for (i = 1; i < argc; i++) {
		sbuf_reset(&raw);
		if ((fd = open(argv[i], O_RDONLY)) < 0 ||
		    sbuf_read_fd(&raw, fd) != 0) {
			fprintf(stderr, "torture: cannot read %s\n", argv[i]);
			return 2;
		}
		close(fd);
		(void)run_message(raw.buf, raw.len);	/* warm */
		memset(counts, 0, sizeof(counts));
		for (n = 1;; n++) {
			e = one(raw.buf, raw.len, n, &nmade);
			if (e >= ENDED_MARKED && e <= ENDED_STRIPPED)
				counts[e - ENDED_MARKED]++;
			else {
				bad++;
				fprintf(stderr, "torture: %s: allocation %ld "
				    "failing: %s\n", argv[i], n,
				    e == ENDED_UNSOUND ? "passed unmarked with "
				    "its forged header" : e == ENDED_LEAKED ?
				    "allocations left live" : e > 128 ?
				    "killed by a signal" : "the run failed");
			}
			if (nmade >= 0 && nmade < n)
				break;
		}
		printf("torture: %s: %ld allocations, each failed in turn: "
		    "%ld marked, %ld answered as OnError, %ld passed with the "
		    "forged header removed\n", argv[i], n - 1, counts[0],
		    counts[1], counts[2]);
	}
	sbuf_release(&raw);
	printf("torture: %d unsound run(s)\n", bad);
	return bad ? 1 : 0;
}
