/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t-codec - the transfer decoders and RFC 2047 words, with the leniency of
 * git mailinfo; hex written, and read back strictly.
 */
#include "config.h"

#include <string.h>

#include "patchattest.h"
#include "charset.h"
#include "codec.h"
#include "rfc2047.h"
#include "sbuf.h"
#include "tap.h"

static const struct {
	const char	*in;
	const char	*want;
	int		 q_word;
} qp_cases[] = {
	{ "plain text\n", "plain text\n", 0 },
	{ "caf=C3=A9\n", "caf\xc3\xa9\n", 0 },
	{ "lower =c3=a9\n", "lower \xc3\xa9\n", 0 },
	{ "soft break=\n", "soft break", 0 },
	{ "soft at end=", "soft at end", 0 },
	{ "keeps =zz and =4\n", "keeps =zz and =4\n", 0 },
	{ "crlf is no soft break=\r\n", "crlf is no soft break=\r\n", 0 },
	{ "stops =3D at\0NUL", "stops = at", 0 },
	{ "a_b=5Fc", "a b_c", 1 },
	{ "a_b=5Fc", "a_b_c", 0 },
};

static const struct {
	const char	*in;
	const char	*want;
} b64_cases[] = {
	{ "aGVsbG8=", "hello" },
	{ "aGVs\r\nbG8=\r\n", "hello" },
	{ "aGVsbG8", "hello" },
	{ "aGVsbA", "hell" },
	{ "a*G!V s", "hel" },
	{ "", "" },
};

static const struct {
	const char	*in;
	const char	*want;		/* NULL: an error */
	int		 convert;
} word_cases[] = {
	{ "plain", "plain", 1 },
	{ "=?UTF-8?q?J=C3=B6rg?= <j@x>", "J\xc3\xb6rg <j@x>", 1 },
	{ "=?iso-8859-1?q?J=F6rg?=", "J\xc3\xb6rg", 1 },
	{ "=?iso-8859-1?q?J=F6rg?=", "J\xf6rg", 0 },
	{ "=?latin-1?q?=E9?=", "\xc3\xa9", 1 },
	{ "=?utf-8?b?w6k=?=", "\xc3\xa9", 1 },
	{ "=?a?q?x?= =?a?q?y?=", "xy", 0 },
	{ "a =?utf-8?q?x?= b", "a x b", 1 },
	{ "  =?utf-8?q?x?=", "  x", 1 },
	{ "J=?UTF-8?q?=C3=B6?=rg", "J\xc3\xb6rg", 1 },
	{ "=?utf-8?q?a_b?=", "a b", 1 },
	{ "=??q?abc?=", "abc", 1 },
	{ "foo =? bar", NULL, 1 },
	{ "=?utf-8?x?abc?=", NULL, 1 },
	{ "=?utf-8?q?abc", NULL, 1 },
	{ "=?y?q?abc?=", NULL, 1 },
	{ "=?y?q?abc?=", "abc", 0 },
	{ "=?us-ascii?q?=E9?=", NULL, 1 },
	{ "=?utf-8*en?q?x?=", NULL, 1 },
};

/* Every digit once, in both places of a byte. */
static const unsigned char hex_bytes[] = {
	0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0x00, 0xff, 0x10, 0xfe
};
#define HEX_LOWER	"0123456789abcdef00ff10fe"
#define HEX_UPPER	"0123456789ABCDEF00FF10FE"

static const struct {
	const char	*in;
	size_t		 n;		/* bytes asked for */
	int		 upper;
	const char	*want;		/* NULL: refused */
} unhex_cases[] = {
	{ HEX_LOWER, sizeof(hex_bytes), 0, (const char *)hex_bytes },
	{ HEX_UPPER, sizeof(hex_bytes), 1, (const char *)hex_bytes },
	{ "", 0, 0, "" },
	{ "", 0, 1, "" },
	{ "7f", 1, 0, "\x7f" },
	{ "7F", 1, 1, "\x7f" },
	{ "0a1b", 1, 0, "\x0a" },	/* what follows is the caller's */
	{ "0A", 1, 0, NULL },		/* the other case */
	{ "0a", 1, 1, NULL },
	{ "aB", 1, 0, NULL },
	{ "aB", 1, 1, NULL },
	{ "1g", 1, 0, NULL },		/* next to the digits */
	{ "1G", 1, 1, NULL },
	{ "/0", 1, 0, NULL },
	{ "9:", 1, 0, NULL },
	{ "@1", 1, 1, NULL },
	{ "`1", 1, 0, NULL },
	{ "0x", 1, 0, NULL },
	{ " 1", 1, 0, NULL },
	{ "\xc3\xa9", 1, 0, NULL },
	{ "abc", 2, 0, NULL },		/* short: its NUL is no digit */
	{ "", 1, 0, NULL },
	{ "ab\0cd", 2, 0, NULL },
};

