/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t-patchclean - the p hash under b4's three patch cleanings: the
 * fixtures of spec §8.2, and texts whose expected values were computed
 * with the reference oracle's clean_patch_early() / clean_patch_v054().
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "patchattest.h"
#include "digest.h"
#include "patchclean.h"
#include "sbuf.h"
#include "tap.h"

/* A string literal and its length, NUL bytes included. */
#define B(s)	s, sizeof(s) - 1

/* The abbreviations of §8.2. */
#define H	"---\n x | 2 +-\n 1 file changed\n\ndiff --git a/x b/x\n" \
		"index 1..2 100644\n--- a/x\n+++ b/x\n"
#define S	"-- \n2.20.1\n\n"

/* "none" in §8.2: that b4 version raised, PA_ENOHASH */
#define NONE	NULL

/* SHA-256 of nothing, given in full in §4.3 */
#define EMPTY	"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

#define P1_HASH	"a347f2f4c5b3907a29dc115b24a2c5dfd44ac632d7b804feb7463ae4e1d9cf42"
#define P1_TEXT	H "@@ -1,3 +1,3 @@\n a\n-b\n+c\n d\n" S

struct pcase {
	const char	*name;
	const char	*text;
	size_t		 len;
	const char	*want[3];	/* V1, V2, V3: hex or a prefix */
};

static void	check_case(const struct pcase *, const char *, size_t,
		    const char *);
static void	test_fixtures(void);
static void	test_crlf(void);
static void	test_blank(void);
static void	test_synth(void);
static void	test_long(void);
static void	to_crlf(struct sbuf *, const char *, size_t);

static const char *const algo_name[] = { "V1", "V2", "V3" };

/* §8.2, with the full values given in its text */
static const struct pcase fixtures[] = {
	{ "P1", B(P1_TEXT), { P1_HASH, P1_HASH, P1_HASH } },
	{ "P2", B(H "@@ -1,3 +1,2 @@\n a\n+c\n-b\n-d\n" S),
	    { "a86aaacfdd3a757311ce21f6b2daff41a22381b4780bf8873dd025c8b0df2dee",
	      "a86aaacfdd3a757311ce21f6b2daff41a22381b4780bf8873dd025c8b0df2dee",
	      "4915c0fbadf893a314b8583a9429a160b95c6c200080af39c0c55997145e9a20" } },
	{ "P3", B(H "@@ -1 +1 @@\n-a\n+b\n" S),
	    { NONE, NONE,
	      "b3531a157c78c7c6953a569d4388ab6ab091d2b64195592e60ebf8e041746b23" } },
	{ "P4", B("---\n\ndiff --git a/x b/x\ndeleted file mode 100644\n"
	    "index 1..0\n--- a/x\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n" S),
	    { "8cb366c3eee98ffc4e3cf0c2bcdc42f8d2e28f5eae9bbcffa3fc4d8e51d833aa",
	      "8cb366c3eee98ffc4e3cf0c2bcdc42f8d2e28f5eae9bbcffa3fc4d8e51d833aa",
	      "95a20629802549ff3351c19e2576361cf80dda00f48ead05a90b93add34e3ad6" } },
	{ "P5", B("---\n\ndiff --git a/x b/x\ndeleted file mode 100644\n"
	    "index e69de29..0000000\n" S),
	    { EMPTY, EMPTY,
	      "696328039b3ab5f43c65e0222d21a47f2f1f0b8ff0d01c8ebd46f4fa59aa87d6" } },
	{ "P6", B(H "@@ -1,3 +1,3 @@\n a\n\n-b\n+c\n" S),
	    { NONE,
	      "0cc46dc5ac7f72003e91987850947bbdb1c9b39e79cd9c7f034ce54073283129",
	      "915e5b411f6e7c6e97c95706f04638c1db2c76896ff2eadf0a8ddebf9e843c65" } },
	{ "P7", B(H "@@ -1,2 +1,2 @@\n x\n-a\n\\ No newline at end of file\n"
	    "+b\n\\ No newline at end of file\n" S),
	    { "11097891ef966e1336f01f78545971a7dd1c4c7dc5aaa6e6143f62f2b49de702",
	      "11097891ef966e1336f01f78545971a7dd1c4c7dc5aaa6e6143f62f2b49de702",
	      "1fdbeb86eae6ed9f19f4ee5f9e83905d4ca68761f9309ea1bc26f28861f5c1b6" } },
	{ "P8", B("---\n x.bin | Bin 0 -> 3 bytes\n\ndiff --git a/x.bin b/x.bin\n"
	    "new file mode 100644\nindex 0000000..1\nGIT binary patch\n"
	    "literal 3\nKcmZ>Bcn\n\nliteral 0\nHcmV?d00001\n\n" S),
	    { EMPTY, EMPTY,
	      "e6f5de6aaee59c0e52794b7db5b05f8652c465973e528fde8cf5dfb46f263a6b" } },
	{ "P9", B(H "@@ -1,1 +1,1 @@\n-b\n+c  \n"),
	    { "768aedc4cf9ffe739b42298247a86587956f0c1d56dcd6b1f6d54f34608f5708",
	      "71f19b3ed690be2b246dfcc454dba512b3f8381bd7cf2df0ad31faff49dd2c2a",
	      "71f19b3ed690be2b246dfcc454dba512b3f8381bd7cf2df0ad31faff49dd2c2a" } },
	{ "P10", B(H "@@ -1,3 +1,3 @@\n a\n-b\n+c\n"),
	    { NONE,
	      "112fb06a739546b7157b594db245cd6ab3d5af611f0f8acf14bed3ed00108e36",
	      "d136dbc4fbc2968e98accb4c96c67fdd8e443f54f802544258f68e0691d74506" } },
};

