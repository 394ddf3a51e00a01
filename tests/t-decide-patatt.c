/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t-decide-patatt - what patatt's signatures mean under the policy, and
 * one verdict for both schemes: each signature result, TOFU's three
 * answers, UIDMatch and staleness, several signatures, and every way the
 * 2020 verdict and patatt's combine.
 */
#include "config.h"

#include <string.h>

#include "decide.h"
#include "headers.h"
#include "patatt.h"
#include "tap.h"

#define NOW	((time_t)1764720000)
#define DAY	86400

static enum tofu_seen tofu_answer;
static const char *tofu_why = "the pins are away";
static char tofu_seen_identity[256];
static int tofu_pin_asked;

static enum tofu_seen
tofu(void *arg, const char *identity, const char *key, int pin,
    struct pin *pinned, struct pa_err *why)
{
	(void)arg;
	(void)key;
	pa_err_set(why, "%s", tofu_why);
	snprintf(tofu_seen_identity, sizeof(tofu_seen_identity), "%s",
	    identity);
	snprintf(pinned->identity, sizeof(pinned->identity), "%s", identity);
	tofu_pin_asked = pin;
	return tofu_answer;
}

static struct patatt_sig
sig(enum patatt_result r)
{
	struct patatt_sig s;

	memset(&s, 0, sizeof(s));
	s.result = r;
	s.algo = PATATT_ED25519;
	strcpy(s.identity, "alice@example.org");
	strcpy(s.selector, "default");
	strcpy(s.keysrc, "ed25519/example.org/alice/default");
	strcpy(s.offered, "pk=c2VjcmV0LWtleS1vZi1hbGljZQ==");
	strcpy(s.detail, "bh does not match the body");
	s.signed_at = NOW - DAY;
	return s;
}

static enum verdict
judge1(const struct pa_config *cf, struct patatt_sig s, struct decision *d)
{
	struct patatt_context j = { .cfg = cf, .author = "alice@example.org",
		.now = NOW, .tofu = tofu };
	struct patatt_report r;

	memset(&r, 0, sizeof(r));
	r.n = 1;
	r.sig[0] = s;
	tap_check_int(decide_patatt(&j, &r, d), 0, "a signature: a verdict");
	return d->result;
}

static void
test_results(void)
{
	struct pa_config cf;
	struct patatt_sig s;
	struct decision d;
	struct patatt_context j = { .now = NOW };
	struct patatt_report r;

	config_init(&cf);
	j.cfg = &cf;
	memset(&r, 0, sizeof(r));
	tap_check_int(decide_patatt(&j, &r, &d), PA_ENOTFOUND,
	    "no signature: none");

	tap_check_int(judge1(&cf, sig(PATATT_VALID), &d), VERDICT_PASS,
	    "valid with a keyring key: pass");
	tap_check_str(d.key, "ed25519/example.org/alice/default",
	    "the key named is the keyring file");
	tap_check_str(d.algo, "ed25519-sha256", "the algorithm");
	tap_check(d.scheme == SCHEME_PATATT, "the scheme is patatt");
	tap_check_int(judge1(&cf, sig(PATATT_BADSIG), &d), VERDICT_FAIL,
	    "badsig: fail");
	tap_check_str(d.reason, "bh does not match the body",
	    "fail says why");
	tap_check_int(judge1(&cf, sig(PATATT_NOKEY), &d), VERDICT_NOKEY,
	    "nokey: nokey");
	s = sig(PATATT_KEY_EXPIRED);
	strcpy(s.detail, "good signature by 0123ABCD, a key expired since "
	    "on 2024-01-09");
	tap_check_int(judge1(&cf, s, &d), VERDICT_UNTRUSTED,
	    "a good signature by an expired key: untrusted");
	tap_check_str(d.reason, s.detail,
	    "... and says so, and since when");
	tap_check_int(judge1(&cf, sig(PATATT_ERROR), &d), VERDICT_NONE,
	    "an unusable signature alone: none");
	config_release(&cf);
}

