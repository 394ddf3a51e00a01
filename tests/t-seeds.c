/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t-seeds - the seed series of the scheme's announcement: every patch gives
 * its published attestation ID (patch 1/6 also its three full hashes), the
 * cover letter none; the same holds for CRLF copies and for the messages
 * pushed field by field and in small chunks, as the milter will.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "patchattest.h"
#include "digest.h"
#include "tap.h"

static const struct {
	const char	*file;
	const char	*i, *m, *p;
} seeds[] = {
	{ "002-patch-x86-elf-add-table-to-document-read-implies-exec.patch",
	  "2a02abe02216f626105622aee2f26ab10c155b6442e23441d90fc5fe4071b86e",
	  "215cf3f133478917ad147a6eda1010a9c4bba1846e7dd35295e9a0081559e9b0",
	  "2acb5798c366f97501f8feacb873327bac161951ce83e90f04bbcde32e993865" },
	{ "003-patch-x86-elf-split-read-implies-exec-from-executable-gnu-stac.patch",
	  "75937bcc4f02a66b3cb226bd30d89286a8c10f75b4b32fd2b36c0107253b317b",
	  "99055a613e86a4ffba8e393371283210bbc780de66fb5f0ffebe790156f2e277",
	  "86ed600d59a548f37de1bfd4b0e7d9fac9991b45d74ab7584aa921d55f63b5bb" },
	{ "004-patch-x86-elf-disable-automatic-read-implies-exec-for-64-bit-a.patch",
	  "df75a2bb5160b3f0caa766a830cae29ba1a3d95f3b5480f502aaf9889dff5df3",
	  "112978dfad21414a83152657cdc593c42edb81f062b46ea0efdab4f2f2c9b2ef",
	  "c45ac7662c9b7d68aef42c8055815e73034784df0942454c0fd6fd98fae91372" },
	{ "005-patch-arm32-64-elf-add-tables-to-document-read-implies-exec.patch",
	  "d708fe17a111de87ce16d0e85d4fb216df3a31ef109c737562a9809e556cc54e",
	  "8d3777c24d954a3b39b7843edfb19cb796b01a1a3d70896c0e6d9276a52ad092",
	  "6ae8636e58b4530a86e3842f2fb4ce56343e92b0554d17ece3c8b98d3c419b76" },
	{ "006-patch-arm32-64-elf-split-read-implies-exec-from-executable-gnu.patch",
	  "5e5e210432cadeef2d97fcc60bddb99374c975ae30f7840092d650f4682efd53",
	  "22c94ea8d4121b6a447bc10b30ea45d2b642fb30ea3875c2a3e0dfe9cac9f1bf",
	  "26c8ab2f1af37ff595ff16373c98dade2f88991f2a74ee340d3e39aec59e80bb" },
	{ "007-patch-arm64-elf-disable-automatic-read-implies-exec-for-64-bit.patch",
	  "3bcaf54ad5eccc43560df717f10e76994a373b844cd5737b94715414959203a8",
	  "abe4870f0b238e54c532e19629c7ae90a58aadde0dcbe6511a9a1426cad8b2cb",
	  "92b040cb6e810074e872df947336f4e4bd4024c029385e1bf7c8beceb09edd7a" },
};

static char *
read_seed(const char *name, size_t *len)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/tests/fixtures/seeds/%s", tap_srcdir(),
	    name);
	return tap_read_file(path, len);
}

/* to_crlf - a copy with every LF as CRLF */
static char *
to_crlf(const char *s, size_t len, size_t *outlen)
{
	char *out = malloc(len * 2 + 1);
	size_t i, n = 0;

	for (i = 0; out && i < len; i++) {
		if (s[i] == '\n')
			out[n++] = '\r';
		out[n++] = s[i];
	}
	*outlen = n;
	return out;
}

/*
 * push - feed a raw message through the push interface: each header field
 * as an MTA passes it (name, value without the blank after the colon,
 * folds kept), then the body in chunks of step bytes.
 */
static int
push(struct mailmsg *m, const char *s, size_t len, size_t step)
{
	const char *end = s + len, *line, *colon, *next;
	char name[256], value[4096];
	size_t n, vlen;
	int rc;

	mailmsg_reset(m);
	for (line = s; line < end && *line != '\r' && *line != '\n';
	    line = next) {
		colon = memchr(line, ':', (size_t)(end - line));
		if (colon == NULL || (size_t)(colon - line) >= sizeof(name))
			return PA_ERROR;
		memcpy(name, line, (size_t)(colon - line));
		name[colon - line] = '\0';
		/* the field runs on over continuation lines */
		for (next = colon; (next = memchr(next, '\n',
		    (size_t)(end - next))) != NULL; next++)
			if (next + 1 >= end || (next[1] != ' ' && next[1] != '\t'))
				break;
		next = next ? next + 1 : end;
		vlen = (size_t)(next - colon - 1);
		if (vlen >= sizeof(value))
			return PA_ERROR;
		memcpy(value, colon + 1, vlen);
		while (vlen && (value[vlen - 1] == '\n' || value[vlen - 1] == '\r'))
			vlen--;
		value[vlen] = '\0';
		if ((rc = mailmsg_header(m, name,
		    value[0] == ' ' ? value + 1 : value)) != 0)
			return rc;
	}
	if ((rc = mailmsg_eoh(m)) != 0)
		return rc;
	line += *line == '\r' ? 2 : 1;
	for (; line < end; line += n) {
		n = (size_t)(end - line) < step ? (size_t)(end - line) : step;
		if ((rc = mailmsg_body(m, line, n)) != 0)
			return rc;
	}
	return mailmsg_eom(m);
}

