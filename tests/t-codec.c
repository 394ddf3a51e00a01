/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t-codec - the transfer decoders and RFC 2047 words, with the leniency of
 * git mailinfo.
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

	charset_conv_release(&cc);
	sbuf_release(&out);
	sbuf_release(&scratch);
	return tap_done();
}
