/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t-decide - the pure parts of the verdict: mail dates, the 2020 verdict
 * on what a document and its key say (one row a case: the facts, the
 * policy, the verdict and the start of its reason), and the
 * X-Patch-Attested header's wording, quoting and folding.  (The lookups
 * around them are checked end to end by t-verify.sh.)
 */
#include "config.h"

#include <string.h>

#include "patchattest.h"
#include "decide.h"
#include "headers.h"
#include "paconfig.h"
#include "maildate.h"
#include "tap.h"

static const struct {
	const char	*in;
	long long	 want;		/* -1: not a date */
} dates[] = {
	{ "Mon, 24 Feb 2020 21:13:02 -0800", 1582607582 },
	{ "24 Feb 2020 21:13:02 -0800", 1582607582 },
	{ "Tue, 25 Feb 2020 05:13:02 +0000", 1582607582 },
	{ "Tue, 25 Feb 2020 05:13:02 GMT", 1582607582 },
	{ "Tue, 25 Feb 2020 00:13:02 EST", 1582607582 },
	{ "Tue, 25 Feb 20 05:13:02 +0000", 1582607582 },
	{ "Tue, 25 Feb 2020 05:13 +0000", 1582607580 },
	{ "Tue (a comment), 25 Feb 2020 05:13:02 +0000 (UTC)", 1582607582 },
	{ "Thu, 1 Jan 1970 00:00:00 +0000", 0 },
	{ "Sat, 29 Feb 2020 12:00:00 +0530", 1582957800 },
	{ "yesterday", -1 },
	{ "", -1 },
	{ "Tue, 25 Foo 2020 05:13:02 +0000", -1 },
	{ "Tue, 25 Feb 2020 25:13:02 +0000", -1 },
};

#define FPR	"C5BB6BD12357675533278ACE4B5EB654EDBCC6F5"
#define ARR	1700000000	/* when the mail arrived */
#define DAY	86400

/* The policy of a row: UIDMatch strict, StalenessDays. */
#define LOOSE		0
#define STRICT		1