static void
test_offered(void)
{
	struct pa_config cf;
	struct decision d;

	config_init(&cf);
	tap_check_int(judge1(&cf, sig(PATATT_OFFERED), &d), VERDICT_NOKEY,
	    "offered key, TOFU off: nokey");
	tap_check(strstr(d.reason, "pk=c2VjcmV0LWtleS1vZi1hbGljZQ==") != NULL,
	    "... with the offered key in the reason");
	cf.patatt_tofu = CONFIG_YES;
	tofu_answer = TOFU_FIRST;
	tap_check_int(judge1(&cf, sig(PATATT_OFFERED), &d), VERDICT_PASS,
	    "TOFU, first use: pass");
	tap_check_str(d.tofu_key, "pk=c2VjcmV0LWtleS1vZi1hbGljZQ==",
	    "... and the key to record");
	tap_check_str(tofu_seen_identity, "alice@example.org",
	    "... asked about the signer's identity");
	tofu_answer = TOFU_SAME;
	tap_check_int(judge1(&cf, sig(PATATT_OFFERED), &d), VERDICT_PASS,
	    "TOFU, the same key again: pass");
	tap_check_str(d.tofu_key, "", "... nothing new to record");
	tofu_answer = TOFU_OTHER;
	tap_check_int(judge1(&cf, sig(PATATT_OFFERED), &d), VERDICT_FAIL,
	    "TOFU, another key for the identity: fail");
	tofu_answer = TOFU_UNKNOWN;
	tap_check_int(judge1(&cf, sig(PATATT_OFFERED), &d),
	    VERDICT_TEMPERROR, "TOFU records unreadable: temperror");
	tap_check_str(d.reason, "the key pinned on first use could not be "
	    "consulted: the pins are away", "... the reason says why");
	tofu_why = "cannot connect to the state database (database "
	    "patchattest on db.example.org): connection to server at "
	    "\"db.example.org\" (192.0.2.5), port 5432 failed: Connection "
	    "refused\n\tIs the server running on that host and accepting "
	    "TCP/IP connections?";
	judge1(&cf, sig(PATATT_OFFERED), &d);
	tap_check_str(d.reason, "the key pinned on first use could not be "
	    "consulted: cannot connect to the state database (database "
	    "patchattest on db.example.org): connection to server at "
	    "\"db.example.org\" (192.0.2.5), port 5432 failed: Connection "
	    "refused Is the server running on...",
	    "... a long reason cut after a whole word, on one line");
	tofu_why = "the pins are away";
	tofu_answer = TOFU_UNPINNED;
	tap_check_int(judge1(&cf, sig(PATATT_OFFERED), &d), VERDICT_NOKEY,
	    "TOFU, no pin and none made: nokey");
	tap_check_int(judge1(&cf, sig(PATATT_KEYFAULT), &d), VERDICT_TEMPERROR,
	    "keyring fault: temperror");
	cf.uid_match = UID_STRICT;
	tofu_answer = TOFU_FIRST;
	{
		struct patatt_sig s = sig(PATATT_OFFERED);

		strcpy(s.identity, "ALICE@Example.Org");
		tap_check_int(judge1(&cf, s, &d), VERDICT_PASS,
		    "UIDMatch strict, i=ALICE@Example.Org: the author");
		tofu_answer = TOFU_SAME;
		strcpy(s.identity, "mallory@example.org");
		tap_check_int(judge1(&cf, s, &d), VERDICT_UIDMISMATCH,
		    "TOFU, pinned key, another author: uidmismatch");
		tap_check_int(tofu_pin_asked, 0, "... and it asks for no pin");
	}
	config_release(&cf);
}

