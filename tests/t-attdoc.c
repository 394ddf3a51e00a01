/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t-attdoc - attestation documents without GnuPG: finding clearsigned
 * spans, the armor comments, the strict YAML reading (hostile documents
 * included), the payload of the seed series, the subject rule and the
 * mail around a document.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "patchattest.h"
#include "attdoc.h"
#include "digest.h"
#include "sbuf.h"
#include "tap.h"

#define SEED_I \
	"2a02abe02216f626105622aee2f26ab1" \
	"0c155b6442e23441d90fc5fe4071b86e"
#define SEED_M \
	"215cf3f133478917ad147a6eda1010a9" \
	"c4bba1846e7dd35295e9a0081559e9b0"
#define SEED_P \
	"2acb5798c366f97501f8feacb873327b" \
	"ac161951ce83e90f04bbcde32e993865"
#define SEED_BLOCK \
	"2a02abe0-215cf3f1-2acb5798:\n" \
	"  i: " SEED_I "\n" \
	"  m: " SEED_M "\n" \
	"  p: " SEED_P

#define SIGNED(armor) \
	"-----BEGIN PGP SIGNED MESSAGE-----\n" \
	"Hash: SHA256\n" \
	"\n" \
	SEED_BLOCK "\n" \
	"-----BEGIN PGP SIGNATURE-----\n" \
	armor \
	"\n" \
	"iHUEARYIAB0WIQR+m7+TTqAHuE+QuBUZL2sC1qdTagUCaxE7DgAKCRAZL2sC1qdT\n" \
	"=7xNW\n" \
	"-----END PGP SIGNATURE-----\n"

static const struct {
	const char	*i, *m, *p;
} seeds[] = {
	{ SEED_I, SEED_M, SEED_P },
	{ "75937bcc4f02a66b3cb226bd30d89286a8c10f75b4b32fd2b36c0107253b317b",
	  "99055a613e86a4ffba8e393371283210bbc780de66fb5f0ffebe790156f2e277",
	  "86ed600d59a548f37de1bfd4b0e7d9fac9991b45d74ab7584aa921d55f63b5bb" },
	{ "df75a2bb5160b3f0caa766a830cae29ba1a3d95f3b5480f502aaf9889dff5df3",
	  "112978dfad21414a83152657cdc593c42edb81f062b46ea0efdab4f2f2c9b2ef",
	  "c45ac7662c9b7d68aef42c8055815e73034784df0942454c0fd6fd98fae91372" },
	{ "d708fe17a111de87ce16d0e85d4fb216df3a31ef109c737562a9809e556cc54e",
	  "8d3777c24d954a3b39b7843edfb19cb796b01a1a3d70896c0e6d9276a52ad092",
	  "6ae8636e58b4530a86e3842f2fb4ce56343e92b0554d17ece3c8b98d3c419b76" },
	{ "5e5e210432cadeef2d97fcc60bddb99374c975ae30f7840092d650f4682efd53",
	  "22c94ea8d4121b6a447bc10b30ea45d2b642fb30ea3875c2a3e0dfe9cac9f1bf",
	  "26c8ab2f1af37ff595ff16373c98dade2f88991f2a74ee340d3e39aec59e80bb" },
	{ "3bcaf54ad5eccc43560df717f10e76994a373b844cd5737b94715414959203a8",
	  "abe4870f0b238e54c532e19629c7ae90a58aadde0dcbe6511a9a1426cad8b2cb",
	  "92b040cb6e810074e872df947336f4e4bd4024c029385e1bf7c8beceb09edd7a" },
};
#define NSEEDS	(sizeof(seeds) / sizeof(seeds[0]))

