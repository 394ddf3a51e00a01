/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t-pytext - Python str semantics over UTF-8 bytes.  Every expected value
 * below is what CPython 3.11 gives for the same bytes.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "patchattest.h"
#include "pytext.h"
#include "sbuf.h"
#include "tap.h"

/* A byte string literal and its length, NUL bytes included. */
#define B(s)	s, sizeof(s) - 1

#define REPL	"\xef\xbf\xbd"

struct valid_case {
	const char	*in;
	size_t		 len;
	int		 want;
};

struct text_case {
	const char	*in;
	size_t		 len;
	const char	*want;
	size_t		 wantlen;
};

static void	test_valid(void);
static void	test_valid_fast(void);
static void	test_replace(void);
static void	test_newlines(void);
static void	test_blank(void);
static void	test_strip(void);
static void	test_cap(void);

static const struct valid_case valid_cases[] = {
	{ B(""), 1 },
	{ B("plain ASCII\n"), 1 },
	{ B("a\0b"), 1 },
	{ B("caf\xc3\xa9"), 1 },
	{ B("\xc2\x80"), 1 },			/* U+0080 */
	{ B("\xdf\xbf"), 1 },			/* U+07FF */
	{ B("\xe0\xa0\x80"), 1 },		/* U+0800 */
	{ B("\xe2\x82\xac"), 1 },		/* U+20AC */
	{ B("\xed\x9f\xbf"), 1 },		/* U+D7FF */
	{ B("\xee\x80\x80"), 1 },		/* U+E000 */
	{ B("\xef\xbf\xbf"), 1 },		/* U+FFFF */
	{ B("\xf0\x90\x80\x80"), 1 },		/* U+10000 */
	{ B("\xf4\x8f\xbf\xbf"), 1 },		/* U+10FFFF */
	{ B("\xe9"), 0 },
	{ B("\x80"), 0 },
	{ B("\xbf"), 0 },
	{ B("\xc0\xaf"), 0 },			/* overlong "/" */
	{ B("\xc1\xbf"), 0 },
	{ B("\xe0\x80\xaf"), 0 },		/* overlong */
	{ B("\xe0\x9f\xbf"), 0 },
	{ B("\xf0\x80\x80\xaf"), 0 },
	{ B("\xf0\x8f\xbf\xbf"), 0 },
	{ B("\xed\xa0\x80"), 0 },		/* U+D800 */
	{ B("\xed\xbf\xbf"), 0 },		/* U+DFFF */
	{ B("\xf4\x90\x80\x80"), 0 },		/* U+110000 */
	{ B("\xf5\x80\x80\x80"), 0 },
	{ B("\xff"), 0 },
	{ B("\xfe\xff"), 0 },
	{ B("\xc3"), 0 },			/* cut short */
	{ B("\xe2\x82"), 0 },
	{ B("\xf0\x9f\x98"), 0 },
	{ B("\xc3("), 0 },
	{ B("abc\xe2\x82\xac\xe2\x82"), 0 },
};

static const struct text_case replace_cases[] = {
	{ B(""), B("") },
	{ B("valid \xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"),
	    B("valid \xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80") },
	{ B("\xe9"), B(REPL) },
	{ B("\xe2\x82"), B(REPL) },
	{ B("\xf0\x80\x80"), B(REPL REPL REPL) },
	{ B("\xed\xa0\x80"), B(REPL REPL REPL) },
	{ B("\xc0\xaf"), B(REPL REPL) },
	{ B("a\xe2\x82" "b"), B("a" REPL "b") },
	{ B("\xe2(\xa1"), B(REPL "(" REPL) },
	{ B("\xf0\x9f\x98"), B(REPL) },
	{ B("\xf0\x9f\x98" "x"), B(REPL "x") },
	{ B("\xf4\x90\x80\x80"), B(REPL REPL REPL REPL) },
	{ B("\xe0\x80\xaf"), B(REPL REPL REPL) },
	{ B("\xf8\x88\x80\x80\x80"), B(REPL REPL REPL REPL REPL) },
	{ B("caf\xe9 \xc3\xa9\0\xff"),
	    B("caf" REPL " \xc3\xa9\0" REPL) },
};

static const struct text_case newline_cases[] = {
	{ B(""), B("") },
	{ B("a\nb\n"), B("a\nb\n") },
	{ B("a\r\nb\r\n"), B("a\nb\n") },
	{ B("a\rb\r"), B("a\nb\n") },
	{ B("\r"), B("\n") },
	{ B("\r\r\n"), B("\n\n") },
	{ B("\n\r"), B("\n\n") },
	{ B("\r\n\r\n"), B("\n\n") },
	{ B("x\0\ry"), B("x\0\ny") },
	{ B("a\r\r\rb"), B("a\n\n\nb") },
};