static void
test_policy(void)
{
	struct pa_config cf;
	struct decision d;
	struct patatt_sig s;

	config_init(&cf);
	s = sig(PATATT_VALID);
	strcpy(s.identity, "maintainer@example.org");
	tap_check_int(judge1(&cf, s, &d), VERDICT_PASS,
	    "loose: a signer other than the author passes");
	cf.uid_match = UID_STRICT;
	tap_check_int(judge1(&cf, s, &d), VERDICT_UIDMISMATCH,
	    "strict: a signer other than the author is uidmismatch");
	strcpy(s.identity, "Alice@Example.ORG");
	tap_check_int(judge1(&cf, s, &d), VERDICT_PASS,
	    "strict: the author's address in any case passes");
	s = sig(PATATT_VALID);
	s.signed_at = NOW - 40 * DAY;
	tap_check_int(judge1(&cf, s, &d), VERDICT_STALE,
	    "signed 40 days before the mail arrived: stale (StalenessDays 30)");
	tap_check_str(d.reason, "signed 40 days before the mail arrived "
	    "(StalenessDays 30)", "stale: the reason");
	s.signed_at = NOW + 3600;
	tap_check_int(judge1(&cf, s, &d), VERDICT_STALE,
	    "signed an hour after the mail arrived: stale (MaxClockSkew 300)");
	tap_check_str(d.reason, "signed 3600 seconds after the mail arrived: "
	    "the signer's clock or the signing time is wrong (MaxClockSkew "
	    "300)", "signed after the arrival: the reason");
	s.signed_at = NOW + 300;
	tap_check_int(judge1(&cf, s, &d), VERDICT_PASS,
	    "signed 300 seconds after the mail arrived: pass (MaxClockSkew)");
	config_release(&cf);
}

static void
test_several(void)
{
	struct pa_config cf;
	struct patatt_context j = { .author = "alice@example.org",
		.now = NOW };
	struct patatt_report r;
	struct decision d;

	config_init(&cf);
	j.cfg = &cf;
	memset(&r, 0, sizeof(r));
	r.n = 2;
	r.sig[0] = sig(PATATT_NOKEY);
	r.sig[1] = sig(PATATT_VALID);
	decide_patatt(&j, &r, &d);
	tap_check_int(d.result, VERDICT_PASS, "nokey and valid: pass");
	r.sig[0] = sig(PATATT_VALID);
	r.sig[1] = sig(PATATT_BADSIG);
	decide_patatt(&j, &r, &d);
	tap_check_int(d.result, VERDICT_FAIL,
	    "valid and badsig: a contradiction fails");
	config_release(&cf);
}

/* combine - the mail's verdict from a 2020 one (v) and patatt's (p) */
static struct decision
combine(enum verdict v, enum verdict p)
{
	struct decision d, pt;

	memset(&d, 0, sizeof(d));
	memset(&pt, 0, sizeof(pt));
	d.result = v;
	d.scheme = SCHEME_V01;
	d.has_patch = 1;
	strcpy(d.signer, "v01 signer");
	pt.result = p;
	pt.scheme = SCHEME_PATATT;
	strcpy(pt.signer, "alice@example.org");
	strcpy(pt.identity, "alice@example.org");
	strcpy(pt.algo, "ed25519-sha256");
	decision_combine(&d, &pt);
	return d;
}

static void
test_combine(void)
{
	static const struct {
		enum verdict	 v01, patatt, want;
		enum scheme	 by;
		const char	*name;
	} cases[] = {
		{ VERDICT_NONE, VERDICT_PASS, VERDICT_PASS, SCHEME_PATATT,
		    "no document, a trusted signature: pass by patatt" },
		{ VERDICT_PASS, VERDICT_FAIL, VERDICT_FAIL, SCHEME_PATATT,
		    "attested, but the signature is contradicted: fail" },
		{ VERDICT_FAIL, VERDICT_PASS, VERDICT_FAIL, SCHEME_V01,
		    "a contradicted document fails a signed patch" },
		{ VERDICT_PASS, VERDICT_NOKEY, VERDICT_PASS, SCHEME_V01,
		    "attested, signer's key unknown: pass by v0.1" },
		{ VERDICT_NOKEY, VERDICT_UNTRUSTED, VERDICT_UNTRUSTED,
		    SCHEME_PATATT, "nokey and untrusted: the better" },
		{ VERDICT_TEMPERROR, VERDICT_PASS, VERDICT_PASS, SCHEME_PATATT,
		    "index down, a trusted signature: pass" },
		{ VERDICT_NONE, VERDICT_NONE, VERDICT_NONE, SCHEME_PATATT,
		    "no document, an unusable signature: none" },
	};
	struct decision d;
	size_t k;

	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		d = combine(cases[k].v01, cases[k].patatt);
		tap_check(d.result == cases[k].want && d.scheme == cases[k].by &&
		    d.v01 == cases[k].v01 && d.patatt == cases[k].patatt &&
		    d.has_patatt, "%s", cases[k].name);
	}
	d = combine(VERDICT_NONE, VERDICT_PASS);
	tap_check_str(d.signer, "alice@example.org",
	    "the signer is the scheme's that gave the verdict");
}

