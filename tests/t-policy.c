/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t-policy - the milter's policy: the action for each verdict as
 * configured, AttestationWait's window, the SMTP replies, and the
 * Authentication-Results entry: its text, its folding, and which incoming
 * entries claim our authserv-id.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "hdrfmt.h"
#include "hdrstrip.h"
#include "headers.h"
#include "policy.h"
#include "pytext.h"
#include "tap.h"

#define NOW	((time_t)1764720000)	/* 2025-12-03 00:00:00 UTC */

static struct decision
verdict(enum verdict v, const char *reason)
{
	struct decision d;

	memset(&d, 0, sizeof(d));
	d.result = v;
	d.has_patch = 1;
	strcpy(d.attid, "2a02abe0-215cf3f1-2acb5798");
	strcpy(d.reason, reason);
	return d;
}

/* signed_only - patatt's verdict v on a signed mail without a patch */
static struct decision
signed_only(enum verdict v)
{
	struct decision d;

	memset(&d, 0, sizeof(d));
	d.result = d.patatt = v;
	d.v01 = VERDICT_NONE;
	d.has_patatt = 1;
	d.scheme = SCHEME_PATATT;
	strcpy(d.identity, "dev@example.org");
	strcpy(d.algo, "ed25519-sha256");
	return d;
}

static void
test_actions(void)
{
	struct pa_config cf;
	struct policy_outcome o;
	struct decision d;
	/* Each verdict with the key that sets its action, in order. */
	static const enum verdict verdicts[7] = {
		VERDICT_FAIL, VERDICT_NONE, VERDICT_UNTRUSTED, VERDICT_NOKEY,
		VERDICT_STALE, VERDICT_UIDMISMATCH, VERDICT_UNSIGNED_BY_SIGNER
	};
	enum action *fields[7];
	size_t k;

	config_init(&cf);
	fields[0] = &cf.on_fail;
	fields[1] = &cf.on_none;
	fields[2] = &cf.on_untrusted;
	fields[3] = &cf.on_nokey;
	fields[4] = &cf.on_stale;
	fields[5] = &cf.on_uidmismatch;
	fields[6] = &cf.on_unsigned_by_signer;
	for (k = 0; k < 7; k++) {
		d = verdict(verdicts[k], "");
		policy_apply(&cf, &d, NOW, &o);
		tap_check(o.action == ACTION_ACCEPT && o.rcode == NULL,
		    "%s: accepted by default", verdict_name(verdicts[k]));
		*fields[k] = ACTION_REJECT;
		policy_apply(&cf, &d, NOW, &o);
		tap_check(o.action == ACTION_REJECT && strcmp(o.rcode, "550") ==
		    0 && strcmp(o.xcode, "5.7.1") == 0,
		    "%s: OnX reject is 550 5.7.1", verdict_name(verdicts[k]));
		*fields[k] = ACTION_TEMPFAIL;
		policy_apply(&cf, &d, NOW, &o);
		tap_check(o.action == ACTION_TEMPFAIL && strcmp(o.rcode, "451") ==
		    0 && strcmp(o.xcode, "4.7.1") == 0,
		    "%s: OnX tempfail is 451 4.7.1", verdict_name(verdicts[k]));
		*fields[k] = ACTION_QUARANTINE;
		policy_apply(&cf, &d, NOW, &o);
		tap_check(o.action == ACTION_QUARANTINE && o.rcode == NULL &&
		    strstr(o.text, "2a02abe0-215cf3f1-2acb5798") != NULL,
		    "%s: OnX quarantine, the reason names the patch",
		    verdict_name(verdicts[k]));
	}
	/* A pass is never held back, whatever else is configured. */
	d = verdict(VERDICT_PASS, "");
	policy_apply(&cf, &d, NOW, &o);
	tap_check(o.action == ACTION_ACCEPT, "pass: always accepted");

	d = verdict(VERDICT_TEMPERROR, "the index cannot be opened");
	policy_apply(&cf, &d, NOW, &o);
	tap_check(o.action == ACTION_ACCEPT, "temperror: OnError accept");
	cf.on_error = ONERROR_TEMPFAIL;
	policy_apply(&cf, &d, NOW, &o);
	tap_check(o.action == ACTION_TEMPFAIL && strcmp(o.rcode, "451") == 0,
	    "temperror: OnError tempfail");
	/* Forged fields that stay: never accepted, whatever OnError says. */
	cf.on_error = ONERROR_ACCEPT;
	decision_fault(&d, 1, "too many fields to remove");
	d.unsafe = 1;
	policy_apply(&cf, &d, NOW, &o);
	tap_check(o.action == ACTION_REJECT && strcmp(o.rcode, "550") == 0,
	    "unsafe and lasting: rejected under OnError accept");
	decision_fault(&d, 0, "out of memory");
	d.unsafe = 1;
	policy_apply(&cf, &d, NOW, &o);
	tap_check(o.action == ACTION_TEMPFAIL, "unsafe for now: deferred");

	/* Judged, not recorded: a fault of ours, OnError's to decide. */
	d = verdict(VERDICT_PASS, "not recorded: the disk is full");
	d.unrecorded = 1;
	policy_apply(&cf, &d, NOW, &o);
	tap_check(o.action == ACTION_ACCEPT, "unrecorded pass, OnError "
	    "accept: accepted");
	cf.on_error = ONERROR_TEMPFAIL;
	policy_apply(&cf, &d, NOW, &o);
	tap_check(o.action == ACTION_TEMPFAIL && strcmp(o.rcode, "451") == 0 &&
	    strstr(o.text, "not recorded: the disk is full") != NULL,
	    "unrecorded pass, OnError tempfail: deferred, and says why");
	cf.on_error = ONERROR_ACCEPT;
	cf.on_fail = ACTION_REJECT;
	d = verdict(VERDICT_FAIL, "not recorded: the disk is full");
	d.unrecorded = 1;
	policy_apply(&cf, &d, NOW, &o);
	tap_check(o.action == ACTION_REJECT, "unrecorded fail, OnError "
	    "accept: OnFail's reject stands");
	config_release(&cf);
}