/* Documents that must be refused, and a word the reason must contain. */
#define R(name, text, why)	{ name, text, why, sizeof(text) - 1 }
static const struct {
	const char	*name;
	const char	*text;
	const char	*why;
	size_t		 len;
} refused[] = {
	R("empty text", "", "no attestations"),
	R("only blanks and a comment", "\n  \n# nothing\n",
	  "no attestations"),
	R("wrong label",
	  "2a02abe0-215cf3f1-2acb5799:\n  i: " SEED_I "\n  m: " SEED_M
	  "\n  p: " SEED_P, "line 1: label"),
	R("upper-case hex",
	  "2a02abe0-215cf3f1-2acb5798:\n  i: " SEED_I "\n  m: " SEED_M
	  "\n  p: 2ACB5798c366f97501f8feacb873327b"
	  "ac161951ce83e90f04bbcde32e993865",
	  "line 4: p is not 64 lower-case"),
	R("short hash",
	  "2a02abe0-215cf3f1-2acb5798:\n  i: " SEED_I "\n  m: " SEED_M
	  "\n  p: 2acb5798", "not 64"),
	R("missing key",
	  "2a02abe0-215cf3f1-2acb5798:\n  i: " SEED_I "\n  m: " SEED_M,
	  "has no key p"),
	R("extra key",
	  SEED_BLOCK "\n  x: " SEED_P, "unknown key \"x\""),
	R("key twice",
	  SEED_BLOCK "\n  i: " SEED_I, "key i twice"),
	R("flow mapping",
	  "2a02abe0-215cf3f1-2acb5798: {i: " SEED_I ", m: " SEED_M
	  ", p: " SEED_P "}", "not a block mapping"),
	R("top-level flow mapping", "{a: b}", "not a block mapping"),
	R("top-level sequence", "- " SEED_I, "not a block mapping"),
	R("a scalar", "hello", "not a block mapping"),
	R("sequence value", "2a02abe0-215cf3f1-2acb5798:\n  - " SEED_I,
	  "not a block mapping of i, m and p"),
	R("python tag",
	  "2a02abe0-215cf3f1-2acb5798: !!python/object/apply:os.system\n"
	  "  i: " SEED_I "\n  m: " SEED_M "\n  p: " SEED_P, "tags"),
	R("tag on a value",
	  "2a02abe0-215cf3f1-2acb5798:\n  i: !!str " SEED_I "\n  m: " SEED_M
	  "\n  p: " SEED_P, "line 2: YAML anchors and tags"),
	R("anchor",
	  "2a02abe0-215cf3f1-2acb5798: &x\n  i: " SEED_I "\n  m: " SEED_M
	  "\n  p: " SEED_P, "anchors"),
	R("alias",
	  "2a02abe0-215cf3f1-2acb5798:\n  i: " SEED_I "\n  m: " SEED_M
	  "\n  p: *x", "aliases"),
	R("quoted scalar",
	  "\"2a02abe0-215cf3f1-2acb5798\":\n  i: " SEED_I "\n  m: " SEED_M
	  "\n  p: " SEED_P, "plain scalars"),
	R("document marker", "---\n" SEED_BLOCK, "\"---\""),
	R("YAML directive", "%YAML 1.1\n---\n" SEED_BLOCK, "directives"),
	R("two documents", SEED_BLOCK "\n---\n" SEED_BLOCK, ""),
	R("long scalar",
	  "2a02abe0-215cf3f1-2acb5798:\n  i: " SEED_I SEED_I SEED_I "\n",
	  "scalar of 192 bytes"),
	R("not YAML", "2a02abe0-215cf3f1-2acb5798: 'x", "not valid YAML"),
	R("UTF-16 byte-order mark", "\xff\xfe" "a\0:\0 \0b\0", ""),
	R("a NUL byte", SEED_BLOCK "\n\0x", ""),
	R("a second mapping level",
	  "2a02abe0-215cf3f1-2acb5798:\n  i:\n    m: " SEED_M, "hash"),
};

