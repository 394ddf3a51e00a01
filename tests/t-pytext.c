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

struct decode_case {
	const char	*label;
	const char	*in;
	size_t		 len;
	const char	*want;
	size_t		 wantlen;
	int		 rc;
};

struct known_case {
	const char	*label;
	int		 want;
};

static void	test_valid(void);
static void	test_valid_fast(void);
static void	test_replace(void);
static void	test_newlines(void);
static void	test_decode(void);
static void	test_known(void);
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

static const struct decode_case decode_cases[] = {
	{ "utf-8", B("\xc3\xa9\xe9"), B("\xc3\xa9" REPL), 0 },
	{ "UTF8", B("\xc3\xa9\xe9"), B("\xc3\xa9" REPL), 0 },
	{ "u8", B("\xed\xa0\x80"), B(REPL REPL REPL), 0 },
	{ "utf-8-sig", B("\xef\xbb\xbf" "a"), B("a"), 0 },
	{ "ascii", B("a\x80" "b\xff"), B("a" REPL "b" REPL), 0 },
	{ "US-ASCII", B("\xc3\xa9"), B(REPL REPL), 0 },
	{ "646", B("ok"), B("ok"), 0 },
	{ "latin-1", B("\xe9\xff\0"), B("\xc3\xa9\xc3\xbf\0"), 0 },
	{ "ISO-8859-1", B("\x80"), B("\xc2\x80"), 0 },
	{ "iso8859-1", B("\xa0"), B("\xc2\xa0"), 0 },
	{ "cp1252", B("\x80\x81\x9f"), B("\xe2\x82\xac" REPL "\xc5\xb8"), 0 },
	{ "windows-1252", B("\x81"), B(REPL), 0 },
	{ "windows-1250", B("\x8a"), B("\xc5\xa0"), 0 },
	{ "windows-1251", B("\xc0"), B("\xd0\x90"), 0 },
	/* glibc would compose these; Python keeps base and accent apart */
	{ "cp1255", B("\xe9\xc4"), B("\xd7\x99\xd6\xb4"), 0 },
	{ "windows-1258", B("a\xec"), B("a\xcc\x81"), 0 },
	{ "iso-8859-2", B("\xa1"), B("\xc4\x84"), 0 },
	{ "iso-8859-7", B("\xe1"), B("\xce\xb1"), 0 },
	{ "iso-8859-15", B("\xa4"), B("\xe2\x82\xac"), 0 },
	{ "koi8-r", B("\xc1"), B("\xd0\xb0"), 0 },
	{ "koi8-u", B("\xa4"), B("\xd1\x94"), 0 },
	{ "cp437", B("\x80"), B("\xc3\x87"), 0 },
	{ "cp850", B("\x9b"), B("\xc3\xb8"), 0 },
	{ "macintosh", B("\xc6\xf0"), B("\xe2\x88\x86\xef\xa3\xbf"), 0 },
	{ "gb2312", B("\xc4\xe3\xba\xc3"), B("\xe4\xbd\xa0\xe5\xa5\xbd"), 0 },
	{ "gbk", B("\x80" "a"), B(REPL "a"), 0 },
	{ "gb18030", B("\x81\x30\x81\x30"), B("\xc2\x80"), 0 },
	{ "gb18030", B("\x81\x30"), B(REPL), 0 },
	{ "big5", B("\x80\xa4\xa4"), B(REPL "\xe4\xb8\xad"), 0 },
	{ "shift_jis", B("\\\x82\xa0"), B("\\\xe3\x81\x82"), 0 },
	{ "cp932", B("\x80\xfd"), B("\xc2\x80\xef\xa3\xb1"), 0 },
	{ "shift_jis_2004", B("\\"), B("\xc2\xa5"), 0 },
	{ "euc-jp", B("\xa4\xa2"), B("\xe3\x81\x82"), 0 },
	{ "euc-kr", B("\xb0\xa1\x80"), B("\xea\xb0\x80" REPL), 0 },
	{ "iso-2022-jp", B("\x1b$B$\"\x1b(B"), B("\xe3\x81\x82"), 0 },
	{ "utf-16", B("\xff\xfe" "a\0"), B("a"), 0 },
	{ "utf-16", B("a\0"), B("a"), 0 },
	{ "utf-16", B("\xfe\xff\0a"), B("a"), 0 },
	{ "utf-16-le", B("\0\xd8" "a\0"), B(REPL "a"), 0 },
	{ "utf-16-be", B("\0a\0"), B("a" REPL), 0 },
	{ "utf-32", B("a\0\0\0"), B("a"), 0 },
	{ "utf-32", B("\0\0\xfe\xff\0\0\0a"), B("a"), 0 },
	{ "utf-32-le", B("\0\0\x11\0"), B(REPL), 0 },
	{ "x-unknown", B("abc"), B(""), PA_ECHARSET },
	{ "utf.8", B("abc"), B(""), PA_ECHARSET },
	{ "base64", B("abc"), B(""), PA_ECHARSET },
	{ "", B("abc"), B(""), PA_ECHARSET },
	{ "x-unknown", B(""), B(""), 0 },	/* b"".decode(anything) */
	{ "utf-7", B("abc"), B(""), PA_ERROR },
};

