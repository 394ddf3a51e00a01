/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t-pycodec - Python's codec registry and decoders.  Every expected value
 * below is what CPython 3.11 gives for the same bytes.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "patchattest.h"
#include "pycodec.h"
#include "sbuf.h"
#include "tap.h"

/* A byte string literal and its length, NUL bytes included. */
#define B(s)	s, sizeof(s) - 1

#define REPL	"\xef\xbf\xbd"

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

static void	test_decode(void);
static void	test_known(void);
static void	test_cap(void);

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

#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))

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
		tap_check_int(pycodec_decode(&sb, c->label, c->in, c->len),
		    c->rc, "decode %s case %zu rc", c->label, i);
		if (c->rc == 0)
			tap_check_mem(sb.buf, sb.len, c->want, c->wantlen,
			    "decode %s case %zu", c->label, i);
	}
	/* decoding appends */
	sbuf_reset(&sb);
	sbuf_addstr(&sb, "x");
	pycodec_decode(&sb, "latin-1", "\xe9", 1);
	tap_check_str(sb.buf, "x\xc3\xa9", "decode appends");
	sbuf_release(&sb);
}

static void
test_known(void)
{
	size_t i;

	for (i = 0; i < NELEM(known_cases); i++)
		tap_check_int(pycodec_known(known_cases[i].label),
		    known_cases[i].want, "charset_known \"%s\"",
		    known_cases[i].label);
}

/* test_cap - output over the sbuf's cap fails, not overruns */
static void
test_cap(void)
{
	struct sbuf sb;

	sbuf_init(&sb, 4);
	tap_check_int(pycodec_decode(&sb, "latin-1", "\xe9\xe9", 2), 0,
	    "latin-1 exactly at the cap");
	sbuf_release(&sb);
	sbuf_init(&sb, 4);
	tap_check_int(pycodec_decode(&sb, "latin-1", "\xe9\xe9\xe9", 3),
	    PA_ETOOBIG, "latin-1 over the cap");
	sbuf_release(&sb);
	sbuf_init(&sb, 6);
	tap_check_int(pycodec_decode(&sb, "gbk", "\xc4\xe3\xba\xc3", 4), 0,
	    "gbk exactly at the cap");
	tap_check_str(sb.buf, "\xe4\xbd\xa0\xe5\xa5\xbd", "gbk at the cap");
	sbuf_release(&sb);
	sbuf_init(&sb, 6);
	tap_check_int(pycodec_decode(&sb, "iso-2022-jp",
	    "\x1b$B$\"$\"$\"\x1b(B", 11), PA_ETOOBIG, "iso-2022-jp over the cap");
	sbuf_release(&sb);
}

int
main(void)
{
	test_decode();
	test_known();
	test_cap();
	return tap_done();
}
