/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t-authres - Authentication-Results fields as verifiers write them
 * (OpenDKIM, rspamd, Gmail, Microsoft, the RFC 8601 examples) and as a
 * forger or a broken verifier might: one row a field, with the authserv-id
 * and results it holds, or that it is to be ignored whole.  Then which
 * domain vouches for seed 002, through the decider: the topmost field of
 * each trusted verifier alone, aligned with the author's domain by the
 * Public Suffix List (public suffixes of ICANN's and private ones, the
 * author's own domain, parent, sibling and child domains, unrelated
 * ones); and the X-Patch-Attested and Authentication-Results wording of a
 * domain that vouches.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "patchattest.h"
#include "authres.h"
#include "decide.h"
#include "headers.h"
#include "mailmsg.h"
#include "paconfig.h"
#include "sbuf.h"
#include "tap.h"

#define BAD	PA_ERROR

static const struct {
	const char	*name;
	const char	*in;
	int		 rc;
	const char	*id;
	const char	*results;	/* "method=result[@d]" ... */
} fields[] = {
	{ "OpenDKIM", "dkim.test.example; dkim=pass (1024-bit key; "
	    "unprotected) header.d=example.org header.i=@example.org "
	    "header.a=rsa-sha256 header.s=t1 header.b=AbCd+/12", 0,
	    "dkim.test.example", "dkim=pass@example.org" },
	{ "OpenDKIM, folded", "dkim.test.example;\n\tdkim=pass (1024-bit "
	    "key;\n\t unprotected) header.d=example.org\n\theader.i="
	    "@example.org", 0, "dkim.test.example", "dkim=pass@example.org" },
	{ "rspamd, several results", "mx.example.net;\n\tdkim=pass "
	    "header.d=kernel.org header.s=k20201202 header.b=\"Hq/+1x\";\n\t"
	    "dmarc=pass (policy=none) header.from=kernel.org;\n\tspf=pass "
	    "(mx.example.net: domain of dev@kernel.org designates 1.2.3.4 as "
	    "permitted sender) smtp.mailfrom=dev@kernel.org", 0,
	    "mx.example.net", "dkim=pass@kernel.org dmarc=pass spf=pass" },
	{ "a version, a method version", "mx.example.org 1; dkim/1=fail "
	    "reason=\"bad signature\" header.d=example.org", 0,
	    "mx.example.org", "dkim=fail@example.org" },
	{ "no result", "mx.example.org; none", 0, "mx.example.org", "" },
	{ "no result, a version", "mx.example.org 1 ;none (nothing)", 0,
	    "mx.example.org", "" },
	{ "comments everywhere", "(a) mx.example.org (b) ; (c) dkim (d) = "
	    "(e) pass (f) header (g) . (h) d (i) = (j) example.org (k)", 0,
	    "mx.example.org", "dkim=pass@example.org" },
	{ "nested comment, escaped paren", "mx.example.org; dkim=pass "
	    "((x) \\) y) header.d=example.org", 0, "mx.example.org",
	    "dkim=pass@example.org" },
	{ "quoted authserv-id and header.d", "\"mx.ex\\ample.org\"; "
	    "dkim=pass header.d=\"Example.ORG\"", 0, "mx.example.org",
	    "dkim=pass@example.org" },
	{ "keywords in any case", "mx.example.org; DKIM=Pass "
	    "Header.D=EXAMPLE.org", 0, "mx.example.org",
	    "dkim=pass@example.org" },
	{ "two DKIM results", "mx.example.org; dkim=pass header.d=a.example; "
	    "dkim=fail header.d=b.example", 0, "mx.example.org",
	    "dkim=pass@a.example dkim=fail@b.example" },
	{ "an address as pvalue", "mx.example.org; dkim=pass "
	    "header.i=dev@example.org header.d=example.org; spf=pass "
	    "smtp.mailfrom=a/b@example.org", 0, "mx.example.org",
	    "dkim=pass@example.org spf=pass" },
	{ "a ';' at the end", "mx.example.org; dkim=pass header.d=x.example;",
	    0, "mx.example.org", "dkim=pass@x.example" },
	{ "UTF-8 in a reason", "mx.example.org; dkim=fail reason="
	    "caf\xc3\xa9", 0, "mx.example.org", "dkim=fail" },
	/* ignored whole: no authserv-id, broken syntax, over the caps */
	{ "empty", "", BAD, "", "" },
	{ "only a comment", " (mx.example.org) ", BAD, "", "" },
	{ "empty quoted authserv-id", "\"\"; dkim=pass header.d=x.example",
	    BAD, "", "" },
	{ "no ';' before a result", "mx.example.org dkim=pass", BAD, "", "" },
	{ "junk after the authserv-id", "mx.example.org@evil; dkim=pass",
	    BAD, "", "" },
	{ "no result word", "mx.example.org; dkim=", BAD, "", "" },
	{ "no '='", "mx.example.org; dkim pass", BAD, "", "" },
	{ "comment left open", "mx.example.org; dkim=pass (oops "
	    "header.d=x.example", BAD, "", "" },
	{ "stray ')'", "mx.example.org; dkim=pass ) header.d=x.example", BAD,
	    "", "" },
	{ "quote left open", "mx.example.org; dkim=pass header.d=\"x.example",
	    BAD, "", "" },
	{ "property without a value", "mx.example.org; dkim=pass header.d=",
	    BAD, "", "" },
	{ "property without a type", "mx.example.org; dkim=pass =x.example",
	    BAD, "", "" },
	{ "a method version not a number", "mx.example.org; dkim/x=pass",
	    BAD, "", "" },
	{ "quoted method", "mx.example.org; \"dkim\"=pass", BAD, "", "" },
	{ "header.d over its cap", "mx.example.org; dkim=pass header.d="
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	    ".example", PA_ETOOBIG, "", "" },
};

