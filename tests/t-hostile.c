/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t-hostile - input meant to hurt: empty and garbage messages, a 100 MB
 * line, 10,000 nested multiparts, truncated encodings, and a few thousand
 * random mutations of real patch mail.  Each crafted input must give the
 * one outcome it has (with git mailinfo's hashes when git reads it, its
 * refusal when git refuses or reads past its own buffer); random input,
 * whose outcome nobody knows beforehand, must give a result or a clear
 * error, the same one twice, without a crash; memory must stay
 * proportional to the input.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "patchattest.h"
#include "tap.h"

#define CAP	(64u << 20)

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t
next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)rng;
}

/*
 * hash_id - the message's primary attestation ID into attid ("" when
 * there is none); PA_ERROR for a result the contract forbids: no hashes
 * on success, a failure that does not say why
 */
static int
hash_id(struct mailmsg *m, const char *s, size_t len, unsigned flags,
    char attid[MSGHASH_ATTID_LEN + 1])
{
	struct msghash h;
	struct pa_err err;
	int rc;

	attid[0] = '\0';
	if ((rc = mailmsg_parse(m, s, len)) != 0)
		return rc;
	msghash_init(&h);
	rc = msghash_compute(&h, m, flags, &err);
	if (rc == 0 && h.n > 0 && h.n <= MSGHASH_MAX)
		memcpy(attid, h.entry[0].attid, MSGHASH_ATTID_LEN + 1);
	else if (rc == 0)
		rc = PA_ERROR;
	if (rc != 0 && err.msg[0] == '\0')
		rc = PA_ERROR;	/* every failure must say why */
	msghash_release(&h);
	return rc;
}

static int
hash(struct mailmsg *m, const char *s, size_t len, unsigned flags)
{
	char attid[MSGHASH_ATTID_LEN + 1];

	return hash_id(m, s, len, flags, attid);
}

/*
 * stable - input whose outcome nobody knows beforehand: a result or one
 * of the errors bad mail may give, the same (ID included) a second time
 */
static int
stable(struct mailmsg *m, const char *s, size_t len, unsigned flags)
{
	char a[MSGHASH_ATTID_LEN + 1], b[MSGHASH_ATTID_LEN + 1];
	int rc = hash_id(m, s, len, flags, a);

	if (rc != 0 && rc != PA_ENOPATCH && rc != PA_EMAILINFO &&
	    rc != PA_ENOHASH)
		return 0;
	return hash_id(m, s, len, flags, b) == rc && strcmp(a, b) == 0;
}

static long
maxrss_kb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/*
 * nested_multiparts - depth levels of multipart, each with a preamble line
 * when preamble is set (without one, git reads the inner boundary as text).
 */
static void
nested_multiparts(struct mailmsg *m, int depth, int preamble, int want)
{
	size_t cap = (size_t)depth * 96 + 256, n = 0;
	char *s = malloc(cap);
	int i, rc;

	n += (size_t)snprintf(s + n, cap - n, "From: A <a@b.c>\nSubject: "
	    "[PATCH] deep\nContent-Type: multipart/mixed; boundary=b0\n\n");
	for (i = 0; i < depth; i++)
		n += (size_t)snprintf(s + n, cap - n, "--b%d\nContent-Type: "
		    "multipart/mixed; boundary=b%d\n\n%s", i, i + 1,
		    preamble ? "preamble\n" : "");
	n += (size_t)snprintf(s + n, cap - n, "--b%d\n\n---\n", depth);
	rc = hash(m, s, n, MSGHASH_VARIANTS);
	tap_check_int(rc, want, "%d nested multiparts%s: %s", depth,
	    preamble ? " with preambles" : "", pa_strerror(want));
	free(s);
}

static void
mutate_all(struct mailmsg *m, const char *name, unsigned rounds)
{
	char path[4096], *orig, *buf;
	size_t len, n, k;
	unsigned r, bad = 0, pos, flips;

	snprintf(path, sizeof(path), "%s/tests/fixtures/%s", tap_srcdir(), name);
	if ((orig = tap_read_file(path, &len)) == NULL) {
		tap_check(0, "read %s", name);
		return;
	}
	buf = malloc(len + 64);
	for (r = 0; r < rounds; r++) {
		memcpy(buf, orig, len);
		n = len;
		flips = 1 + next_rand() % 8;
		for (k = 0; k < flips; k++) {
			pos = next_rand() % (unsigned)n;
			switch (next_rand() % 4) {
			case 0:
				buf[pos] = (char)next_rand();
				break;
			case 1:		/* a MIME or encoding metacharacter */
				buf[pos] = "=?\n-_[]<>\"(\\:\r\0"[next_rand() % 15];
				break;
			case 2:		/* truncate */
				n = pos + 1;
				break;
			default:	/* duplicate a line-sized chunk */
				if (n + 32 <= len + 64) {
					memmove(buf + pos + 32, buf + pos, n - pos);
					n += 32;
				}
				break;
			}
		}
		if (!stable(m, buf, n, r % 2 ? MSGHASH_VARIANTS : 0))
			bad++;
	}
	tap_check_int(bad, 0, "%u mutations of %s: each a result or an error "
	    "bad mail may give, the same twice", rounds, name);
	free(buf);
	free(orig);
}