static void
test_header(void)
{
	struct decision d = combine(VERDICT_NONE, VERDICT_PASS);
	struct sbuf sb;

	strcpy(d.attid, "2a02abe0-215cf3f1-2acb5798");
	sbuf_init(&sb, 4096);
	header_verdict(&d, &sb);
	tap_check_str(sb.buf, "pass; scheme=patatt; "
	    "attid=2a02abe0-215cf3f1-2acb5798;\n\tsigner=\"alice@example.org\"; "
	    "v0.1=none; patatt=pass",
	    "the header names the scheme and each scheme's result");
	d.has_patch = 0;
	d.attid[0] = '\0';
	sbuf_reset(&sb);
	header_verdict(&d, &sb);
	tap_check_str(sb.buf, "pass; scheme=patatt; signer=\"alice@example.org\";"
	    " patatt=pass", "signed mail without a patch: patatt's part only");
	sbuf_release(&sb);
}

/* judge_changed - s, a signature changed as what, judged beside e */
static const char *
judge_changed(enum patatt_changed what, const char *detail,
    const struct patatt_earlier *e, struct decision *d)
{
	struct pa_config cf;
	struct patatt_sig s = sig(PATATT_BADSIG);
	struct patatt_context j = { .author = "alice@example.org",
		.now = NOW, .tofu = tofu, .earlier = e };
	struct patatt_report r;

	config_init(&cf);
	j.cfg = &cf;
	s.changed = what;
	strcpy(s.detail, detail);
	strcpy(s.signed_headers, "From, Subject, Message-ID");
	memset(&r, 0, sizeof(r));
	r.n = 1;
	r.sig[0] = s;
	if (decide_patatt(&j, &r, d) != 0 || d->result != VERDICT_FAIL)
		tap_diag("not a fail: %s", d->reason);
	config_release(&cf);
	return d->reason;
}

/* earlier - the first copy, by alice, with these parts and fields changed */
static struct patatt_earlier
earlier(int has_patch, enum arrival_match match, unsigned parts,
    unsigned fields)
{
	struct patatt_earlier e;

	memset(&e, 0, sizeof(e));
	strcpy(e.identity, "alice@example.org");
	e.has_patch = has_patch;
	e.match = match;
	e.parts = parts;
	e.fields = fields;
	return e;
}