#define NOW	((time_t)1764720000)
#define V	"dkim.test.example"
#define R	"rspamd.test.example"
#define A64	"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"

/*
 * What vouches for seed 002 from dev@DOMAIN under the Authentication-Results
 * fields of a row (top first, one a line), with TrustedAuthservIDs V, R,
 * V again in capitals and our own AuthservID mx.test.example.
 */
static const struct {
	const char	*name;
	const char	*domain;	/* the author's */
	const char	*fields;
	const char	*want;		/* dkim_domain */
	unsigned	 ignored;
} vouches[] = {
	/* alignment: one field of V */
	{ "the author's domain", "example.org",
	    V "; dkim=pass header.d=example.org", "example.org", 0 },
	{ "a parent domain", "sub.example.org",
	    V "; dkim=pass header.d=example.org", "example.org", 0 },
	{ "a child of the author's domain (relaxed)", "example.org",
	    V "; dkim=pass header.d=mail.example.org", "mail.example.org", 0 },
	{ "a sibling under the same organizational domain", "a.example.org",
	    V "; dkim=pass header.d=b.example.org", "b.example.org", 0 },
	{ "a public suffix: co.uk", "sub.example.co.uk",
	    V "; dkim=pass header.d=co.uk", "", 0 },
	{ "the organizational domain under co.uk", "sub.example.co.uk",
	    V "; dkim=pass header.d=example.co.uk", "example.co.uk", 0 },
	{ "another domain under co.uk", "example.co.uk",
	    V "; dkim=pass header.d=other.co.uk", "", 0 },
	{ "a private public suffix: github.io", "alice.github.io",
	    V "; dkim=pass header.d=github.io", "", 0 },
	{ "another name under github.io", "alice.github.io",
	    V "; dkim=pass header.d=bob.github.io", "", 0 },
	{ "its own name under github.io", "dev.alice.github.io",
	    V "; dkim=pass header.d=alice.github.io", "alice.github.io", 0 },
	{ "an unrelated domain", "example.org",
	    V "; dkim=pass header.d=example.net", "", 0 },
	{ "a top-level domain", "example.org",
	    V "; dkim=pass header.d=org", "", 0 },
	{ "a suffix in bytes, not in labels", "notexample.org",
	    V "; dkim=pass header.d=example.org", "", 0 },
	{ "the author's domain in capitals", "Sub.EXAMPLE.org",
	    V "; dkim=pass header.d=example.org", "example.org", 0 },
	{ "an author at a public suffix", "co.uk",
	    V "; dkim=pass header.d=co.uk", "", 0 },
	{ "header.d with a dot at the end", "example.org",
	    V "; dkim=pass header.d=example.org.", "", 0 },
	{ "header.d with an empty label", "example.org",
	    V "; dkim=pass header.d=example..org", "", 0 },
	{ "dkim=fail", "example.org",
	    V "; dkim=fail header.d=example.org", "", 0 },
	/* several that align: the nearest */
	{ "the author's domain before its parent", "a.example.org",
	    V "; dkim=pass header.d=example.org; dkim=pass header.d="
	    "a.example.org", "a.example.org", 0 },
	{ "a parent before a sibling's child", "a.b.example.org",
	    V "; dkim=pass header.d=c.b.example.org; dkim=pass header.d="
	    "b.example.org", "b.example.org", 0 },
	/* which fields are the verifiers' */
	{ "a pass forged under the verifier's dkim=none", "example.org",
	    V "; dkim=none\n" V "; dkim=pass header.d=example.org", "", 1 },
	{ "the verifier's pass over a forged fail", "example.org",
	    V "; dkim=pass header.d=example.org\n" V "; dkim=fail "
	    "header.d=example.org", "example.org", 1 },
	{ "forged under it, its authserv-id in capitals", "example.org",
	    V "; dkim=none\nDKIM.TEST.Example; dkim=pass header.d="
	    "example.org", "", 1 },
	{ "a second verifier's field under the first's", "example.org",
	    R "; dkim=none\n" V "; dkim=pass header.d=example.org",
	    "example.org", 0 },
	{ "the second verifier's name forged under both", "example.org",
	    R "; dkim=none\n" V "; dkim=none\n" R "; dkim=pass header.d="
	    "example.org", "", 1 },
	{ "the verifier's field unreadable, a pass forged under it",
	    "example.org", V "; dkim=fail header.d=" A64 A64 A64 A64
	    ".example\n" V "; dkim=pass header.d=example.org", "", 2 },
	{ "an untrusted verifier", "example.org",
	    "evil.example; dkim=pass header.d=example.org", "", 1 },
	{ "our own authserv-id", "example.org",
	    "mx.test.example; dkim=pass header.d=example.org", "", 1 },
	{ "an untrusted field over the verifier's", "example.org",
	    "evil.example; dkim=none\n" V "; dkim=pass header.d=example.org",
	    "example.org", 1 },
};