static const struct {
	const char	*in, *want;
} subjects[] = {
	{ "[PATCH v4 0/6] binfmt_elf: Update READ_IMPLIES_EXEC logic for "
	  "modern CPUs", "[PSIGN v4 X/6] binfmt_elf: Update READ_IMPLIES_EXEC "
	  "logic for modern CPUs" },
	{ "[PATCH 00/12] tokens like 00/12 stay", "[PSIGN 00/12] tokens like "
	  "00/12 stay" },
	{ "[PATCH 0/06] so does 0/06", "[PSIGN 0/06] so does 0/06" },
	{ "[RFC PATCH v2 0/3] mm: thing", "[RFC PSIGN v2 X/3] mm: thing" },
	{ "[RFC][patch 0/4]   spaced    out ", "[RFC PSIGN X/4] spaced out" },
	{ "[PATCHv3 0/2] glued version", "[PSIGN v3 X/2] glued version" },
	{ "[PATCH net-next, 0/5] comma", "[PSIGN net-next X/5] comma" },
	{ "[PATCH 1/6] not a cover letter", "Patch attestation" },
	{ "[PATCH] no counter", "Patch attestation" },
	{ "no brackets 0/3", "Patch attestation" },
};

static size_t
span_count(const char *text, size_t len)
{
	size_t pos = 0, start, n, count = 0;

	while (attdoc_next_span(text, len, &pos, &start, &n))
		count++;
	return count;
}

/* block - one valid block with hashes made from k, appended to sb */
static void
block(struct sbuf *sb, unsigned long k, struct att_triple *t)
{
	char hi[DIGEST_HEXLEN + 1], hm[DIGEST_HEXLEN + 1];
	char hp[DIGEST_HEXLEN + 1], seed[32];

	snprintf(seed, sizeof(seed), "i%lu", k);
	digest_sha256(t->i, seed, strlen(seed));
	seed[0] = 'm';
	digest_sha256(t->m, seed, strlen(seed));
	seed[0] = 'p';
	digest_sha256(t->p, seed, strlen(seed));
	digest_hex(hi, t->i);
	digest_hex(hm, t->m);
	digest_hex(hp, t->p);
	sbuf_addf(sb, "%s%.8s-%.8s-%.8s:\n  i: %s\n  m: %s\n  p: %s",
	    sb->len ? "\n" : "", hi, hm, hp, hi, hm, hp);
}