static void
test_changed(void)
{
	static const char bh[] = "body hash mismatch (the canonical body has "
	    "907 bytes, l=908)";
	static const char ssh[] = "the ssh-ed25519 signature does not verify";
	struct patatt_earlier e;
	struct decision d;

	tap_check_str(judge_changed(PATATT_CHANGED_BODY, bh, NULL, &d),
	    "the body changed (the signature does not say which part): "
	    "body hash mismatch (the canonical body has 907 bytes, l=908)",
	    "body changed, no earlier copy: the body, and no part named");
	e = earlier(1, ARRIVAL_DIFFERS, ARRIVAL_PART_M, 0);
	tap_check_str(judge_changed(PATATT_CHANGED_BODY, bh, &e, &d),
	    "the signed body changed: its commit message differs from the "
	    "copy that arrived first", "... the first copy names the commit "
	    "message");
	e.parts = ARRIVAL_PART_P;
	tap_check_str(judge_changed(PATATT_CHANGED_BODY, bh, &e, &d),
	    "the signed body changed: its diff differs from the copy that "
	    "arrived first", "... the diff");
	e.parts = ARRIVAL_PART_M | ARRIVAL_PART_P;
	tap_check_str(judge_changed(PATATT_CHANGED_BODY, bh, &e, &d),
	    "the signed body changed: its commit message and diff differ "
	    "from the copy that arrived first", "... both");
	e = earlier(1, ARRIVAL_SAME_TRAILERS, 0, 0);
	tap_check_str(judge_changed(PATATT_CHANGED_BODY, bh, &e, &d),
	    "the signed body changed: trailers were added to its commit "
	    "message since the copy that arrived first",
	    "... trailers added");
	e = earlier(1, ARRIVAL_SAME, 0, 0);
	tap_check_str(judge_changed(PATATT_CHANGED_BODY, bh, &e, &d),
	    "the signed body changed, though its commit message and diff are "
	    "those of the copy that arrived first",
	    "... neither part: said so");
	e = earlier(0, ARRIVAL_SAME, 0, 0);
	tap_check(strncmp(judge_changed(PATATT_CHANGED_BODY, bh, &e, &d),
	    "the body changed (the signature does not say which part)",
	    56) == 0, "... a first copy without a patch names no part: %s",
	    d.reason);
	e = earlier(1, ARRIVAL_DIFFERS, ARRIVAL_PART_P, 0);
	strcpy(e.identity, "mallory@example.org");
	tap_check(strncmp(judge_changed(PATATT_CHANGED_BODY, bh, &e, &d),
	    "the body changed (the signature does not say which part)",
	    56) == 0, "... nor one by another signer: %s", d.reason);

	tap_check_str(judge_changed(PATATT_CHANGED_HEADERS, "the signed "
	    "digest is not the message's", NULL, &d), "one of the headers it "
	    "signs changed (From, Subject, Message-ID)",
	    "a signed header changed, no earlier copy: h= named");
	e = earlier(1, ARRIVAL_DIFFERS, ARRIVAL_PART_I,
	    ARRIVAL_FIELD_SUBJECT);
	tap_check_str(judge_changed(PATATT_CHANGED_HEADERS, "", &e, &d),
	    "the signed Subject changed since the copy that arrived first",
	    "... the first copy names the Subject");
	e.fields = ARRIVAL_FIELD_FROM | ARRIVAL_FIELD_SUBJECT;
	tap_check_str(judge_changed(PATATT_CHANGED_HEADERS, "", &e, &d),
	    "the signed From and Subject changed since the copy that arrived "
	    "first", "... From and Subject");
	e.fields = 0;
	tap_check_str(judge_changed(PATATT_CHANGED_HEADERS, "", &e, &d),
	    "the signed author or subject changed since the copy that arrived "
	    "first", "... their hash alone: author or subject");
	e = earlier(1, ARRIVAL_SAME, 0, ARRIVAL_FIELD_SUBJECT);
	tap_check_str(judge_changed(PATATT_CHANGED_HEADERS, "", &e, &d),
	    "one of the headers it signs changed (From, Subject, Message-ID)",
	    "... a Subject that git am reads alike is not named");
	tap_check_str(judge_changed(PATATT_CHANGED_HEADERS_OR_SIG, ssh, NULL,
	    &d), "one of the headers it signs changed (From, Subject, "
	    "Message-ID), or the signature did: the ssh-ed25519 signature "
	    "does not verify", "OpenSSH: a signed header or the signature");
	/* a 2020 document of the author and subject names the part */
	{
		struct decision v01;

		memset(&v01, 0, sizeof(v01));
		v01.result = VERDICT_FAIL;
		v01.has_patch = 1;
		strcpy(v01.reason, "diff is not what was attested");
		judge_changed(PATATT_CHANGED_BODY, bh, NULL, &d);
		decision_combine(&v01, &d);
		tap_check_str(v01.reason, "diff is not what was attested",
		    "body changed, a document of the author and subject: "
		    "the document's part");
	}
	tap_check_str(judge_changed(PATATT_CHANGED_UNKNOWN, "h= does not "
	    "sign from and subject", NULL, &d), "h= does not sign from and "
	    "subject", "any other bad signature: its own words");
}

int
main(void)
{
	test_results();
	test_offered();
	test_policy();
	test_several();
	test_combine();
	test_header();
	test_changed();
	return tap_done();
}