static void
test_text(void)
{
	struct pa_config cf;
	struct policy_outcome o;
	struct decision d;

	config_init(&cf);
	cf.on_fail = ACTION_REJECT;
	d = verdict(VERDICT_FAIL, "the commit message differs");
	policy_apply(&cf, &d, NOW, &o);
	tap_check_str(o.text, "Patch attestation fail: "
	    "2a02abe0-215cf3f1-2acb5798 is not what its attestation says (the "
	    "commit message differs)",
	    "reject text: the ID, the verdict and why");
	d = verdict(VERDICT_FAIL, "100% bad\r\nline\xc3\xa9");
	policy_apply(&cf, &d, NOW, &o);
	tap_check_str(o.text, "Patch attestation fail: "
	    "2a02abe0-215cf3f1-2acb5798 is not what its attestation says (100  "
	    "bad  line  )",
	    "reply text: no %%, controls or 8-bit bytes");
	d = signed_only(VERDICT_FAIL);
	strcpy(d.reason, "bad OpenPGP signature");
	policy_apply(&cf, &d, NOW, &o);
	tap_check_str(o.text, "Patch attestation fail: the message is not "
	    "what its attestation says (bad OpenPGP signature)",
	    "reject text of signed mail without a patch: no ID");
	config_release(&cf);
}

