/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t-mbox - the mbox split, against what Python's mailbox.mbox get_bytes()
 * returns for the same bytes (the expectations were produced with it).
 */
#include "config.h"

#include <stddef.h>

#include "mbox.h"
#include "tap.h"

#define S(s)	{ s, sizeof(s) - 1 }
#define MAXMSG	3

struct bytes {
	const char	*p;
	size_t		 len;
};

struct mbox_case {
	const char	*name;
	struct bytes	 in;
	int		 n;
	struct bytes	 want[MAXMSG];
};

static const struct mbox_case cases[] = {
	{ "empty", S(""), 0, { { 0 } } },
	{ "no From line", S("no from line\n"), 0, { { 0 } } },
	{ "From line only", S("From a\n"), 1, { S("") } },
	{ "From line without LF", S("From a"), 1, { S("") } },
	{ "one message", S("From a\nH: 1\n\nbody\n"), 1,
	    { S("H: 1\n\nbody\n") } },
	{ "trailing blank line dropped", S("From a\nH: 1\n\nbody\n\n"), 1,
	    { S("H: 1\n\nbody\n") } },
	{ "no final LF", S("From a\nH: 1\n\nbody"), 1,
	    { S("H: 1\n\nbody") } },
	{ "blank separator", S("From a\nA\n\nFrom b\nB\n"), 2,
	    { S("A\n"), S("B\n") } },
	{ "no separator", S("From a\nA\nFrom b\nB\n"), 2,
	    { S("A\n"), S("B\n") } },
	{ "only one blank dropped", S("From a\nA\n\n\nFrom b\nB\n"), 2,
	    { S("A\n\n"), S("B\n") } },
	{ "leading junk skipped", S("junk\nFrom a\nA\n"), 1, { S("A\n") } },
	{ ">From kept", S("From a\nx\n>From y\nFrom b\n"), 2,
	    { S("x\n>From y\n"), S("") } },
	{ "CRLF blank line kept", S("From a\r\nA\r\n\r\nFrom b\r\nB\r\n"), 2,
	    { S("A\r\n\r\n"), S("B\r\n") } },
	{ "two empty messages", S("From a\nFrom b\n"), 2, { S(""), S("") } },
	{ "blank-only messages", S("From a\n\nFrom b\n\n"), 2,
	    { S(""), S("") } },
	{ "not a From line", S("From a\nFromage\n from\n"), 1,
	    { S("Fromage\n from\n") } },
	{ "NUL byte", S("From a\nA\0\n\nFrom b\n"), 2, { S("A\0\n"), S("") } },
	{ "three messages", S("From a\n1\n\nFrom b\n2\n\nFrom c\n3\n"), 3,
	    { S("1\n"), S("2\n"), S("3\n") } },
};

int
main(void)
{
	const struct mbox_case *c;
	struct mbox mb;
	const char *msg;
	size_t i, len;
	int n;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		c = &cases[i];
		mbox_init(&mb, c->in.p, c->in.len);
		for (n = 0; mbox_next(&mb, &msg, &len); n++) {
			if (n >= c->n || n >= MAXMSG)
				continue;
			tap_check_mem(msg, len, c->want[n].p, c->want[n].len,
			    "%s: message %d", c->name, n + 1);
		}
		tap_check_int(n, c->n, "%s: %d messages", c->name, c->n);
		tap_check_int(mbox_next(&mb, &msg, &len), 0,
		    "%s: stays at the end", c->name);
	}
	return tap_done();
}
