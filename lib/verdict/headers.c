/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * headers - the two header fields the milter adds, X-Patch-Attested and
 * Authentication-Results (RFC 8601), and the test that tells an arriving
 * Authentication-Results field claimed by this host (see headers.h).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "base.h"
#include "mail.h"
#include "headers.h"

/* What each verdict is called as an RFC 8601 result. */
static const char *const authres_words[] = {
	[VERDICT_PASS] = "pass",
	[VERDICT_STALE] = "policy",
	[VERDICT_UIDMISMATCH] = "policy",
	[VERDICT_UNTRUSTED] = "neutral",
	[VERDICT_NOKEY] = "neutral",
	[VERDICT_FAIL] = "fail",
	[VERDICT_UNSIGNED_BY_SIGNER] = "policy",
	[VERDICT_NONE] = "none",
	[VERDICT_TEMPERROR] = "temperror",
};

int
header_verdict(const struct decision *d, struct sbuf *out)
{
	/*
	 * The result, the scheme that gave it, the domain that vouches (on
	 * the first line, for rules), its details, each scheme's.
	 */
	static const int order[] = { 0, 6, 9, 1, 2, 3, 4, 5, 7, 8 };
	struct sbuf item;
	struct tm tm;
	char date[16];
	size_t col;
	int first = 1, i;

	sbuf_init(&item, 1024);
	col = strlen("X-Patch-Attested: ");

	for (i = 0; i < (int)(sizeof(order) / sizeof(order[0])); i++) {
		sbuf_reset(&item);
		switch (order[i]) {
		case 0:
			sbuf_addstr(&item, verdict_name(d->result));
			break;
		case 6:
			if (d->has_patatt)
				sbuf_addf(&item, "scheme=%s", d->scheme ==
				    SCHEME_PATATT ? "patatt" : "v0.1");
			break;
		case 7:
			if (d->has_patatt && d->has_patch)
				sbuf_addf(&item, "v0.1=%s",
				    verdict_name(d->v01));
			break;
		case 8:
			if (d->has_patatt)
				sbuf_addf(&item, "patatt=%s",
				    verdict_name(d->patatt));
			break;
		case 9:
			if (d->dkim_domain[0])
				sbuf_addf(&item, "dkim=%s", d->dkim_domain);
			break;
		case 1:
			if (d->attid[0])
				sbuf_addf(&item, "attid=%s", d->attid);
			break;
		case 2:
			if (d->signer[0]) {
				sbuf_addstr(&item, "signer=");
				hdrfmt_quoted(&item, d->signer);
			}
			break;
		case 3:
			if (d->key[0])
				sbuf_addf(&item, "key=%s", d->key);
			break;
		case 4:
			if (d->signed_at && gmtime_r(&d->signed_at, &tm)) {
				strftime(date, sizeof(date), "%Y-%m-%d", &tm);
				sbuf_addf(&item, "signed=%s", date);
			}
			break;
		default:
			if (d->reason[0]) {
				sbuf_addstr(&item, "reason=");
				hdrfmt_quoted(&item, d->reason);
			}
			break;
		}
		if (item.len == 0)
			continue;
		hdrfmt_item(out, &col, first ? "" : "; ", item.buf, item.len);
		first = 0;
	}
	sbuf_release(&item);
	return sbuf_failed(out);
}

/*
 * authres_patatt - the resinfo of patatt's signatures: each scheme keeps
 * its own result in the entry, whichever gave the verdict.
 */
static void
authres_patatt(struct sbuf *out, size_t *col, struct sbuf *item,
    const struct decision *d)
{
	sbuf_reset(item);
	sbuf_addf(item, "%s=%s", HEADER_AR_PATATT,
	    authres_words[d->patatt]);
	hdrfmt_item(out, col, "; ", item->buf, item->len);
	sbuf_reset(item);
	sbuf_addstr(item, "reason=");
	hdrfmt_quoted(item, verdict_name(d->patatt));
	hdrfmt_item(out, col, " ", item->buf, item->len);
	/* An identity that is no plain address would break the syntax. */
	if (d->identity[0] != '\0' &&
	    strspn(d->identity, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOP"
	    "QRSTUVWXYZ0123456789.-_+=@") == strlen(d->identity)) {
		sbuf_reset(item);
		sbuf_addf(item, "header.i=%s", d->identity);
		hdrfmt_item(out, col, " ", item->buf, item->len);
	}
	if (d->algo[0] != '\0') {
		sbuf_reset(item);
		sbuf_addf(item, "header.a=%s", d->algo);
		hdrfmt_item(out, col, " ", item->buf, item->len);
	}
}

/*
 * authres_dkim - in the resinfo just written, the domain whose DKIM
 * signature a trusted verifier passed (letters, digits, '.' and '-' only)
 */
static void
authres_dkim(struct sbuf *out, size_t *col, struct sbuf *item,
    const struct decision *d)
{
	if (d->dkim_domain[0] == '\0')
		return;
	sbuf_reset(item);
	sbuf_addf(item, "policy.dkim-domain=%s", d->dkim_domain);
	hdrfmt_item(out, col, " ", item->buf, item->len);
}

/* authres_v01 - the resinfo of the 2020 scheme's attestation */
static void
authres_v01(struct sbuf *out, size_t *col, struct sbuf *item,
    const struct decision *d)
{
	enum verdict v01 = d->has_patatt ? d->v01 : d->result;

	sbuf_reset(item);
	sbuf_addf(item, "%s=%s", HEADER_AR_METHOD,
	    authres_words[v01]);
	hdrfmt_item(out, col, "; ", item->buf, item->len);
	sbuf_reset(item);
	sbuf_addstr(item, "reason=");
	hdrfmt_quoted(item, verdict_name(v01));
	hdrfmt_item(out, col, " ", item->buf, item->len);
	if (d->attid[0] != '\0') {
		sbuf_reset(item);
		sbuf_addf(item, "policy.attid=%s", d->attid);
		hdrfmt_item(out, col, " ", item->buf, item->len);
	}
}

int
header_authres(struct sbuf *out, const char *authserv_id,
    const struct decision *d)
{
	struct sbuf item;
	size_t col = strlen("Authentication-Results: ");

	sbuf_init(&item, 1024);
	sbuf_addf(&item, "%s", authserv_id);
	hdrfmt_item(out, &col, "", item.buf, item.len);
	/* Each scheme that had a say: the 2020 one only on a patch. */
	if (d->has_patch) {
		authres_v01(out, &col, &item, d);
		authres_dkim(out, &col, &item, d);
	}
	if (d->has_patatt) {
		authres_patatt(out, &col, &item, d);
		if (!d->has_patch)
			authres_dkim(out, &col, &item, d);
	}
	sbuf_release(&item);
	return sbuf_failed(out);
}

int
header_authres_ours(const char *v, size_t len, const char *authserv_id)
{
	/* An ID that does not fit is longer than ours (a line of config). */
	char id[CONFIG_LINE_MAX + 1];

	return authres_id(id, sizeof(id), v, len) == 0 &&
	    strcasecmp(id, authserv_id) == 0;
}