static void
test_wait(void)
{
	struct pa_config cf;
	struct policy_outcome o;
	struct decision d;

	config_init(&cf);
	d = verdict(VERDICT_NONE, "");
	d.mail_date = NOW - 60;
	policy_apply(&cf, &d, NOW, &o);
	tap_check(o.action == ACTION_ACCEPT, "wait off: a young patch passes");
	cf.attestation_wait = 30;
	policy_apply(&cf, &d, NOW, &o);
	tap_check(o.action == ACTION_TEMPFAIL && strcmp(o.rcode, "451") == 0 &&
	    strcmp(o.xcode, "4.7.1") == 0 && strstr(o.text, "try again"),
	    "wait 30: a patch dated a minute ago is told to retry");
	d.mail_date = NOW - 30 * 60;
	policy_apply(&cf, &d, NOW, &o);
	tap_check(o.action == ACTION_ACCEPT, "wait 30: 30 minutes old passes");
	d.mail_date = 0;
	policy_apply(&cf, &d, NOW, &o);
	tap_check(o.action == ACTION_ACCEPT, "wait 30: no Date passes");
	d.mail_date = NOW + 3600;
	policy_apply(&cf, &d, NOW, &o);
	tap_check(o.action == ACTION_ACCEPT,
	    "wait 30: a Date in the future does not hold mail back");
	d = verdict(VERDICT_NOKEY, "");
	d.mail_date = NOW - 60;
	policy_apply(&cf, &d, NOW, &o);
	tap_check(o.action == ACTION_ACCEPT, "wait applies to none only");
	cf.on_none = ACTION_REJECT;
	d = verdict(VERDICT_NONE, "");
	d.mail_date = NOW - 3600;
	policy_apply(&cf, &d, NOW, &o);
	tap_check(o.action == ACTION_REJECT,
	    "after the window, OnNone applies");
	cf.on_none = ACTION_ACCEPT;
	d = signed_only(VERDICT_NONE);
	d.mail_date = NOW - 60;
	policy_apply(&cf, &d, NOW, &o);
	tap_check(o.action == ACTION_ACCEPT, "wait: signed mail without a patch "
	    "has no document to wait for");
	config_release(&cf);
}

static void
test_authres(void)
{
	struct sbuf sb;
	struct decision d;
	static const char long_id[] =
	    "a-rather-long-authserv-id.mail.example.org";

	sbuf_init(&sb, 4096);
	d = verdict(VERDICT_PASS, "");
	header_authres(&sb, "mx.example.org", &d);
	tap_check_str(sb.buf, "mx.example.org; x-patch-attest=pass "
	    "reason=\"pass\"\n\tpolicy.attid=2a02abe0-215cf3f1-2acb5798",
	    "A-R: pass, folded before column 78");
	sbuf_reset(&sb);
	d = verdict(VERDICT_NOKEY, "");
	d.attid[0] = '\0';
	header_authres(&sb, long_id, &d);
	tap_check_str(sb.buf, "a-rather-long-authserv-id.mail.example.org;"
	    "\n\tx-patch-attest=neutral reason=\"nokey\"",
	    "A-R: nokey is neutral, no ID, folded after the authserv-id");
	sbuf_reset(&sb);
	d = verdict(VERDICT_STALE, "");
	header_authres(&sb, "m", &d);
	tap_check(strstr(sb.buf, "x-patch-attest=policy reason=\"stale\"") !=
	    NULL, "A-R: stale is policy");
	sbuf_reset(&sb);
	d = verdict(VERDICT_TEMPERROR, "");
	header_authres(&sb, "m", &d);
	tap_check(strstr(sb.buf, "x-patch-attest=temperror") != NULL,
	    "A-R: temperror");
	sbuf_reset(&sb);
	d = signed_only(VERDICT_PASS);
	header_authres(&sb, "mx.example.org", &d);
	tap_check_str(sb.buf, "mx.example.org; x-patatt=pass reason=\"pass\""
	    "\n\theader.i=dev@example.org header.a=ed25519-sha256",
	    "A-R: signed mail without a patch has patatt's part only");
	sbuf_release(&sb);
}

/* test_strip - which header fields go, and in which order */
/* The deletions hdrstrip_each() asks for, in its order. */
struct deletions {
	const char	*name[1200];
	int		 idx[1200];
	size_t		 n;
};

static int
record(void *arg, const char *name, int idx)
{
	struct deletions *d = arg;

	if (d->n == sizeof(d->idx) / sizeof(d->idx[0]))
		return -1;
	d->name[d->n] = name;
	d->idx[d->n++] = idx;
	return 0;
}