/* Expected values from the reference oracle (Python 3.11). */
static const struct pcase synth[] = {
	{ "two files, two hunks",
	    B("Fix it.\n"
	    "---\n"
	    " a | 3 ++-\n"
	    " b | 1 +\n"
	    " 2 files changed\n"
	    "\n"
	    "diff --git a/a b/a\n"
	    "index 1..2 100644\n"
	    "--- a/a\n"
	    "+++ b/a\n"
	    "@@ -1,3 +1,4 @@ int main(void)\n"
	    " x\n"
	    "-y\n"
	    "+z\n"
	    "+w\n"
	    " q\n"
	    "@@ -10,2 +11,2 @@\n"
	    "-m\n"
	    "+n\n"
	    " o\n"
	    "diff --git a/b b/b\n"
	    "index 3..4 100644\n"
	    "--- a/b\n"
	    "+++ b/b\n"
	    "@@ -1 +1,2 @@\n"
	    " k\n"
	    "+l\n"
	    "-- \n"
	    "2.30.0\n"
	    "\n"),
	    { "ac1c2781a4a2e3339861f7019692ff106d38bbdbf8b5750f086b2efd4cf0bd42",
	      "ac1c2781a4a2e3339861f7019692ff106d38bbdbf8b5750f086b2efd4cf0bd42",
	      "ac1c2781a4a2e3339861f7019692ff106d38bbdbf8b5750f086b2efd4cf0bd42" } },
	{ "binary delta",
	    B("---\n"
	    " x.bin | Bin 3 -> 4 bytes\n"
	    "\n"
	    "diff --git a/x.bin b/x.bin\n"
	    "index 1..2 100644\n"
	    "GIT binary patch\n"
	    "delta 4\n"
	    "LcmZo*KcmZ>Bcn\n"
	    "\n"
	    "delta 3\n"
	    "KcmZ>Bcn\n"
	    "\n"
	    "-- \n"
	    "2.20.1\n"),
	    { "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
	      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
	      "77da985e2f9ceec1891d843216b7a39355ce9444ba8ead8181b00a935ef89bac" } },
	{ "binary chunk not closed",
	    B("diff --git a/x b/x\n"
	    "GIT binary patch\n"
	    "literal 3\n"
	    "KcmZ>Bcn"),
	    { "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
	      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
	      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" } },
	{ "deleted empty file then hunk",
	    B("diff --git a/e b/e\n"
	    "deleted file mode 100644\n"
	    "index e69de29..0000000\n"
	    "diff --git a/x b/x\n"
	    "index 1..2 100644\n"
	    "--- a/x\n"
	    "+++ b/x\n"
	    "@@ -1,1 +1,1 @@\n"
	    "-a\n"
	    "+b\n"),
	    { "38529a58a8410ff9176734d44fb6de1d99fc8381bfb464cf5ba54d8a6df738bd",
	      "38529a58a8410ff9176734d44fb6de1d99fc8381bfb464cf5ba54d8a6df738bd",
	      "38529a58a8410ff9176734d44fb6de1d99fc8381bfb464cf5ba54d8a6df738bd" } },
	{ "huge counts to the end",
	    B("--- a/x\n"
	    "+++ b/x\n"
	    "@@ -1,99999999999999999999999 +1,99999999999999999999999 @@\n"
	    " a\n"
	    "-b\n"
	    "+c\n"
	    "signature\n"),
	    { NONE,
	      "dc25dd1901391460668661c207536485b72c343ced2809a3230d8a445e71819d",
	      "18b4b42273921676e0cbe508b2c5061c7296437aba47fc4a818e8040f2323c26" } },
	{ "nbsp line breaks lookback",
	    B("diff --git a/x b/x\n"
	    "\xc2\xa0\n"
	    "index 1..2\n"
	    "--- a/x\n"
	    "+++ b/x\n"
	    "@@ -1,1 +1,1 @@\n"
	    "-a\n"
	    "+b\n"),
	    { "82a698b6e2b6c4ae4a72b3936155f17af7a3b180c5c1db2d49d3d16ba20bcd08",
	      "82a698b6e2b6c4ae4a72b3936155f17af7a3b180c5c1db2d49d3d16ba20bcd08",
	      "82a698b6e2b6c4ae4a72b3936155f17af7a3b180c5c1db2d49d3d16ba20bcd08" } },
	{ "ideographic space line",
	    B("header\n"
	    "\xe3\x80\x80\xe2\x80\xa8\n"
	    "--- a/x\n"
	    "+++ b/x\n"
	    "@@ -0,0 +1,2 @@\n"
	    "+\xc3\xa9\n"
	    "+\xe4\xb8\xad\n"),
	    { "19287c778cb19027eb3def8dcab5c1559f102423e0787c2272a853336cd453c3",
	      "19287c778cb19027eb3def8dcab5c1559f102423e0787c2272a853336cd453c3",
	      "19287c778cb19027eb3def8dcab5c1559f102423e0787c2272a853336cd453c3" } },
	{ "no blank before diffstat",
	    B("Subject line\n"
	    "---\n"
	    " x | 2 +-\n"
	    "diff --git a/x b/x\n"
	    "--- a/x\n"
	    "+++ b/x\n"
	    "@@ -1,1 +1,1 @@\n"
	    "-a\n"
	    "+b\n"
	    "\n"),
	    { "2c1b74694dd2f1742752eb1c85dce06dd466291540dc298987b711ead33960c4",
	      "2c1b74694dd2f1742752eb1c85dce06dd466291540dc298987b711ead33960c4",
	      "2c1b74694dd2f1742752eb1c85dce06dd466291540dc298987b711ead33960c4" } },
	{ "cr inside line",
	    B("--- a/x\r\n"
	    "+++ b/x\r\n"
	    "@@ -1,2 +1,2 @@\r\n"
	    " a\rb\r\n"
	    "-c\r\n"
	    "+d\r\n"),
	    { "36df1a6df16c5242bba6fba411f53ed23d7926da76dd92b2249319a36faae632",
	      "36df1a6df16c5242bba6fba411f53ed23d7926da76dd92b2249319a36faae632",
	      "36df1a6df16c5242bba6fba411f53ed23d7926da76dd92b2249319a36faae632" } },
	{ "nul bytes",
	    B("--- a/x\n"
	    "+++ b/x\n"
	    "@@ -1,1 +1,1 @@\n"
	    "-a\0b\n"
	    "+a\0c\n"),
	    { "013480ffb5db0f7de6e63ebf82afe807fa3418cc4f9de77eeaf41bb800fbae46",
	      "013480ffb5db0f7de6e63ebf82afe807fa3418cc4f9de77eeaf41bb800fbae46",
	      "013480ffb5db0f7de6e63ebf82afe807fa3418cc4f9de77eeaf41bb800fbae46" } },
	{ "leading and trailing space",
	    B("  \n"
	    "\n"
	    "\t--- a/x\n"
	    "+++ b/x\n"
	    "@@ -1,1 +1,1 @@\n"
	    "-a\n"
	    "+b \t\n"
	    " \n"),
	    { "291aa29c53ae4899db092f98f48527be36a9873b2545479da2282a5a553b76e7",
	      "223fd41fb88a367955d4ba33fb759d6a1401d569364a56eec3cc78eab800ebfa",
	      "223fd41fb88a367955d4ba33fb759d6a1401d569364a56eec3cc78eab800ebfa" } },
	{ "no hunk at all",
	    B("This is a cover letter.\n"
	    "---\n"
	    " 2 files changed\n"
	    "\n"
	    "-- \n"
	    "2.1\n"),
	    { "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
	      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
	      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" } },
	{ "pure deletion last",
	    B("--- a/x\n"
	    "+++ b/x\n"
	    "@@ -1,3 +0,0 @@\n"
	    "-a\n"
	    "-b\n"
	    "-c\n"
	    "-- \n"
	    "2.20.1\n"),
	    { "33618d2164f7d7e3d22087b416155b6139b8e8b5572169abf099ccb12356bf81",
	      "33618d2164f7d7e3d22087b416155b6139b8e8b5572169abf099ccb12356bf81",
	      "7743aa5f5bfb089f62d9e375a636063900e25e576c80d7a7f5ddb538a391bcc5" } },
	{ "malformed hunk headers",
	    B("--- a/x\n"
	    "+++ b/x\n"
	    "@@ -1,x +1 @@\n"
	    "@@ -1, +1 @@\n"
	    "@@ -1 +1,2 @@@\n"
	    " a\n"
	    "+b\n"),
	    { "615cbd6f812bf61c14e118b18f987e64172d3cdc1ea0adb2fbffc1e30fee05d7",
	      "615cbd6f812bf61c14e118b18f987e64172d3cdc1ea0adb2fbffc1e30fee05d7",
	      "615cbd6f812bf61c14e118b18f987e64172d3cdc1ea0adb2fbffc1e30fee05d7" } },
	{ "leading zero counts",
	    B("--- a/x\n"
	    "+++ b/x\n"
	    "@@ -01,0002 +01,0002 @@\n"
	    " a\n"
	    "-b\n"
	    "+c\n"
	    " d\n"
	    "after\n"),
	    { "f63b31ed99f71850d898aa1be85d0ff5901ab3468be7c2a4adf9bce1acac500a",
	      "f63b31ed99f71850d898aa1be85d0ff5901ab3468be7c2a4adf9bce1acac500a",
	      "f63b31ed99f71850d898aa1be85d0ff5901ab3468be7c2a4adf9bce1acac500a" } },
	{ "minus count exhausted first",
	    B("--- a/x\n"
	    "+++ b/x\n"
	    "@@ -1,1 +1,3 @@\n"
	    "-a\n"
	    "-b\n"
	    "+c\n"
	    "+d\n"
	    "+e\n"
	    "-f\n"
	    "tail\n"),
	    { "e9b356dc792aeb5f1bf30a1e2bac41c14a6a9dd12acaee8f817938c348666808",
	      "e9b356dc792aeb5f1bf30a1e2bac41c14a6a9dd12acaee8f817938c348666808",
	      "e9b356dc792aeb5f1bf30a1e2bac41c14a6a9dd12acaee8f817938c348666808" } },
	{ "index deleted short B",
	    B("deleted file mode 100644\n"
	    "index 1..0\n"),
	    { "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
	      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
	      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" } },
};

#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))

/* check_case - all three cleanings of text against c->want */
static void
check_case(const struct pcase *c, const char *text, size_t len,
    const char *label)
{
	unsigned char h[DIGEST_LEN];
	char hex[DIGEST_HEXLEN + 1];
	int a, rc;

	for (a = 0; a < 3; a++) {
		rc = patchclean_hash(h, (enum patchclean_algo)a, text, len);
		if (c->want[a] == NONE) {
			tap_check_int(rc, PA_ENOHASH, "%s%s %s: no hash",
			    c->name, label, algo_name[a]);
			continue;
		}
		if (!tap_check_int(rc, 0, "%s%s %s: rc", c->name, label,
		    algo_name[a]))
			continue;
		digest_hex(hex, h);
		/* a bare 8-digit prefix checks the prefix */
		hex[strlen(c->want[a])] = '\0';
		tap_check_str(hex, c->want[a], "%s%s %s", c->name, label,
		    algo_name[a]);
	}
}

static void
test_fixtures(void)
{
	size_t i;

	for (i = 0; i < NELEM(fixtures); i++)
		check_case(&fixtures[i], fixtures[i].text, fixtures[i].len, "");
}

/* to_crlf - text with every LF turned into CRLF, into sb */
static void
to_crlf(struct sbuf *sb, const char *text, size_t len)
{
	size_t i;

	sbuf_reset(sb);
	for (i = 0; i < len; i++) {
		if (text[i] == '\n')
			sbuf_addch(sb, '\r');
		sbuf_addch(sb, text[i]);
	}
}

/* test_crlf - §8.2: P1 with CRLF gives the same values (CRs deleted) */
static void
test_crlf(void)
{
	struct sbuf sb;
	size_t i;

	sbuf_init(&sb, SBUF_NOMAX);
	for (i = 0; i < NELEM(fixtures); i++) {
		to_crlf(&sb, fixtures[i].text, fixtures[i].len);
		if (i == 0)
			tap_check(memchr(sb.buf, '\r', sb.len) != NULL &&
			    sb.len > fixtures[i].len, "P1 CRLF text built");
		check_case(&fixtures[i], sb.buf, sb.len, " CRLF");
	}
	sbuf_release(&sb);
}

static void
test_blank(void)
{
	static const struct {
		const char	*text;
		size_t		 len;
	} blank[] = {
		{ B("") }, { B(" ") }, { B("\n\n") }, { B("\r\n\r\n") },
		{ B("\t\v\f\x1c") }, { B("\xc2\xa0\n\xe3\x80\x80\xe2\x80\xa8") },
	};
	unsigned char h[DIGEST_LEN];
	size_t i;
	int a;

	for (i = 0; i < NELEM(blank); i++)
		for (a = 0; a < 3; a++)
			tap_check_int(patchclean_hash(h, (enum patchclean_algo)a,
			    blank[i].text, blank[i].len), PA_ENOPATCH,
			    "blank text %zu %s: no p", i, algo_name[a]);
	/* U+200B is no whitespace for Python: a p exists */
	tap_check_int(patchclean_hash(h, PATCHCLEAN_V3, B("\xe2\x80\x8b")), 0,
	    "zero width space is not blank");
}

static void
test_synth(void)
{
	size_t i;

	for (i = 0; i < NELEM(synth); i++)
		check_case(&synth[i], synth[i].text, synth[i].len, "");
}

/* test_long - P1 a thousand times, LF and CRLF: many hunks, one stream */
static void
test_long(void)
{
	static const struct pcase p1x1000 = {
		"P1x1000", NULL, 0,
		{ "4dedec8eb6ee59c0b1eba727be321526e2978aa064cb8f1692816fa9bde15fa0",
		  "4dedec8eb6ee59c0b1eba727be321526e2978aa064cb8f1692816fa9bde15fa0",
		  "4dedec8eb6ee59c0b1eba727be321526e2978aa064cb8f1692816fa9bde15fa0" }
	};
	struct sbuf sb, crlf;
	int i;

	sbuf_init(&sb, SBUF_NOMAX);
	sbuf_init(&crlf, SBUF_NOMAX);
	for (i = 0; i < 1000; i++)
		sbuf_add(&sb, B(P1_TEXT));
	check_case(&p1x1000, sb.buf, sb.len, "");
	to_crlf(&crlf, sb.buf, sb.len);
	check_case(&p1x1000, crlf.buf, crlf.len, " CRLF");
	sbuf_release(&sb);
	sbuf_release(&crlf);
}

int
main(void)
{
	test_fixtures();
	test_crlf();
	test_blank();
	test_synth();
	test_long();
	return tap_done();
}