int
main(void)
{
	struct mailmsg *m;
	/* The outcome of each, and the ID git mailinfo's output hashes to. */
	static const struct {
		const char	*in;
		int		 want;
		const char	*attid;
	} truncated[] = {
		/* git mailinfo refuses the unterminated encoded words */
		{ "From: =?utf-8?q?abc\nSubject: x\n\nmsg\n---\n+\n",
		    PA_EMAILINFO, "" },
		{ "From: a@b\nSubject: =?utf-8?b?w6\n\nmsg\n---\n+\n",
		    PA_EMAILINFO, "" },
		{ "From: a@b\nSubject: x\nContent-Transfer-Encoding: base64\n\n"
		    "bXNnCi0tLQpkaWZmIC0tZ2l0IGEveCBiL3gKQEAgLTEgKzEgQEAKLWEKK2",
		    0, "4a8ba8d3-9e732074-e2a4cf91" },
		{ "From: a@b\nSubject: x\nContent-Transfer-Encoding: "
		    "quoted-printable\n\nmsg=\n---\ndiff --git a/x b/x\n=E",
		    0, "4a8ba8d3-7e5b972d-e3b0c442" },
		/* git reads past the end of its buffer for these two: its
		   author name ends in whatever bytes follow, so no hash
		   could agree with it */
		{ "From: \"unterminated <a@b>\nSubject: x\n\nm\n---\n"
		    "diff -u\n", PA_EMAILINFO, "" },
		{ "From: a@b (open comment\nSubject: x\n\nm\n---\n"
		    "diff -u\n", PA_EMAILINFO, "" },
		{ "From: a@b\nSubject: x\nContent-Type: text/plain; "
		    "charset=\"\n\nm\n---\n", 0, "4a8ba8d3-01a60e35-e3b0c442" },
		{ "From: a@b\nSubject: x\nContent-Type: multipart/mixed; "
		    "boundary=\n\n--\n\n---\n", 0,
		    "4a8ba8d3-e3b0c442-e3b0c442" },
	};
	char attid[MSGHASH_ATTID_LEN + 1];
	char *big;
	size_t i, n;
	long before, grown;
	int rc;

	if (!tap_check(mailmsg_new(&m, CAP) == 0, "a message buffer"))
		return tap_done();
	tap_check_int(hash(m, "", 0, MSGHASH_VARIANTS), PA_EMAILINFO,
	    "empty message");
	tap_check_int(hash(m, " \n\t\r\n", 5, 0), PA_EMAILINFO,
	    "whitespace only");
	tap_check_int(hash(m, "\0\0\0\0", 4, MSGHASH_VARIANTS), PA_ENOPATCH,
	    "NUL bytes only");

	big = malloc(4096);
	for (i = 0; i < 2000; i++) {
		n = next_rand() % 4096;
		for (rc = 0; (size_t)rc < n; rc++)
			big[rc] = (char)next_rand();
		if (!stable(m, big, n, i % 2 ? MSGHASH_VARIANTS : 0))
			break;
	}
	tap_check_int((long long)i, 2000, "2000 random byte strings");
	free(big);

	for (i = 0; i < sizeof(truncated) / sizeof(truncated[0]); i++) {
		rc = hash_id(m, truncated[i].in, strlen(truncated[i].in),
		    MSGHASH_VARIANTS, attid);
		tap_check(rc == truncated[i].want &&
		    strcmp(attid, truncated[i].attid) == 0,
		    "truncated or broken input %zu: %s %s", i, pa_strerror(rc),
		    attid);
	}

	/* A 100 MB line is over the cap: refused before any work. */
	n = 100u << 20;
	big = malloc(n);
	memset(big, 'a', n);
	rc = hash(m, big, n, 0);
	tap_check_int(rc, PA_ETOOBIG, "a 100 MB single line is refused");

	/* Under the cap it is read, with memory proportional to it. */
	n = 48u << 20;
	memcpy(big, "From: a@b\nSubject: x\n\n", 22);
	before = maxrss_kb();
	rc = hash(m, big, n, MSGHASH_VARIANTS);
	grown = maxrss_kb() - before;
	tap_check_int(rc, PA_ENOPATCH, "a 48 MB single body line: no patch");
	tap_check(grown < 10 * (long)(n >> 10), "memory for it grew %ld KiB "
	    "(< 10x the input)", grown);
	memcpy(big + (n >> 1), "\n---\n", 5);
	rc = hash(m, big, n, 0);
	tap_check_int(rc, PA_OK, "a 48 MB line with a patch break: hashed");
	free(big);

	/* git's limit is 4 boundaries: the top level and 3 nested. */
	nested_multiparts(m, 10000, 0, PA_EMAILINFO);
	nested_multiparts(m, 10000, 1, PA_EMAILINFO);
	nested_multiparts(m, 3, 1, PA_OK);
	nested_multiparts(m, 4, 1, PA_EMAILINFO);

	mutate_all(m, "seeds/002-patch-x86-elf-add-table-to-document-read-"
	    "implies-exec.patch", 1500);
	mutate_all(m, "mail/mp-attachment.eml", 1000);
	mutate_all(m, "mail/rfc2047-latin1.eml", 1000);
	mutate_all(m, "mail/flowed-delsp.eml", 500);

	mailmsg_free(m);
	return tap_done();
}