static const struct known_case known_cases[] = {
	{ "utf-8", 1 }, { "UTF-8", 1 }, { "utf8", 1 }, { "u8", 1 },
	{ "utf", 1 }, { "utf_8", 1 }, { "Utf--8", 1 }, { " utf 8 ", 1 },
	{ "-utf-8-", 1 }, { "cp65001", 1 }, { "utf8-ucs4", 1 },
	{ "utf.8", 0 }, { "utf8.", 0 }, { "u.8", 0 },
	{ "ascii", 1 }, { "us-ascii", 1 }, { "US_ASCII", 1 }, { "646", 1 },
	{ "us", 1 }, { "ANSI_X3.4-1968", 1 }, { "iso-ir-6", 1 },
	{ "latin-1", 1 }, { "latin1", 1 }, { "l1", 1 }, { "L1", 1 },
	{ "l-1", 0 }, { "8859", 1 }, { "cp819", 1 }, { "iso8859-1", 1 },
	{ "iso-8859-1", 1 }, { "ISO_8859-1:1987", 1 }, { "iso8859.1", 1 },
	{ "latin\xc3\xa9" "1", 1 },	/* the "é" is a separator run */
	{ "l\xc3\xa9" "1", 0 },		/* ... so this is l_1 */
	{ "iso-8859-2", 1 }, { "iso-8859-10", 1 }, { "iso-8859-11", 1 },
	{ "iso-8859-12", 0 }, { "iso-8859-13", 1 }, { "iso-8859-16", 1 },
	{ "windows-1250", 1 }, { "windows-1258", 1 }, { "cp1252", 1 },
	{ "windows-1259", 0 }, { "koi8-r", 1 }, { "koi8-u", 1 },
	{ "cp437", 1 }, { "ibm850", 1 }, { "gb2312", 1 }, { "euc-cn", 1 },
	{ "gbk", 1 }, { "gb18030", 1 }, { "big5", 1 }, { "shift_jis", 1 },
	{ "sjis", 1 }, { "euc-jp", 1 }, { "euc-kr", 1 }, { "ks_c_5601-1987", 1 },
	{ "iso-2022-jp", 1 }, { "utf-16", 1 }, { "utf-32", 1 },
	{ "utf-7", 1 }, { "csHPRoman8", 0 }, { "hp-roman8", 1 },
	{ "x-unknown", 0 }, { "", 0 }, { "-", 0 }, { "base64", 0 },
	{ "rot13", 0 }, { "mbcs", 0 }, { "aliases", 0 },
	{ "x-mac-japanese", 1 },
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
	tap_ok(pytext_utf8_valid(buf, sizeof(buf)), "utf8_valid 100 ASCII");
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
test_decode(void)
{
	const struct decode_case *c;
	struct sbuf sb;
	size_t i;

	sbuf_init(&sb, SBUF_NOMAX);
	for (i = 0; i < NELEM(decode_cases); i++) {
		c = &decode_cases[i];
		sbuf_reset(&sb);
		tap_check_int(pytext_decode(&sb, c->label, c->in, c->len),
		    c->rc, "decode %s case %zu rc", c->label, i);
		if (c->rc == 0)
			tap_check_mem(sb.buf, sb.len, c->want, c->wantlen,
			    "decode %s case %zu", c->label, i);
	}
	/* decoding appends */
	sbuf_reset(&sb);
	sbuf_addstr(&sb, "x");
	pytext_decode(&sb, "latin-1", "\xe9", 1);
	tap_check_str(sb.buf, "x\xc3\xa9", "decode appends");
	sbuf_release(&sb);
}

static void
test_known(void)
{
	size_t i;

	for (i = 0; i < NELEM(known_cases); i++)
		tap_check_int(pytext_charset_known(known_cases[i].label),
		    known_cases[i].want, "charset_known \"%s\"",
		    known_cases[i].label);
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
		tap_ok(s <= e && e <= c->len, "strip case %zu bounds", i);
		tap_check_mem(c->in + s, e - s, c->want, c->wantlen,
		    "strip case %zu", i);
	}
}

/* test_cap - output over the sbuf's cap fails, not overruns */
static void
test_cap(void)
{
	struct sbuf sb;

	sbuf_init(&sb, 4);
	tap_check_int(pytext_decode(&sb, "latin-1", "\xe9\xe9", 2), 0,
	    "latin-1 exactly at the cap");
	sbuf_release(&sb);
	sbuf_init(&sb, 4);
	tap_check_int(pytext_decode(&sb, "latin-1", "\xe9\xe9\xe9", 3),
	    PA_ETOOBIG, "latin-1 over the cap");
	sbuf_release(&sb);
	sbuf_init(&sb, 6);
	tap_check_int(pytext_decode(&sb, "gbk", "\xc4\xe3\xba\xc3", 4), 0,
	    "gbk exactly at the cap");
	tap_check_str(sb.buf, "\xe4\xbd\xa0\xe5\xa5\xbd", "gbk at the cap");
	sbuf_release(&sb);
	sbuf_init(&sb, 6);
	tap_check_int(pytext_decode(&sb, "iso-2022-jp",
	    "\x1b$B$\"$\"$\"\x1b(B", 11), PA_ETOOBIG, "iso-2022-jp over the cap");
	sbuf_release(&sb);
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
	test_decode();
	test_known();
	test_blank();
	test_strip();
	test_cap();
	return tap_done();
}
