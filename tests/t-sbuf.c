/* SPDX-License-Identifier: BSD-2-Clause */
/* t-sbuf - the buffer's invariants: NUL-terminated, capped, sticky errors */
#include "config.h"

#include <sys/wait.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "patchattest.h"
#include "grow.h"
#include "sbuf.h"
#include "tap.h"

/* read_fd - a pipe holding cap + over bytes, read into a buffer of cap */
static void
read_fd(size_t cap, size_t over)
{
	struct sbuf sb;
	size_t i, n = cap + over;
	char *data = malloc(n);
	int fds[2], rc;
	pid_t pid;

	if (data == NULL || pipe(fds) != 0) {
		tap_check(0, "read_fd: no pipe");
		free(data);
		return;
	}
	for (i = 0; i < n; i++)
		data[i] = (char)('a' + i % 26);
	if ((pid = fork()) == 0) {
		close(fds[0]);
		for (i = 0; i < n; i += (size_t)rc)
			if ((rc = (int)write(fds[1], data + i, n - i)) <= 0)
				_exit(1);
		_exit(0);
	}
	close(fds[1]);
	sbuf_init(&sb, cap);
	rc = sbuf_read_fd(&sb, fds[0]);
	close(fds[0]);
	if (pid > 0)
		waitpid(pid, NULL, 0);	/* a writer cut short dies of SIGPIPE */
	tap_check_int(rc, over ? PA_ETOOBIG : 0, "read_fd of %zu bytes into "
	    "a cap of %zu", n, cap);
	if (over == 0)
		tap_check(sb.len == cap && memcmp(sb.buf, data, cap) == 0 &&
		    sb.buf[sb.len] == '\0', "  ... all of it, NUL-terminated");
	sbuf_release(&sb);
	free(data);
}

/* GROW: doubling from first, up to max, every element kept */
static void
test_grow(void)
{
	long *v = NULL;
	size_t n = 0, alloc = 0, allocs[8], k = 0;
	int rc = 0, kept = 1;

	while (n < 40 && (rc = GROW(v, n, alloc, 4, 40)) == 0) {
		if (k == 0 || allocs[k - 1] != alloc)
			allocs[k++ < 8 ? k - 1 : 7] = alloc;
		v[n] = (long)n * 7;
		n++;
	}
	for (size_t i = 0; i < n; i++)
		kept &= v[i] == (long)i * 7;
	tap_check(rc == 0 && n == 40 && kept, "40 elements through GROW, kept");
	tap_check(k == 5 && allocs[0] == 4 && allocs[1] == 8 && allocs[2] == 16 &&
	    allocs[3] == 32 && allocs[4] == 40, "allocated 4, 8, 16, 32, then "
	    "the cap of 40");
	tap_check_int(GROW(v, n, alloc, 4, 40), PA_ETOOBIG,
	    "the 41st of at most 40: too big");
	tap_check_int((long long)alloc, 40, "  and the array stays as it was");
	free(v);
}

/*
 * sbuf_addf formats into the room the buffer has, and again when that was
 * too small: a text that fits, one that does not, one past the cap (cut
 * off again, the buffer still a string), into an empty buffer
 */
static void
test_addf(void)
{
	struct sbuf sb;

	sbuf_init(&sb, 100);
	tap_check_int(sbuf_addf(&sb, "%s-%d", "first", 1), 0,
	    "addf into an empty buffer");
	tap_check_str(sb.buf, "first-1", "addf into an empty buffer: its text");
	tap_check(sb.alloc > sb.len + 8, "the buffer has room for more");
	tap_check_int(sbuf_addf(&sb, "%c%c", 'a', 'b'), 0, "addf that fits");
	tap_check_str(sb.buf, "first-1ab", "addf that fits: its text");
	tap_check_int(sbuf_addf(&sb, "%070d", 7), 0,
	    "addf longer than the room left");
	tap_check_int(sb.len, 79, "addf longer than the room: its length");
	tap_check(strncmp(sb.buf, "first-1ab000", 12) == 0 &&
	    sb.buf[78] == '7' && sb.buf[79] == '\0',
	    "addf longer than the room: its text, NUL-terminated");
	tap_check(sb.alloc > sb.max + 1,
	    "the allocation outgrew the cap (room past the cap to refuse)");
	tap_check_int(sbuf_addf(&sb, "%030d", 0), PA_ETOOBIG,
	    "addf past the cap, though the allocation holds it");
	tap_check_int(sb.len, 79, "addf past the cap leaves the length");
	tap_check(sb.buf[79] == '\0' && sb.buf[78] == '7',
	    "addf past the cap leaves the text, NUL-terminated");
	tap_check_int(sbuf_addf(&sb, "x"), PA_ETOOBIG,
	    "addf after a failure fails");
	sbuf_release(&sb);
}

int
main(void)
{
	struct sbuf sb;
	char *p;
	size_t len;
	int i;

	test_grow();
	test_addf();
	sbuf_init(&sb, 16);
	tap_check(sb.buf != NULL && sb.buf[0] == '\0' && sb.len == 0,
	    "a new buffer is an empty string");
	tap_check_int(sbuf_add(&sb, "hello", 5), 0, "add within the cap");
	tap_check_int(sbuf_addch(&sb, '\0'), 0, "add a NUL byte");
	tap_check_int(sbuf_addf(&sb, "%d", 42), 0, "formatted add");
	tap_check_mem(sb.buf, sb.len, "hello\0" "42", 8, "contents binary-safe");
	tap_check(sb.buf[sb.len] == '\0', "NUL-terminated");

	tap_check_int(sbuf_add(&sb, "0123456789", 10), PA_ETOOBIG,
	    "growing past the cap fails");
	tap_check_int(sb.len, 8, "a failed add leaves the contents");
	tap_check_int(sbuf_addch(&sb, 'x'), PA_ETOOBIG, "failures are sticky");
	tap_check_int(sbuf_failed(&sb), PA_ETOOBIG, "sbuf_failed reports it");
	sbuf_reset(&sb);
	tap_check(sb.len == 0 && sbuf_failed(&sb) == 0, "reset clears the failure");

	for (i = 0; i < 16; i++)
		sbuf_addch(&sb, 'a' + i);
	tap_check_int(sb.len, 16, "exactly the cap fits");
	sbuf_setlen(&sb, 3);
	tap_check_str(sb.buf, "abc", "setlen shortens");
	p = sbuf_detach(&sb, &len);
	tap_check(p && strcmp(p, "abc") == 0 && len == 3, "detach hands over");
	tap_check(sb.len == 0 && sb.buf[0] == '\0', "detach leaves it empty");
	free(p);

	p = sbuf_detach(&sb, &len);
	tap_check(p && p[0] == '\0' && len == 0, "detach of an empty buffer");
	free(p);
	sbuf_release(&sb);
	sbuf_release(&sb);
	tap_check(sb.buf[0] == '\0', "release twice is harmless");

	read_fd(16, 0);
	read_fd(16, 1);
	read_fd(200000, 0);
	read_fd(200000, 1);
	tap_check_int(sbuf_read_fd(&sb, -1), PA_ERROR,
	    "read_fd of a bad descriptor");
	sbuf_release(&sb);
	return tap_done();
}
