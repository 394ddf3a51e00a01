/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * dkim.c - what the author's domain vouches for: a DKIM signature that a
 * verifier of TrustedAuthservIDs passed, aligned with the author's domain
 * the way DMARC's relaxed alignment has it (RFC 7489, 3.1.1).
 *
 * The verifiers run in front of us and each puts its field on top, so
 * the topmost Authentication-Results field of a trusted authserv-id is
 * that verifier's and any further down came with the mail: only the
 * topmost one is read.  A header.d aligns when it and the author's domain
 * have the same organizational domain, the registrable domain of the
 * Public Suffix List, and header.d is at or below it: a public suffix
 * (co.uk, github.io) vouches for nobody, and neither does another name
 * registered under one.
 *
 * The list is libpsl's newest: the system's file (Debian's publicsuffix)
 * when it is newer than the copy built into libpsl, else that copy; read
 * once per process, before any thread (dkim_global_init()).
 */
#include "config.h"

#include <string.h>
#include <strings.h>

#include <libpsl.h>

#include "patchattest.h"
#include "decide.h"
#include "decide-int.h"
#include "base.h"
#include "mail.h"

static const char authres_name[] = "Authentication-Results";

/* The Public Suffix List, read-only once loaded: threads share it. */
static psl_ctx_t *psl;

int
dkim_global_init(struct pa_err *err)
{
	if (psl == NULL && (psl = psl_latest(NULL)) == NULL) {
		pa_err_set(err, "no Public Suffix List: libpsl has none built "
		    "in and %s cannot be read (install publicsuffix)",
		    psl_dist_filename());
		return PA_ERROR;
	}
	return 0;
}

/*
 * dns_name - s is a domain name in lower-case ASCII: labels of letters,
 * digits and '-', none empty (no dot at either end)
 */
static int
dns_name(const char *s)
{
	size_t n = strlen(s);

	return n > 0 && strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789.-") ==
	    n && s[0] != '.' && s[n - 1] != '.' && strstr(s, "..") == NULL;
}

int
dkim_aligned(const char *domain, const char *header_d)
{
	const char *a, *b;

	if (psl == NULL || !dns_name(domain) || !dns_name(header_d))
		return 0;
	a = psl_registrable_domain(psl, domain);
	b = psl_registrable_domain(psl, header_d);
	return a != NULL && b != NULL && strcmp(a, b) == 0;
}

/* shared_labels - how many labels a and b end in alike */
static size_t
shared_labels(const char *a, const char *b)
{
	size_t i = strlen(a), j = strlen(b), n = 0;

	while (i > 0 && j > 0 && a[i - 1] == b[j - 1]) {
		i--;
		j--;
		if ((i == 0 || a[i - 1] == '.') && (j == 0 || b[j - 1] == '.'))
			n++;
	}
	return n;
}

/*
 * nearer - header_d is nearer the author's domain than d->dkim_domain:
 * it ends in more of its labels, or as many in fewer bytes (a parent
 * before a sibling's child), so the domain itself comes first
 */
static int
nearer(const struct decider *d, const char *domain, const char *header_d)
{
	size_t got = shared_labels(domain, header_d),
	    had = shared_labels(domain, d->dkim_domain);

	return d->dkim_domain[0] == '\0' || got > had || (got == had &&
	    strlen(header_d) < strlen(d->dkim_domain));
}

/* is_authres - field k of msg is an Authentication-Results: its value */
static const char *
is_authres(const struct mailmsg *msg, size_t k, size_t *len)
{
	const struct mailmsg_field *f = mailmsg_field(msg, k);
	size_t n = sizeof(authres_name) - 1, all;
	const char *text = mailmsg_text(msg, &all);

	if (f->namelen != n || strncasecmp(text + f->off, authres_name, n) != 0)
		return NULL;
	*len = f->len - n - 1;
	return text + f->off + n + 1;
}

/*
 * topmost - the first Authentication-Results field of msg whose
 * authserv-id is id (in any case) read into d->ar: 0, PA_ENOTFOUND when
 * there is none, or authres_parse()'s error when it does not read (the
 * verifier's field still: those under it are not read instead)
 */
static int
topmost(struct decider *d, const struct mailmsg *msg, const char *id)
{
	char got[AUTHRES_ID_MAX];
	const char *v;
	size_t k, len;

	for (k = 0; k < mailmsg_nfields(msg); k++) {
		if ((v = is_authres(msg, k, &len)) == NULL ||
		    authres_id(got, sizeof(got), v, len) != 0 ||
		    strcasecmp(got, id) != 0)
			continue;
		return authres_parse(&d->ar, v, len);
	}
	return PA_ENOTFOUND;
}

/*
 * verifier - the kth of TrustedAuthservIDs is a verifier to read: not
 * ours (a field claiming our name came from outside and is removed) and
 * not named earlier in the list (in any case), so that each verifier has
 * one field read
 */
static int
verifier(const struct pa_config *cfg, size_t k)
{
	const char *id = cfg->trusted_authserv_ids.v[k];
	size_t j;

	if (cfg->authserv_id != NULL && strcasecmp(id, cfg->authserv_id) == 0)
		return 0;
	for (j = 0; j < k; j++)
		if (strcasecmp(id, cfg->trusted_authserv_ids.v[j]) == 0)
			return 0;
	return 1;
}

/* author_domain - the domain of the author's address, lowered, or "" */
static void
author_domain(const struct decider *d, char out[AUTHRES_DOMAIN_MAX])
{
	const char *at = strrchr(d->email.buf, '@');
	size_t n;

	out[0] = '\0';
	if (at != NULL && (n = strlen(at + 1)) < AUTHRES_DOMAIN_MAX)
		ascii_lower_copy(out, at + 1, n);
}

void
dkim_vouched(struct decider *d, const struct mailmsg *msg)
{
	const struct pa_config *cfg = d->cfg;
	const struct authres_result *r;
	char domain[AUTHRES_DOMAIN_MAX];
	size_t k, j, len, fields = 0, read = 0;

	d->dkim_domain[0] = '\0';
	d->authres_ignored = 0;
	if (cfg->trusted_authserv_ids.n == 0)
		return;
	author_domain(d, domain);
	for (k = 0; k < cfg->trusted_authserv_ids.n; k++) {
		if (!verifier(cfg, k) ||
		    topmost(d, msg, cfg->trusted_authserv_ids.v[k]) != 0)
			continue;
		read++;
		for (j = 0; j < d->ar.n; j++) {
			r = &d->ar.r[j];
			if (strcmp(r->method, "dkim") == 0 &&
			    strcmp(r->result, "pass") == 0 &&
			    dkim_aligned(domain, r->header_d) &&
			    nearer(d, domain, r->header_d))
				memcpy(d->dkim_domain, r->header_d,
				    sizeof(d->dkim_domain));
		}
	}
	for (k = 0; k < mailmsg_nfields(msg); k++)
		fields += is_authres(msg, k, &len) != NULL;
	d->authres_ignored = (unsigned)(fields - read);
}