static double
seconds(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) +
	    (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

static void
test_spans(void)
{
	static const char one[] = "Hello,\n\n" SIGNED("") "-- \nsig\n";
	static const char two[] = SIGNED("") "between\n" SIGNED("Comment: x\n");
	static const char cut[] = "-----BEGIN PGP SIGNED MESSAGE-----\n"
	    "Hash: SHA256\n\nabc\n-----BEGIN PGP SIGNATURE-----\n\nAAAA\n";
	static const char quoted[] = "> -----BEGIN PGP SIGNED MESSAGE-----\n"
	    "> x\n> -----END PGP SIGNATURE-----\n";
	static const char nul[] = "a\0b\n" SIGNED("");
	static const char noend[] = SIGNED("");
	struct sbuf sb;
	size_t pos = 0, start = 0, len = 0, i;

	tap_check_int(attdoc_next_span("hello\nworld\n", 12, &pos, &start,
	    &len), 0, "span: none in plain text");
	tap_check_int(pos, 12, "span: pos at the end");
	pos = 0;
	tap_check_int(attdoc_next_span(one, sizeof(one) - 1, &pos, &start,
	    &len), 1, "span: one found");
	tap_check_mem(one + start, len, SIGNED(""), sizeof(SIGNED("")) - 1,
	    "span: exactly BEGIN to the END line and its line end");
	tap_check_int(attdoc_next_span(one, sizeof(one) - 1, &pos, &start,
	    &len), 0, "span: no second one");
	tap_check_int(span_count(two, sizeof(two) - 1), 2, "span: two found");
	pos = 0;
	attdoc_next_span(two, sizeof(two) - 1, &pos, &start, &len);
	attdoc_next_span(two, sizeof(two) - 1, &pos, &start, &len);
	tap_check(start == sizeof(SIGNED("")) - 1 + 8 &&
	    start + len == sizeof(two) - 1, "span: the second one's bounds");
	tap_check_int(span_count(cut, sizeof(cut) - 1), 0,
	    "span: a truncated block is none");
	sbuf_init(&sb, SBUF_NOMAX);
	sbuf_add(&sb, cut, sizeof(cut) - 1);
	sbuf_add(&sb, one, sizeof(one) - 1);
	pos = 0;
	tap_check(attdoc_next_span(sb.buf, sb.len, &pos, &start, &len) == 1 &&
	    start == sizeof(cut) - 1 + 8 && len == sizeof(SIGNED("")) - 1,
	    "span: a truncated block before a whole one is skipped");
	tap_check_int(span_count(quoted, sizeof(quoted) - 1), 0,
	    "span: markers not at a line start do not count");
	tap_check_int(span_count(nul, sizeof(nul) - 1), 1,
	    "span: NUL bytes before it are fine");
	tap_check_int(span_count(noend, sizeof(noend) - 2), 1,
	    "span: END line without a line end at the end of text");
	sbuf_reset(&sb);
	for (i = 0; i < sizeof(one) - 1; i++) {
		if (one[i] == '\n')
			sbuf_addch(&sb, '\r');
		sbuf_addch(&sb, one[i]);
	}
	pos = 0;
	tap_check(attdoc_next_span(sb.buf, sb.len, &pos, &start, &len) == 1 &&
	    memcmp(sb.buf + start + len - 29, "-----END PGP SIGNATURE-----\r\n",
	    29) == 0, "span: CRLF lines");
	sbuf_release(&sb);
}

static void
test_armor(void)
{
	static const char ok[] = SIGNED("Comment: att-fmt-ver: 0.1\n"
	    "Comment: att-hash: sha256\n");
	static const char v02[] = SIGNED("Comment: att-fmt-ver: 0.2\n"
	    "Comment: att-hash: sha256\n");
	static const char sha512[] = SIGNED("Comment: att-fmt-ver: 0.1\n"
	    "Comment: att-hash: sha512\n");
	static const char nohash[] = SIGNED("Comment: att-fmt-ver: 0.1\n");
	static const char twice[] = SIGNED("Comment: att-fmt-ver: 0.1\n"
	    "Comment: att-fmt-ver: 0.1\nComment: att-hash: sha256\n");
	static const char other[] = SIGNED("Version: GnuPG v2\n"
	    "comment: ATT-FMT-VER: 0.1\nComment: att-hash: sha256\n");
	static const char none[] = SIGNED("");
	static const char intext[] = "-----BEGIN PGP SIGNED MESSAGE-----\n"
	    "Hash: SHA256\n\nComment: att-fmt-ver: 0.1\n"
	    "-----BEGIN PGP SIGNATURE-----\n\nComment: att-fmt-ver: 0.1\n"
	    "-----END PGP SIGNATURE-----\n";
	struct pa_err err;
	struct sbuf sb;
	size_t i;

	tap_check_int(attdoc_check_armor(ok, sizeof(ok) - 1, &err), 0,
	    "armor: 0.1 with sha256");
	tap_check_int(attdoc_check_armor(v02, sizeof(v02) - 1, &err),
	    PA_EBADDOC, "armor: 0.2 refused");
	tap_check(strstr(err.msg, "\"0.2\"") && strstr(err.msg, "(0.1 is)"),
	    "armor: %s", err.msg);
	tap_check_int(attdoc_check_armor(sha512, sizeof(sha512) - 1, &err),
	    PA_EBADDOC, "armor: sha512 refused: %s", err.msg);
	tap_check_int(attdoc_check_armor(nohash, sizeof(nohash) - 1, &err),
	    PA_EBADDOC, "armor: no att-hash refused: %s", err.msg);
	tap_check_int(attdoc_check_armor(twice, sizeof(twice) - 1, &err),
	    PA_EBADDOC, "armor: two att-fmt-ver comments refused");
	tap_check_int(attdoc_check_armor(other, sizeof(other) - 1, &err), 0,
	    "armor: other headers and any case of the names");
	tap_check_int(attdoc_check_armor(none, sizeof(none) - 1, &err),
	    PA_ENOTFOUND, "armor: no comment is not an attestation");
	tap_check_int(attdoc_check_armor(intext, sizeof(intext) - 1, &err),
	    PA_ENOTFOUND, "armor: comments outside the armor headers ignored");
	sbuf_init(&sb, SBUF_NOMAX);
	for (i = 0; i < sizeof(ok) - 1; i++) {
		if (ok[i] == '\n')
			sbuf_addch(&sb, '\r');
		sbuf_addch(&sb, ok[i]);
	}
	tap_check_int(attdoc_check_armor(sb.buf, sb.len, &err), 0,
	    "armor: CRLF lines");
	sbuf_release(&sb);
}

static void
test_parse(void)
{
	struct attdoc d;
	struct att_triple t, first;
	struct pa_err err;
	struct sbuf sb;
	struct timespec t0, t1;
	unsigned char want[32];
	size_t i;
	int rc, ok;

	attdoc_init(&d);
	rc = attdoc_parse(&d, SEED_BLOCK, sizeof(SEED_BLOCK) - 1, &err);
	tap_check(rc == 0 && d.n == 1, "parse: the seed block");
	ok = d.n == 1;
	for (i = 0; i < 32 && ok; i++) {
		unsigned v;

		v = (unsigned)((SEED_P[2 * i] <= '9' ? SEED_P[2 * i] - '0' :
		    SEED_P[2 * i] - 'a' + 10) << 4);
		v |= (unsigned)(SEED_P[2 * i + 1] <= '9' ?
		    SEED_P[2 * i + 1] - '0' : SEED_P[2 * i + 1] - 'a' + 10);
		want[i] = (unsigned char)v;
	}
	tap_check(ok && memcmp(d.t[0].p, want, 32) == 0, "parse: its p bytes");

	sbuf_init(&sb, SBUF_NOMAX);
	for (i = 0; i < NSEEDS; i++)
		sbuf_addf(&sb, "%s%.8s-%.8s-%.8s:\n  p: %s\n  i: %s\n  m: %s",
		    i ? "\n\n" : "", seeds[i].i, seeds[i].m, seeds[i].p,
		    seeds[i].p, seeds[i].i, seeds[i].m);
	sbuf_addstr(&sb, "\n" SEED_BLOCK "\n");
	rc = attdoc_parse(&d, sb.buf, sb.len, &err);
	tap_check(rc == 0 && d.n == NSEEDS,
	    "parse: six blocks, keys in any order, a repeat removed");
	ok = rc == 0;
	for (i = 0; ok && i < NSEEDS; i++) {
		char hex[DIGEST_HEXLEN + 1];

		digest_hex(hex, d.t[i].m);
		ok = strcmp(hex, seeds[i].m) == 0;
	}
	tap_check(ok, "parse: in document order");

	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		err.msg[0] = '\0';
		rc = attdoc_parse(&d, refused[i].text, refused[i].len, &err);
		tap_check(rc == PA_EBADDOC && d.n == 0 &&
		    strstr(err.msg, refused[i].why) != NULL,
		    "parse refuses %s: %s", refused[i].name, err.msg);
	}

	/* Same label, different hashes. */
	sbuf_reset(&sb);
	sbuf_addstr(&sb, SEED_BLOCK "\n" "2a02abe0-215cf3f1-2acb5798:\n"
	    "  i: " SEED_I "\n  m: " SEED_M "\n  p: "
	    "2acb5798c366f97501f8feacb873327b"
	    "ac161951ce83e90f04bbcde32e993866");
	rc = attdoc_parse(&d, sb.buf, sb.len, &err);
	tap_check(rc == PA_EBADDOC && strstr(err.msg, "two different"),
	    "parse refuses one label with two triples: %s", err.msg);

	/* A "billion laughs": refused at the first anchor, at once. */
	sbuf_reset(&sb);
	sbuf_addstr(&sb, "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n");
	for (i = 1; i < 40; i++)
		sbuf_addf(&sb, "%c%zu: &%c%zu [*%c%zu,*%c%zu,*%c%zu,*%c%zu]\n",
		    'a', i, 'a', i, 'a', i - 1, 'a', i - 1, 'a', i - 1, 'a',
		    i - 1);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = attdoc_parse(&d, sb.buf, sb.len, &err);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	tap_check(rc == PA_EBADDOC && seconds(&t0, &t1) < 0.5,
	    "parse refuses an alias bomb in %.3f s: %s", seconds(&t0, &t1),
	    err.msg);
	sbuf_reset(&sb);
	sbuf_addstr(&sb, SEED_BLOCK "\n");
	for (i = 0; i < 1000; i++)
		sbuf_addstr(&sb, "x: [*a, *a, *a, *a, *a, *a, *a, *a]\n");
	rc = attdoc_parse(&d, sb.buf, sb.len, &err);
	tap_check(rc == PA_EBADDOC && strstr(err.msg, "line 5"),
	    "parse refuses aliases without anchors at the first: %s", err.msg);

	/* Size: 10,000 blocks are fine, the caps hold. */
	sbuf_reset(&sb);
	for (i = 0; i < 10000; i++)
		block(&sb, i, i ? &t : &first);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = attdoc_parse(&d, sb.buf, sb.len, &err);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	tap_check(rc == 0 && d.n == 10000, "parse: 10,000 blocks in %.3f s",
	    seconds(&t0, &t1));
	tap_check(rc == 0 && memcmp(&d.t[0], &first, sizeof(first)) == 0 &&
	    memcmp(&d.t[9999], &t, sizeof(t)) == 0, "parse: first and last");
	for (; i < ATTDOC_MAX_BLOCKS + 1; i++)
		block(&sb, i, &t);
	rc = attdoc_parse(&d, sb.buf, sb.len, &err);
	tap_check(rc == PA_EBADDOC && d.n == 0,
	    "parse refuses %u blocks (%zu bytes): %s", ATTDOC_MAX_BLOCKS + 1,
	    sb.len, err.msg);
	sbuf_reset(&sb);
	for (i = 0; sb.len < 20u * 1000 * 1000; i++)
		block(&sb, i, &t);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = attdoc_parse(&d, sb.buf, sb.len, &err);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	tap_check(rc == PA_EBADDOC && seconds(&t0, &t1) < 0.1 &&
	    strstr(err.msg, "over the limit"), "parse refuses 20 MB at once: "
	    "%s", err.msg);

	/* Parsing again replaces the contents. */
	rc = attdoc_parse(&d, SEED_BLOCK, sizeof(SEED_BLOCK) - 1, &err);
	tap_check(rc == 0 && d.n == 1, "parse: a second parse starts afresh");
	sbuf_release(&sb);
	attdoc_release(&d);
	attdoc_release(&d);
	tap_check(d.t == NULL && d.n == 0, "release twice is harmless");
}