/* describe - the results of a as the table writes them */
static void
describe(const struct authres *a, char *out, size_t size)
{
	size_t k, n = 0;

	out[0] = '\0';
	for (k = 0; k < a->n && n < size; k++)
		n += (size_t)snprintf(out + n, size - n, "%s%s=%s%s%s",
		    k ? " " : "", a->r[k].method, a->r[k].result,
		    a->r[k].header_d[0] ? "@" : "", a->r[k].header_d);
}

static void
test_fields(void)
{
	struct authres a;
	char got[1024];
	size_t k;
	int rc;

	for (k = 0; k < sizeof(fields) / sizeof(fields[0]); k++) {
		rc = authres_parse(&a, fields[k].in, strlen(fields[k].in));
		describe(&a, got, sizeof(got));
		tap_check(rc == fields[k].rc && (rc != 0 ||
		    (strcmp(a.id, fields[k].id) == 0 &&
		    strcmp(got, fields[k].results) == 0)),
		    "%s: %d \"%s\" \"%s\"", fields[k].name, rc, a.id, got);
	}
}

/* test_caps - more results than kept; a NUL; the authserv-id alone */
static void
test_caps(void)
{
	char many[4096], id[16];
	struct authres a;
	size_t k, n;

	n = (size_t)snprintf(many, sizeof(many), "mx.example.org");
	for (k = 0; k < AUTHRES_RESULTS + 4; k++)
		n += (size_t)snprintf(many + n, sizeof(many) - n,
		    "; dkim=pass header.d=d%zu.example", k);
	tap_check(authres_parse(&a, many, n) == 0 && a.n == AUTHRES_RESULTS &&
	    a.dropped == 4 && strcmp(a.r[AUTHRES_RESULTS - 1].header_d,
	    "d15.example") == 0, "%d results: %d kept, the rest counted",
	    AUTHRES_RESULTS + 4, AUTHRES_RESULTS);
	tap_check_int(authres_parse(&a, "mx.example.org; dkim=pass\0 "
	    "header.d=x.example", 44), PA_ERROR, "a NUL: ignored");
	tap_check(authres_id(id, sizeof(id), " (c) mx.example.org/1; x", 24)
	    == 0 && strcmp(id, "mx.example.org") == 0,
	    "authres_id: the authserv-id before a /version");
	tap_check_int(authres_id(id, sizeof(id), "mx.example.org.evil", 19),
	    PA_ERROR, "authres_id: an ID longer than the buffer");
}

/*
 * vouch - the decision on seed (its From line gone) from dev@domain under
 * the fields above (one a line), into out: 0, or -1 when the message is
 * not decided
 */