static void
check_hashes(const struct msghash *h, int rc, size_t k, const char *how)
{
	char hex[DIGEST_HEXLEN + 1], attid[32];

	snprintf(attid, sizeof(attid), "%.8s-%.8s-%.8s", seeds[k].i, seeds[k].m,
	    seeds[k].p);
	if (!tap_check(rc == 0 && h->n >= 1, "seed %.3s %s: hashed", seeds[k].file,
	    how))
		return;
	tap_check_str(h->entry[0].attid, attid, "seed %.3s %s: attid",
	    seeds[k].file, how);
	if (k != 0)
		return;
	digest_hex(hex, h->entry[0].i);
	tap_check_str(hex, seeds[k].i, "seed 002 %s: full i", how);
	digest_hex(hex, h->entry[0].m);
	tap_check_str(hex, seeds[k].m, "seed 002 %s: full m", how);
	digest_hex(hex, h->entry[0].p);
	tap_check_str(hex, seeds[k].p, "seed 002 %s: full p", how);
}

/*
 * lone_cr - seed 002 with the LF after its first added line made a bare
 * CR: git mailinfo keeps the CR and b4 v0.5.4 then deletes it, joining
 * the two lines (the reference's p); only the early cleanings, which read
 * the patch as text, made it a line break, and they stay a variant.
 */
static void
lone_cr(struct mailmsg *m, struct msghash *h)
{
	static const char want_p[] = "54383c1a0acad9675caca311e97a903c"
	    "d28d17c53f66dc880f97143a23f725fd";
	struct pa_err err;
	char hex[DIGEST_HEXLEN + 1], *raw, *diff, *lf;
	size_t len, v, k;
	int rc, old;

	if ((raw = read_seed(seeds[0].file, &len)) == NULL ||
	    (diff = strstr(raw, "\ndiff --git")) == NULL ||
	    (lf = strstr(diff, "\n+")) == NULL) {
		tap_check(0, "seed 002 with a bare CR in its diff");
		free(raw);
		return;
	}
	*lf = '\r';
	for (v = 0; v <= 1; v++) {
		rc = v ? push(m, raw, len, 1) : mailmsg_parse(m, raw, len);
		rc = rc ? rc : msghash_compute(h, m, MSGHASH_VARIANTS, &err);
		if (!tap_check(rc == 0, "seed 002, bare CR in the diff %s: hashed",
		    v ? "pushed byte by byte" : "as a file"))
			continue;
		digest_hex(hex, h->entry[0].p);
		tap_check_str(hex, want_p, "  the primary p keeps the CR as "
		    "mailinfo does (the reference's)");
		for (old = 0, k = 1; k < h->n; k++) {
			digest_hex(hex, h->entry[k].p);
			old |= strcmp(hex, seeds[0].p) == 0;
		}
		tap_check(old, "  the early cleanings' line break is a variant");
	}
	free(raw);
}

int
main(void)
{
	struct mailmsg *m;
	struct msghash h;
	struct pa_err err;
	char *raw, *crlf;
	size_t k, len, crlflen, v;
	int rc;

	if (!tap_check(mailmsg_new(&m, 1 << 20) == 0, "a message buffer"))
		return tap_done();
	msghash_init(&h);
	for (k = 0; k < sizeof(seeds) / sizeof(seeds[0]); k++) {
		if (!tap_check((raw = read_seed(seeds[k].file, &len)) != NULL,
		    "read seed %.3s", seeds[k].file))
			continue;
		rc = mailmsg_parse(m, raw, len);
		check_hashes(&h, rc ? rc : msghash_compute(&h, m, 0, &err), k,
		    "as a file");

		/* The seeds hash alike under every variant (spec 8.1). */
		rc = msghash_compute(&h, m, MSGHASH_VARIANTS, &err);
		tap_check(rc == 0 && h.n == 1, "seed %.3s: every variant agrees "
		    "(%zu distinct)", seeds[k].file, h.n);

		crlf = to_crlf(raw, len, &crlflen);
		rc = mailmsg_parse(m, crlf, crlflen);
		check_hashes(&h, rc ? rc : msghash_compute(&h, m, 0, &err), k,
		    "with CRLF");
		for (v = 1; v <= 4096; v *= 8) {
			rc = push(m, crlf, crlflen, v);
			check_hashes(&h, rc ? rc : msghash_compute(&h, m, 0, &err),
			    k, v == 1 ? "pushed byte by byte" :
			    v == 8 ? "pushed in 8-byte chunks" :
			    v == 64 ? "pushed in 64-byte chunks" :
			    v == 512 ? "pushed in 512-byte chunks" :
			    "pushed in 4 KiB chunks");
		}
		free(crlf);
		free(raw);
	}

	lone_cr(m, &h);

	raw = read_seed(
	    "001-cover-binfmt-elf-update-read-implies-exec-logic-for-modern-cpu.txt",
	    &len);
	tap_check(raw != NULL, "read the cover letter");
	if (raw) {
		rc = mailmsg_parse(m, raw, len);
		rc = rc ? rc : msghash_compute(&h, m, MSGHASH_VARIANTS, &err);
		tap_check_int(rc, PA_ENOPATCH, "the cover letter has no patch");
		free(raw);
	}
	msghash_release(&h);
	mailmsg_free(m);
	return tap_done();
}