static const struct valid_case blank_cases[] = {
	{ B(""), 1 },
	{ B(" \t\n\r\v\f"), 1 },
	{ B("\x1c\x1d\x1e\x1f"), 1 },
	{ B("\xc2\x85\xc2\xa0"), 1 },			/* U+0085 U+00A0 */
	{ B("\xe1\x9a\x80"), 1 },			/* U+1680 */
	{ B("\xe2\x80\x80\xe2\x80\x8a"), 1 },		/* U+2000 U+200A */
	{ B("\xe2\x80\xa8\xe2\x80\xa9"), 1 },		/* U+2028 U+2029 */
	{ B("\xe2\x80\xaf\xe2\x81\x9f\xe3\x80\x80"), 1 },
	{ B("\xe2\x80\x8b"), 0 },			/* U+200B */
	{ B("\xe1\xa0\x8e"), 0 },			/* U+180E */
	{ B("\xef\xbb\xbf"), 0 },			/* U+FEFF */
	{ B("\xc2\xa1"), 0 },
	{ B("\0"), 0 },
	{ B("\x85"), 0 },			/* a lone byte is no U+0085 */
	{ B(" x "), 0 },
	{ B("\n\n\n-"), 0 },
};

static const struct text_case strip_cases[] = {
	{ B(""), B("") },
	{ B("   "), B("") },
	{ B("x"), B("x") },
	{ B(" \xc2\xa0x y\xe3\x80\x80\n"), B("x y") },
	{ B("\xe2\x80\xa8" "a\xe2\x80\xa9"), B("a") },
	{ B("\n\n+c  \n-- \n"), B("+c  \n--") },
	{ B("\xe2\x80\x8b" "a\xe2\x80\x8b"), B("\xe2\x80\x8b" "a\xe2\x80\x8b") },
	{ B("\xc3\xa0 "), B("\xc3\xa0") },	/* U+00E0: not a space */
	{ B(" \0 "), B("\0") },
};

#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))

static void
test_valid(void)
{
	size_t i;

	for (i = 0; i < NELEM(valid_cases); i++)
		tap_check_int(pytext_utf8_valid(valid_cases[i].in,
		    valid_cases[i].len), valid_cases[i].want,
		    "utf8_valid case %zu", i);
}

/* test_valid_fast - the word-at-a-time path, an error at every offset */
static void
test_valid_fast(void)
{
	char buf[100];
	size_t i;
	int bad = 0;

	memset(buf, 'a', sizeof(buf));
	tap_check(pytext_utf8_valid(buf, sizeof(buf)), "utf8_valid 100 ASCII");
	for (i = 0; i < sizeof(buf); i++) {
		buf[i] = (char)0x80;
		if (pytext_utf8_valid(buf, sizeof(buf)))
			bad++;
		buf[i] = 'a';
	}
	tap_check_int(bad, 0, "utf8_valid finds 0x80 at every offset");
	for (i = 0, bad = 0; i + 2 <= sizeof(buf); i++) {
		memcpy(buf + i, "\xc3\xa9", 2);
		if (!pytext_utf8_valid(buf, sizeof(buf)))
			bad++;
		memset(buf + i, 'a', 2);
	}
	tap_check_int(bad, 0, "utf8_valid takes U+00E9 at every offset");
}

static void
test_replace(void)
{
	struct sbuf sb;
	size_t i;

	sbuf_init(&sb, SBUF_NOMAX);
	for (i = 0; i < NELEM(replace_cases); i++) {
		sbuf_reset(&sb);
		tap_check_int(pytext_utf8_replace(&sb, replace_cases[i].in,
		    replace_cases[i].len), 0, "utf8_replace case %zu rc", i);
		tap_check_mem(sb.buf, sb.len, replace_cases[i].want,
		    replace_cases[i].wantlen, "utf8_replace case %zu", i);
	}
	sbuf_release(&sb);
}

static void
test_newlines(void)
{
	struct sbuf sb;
	size_t i;

	sbuf_init(&sb, SBUF_NOMAX);
	for (i = 0; i < NELEM(newline_cases); i++) {
		sbuf_reset(&sb);
		pytext_newlines(&sb, newline_cases[i].in, newline_cases[i].len);
		tap_check_mem(sb.buf, sb.len, newline_cases[i].want,
		    newline_cases[i].wantlen, "newlines case %zu", i);
	}
	sbuf_release(&sb);
}

static void
test_blank(void)
{
	size_t i;

	for (i = 0; i < NELEM(blank_cases); i++)
		tap_check_int(pytext_is_blank(blank_cases[i].in,
		    blank_cases[i].len), blank_cases[i].want,
		    "is_blank case %zu", i);
}

static void
test_strip(void)
{
	const struct text_case *c;
	size_t i, s, e;

	for (i = 0; i < NELEM(strip_cases); i++) {
		c = &strip_cases[i];
		pytext_strip(c->in, c->len, &s, &e);
		tap_check(s <= e && e <= c->len, "strip case %zu bounds", i);
		tap_check_mem(c->in + s, e - s, c->want, c->wantlen,
		    "strip case %zu", i);
	}
}

/* test_cap - output over the sbuf's cap fails, not overruns */
static void
test_cap(void)
{
	struct sbuf sb;

	sbuf_init(&sb, 2);
	tap_check_int(pytext_utf8_replace(&sb, "\xe9", 1), PA_ETOOBIG,
	    "utf8_replace over the cap");
	sbuf_release(&sb);
}

int
main(void)
{
	test_valid();
	test_valid_fast();
	test_replace();
	test_newlines();
	test_blank();
	test_strip();
	test_cap();
	return tap_done();
}