static const struct {
	struct record_facts	 f;
	int			 strict;
	long			 staleness;
	enum verdict		 want;
	const char		*reason;	/* its start */
} records[] = {
	/* a good signature: the key decides */
	{ { PGP_SIG_GOOD, 0, PGP_KEY_TRUSTED, 1, 0, FPR, "a@x", 0 }, LOOSE, 0,
	    VERDICT_PASS, "" },
	{ { PGP_SIG_GOOD, 0, PGP_KEY_UNTRUSTED, 1, 0, FPR, "a@x", 0 }, LOOSE, 0,
	    VERDICT_UNTRUSTED, "the signing key is not trusted under trust "
	    "model gpg" },
	{ { PGP_SIG_GOOD, 0, PGP_KEY_REVOKED, 1, 0, FPR, "a@x", 0 }, LOOSE, 0,
	    VERDICT_UNTRUSTED, "the signing key is revoked" },
	{ { PGP_SIG_GOOD, 0, PGP_KEY_EXPIRED, 1, 0, FPR, "a@x", 0 }, LOOSE, 0,
	    VERDICT_UNTRUSTED, "the signing key has expired" },
	{ { PGP_SIG_GOOD, 0, PGP_KEY_MISSING, 1, 0, FPR, "a@x", 0 }, LOOSE, 0,
	    VERDICT_NOKEY, "no public key in the keyring for " FPR },
	{ { PGP_SIG_NOKEY, 0, PGP_KEY_MISSING, 0, 0, FPR, "a@x", 0 }, STRICT,
	    30, VERDICT_NOKEY, "no public key in the keyring for " FPR },
	/* the signature itself */
	{ { PGP_SIG_BAD, 0, PGP_KEY_TRUSTED, 1, 0, FPR, "a@x", 0 }, LOOSE, 0,
	    VERDICT_FAIL, "the attestation's signature does not verify" },
	{ { PGP_SIG_ERROR, 0, PGP_KEY_TRUSTED, 1, 0, FPR, "a@x", 0 }, LOOSE, 0,
	    VERDICT_FAIL, "the attestation's signature cannot be checked" },
	{ { PGP_SIG_BAD, DECIDE_DIFF_P, PGP_KEY_TRUSTED, 1, 0, FPR, "a@x", 0 },
	    LOOSE, 0, VERDICT_FAIL, "the attestation's signature" },
	/* what differs, whatever the key */
	{ { PGP_SIG_GOOD, DECIDE_DIFF_I, PGP_KEY_TRUSTED, 1, 0, FPR, "a@x", 0 },
	    LOOSE, 0, VERDICT_FAIL, "author or subject is not what was "
	    "attested" },
	{ { PGP_SIG_GOOD, DECIDE_DIFF_M, PGP_KEY_MISSING, 1, 0, FPR, "a@x", 0 },
	    LOOSE, 0, VERDICT_FAIL, "commit message is not what was attested" },
	{ { PGP_SIG_NOKEY, DECIDE_DIFF_P, PGP_KEY_MISSING, 1, 0, FPR, "a@x", 0 },
	    LOOSE, 0, VERDICT_FAIL, "diff is not what was attested" },
	{ { PGP_SIG_GOOD, DECIDE_DIFF_M | DECIDE_DIFF_P, PGP_KEY_TRUSTED, 1, 0,
	    FPR, "a@x", 0 }, LOOSE, 0, VERDICT_FAIL, "commit message and diff are "
	    "not what was attested" },
	/* UIDMatch */
	{ { PGP_SIG_GOOD, 0, PGP_KEY_TRUSTED, 0, 0, FPR, "a@x", 0 }, LOOSE, 0,
	    VERDICT_PASS, "" },
	{ { PGP_SIG_GOOD, 0, PGP_KEY_TRUSTED, 0, 0, FPR, "a@x", 0 }, STRICT, 0,
	    VERDICT_UIDMISMATCH, "no user ID of the signing key has the "
	    "author's address <a@x>" },
	{ { PGP_SIG_GOOD, 0, PGP_KEY_TRUSTED, 1, 0, FPR, "a@x", 0 }, STRICT, 0,
	    VERDICT_PASS, "" },
	{ { PGP_SIG_GOOD, 0, PGP_KEY_UNTRUSTED, 0, 0, FPR, "a@x", 0 }, STRICT, 0,
	    VERDICT_UNTRUSTED, "the signing key is not trusted" },
	/* StalenessDays against the arrival: more days than allowed, on a
	   pass only */
	{ { PGP_SIG_GOOD, 0, PGP_KEY_TRUSTED, 1, ARR - 31 * DAY, FPR, "a@x",
	    ARR }, LOOSE, 30, VERDICT_STALE, "signed 31 days before the mail "
	    "arrived (StalenessDays 30)" },
	{ { PGP_SIG_GOOD, 0, PGP_KEY_TRUSTED, 1, ARR - 30 * DAY, FPR, "a@x",
	    ARR }, LOOSE, 30, VERDICT_PASS, "" },
	{ { PGP_SIG_GOOD, 0, PGP_KEY_TRUSTED, 1, 0, FPR, "a@x", ARR }, LOOSE,
	    30, VERDICT_PASS, "" },
	{ { PGP_SIG_GOOD, 0, PGP_KEY_TRUSTED, 1, ARR - 4000 * DAY, FPR, "a@x",
	    ARR }, LOOSE, 0, VERDICT_PASS, "" },
	{ { PGP_SIG_GOOD, 0, PGP_KEY_EXPIRED, 1, ARR - 31 * DAY, FPR, "a@x",
	    ARR }, LOOSE, 30, VERDICT_UNTRUSTED, "the signing key has expired" },
	{ { PGP_SIG_GOOD, 0, PGP_KEY_TRUSTED, 0, ARR - 31 * DAY, FPR, "a@x",
	    ARR }, STRICT, 30, VERDICT_UIDMISMATCH, "no user ID" },
	/* MaxClockSkew (300 s): signed after the mail arrived */
	{ { PGP_SIG_GOOD, 0, PGP_KEY_TRUSTED, 1, ARR + 3600, FPR, "a@x",
	    ARR }, LOOSE, 30, VERDICT_STALE, "signed 3600 seconds after the "
	    "mail arrived: the signer's clock or the signing time is wrong "
	    "(MaxClockSkew 300)" },
	{ { PGP_SIG_GOOD, 0, PGP_KEY_TRUSTED, 1, ARR + 3600, FPR, "a@x",
	    ARR }, LOOSE, 0, VERDICT_STALE, "signed 3600 seconds after" },
	{ { PGP_SIG_GOOD, 0, PGP_KEY_TRUSTED, 1, ARR + 300, FPR, "a@x",
	    ARR }, LOOSE, 30, VERDICT_PASS, "" },
	{ { PGP_SIG_GOOD, 0, PGP_KEY_UNTRUSTED, 1, ARR + 3600, FPR, "a@x",
	    ARR }, LOOSE, 30, VERDICT_UNTRUSTED, "the signing key is not" },
	{ { PGP_SIG_GOOD, 0, PGP_KEY_TRUSTED, 1, ARR + 3600, FPR, "a@x",
	    0 }, LOOSE, 30, VERDICT_PASS, "" },
};