static void
test_strip(void)
{
	static const struct {
		const char	*name, *value;
	} in[] = {
		{ "Received", "from a" },
		{ "X-Patch-Attested", "pass; forged 1" },
		{ "Authentication-Results", "other.example; dkim=pass" },
		{ "x-patch-attested ", "pass; forged 2, trailing blank" },
		{ "Authentication-Results", "\"mx.example.org\"; forged" },
		{ "X-PATCH-ATTESTED", "pass; forged 3" },
		{ "Authentication-Results\t", "mx.example.org; forged" },
		{ "X-Patch-Attested-Not", "pass; another header" },
	};
	static const struct {
		const char	*name;
		unsigned	 idx;
	} want[] = {
		{ "Authentication-Results\t", 1 },
		{ "X-Patch-Attested", 2 },	/* the MTA: in any case */
		{ "Authentication-Results", 2 },
		{ "x-patch-attested ", 1 },
		{ "X-Patch-Attested", 1 },
	};
	struct hdrstrip s;
	struct deletions got = { 0 };
	char name[40];
	size_t k;

	hdrstrip_init(&s);
	for (k = 0; k < sizeof(in) / sizeof(in[0]); k++)
		hdrstrip_field(&s, in[k].name, in[k].value, "mx.example.org");
	tap_check_int((long long)s.ndoomed, 5, "strip: five fields go");
	hdrstrip_each(&s, record, &got);
	tap_check_int((long long)got.n, 5, "strip: five deletions");
	for (k = 0; k < got.n && k < sizeof(want) / sizeof(want[0]); k++)
		tap_check(strcmp(got.name[k], want[k].name) == 0 &&
		    got.idx[k] == (int)want[k].idx,
		    "strip: deletion %zu: \"%s\" %d", k, got.name[k],
		    got.idx[k]);
	/* A flood: every one goes, the last first (1,200 once stayed). */
	hdrstrip_reset(&s);
	got.n = 0;
	for (k = 0; k < 1200; k++)
		hdrstrip_field(&s, "X-Patch-Attested", "pass", NULL);
	hdrstrip_each(&s, record, &got);
	tap_check(got.n == 1200 && got.idx[0] == 1200 && got.idx[1199] == 1,
	    "strip: 1,200 forged fields, 1,200 deletions from the last");
	/* More spellings than are counted: the message cannot be cleaned. */
	hdrstrip_reset(&s);
	for (k = 0; k < HDRSTRIP_SPELLINGS; k++) {
		snprintf(name, sizeof(name), "X-Patch-Attested%*s", (int)k, "");
		hdrstrip_field(&s, name, "pass", NULL);
	}
	tap_check_int(hdrstrip_field(&s, "X-Patch-Attested                 ",
	    "pass", NULL), PA_ETOOBIG, "strip: more than %d spellings cannot "
	    "be cleaned", HDRSTRIP_SPELLINGS);
	hdrstrip_release(&s);
}

static void
test_logline(void)
{
	struct policy_outcome o;
	struct pa_config cf;
	struct decision d;
	struct sbuf sb;

	config_init(&cf);
	sbuf_init(&sb, 4096);
	d = verdict(VERDICT_PASS, "");
	strcpy(d.signer, "Alice Developer <alice@example.org>");
	policy_apply(&cf, &d, NOW, &o);
	policy_logline(&sb, "QID1", "<m1@example.org>", &d, &o);
	tap_check_str(sb.buf, "QID1: message-id=\"<m1@example.org>\" "
	    "result=pass attid=2a02abe0-215cf3f1-2acb5798 "
	    "signer=\"Alice Developer <alice@example.org>\" action=accept",
	    "log line: the fields of a pass");
	/* What an attacker chose: a user ID, a reason, a Message-ID. */
	d = verdict(VERDICT_FAIL, "bad\r\nQID2: result=pass \"x\"");
	strcpy(d.signer, "Evil\nQID2: message-id=x result=pass\" \\");
	policy_apply(&cf, &d, NOW, &o);
	sbuf_reset(&sb);
	policy_logline(&sb, "QID2", "<a\r\n\"b>", &d, &o);
	tap_check(strchr(sb.buf, '\n') == NULL && strchr(sb.buf, '\r') == NULL,
	    "log line: no line break from the mail");
	tap_check_str(sb.buf, "QID2: message-id=\"<a\\\"b>\" result=fail "
	    "attid=2a02abe0-215cf3f1-2acb5798 signer=\"EvilQID2: "
	    "message-id=x result=pass\\\" \\\\\" action=accept "
	    "reason=\"badQID2: result=pass \\\"x\\\"\"",
	    "log line: quotes and backslashes escaped");
	sbuf_release(&sb);
	config_release(&cf);
}