static void
test_payload(void)
{
	struct msghash_entry e[2];
	struct attdoc d;
	struct pa_err err;
	struct sbuf sb;
	size_t i;

	memset(e, 0, sizeof(e));
	for (i = 0; i < 2; i++) {
		struct attdoc one;
		struct sbuf b;

		sbuf_init(&b, SBUF_NOMAX);
		sbuf_addf(&b, "%.8s-%.8s-%.8s:\n  i: %s\n  m: %s\n  p: %s",
		    seeds[i].i, seeds[i].m, seeds[i].p, seeds[i].i, seeds[i].m,
		    seeds[i].p);
		attdoc_init(&one);
		if (attdoc_parse(&one, b.buf, b.len, &err) == 0) {
			memcpy(e[i].i, one.t[0].i, 32);
			memcpy(e[i].m, one.t[0].m, 32);
			memcpy(e[i].p, one.t[0].p, 32);
		}
		snprintf(e[i].attid, sizeof(e[i].attid), "%.8s-%.8s-%.8s",
		    seeds[i].i, seeds[i].m, seeds[i].p);
		attdoc_release(&one);
		sbuf_release(&b);
	}
	sbuf_init(&sb, SBUF_NOMAX);
	tap_check_int(attdoc_payload(&sb, e, 1), 0, "payload: one entry");
	tap_check_mem(sb.buf, sb.len, SEED_BLOCK, sizeof(SEED_BLOCK) - 1,
	    "payload: seed 002 byte for byte, no final LF");
	sbuf_reset(&sb);
	attdoc_payload(&sb, e, 2);
	tap_check(sb.len == 2 * (sizeof(SEED_BLOCK) - 1) + 1 &&
	    sb.buf[sizeof(SEED_BLOCK) - 1] == '\n' &&
	    sb.buf[sb.len - 1] != '\n', "payload: two entries joined by LF");
	attdoc_init(&d);
	tap_check(attdoc_parse(&d, sb.buf, sb.len, &err) == 0 && d.n == 2 &&
	    memcmp(d.t[1].p, e[1].p, 32) == 0, "payload: parses back");
	attdoc_release(&d);
	sbuf_reset(&sb);
	tap_check_int(attdoc_payload(&sb, e, 0), PA_ENOTFOUND,
	    "payload: nothing to attest");
	sbuf_release(&sb);
	sbuf_init(&sb, 10);
	tap_check_int(attdoc_payload(&sb, e, 1), PA_ETOOBIG,
	    "payload: the buffer's cap holds");
	sbuf_release(&sb);
}

