/* t-sbuf - the buffer's invariants: NUL-terminated, capped, sticky errors */
#include "config.h"

#include <sys/wait.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "patchattest.h"
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
		tap_ok(0, "read_fd: no pipe");
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
		tap_ok(sb.len == cap && memcmp(sb.buf, data, cap) == 0 &&
		    sb.buf[sb.len] == '\0', "  ... all of it, NUL-terminated");
	sbuf_release(&sb);
	free(data);
}

int
main(void)
{
	struct sbuf sb;
	char *p;
	size_t len;
	int i;

	sbuf_init(&sb, 16);
	tap_ok(sb.buf != NULL && sb.buf[0] == '\0' && sb.len == 0,
	    "a new buffer is an empty string");
	tap_check_int(sbuf_add(&sb, "hello", 5), 0, "add within the cap");
	tap_check_int(sbuf_addch(&sb, '\0'), 0, "add a NUL byte");
	tap_check_int(sbuf_addf(&sb, "%d", 42), 0, "formatted add");
	tap_check_mem(sb.buf, sb.len, "hello\0" "42", 8, "contents binary-safe");
	tap_ok(sb.buf[sb.len] == '\0', "NUL-terminated");

	tap_check_int(sbuf_add(&sb, "0123456789", 10), PA_ETOOBIG,
	    "growing past the cap fails");
	tap_check_int(sb.len, 8, "a failed add leaves the contents");
	tap_check_int(sbuf_addch(&sb, 'x'), PA_ETOOBIG, "failures are sticky");
	tap_check_int(sbuf_failed(&sb), PA_ETOOBIG, "sbuf_failed reports it");
	sbuf_reset(&sb);
	tap_ok(sb.len == 0 && sbuf_failed(&sb) == 0, "reset clears the failure");

	for (i = 0; i < 16; i++)
		sbuf_addch(&sb, 'a' + i);
	tap_check_int(sb.len, 16, "exactly the cap fits");
	sbuf_setlen(&sb, 3);
	tap_check_str(sb.buf, "abc", "setlen shortens");
	p = sbuf_detach(&sb, &len);
	tap_ok(p && strcmp(p, "abc") == 0 && len == 3, "detach hands over");
	tap_ok(sb.len == 0 && sb.buf[0] == '\0', "detach leaves it empty");
	free(p);

	p = sbuf_detach(&sb, &len);
	tap_ok(p && p[0] == '\0' && len == 0, "detach of an empty buffer");
	free(p);
	sbuf_release(&sb);
	sbuf_release(&sb);
	tap_ok(sb.buf[0] == '\0', "release twice is harmless");

	read_fd(16, 0);
	read_fd(16, 1);
	read_fd(200000, 0);
	read_fd(200000, 1);
	tap_check_int(sbuf_read_fd(&sb, -1), PA_ERROR,
	    "read_fd of a bad descriptor");
	sbuf_release(&sb);
	return tap_done();
}