static void
test_ours(void)
{
	static const struct {
		const char	*value;
		int		 ours;
		const char	*name;
	} cases[] = {
		{ "mx.example.org; x-patch-attest=pass", 1, "plain" },
		{ "MX.Example.ORG; dkim=pass", 1, "any case, any method" },
		{ "  (forged) mx.example.org\n\t; none", 1,
		    "comment and folding before" },
		{ "mx.example.org 1; spf=pass", 1, "with a version" },
		{ "mx.example.org;", 1, "nothing after" },
		{ "mx.example.org/1; x-patch-attest=pass", 1,
		    "with a /version" },
		{ "MX.example.org/; none", 1, "with a bare /" },
		{ "mx.example.org.evil/1; none", 0, "a longer name, /version" },
		{ "mx.example.org.evil; x-patch-attest=pass", 0,
		    "a longer name" },
		{ "x.mx.example.org; x-patch-attest=pass", 0,
		    "a subdomain" },
		{ "other.example; x-patch-attest=pass", 0, "another host" },
		{ "", 0, "empty" },
		{ "(mx.example.org) other.example; none", 0,
		    "our name in a comment only" },
		{ "\"mx.test.example\"; x-patch-attest=pass", 0,
		    "another host, quoted" },
		{ "\"mx.example.org\"; x-patch-attest=pass", 1, "quoted" },
		{ "\"MX.example.\\org\" 1; none", 1, "quoted, an escape, any case" },
		{ "\"mx.example.org.evil\"; none", 0, "quoted, longer" },
		{ "\"mx.example\"; none", 0, "quoted, shorter" },
		{ "\"mx.example.org", 0, "quote not closed" },
	};
	size_t k;

	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++)
		tap_check_int(header_authres_ours(cases[k].value,
		    strlen(cases[k].value), "mx.example.org"), cases[k].ours,
		    "authserv-id: %s", cases[k].name);
}

/* hdrfmt_printable: escaped as hdrfmt_escaped does, cut whole with "..." */
static void
test_printable(void)
{
	static const struct {
		const char	*in;
		size_t		 size;
		const char	*want;
	} rows[] = {
		{ "plain text", 32, "plain text" },
		{ "a\x01" "b\\c", 32, "a\\x01b\\\\c" },
		{ "caf\xc3\xa9 \xff", 32, "caf\xc3\xa9 \\xff" },
		{ "0123456789", 10, "012345..." },
		{ "0123456789", 11, "0123456789" },
		/* an escape is never cut: it goes whole, or "..." */
		{ "ab\x01\x01", 9, "ab..." },
		{ "ab\x01\x01", 10, "ab\\x01..." },
		{ "ab\x01\x01", 11, "ab\\x01\\x01" },
		/* nor a UTF-8 character */
		{ "\xc3\xa9\xc3\xa9\xc3\xa9", 6, "\xc3\xa9..." },
		{ "", 4, "" },
	};
	char buf[64];
	size_t k;

	for (k = 0; k < sizeof(rows) / sizeof(rows[0]); k++)
		tap_check_str(hdrfmt_printable(buf, rows[k].size, rows[k].in,
		    strlen(rows[k].in)), rows[k].want, "printable %zu", k);
}

/*
 * hdrfmt_clip: one line, cut after a whole word with "...": libpq's
 * message that once lost the end of "administrator" in a reason
 */
