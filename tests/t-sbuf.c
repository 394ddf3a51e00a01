/* t-sbuf - the buffer's invariants: NUL-terminated, capped, sticky errors */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "patchattest.h"
#include "sbuf.h"
#include "tap.h"

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
	return tap_done();
}