static void
test_subject_mail(void)
{
	static const char want_mail[] =
	    "From: <devnull@kernel.org>\n"
	    "To: <signatures@kernel.org>\n"
	    "Subject: [PSIGN v4 X/6] binfmt_elf: Update READ_IMPLIES_EXEC "
	    "logic for modern\n CPUs\n"
	    "Message-Id: <1.2@kernel.org>\n"
	    "\n"
	    SIGNED("");
	struct sbuf sb;
	size_t i;

	sbuf_init(&sb, 4096);
	tap_check(attdoc_subject(&sb, NULL) == 0 &&
	    strcmp(sb.buf, "Patch attestation") == 0,
	    "subject: default without a cover letter");
	for (i = 0; i < sizeof(subjects) / sizeof(subjects[0]); i++) {
		sbuf_reset(&sb);
		attdoc_subject(&sb, subjects[i].in);
		tap_check_str(sb.buf, subjects[i].want, "subject: %s",
		    subjects[i].in);
	}

	sbuf_reset(&sb);
	attdoc_mail(&sb, "devnull@kernel.org", subjects[0].want,
	    "1.2@kernel.org", SIGNED(""), sizeof(SIGNED("")) - 1);
	tap_check_mem(sb.buf, sb.len, want_mail, sizeof(want_mail) - 1,
	    "mail: headers, folded subject, blank line, document");
	sbuf_reset(&sb);
	attdoc_mail(&sb, NULL, NULL, NULL, "x", 1);
	tap_check_str(sb.buf, "From: <devnull@kernel.org>\n"
	    "To: <signatures@kernel.org>\nSubject: Patch attestation\n\nx\n",
	    "mail: defaults");
	sbuf_reset(&sb);
	attdoc_mail(&sb, "Kees Cook <keescook@chromium.org>",
	    "a\r\nBcc: victim@example.org", "<m@x>", "x\n", 2);
	tap_check(strstr(sb.buf, "From: Kees Cook <keescook@chromium.org>\n") &&
	    strstr(sb.buf, "\nBcc:") == NULL && strstr(sb.buf,
	    "Message-Id: <m@x>\n"), "mail: a name kept, no header injection");
	sbuf_reset(&sb);
	attdoc_mail(&sb, NULL, "[PSIGN X/2] caf\xc3\xa9 na\xc3\xafve", NULL,
	    "x\n", 2);
	tap_check(strstr(sb.buf, "Subject: =?utf-8?q?[PSIGN_X/2]_caf=C3=A9_"
	    "na=C3=AFve?=\n") != NULL, "mail: a UTF-8 subject is encoded");
	sbuf_release(&sb);
}

int
main(void)
{
	test_spans();
	test_armor();
	test_parse();
	test_payload();
	test_subject_mail();
	return tap_done();
}