static void
test_clip(void)
{
	static const char lost[] = "lost the state database (database "
	    "postgres on /tmp/t-pg.Ab12Cd/pg): FATAL:  terminating "
	    "connection due to administrator command\nserver closed the "
	    "connection unexpectedly\n\tThis probably means the server "
	    "terminated abnormally\n\tbefore or while processing the "
	    "request.\n";
	static const struct {
		const char	*in;
		size_t		 size;
		const char	*want;
	} rows[] = {
		{ "plain words", 32, "plain words" },
		{ "\n  line one\n\tline  two \r\n", 32, "line one line two" },
		{ "one two three", 14, "one two three" },
		{ "one two three", 13, "one two..." },
		{ "one two three", 11, "one two..." },
		{ "one two three", 10, "one..." },
		{ "one two three", 7, "one..." },
		/* a first word longer than all the room: between characters */
		{ "abcdefghij klm", 8, "abcd..." },
		{ "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 8, "\xc3\xa9\xc3\xa9..." },
		{ "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 7, "\xc3\xa9..." },
		{ "caf\xc3\xa9 cr\xc3\xa8me br\xc3\xbbl\xc3\xa9" "e", 16,
		    "caf\xc3\xa9 cr\xc3\xa8me..." },
		{ "abcdef", 4, "..." },
		{ "", 4, "" },
		{ " \n\t ", 4, "" },
		{ lost, 101, "lost the state database (database postgres on "
		    "/tmp/t-pg.Ab12Cd/pg): FATAL: terminating connection..." },
		{ lost, 105, "lost the state database (database postgres on "
		    "/tmp/t-pg.Ab12Cd/pg): FATAL: terminating connection "
		    "due..." },
		{ lost, 256, "lost the state database (database postgres on "
		    "/tmp/t-pg.Ab12Cd/pg): FATAL: terminating connection "
		    "due to administrator command server closed the connection "
		    "unexpectedly This probably means the server terminated "
		    "abnormally before or while processing the..." },
		{ lost, 262, "lost the state database (database postgres on "
		    "/tmp/t-pg.Ab12Cd/pg): FATAL: terminating connection "
		    "due to administrator command server closed the connection "
		    "unexpectedly This probably means the server terminated "
		    "abnormally before or while processing the request." },
	};
	char buf[512];
	size_t k;

	for (k = 0; k < sizeof(rows) / sizeof(rows[0]); k++)
		tap_check_str(hdrfmt_clip(buf, rows[k].size, rows[k].in),
		    rows[k].want, "clip %zu", k);
}

/* hdrfmt_quoted: ASCII or valid UTF-8 out, whatever comes in */
static void
test_quoted(void)
{
	static const struct {
		const char	*in, *want;
	} rows[] = {
		{ "Alice <a@example.org>", "\"Alice <a@example.org>\"" },
		{ "say \"hi\" \\o/", "\"say \\\"hi\\\" \\\\o/\"" },
		{ "line\r\nX-Patch-Attested: pass", "\"lineX-Patch-Attested: pass\"" },
		{ "caf\xc3\xa9", "\"caf\xc3\xa9\"" },
		/* CSI, a C1 control: terminals obey it */
		{ "a\xc2\x9b" "2Jb", "\"a\\\\xc2\\\\x9b2Jb\"" },
		{ "raw \xff\xfe 8-bit", "\"raw \\\\xff\\\\xfe 8-bit\"" },
		{ "cut \xe2\x82", "\"cut \\\\xe2\\\\x82\"" },
	};
	struct sbuf sb;
	size_t k;

	sbuf_init(&sb, 1024);
	for (k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
		sbuf_reset(&sb);
		hdrfmt_quoted(&sb, rows[k].in);
		tap_check_str(sb.buf, rows[k].want, "quoted %zu", k);
		tap_check(pytext_utf8_valid(sb.buf, sb.len), "quoted %zu: "
		    "valid UTF-8", k);
	}
	sbuf_release(&sb);
}

int
main(void)
{
	test_quoted();
	test_printable();
	test_clip();
	test_actions();
	test_text();
	test_wait();
	test_authres();
	test_logline();
	test_strip();
	test_ours();
	return tap_done();
}