static int
vouch(struct decider *dc, const char *seed, const char *domain,
    const char *above, struct decision *out)
{
	struct mailmsg *m = NULL;
	struct sbuf msg;
	const char *p;
	int rc = -1;

	sbuf_init(&msg, SBUF_NOMAX);
	for (p = above; *p != '\0'; p += strcspn(p, "\n") +
	    (p[strcspn(p, "\n")] == '\n'))
		sbuf_addf(&msg, "Authentication-Results: %.*s\n",
		    (int)strcspn(p, "\n"), p);
	sbuf_addf(&msg, "From: Dev Eloper <dev@%s>\n%s", domain,
	    strchr(seed, '\n') + 1);
	if (mailmsg_new(&m, 1 << 20) == 0 &&
	    mailmsg_parse(m, msg.buf, msg.len) == 0 &&
	    decide(dc, m, NULL, NOW, out) == 0)
		rc = 0;
	mailmsg_free(m);
	sbuf_release(&msg);
	return rc;
}

/* test_vouches - the rows of vouches[] through a decider */
static void
test_vouches(void)
{
	char *trusted[] = { V, R, "DKIM.Test.EXAMPLE", "mx.test.example" };
	char path[4096], home[4096], *seed;
	struct pa_config cf;
	struct decider *dc;
	struct decision d;
	struct pa_err err;
	size_t k, len;

	snprintf(path, sizeof(path), "%s/tests/fixtures/seeds/002-patch-x86-"
	    "elf-add-table-to-document-read-implies-exec.patch",
	    tap_srcdir());
	if ((seed = tap_read_file(path, &len)) == NULL ||
	    strncmp(seed, "From: ", 6) != 0) {
		tap_check(0, "seed 002 is read, its From first");
		free(seed);
		return;
	}
	tap_tmpdir(home, sizeof(home), "t-authres");
	config_init(&cf);
	cf.gnupg_home = strdup(home);
	cf.authserv_id = strdup("mx.test.example");
	cf.trusted_authserv_ids.v = trusted;
	cf.trusted_authserv_ids.n = sizeof(trusted) / sizeof(trusted[0]);
	if (decider_new(&dc, &cf, NULL, &err) != 0) {
		tap_check(0, "a decider: %s", err.msg);
		dc = NULL;
	}
	for (k = 0; dc != NULL && k < sizeof(vouches) / sizeof(vouches[0]);
	    k++) {
		memset(&d, 0, sizeof(d));
		if (vouch(dc, seed, vouches[k].domain, vouches[k].fields,
		    &d) != 0) {
			tap_check(0, "%s: seed 002 is decided", vouches[k].name);
			continue;
		}
		tap_check(strcmp(d.dkim_domain, vouches[k].want) == 0 &&
		    d.authres_ignored == vouches[k].ignored,
		    "%s: \"%s\", %u ignored (want \"%s\", %u)",
		    vouches[k].name, d.dkim_domain, d.authres_ignored,
		    vouches[k].want, vouches[k].ignored);
	}
	decider_free(dc);
	cf.trusted_authserv_ids.v = NULL;
	cf.trusted_authserv_ids.n = 0;
	config_release(&cf);
	tap_rmtree(home);
	free(seed);
}

/* test_header - how a domain that vouches is shown */
static void
test_header(void)
{
	struct decision d;
	struct sbuf out;

	memset(&d, 0, sizeof(d));
	d.result = VERDICT_NONE;
	d.has_patch = 1;
	strcpy(d.attid, "2a02abe0-215cf3f1-2acb5798");
	strcpy(d.dkim_domain, "example.org");
	sbuf_init(&out, 4096);
	header_verdict(&d, &out);
	tap_check_str(out.buf, "none; dkim=example.org; "
	    "attid=2a02abe0-215cf3f1-2acb5798", "a domain vouches: the header");
	sbuf_reset(&out);
	header_authres(&out, "mx.test.example", &d);
	tap_check_str(out.buf, "mx.test.example; x-patch-attest=none "
	    "reason=\"none\"\n\tpolicy.attid=2a02abe0-215cf3f1-2acb5798 "
	    "policy.dkim-domain=example.org",
	    "a domain vouches: Authentication-Results");
	d.dkim_domain[0] = '\0';
	sbuf_reset(&out);
	header_verdict(&d, &out);
	tap_check_str(out.buf, "none; attid=2a02abe0-215cf3f1-2acb5798",
	    "nothing vouches: no dkim=");
	sbuf_release(&out);
}

int
main(void)
{
	struct pa_err err;

	if (pa_global_init(&err) != 0)
		tap_skip_all("pa_global_init: %s", err.msg);
	test_fields();
	test_caps();
	test_vouches();
	test_header();
	return tap_done();
}