/* hex_tests - codec_hex() and codec_unhex() */
static void
hex_tests(void)
{
	unsigned char all[256], back[256], got[16];
	char out[2 * 256 + 2];
	size_t i;
	int rc, upper;

	for (upper = 0; upper <= 1; upper++) {
		memset(out, 'x', sizeof(out));
		codec_hex(out, hex_bytes, sizeof(hex_bytes), upper);
		tap_check_str(out, upper ? HEX_UPPER : HEX_LOWER,
		    "hex written %s-case", upper ? "upper" : "lower");
		tap_check_int(out[2 * sizeof(hex_bytes) + 1], 'x',
		    "hex writes nothing after its NUL (%s-case)",
		    upper ? "upper" : "lower");
		memset(out, 'x', sizeof(out));
		codec_hex(out, "", 0, upper);
		tap_check(out[0] == '\0' && out[1] == 'x',
		    "no bytes: a NUL alone (%s-case)", upper ? "upper" : "lower");
	}
	for (i = 0; i < sizeof(all); i++)
		all[i] = (unsigned char)i;
	for (upper = 0; upper <= 1; upper++) {
		codec_hex(out, all, sizeof(all), upper);
		rc = codec_unhex(back, out, sizeof(all), upper);
		tap_check(rc == 0 && memcmp(back, all, sizeof(all)) == 0,
		    "every byte written and read back (%s-case)",
		    upper ? "upper" : "lower");
		rc = codec_unhex(back, out, sizeof(all), !upper);
		tap_check_int(rc, PA_EDECODE,
		    "every byte written %s-case is refused as %s-case",
		    upper ? "upper" : "lower", upper ? "lower" : "upper");
	}

	for (i = 0; i < sizeof(unhex_cases) / sizeof(unhex_cases[0]); i++) {
		memset(got, 0x5a, sizeof(got));
		rc = codec_unhex(got, unhex_cases[i].in, unhex_cases[i].n,
		    unhex_cases[i].upper);
		if (unhex_cases[i].want == NULL) {
			tap_check_int(rc, PA_EDECODE, "unhex case %zu refused",
			    i);
			tap_check(got[0] == 0x5a && got[1] == 0x5a,
			    "unhex case %zu leaves out as it was", i);
			continue;
		}
		tap_check_int(rc, 0, "unhex case %zu read", i);
		tap_check_mem(got, unhex_cases[i].n, unhex_cases[i].want,
		    unhex_cases[i].n, "unhex case %zu bytes", i);
		tap_check_int(got[unhex_cases[i].n], 0x5a,
		    "unhex case %zu writes n bytes only", i);
	}
}

int
main(void)
{
	struct charset_conv cc;
	struct sbuf out, scratch;
	const char *why;
	size_t i, len;
	int rc, converted;

	sbuf_init(&out, 1 << 20);
	sbuf_init(&scratch, 1 << 20);
	charset_conv_init(&cc, 1 << 20);

	for (i = 0; i < sizeof(qp_cases) / sizeof(qp_cases[0]); i++) {
		sbuf_reset(&out);
		len = strlen(qp_cases[i].in);
		if (strcmp(qp_cases[i].in, "stops =3D at") == 0)
			len += 4;	/* the bytes after the NUL */
		codec_qp_line(&out, qp_cases[i].in, len, qp_cases[i].q_word);
		tap_check_str(out.buf, qp_cases[i].want, "quoted-printable "
		    "case %zu%s", i, qp_cases[i].q_word ? " (Q word)" : "");
	}
	for (i = 0; i < sizeof(b64_cases) / sizeof(b64_cases[0]); i++) {
		sbuf_reset(&out);
		codec_b64(&out, b64_cases[i].in, strlen(b64_cases[i].in));
		tap_check_str(out.buf, b64_cases[i].want, "base64 case %zu", i);
	}

	/* Per line, as mailinfo: a line of 17 characters loses the last. */
	sbuf_reset(&out);
	codec_b64_body(&out, "aGVsbG8gd29ybGQhI\nQ==\n", 22);
	tap_check_str(out.buf, "hello world!", "base64 body decoded per line");
	sbuf_reset(&out);
	codec_qp_body(&out, "one=\ntwo =3D\r\nthree\n", 20);
	tap_check_str(out.buf, "onetwo =\r\nthree\n", "QP body soft breaks");

	for (i = 0; i < sizeof(word_cases) / sizeof(word_cases[0]); i++) {
		sbuf_reset(&out);
		why = NULL;
		rc = rfc2047_decode(&out, word_cases[i].in,
		    strlen(word_cases[i].in), word_cases[i].convert ? &cc : NULL,
		    &scratch, &converted, &why);
		if (word_cases[i].want == NULL)
			tap_check(rc != 0 && why != NULL, "word \"%s\" is an error",
			    word_cases[i].in);
		else
			tap_check(rc == 0 && strcmp(out.buf, word_cases[i].want) == 0,
			    "word \"%s\" -> \"%s\"", word_cases[i].in, out.buf);
	}
	sbuf_reset(&out);
	rfc2047_decode(&out, "=?iso-8859-1?q?J=F6rg?=", 23, &cc, &scratch,
	    &converted, &why);
	tap_check_int(converted, 1, "conversion is reported");

	hex_tests();

	charset_conv_release(&cc);
	sbuf_release(&out);
	sbuf_release(&scratch);
	return tap_done();
}