static void
test_records(void)
{
	struct pa_config cfg;
	struct decision d;
	unsigned differs;
	size_t k;

	if (config_init(&cfg) != 0)
		tap_check(0, "config_init");
	for (k = 0; k < sizeof(records) / sizeof(records[0]); k++) {
		cfg.uid_match = records[k].strict ? UID_STRICT : UID_LOOSE;
		cfg.staleness_days = records[k].staleness;
		memset(&d, 0, sizeof(d));
		record_verdict(&records[k].f, &cfg, &d);
		/* what differs is told when the signature is not at fault */
		differs = records[k].f.sig == PGP_SIG_BAD ||
		    records[k].f.sig == PGP_SIG_ERROR ? 0 : records[k].f.differs;
		tap_check(d.result == records[k].want &&
		    strncmp(d.reason, records[k].reason,
		    strlen(records[k].reason)) == 0 &&
		    (records[k].reason[0] != '\0' || d.reason[0] == '\0') &&
		    d.differs == differs,
		    "record %zu: %s (%s), want %s (%s...)", k,
		    verdict_name(d.result), d.reason,
		    verdict_name(records[k].want), records[k].reason);
	}
	cfg.max_clock_skew = 0;
	tap_check_int(decide_signing_time(&cfg, ARR + 30 * DAY, ARR, d.reason,
	    sizeof(d.reason)), VERDICT_PASS, "MaxClockSkew 0: no limit");
	config_release(&cfg);
}

int
main(void)
{
	struct decision d;
	struct sbuf out;
	time_t t;
	size_t k;
	int rc;

	for (k = 0; k < sizeof(dates) / sizeof(dates[0]); k++) {
		rc = maildate_parse(dates[k].in, strlen(dates[k].in), &t);
		if (dates[k].want < 0)
			tap_check_int(rc, PA_ENOTFOUND, "date %zu is no date", k);
		else
			tap_check(rc == 0 && (long long)t == dates[k].want,
			    "date %zu: %lld", k, rc == 0 ? (long long)t : -1LL);
	}

	test_records();

	sbuf_init(&out, 4096);
	memset(&d, 0, sizeof(d));
	d.result = VERDICT_PASS;
	memcpy(d.attid, "2a02abe0-215cf3f1-2acb5798", 27);
	snprintf(d.signer, sizeof(d.signer), "%s",
	    "Kees Cook <keescook@chromium.org>");
	snprintf(d.key, sizeof(d.key), "%s",
	    "8972F4DFDC6DC026253779D5C8ED0D8F0A8B8E1C");
	d.signed_at = 1582607582;
	header_verdict(&d, &out);
	tap_check_str(out.buf, "pass; attid=2a02abe0-215cf3f1-2acb5798;\n"
	    "\tsigner=\"Kees Cook <keescook@chromium.org>\";\n"
	    "\tkey=8972F4DFDC6DC026253779D5C8ED0D8F0A8B8E1C; signed=2020-02-25",
	    "a pass header: result first, folded before column 78");

	sbuf_reset(&out);
	memset(&d, 0, sizeof(d));
	d.result = VERDICT_NONE;
	memcpy(d.attid, "2a02abe0-215cf3f1-2acb5798", 27);
	header_verdict(&d, &out);
	tap_check_str(out.buf, "none; attid=2a02abe0-215cf3f1-2acb5798",
	    "none: the ID only");

	sbuf_reset(&out);
	memset(&d, 0, sizeof(d));
	d.result = VERDICT_FAIL;
	snprintf(d.reason, sizeof(d.reason), "%s", "say \"no\" \\ twice\r\n");
	header_verdict(&d, &out);
	tap_check_str(out.buf, "fail; reason=\"say \\\"no\\\" \\\\ twice\"",
	    "quotes and backslashes escaped, line breaks dropped");

	for (k = VERDICT_PASS; k <= VERDICT_TEMPERROR; k++)
		tap_check(strlen(verdict_name((enum verdict)k)) > 0 &&
		    strchr(verdict_name((enum verdict)k), ' ') == NULL,
		    "verdict %zu has a one-word name: %s", k,
		    verdict_name((enum verdict)k));
	sbuf_release(&out);
	return tap_done();
}
