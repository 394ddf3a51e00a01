/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t-patatt-hostile - what an attacker can send in signature fields:
 * bounded work, a clear result and no crash.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "patchattest.h"
#include "codec.h"
#include "digest.h"
#include "mailmsg.h"
#include "patatt.h"
#include "patatt-int.h"
#include "pgp.h"
#include "pyheader.h"
#include "sbuf.h"
#include "patatt-fixture.h"
#include "tap.h"

/* hostile - bounded work and no crash on what an attacker can send */
static void
hostile(struct patatt *pt)
{
	struct key k, other;
	struct spec sp;
	struct sbuf msg, big, base;
	size_t i, j;
	unsigned seed = 12345;
	int rc, ok;

	keygen(&k);
	/* another key is on file for the signer: each signature is bad */
	keygen(&other);
	put_key("ed25519/example.org/alice/20250602", other.pub);
	sbuf_init(&msg, SBUF_NOMAX);
	sbuf_init(&big, SBUF_NOMAX);
	sbuf_init(&base, SBUF_NOMAX);
	memset(&sp, 0, sizeof(sp));
	sp.key = &k;
	build(&base, &sp);

	/* 5000 header fields */
	sbuf_reset(&msg);
	for (i = 0; i < 5000; i++)
		sbuf_addf(&msg, "X-Junk-%zu: %zu\n", i, i);
	sbuf_addstr(&msg, base.buf);
	rc = check(pt, msg.buf, msg.len);
	tap_check(rc == 0 && report.n == 1 &&
	    report.sig[0].result == PATATT_ERROR, "5000 header fields: %s",
	    report.n ? report.sig[0].detail : "-");

	/* 21 signatures: over the budget, none verified, all counted */
	sbuf_reset(&msg);
	for (i = 0; i < 20; i++)
		sig_field(&msg, &sp, NULL);
	sbuf_addstr(&msg, base.buf);
	rc = check(pt, msg.buf, msg.len);
	for (i = 0, ok = 1; i < report.n; i++)
		ok &= report.sig[i].result == PATATT_ERROR &&
		    strstr(report.sig[i].detail, "none is verified") != NULL;
	tap_check(rc == 0 && ok && report.n == PATATT_MAX_SIGS &&
	    report.total == 21, "21 signatures: %zu reported of %zu, none "
	    "verified: %s", report.n, report.total, report.sig[0].detail);
	/* at the budget, each is verified */
	sbuf_reset(&msg);
	for (i = 0; i + 1 < PATATT_MAX_SIGS; i++)
		sig_field(&msg, &sp, NULL);
	sbuf_addstr(&msg, base.buf);
	rc = check(pt, msg.buf, msg.len);
	for (i = 0, ok = 1; i < report.n; i++)
		ok &= report.sig[i].result == PATATT_BADSIG;
	tap_check(rc == 0 && ok && report.n == PATATT_MAX_SIGS,
	    "%d signatures: each verified (badsig, another key is on file)",
	    PATATT_MAX_SIGS);

	/* a signature value of 100 kB, and b= of 60 kB */
	sbuf_reset(&big);
	for (i = 0; i < 100000; i++)
		sbuf_addch(&big, "AB; =\n\t"[i % 7]);
	sbuf_reset(&msg);
	sbuf_addstr(&msg, HDRS "X-Developer-Signature: ");
	sbuf_add(&msg, big.buf, big.len);
	sbuf_addstr(&msg, "\n\n" BODY);
	ok = check(pt, msg.buf, msg.len) == 0 && report.n == 1 &&
	    report.sig[0].result == PATATT_ERROR;
	tap_check(ok, "100 kB signature value: error");
	sbuf_reset(&big);
	for (i = 0; i < 60000; i++)
		sbuf_addch(&big, 'A' + (char)(i % 26));
	sbuf_reset(&msg);
	sbuf_addstr(&msg, HDRS);
	sig_field(&msg, &sp, big.buf);
	sbuf_addstr(&msg, "\n" BODY);
	tap_check(check(pt, msg.buf, msg.len) == 0 && report.n == 1 &&
	    report.sig[0].result == PATATT_ERROR, "60 kB b=: error");

	/* h= naming 500 headers */
	sbuf_reset(&big);
	sbuf_addstr(&big, "from:subject");
	for (i = 0; i < 500; i++)
		sbuf_addstr(&big, ":to");
	sp.h = big.buf;
	build(&msg, &sp);
	rc = check(pt, msg.buf, msg.len);
	tap_check(rc == 0 && report.n == 1 &&
	    report.sig[0].result == PATATT_BADSIG, "h= of 502 names: %s",
	    report.n ? report.sig[0].detail : "-");
	sp.h = NULL;

	/* many encoded words and broken ones in a signed header */
	sbuf_reset(&big);
	sbuf_addstr(&big, "Message-ID: <x");
	for (i = 0; i < 2000; i++)
		sbuf_addstr(&big, i % 3 ? "=?utf-8?q?a_b?= " : "=?x?q?=?q?");
	sbuf_addstr(&big, ">\n");
	sbuf_reset(&msg);
	sbuf_addstr(&msg, big.buf);
	sp.h = "from:subject:message-id";
	build(&base, &sp);
	sbuf_addstr(&msg, base.buf);
	rc = check(pt, msg.buf, msg.len);
	tap_check(rc == 0 && report.n == 1,
	    "2000 encoded words in a signed header: %s", report.n ?
	    patatt_result_name(report.sig[0].result) : "-");
	sp.h = NULL;
	build(&base, &sp);

	/* messages patatt cannot read */
	tap_check(check(pt, "X-Developer-Signature: a=ed25519\n\n", 34) == 0 &&
	    report.n == 1 && report.sig[0].result == PATATT_ERROR,
	    "no body: error");
	sbuf_reset(&msg);
	sbuf_addstr(&msg, "Not a header line\n");
	sbuf_addstr(&msg, base.buf);
	rc = check(pt, msg.buf, msg.len);
	tap_check(rc == 0 && report.n == 1 &&
	    report.sig[0].result == PATATT_ERROR, "header without colon: %s",
	    report.n ? report.sig[0].detail : "-");
	sbuf_reset(&msg);
	sbuf_addstr(&msg, "From: \xff\xfe <x@y>\n");
	sbuf_addstr(&msg, base.buf);
	rc = check(pt, msg.buf, msg.len);
	tap_check(rc == 0 && report.n == 1 &&
	    report.sig[0].result == PATATT_ERROR, "From not UTF-8: %s",
	    report.n ? report.sig[0].detail : "-");

	/* garbage: bytes flipped and cut anywhere, over and over */
	for (ok = 1, i = 0; i < 400; i++) {
		sbuf_reset(&msg);
		sbuf_add(&msg, base.buf, base.len);
		for (j = 0; j < 1 + i % 8; j++) {
			seed = seed * 1103515245 + 12345;
			msg.buf[(seed >> 8) % msg.len] = (char)(seed >> 16);
		}
		if (i % 5 == 0)
			msg.len = (seed >> 4) % msg.len;
		rc = check(pt, msg.buf, msg.len);
		if (rc != 0 || report.n > PATATT_MAX_SIGS)
			ok = 0;
	}
	tap_check(ok, "400 damaged copies judged");
	sbuf_reset(&msg);
	for (i = 0; i < 3000; i++) {
		seed = seed * 1103515245 + 12345;
		sbuf_addch(&msg, (char)(seed >> 16));
		if (i == 40)
			sbuf_addstr(&msg, "\nX-Developer-Signature: a=openssh-"
			    "sha256; i=a@b; h=from:subject; t=1; b=U1NIU0lH");
	}
	tap_check(check(pt, msg.buf, msg.len) == 0, "random bytes judged");
	EVP_PKEY_free(k.pk);
	EVP_PKEY_free(other.pk);
	sbuf_release(&msg);
	sbuf_release(&big);
	sbuf_release(&base);
}

int
main(void)
{
	struct patatt *pt = fixture_start();
	hostile(pt);
	return fixture_end(pt);
}
