/*
 * t-decide - the pure parts of the verdict: mail dates, and the
 * X-Patch-Attested header's wording, quoting and folding.
 * (Verdicts themselves are checked end to end by t-verify.sh.)
 */
#include "config.h"

#include <string.h>

#include "patchattest.h"
#include "decide.h"
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
			tap_ok(rc == 0 && (long long)t == dates[k].want,
			    "date %zu: %lld", k, rc == 0 ? (long long)t : -1LL);
	}

	sbuf_init(&out, 4096);
	memset(&d, 0, sizeof(d));
	d.result = VERDICT_PASS;
	memcpy(d.attid, "2a02abe0-215cf3f1-2acb5798", 27);
	snprintf(d.signer, sizeof(d.signer), "%s", "Kees Cook <keescook@chromium.org>");
	snprintf(d.key, sizeof(d.key), "%s", "8972F4DFDC6DC026253779D5C8ED0D8F0A8B8E1C");
	d.signed_at = 1582607582;
	decision_header(&d, &out);
	tap_check_str(out.buf, "pass; attid=2a02abe0-215cf3f1-2acb5798;\n"
	    "\tsigner=\"Kees Cook <keescook@chromium.org>\";\n"
	    "\tkey=8972F4DFDC6DC026253779D5C8ED0D8F0A8B8E1C; signed=2020-02-25",
	    "a pass header: result first, folded before column 78");

	sbuf_reset(&out);
	memset(&d, 0, sizeof(d));
	d.result = VERDICT_NONE;
	memcpy(d.attid, "2a02abe0-215cf3f1-2acb5798", 27);
	decision_header(&d, &out);
	tap_check_str(out.buf, "none; attid=2a02abe0-215cf3f1-2acb5798",
	    "none: the ID only");

	sbuf_reset(&out);
	memset(&d, 0, sizeof(d));
	d.result = VERDICT_FAIL;
	snprintf(d.reason, sizeof(d.reason), "%s", "say \"no\" \\ twice\r\n");
	decision_header(&d, &out);
	tap_check_str(out.buf, "fail; reason=\"say \\\"no\\\" \\\\ twice\"",
	    "quotes and backslashes escaped, line breaks dropped");

	for (k = VERDICT_PASS; k <= VERDICT_TEMPERROR; k++)
		tap_ok(strlen(verdict_name((enum verdict)k)) > 0 &&
		    strchr(verdict_name((enum verdict)k), ' ') == NULL,
		    "verdict %zu has a one-word name: %s", k,
		    verdict_name((enum verdict)k));
	sbuf_release(&out);
	return tap_done();
}
