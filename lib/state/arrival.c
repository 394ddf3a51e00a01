/* SPDX-License-Identifier: BSD-2-Clause */
#include "config.h"

#include <string.h>

#include "patchattest.h"
#include "base.h"
#include "mail.h"
#include "arrival.h"
#include "ledger.h"

/* copy_field - a header value into dst: unfolded, trimmed, cut to fit */
static void
copy_field(char *dst, size_t size, const char *v, size_t len)
{
	size_t n = 0, k;

	while (len > 0 && (*v == ' ' || *v == '\t' || *v == '\n')) {
		v++;
		len--;
	}
	for (k = 0; k < len && n + 1 < size; k++) {
		if (v[k] == '\0')
			break;
		dst[n++] = v[k] == '\n' || v[k] == '\t' ? ' ' : v[k];
	}
	while (n > 0 && dst[n - 1] == ' ')
		n--;
	dst[n] = '\0';
}

const char *
arrival_message_id(const struct mailmsg *m, size_t *lenp)
{
	const char *v;
	size_t len;

	if ((v = mailmsg_get(m, "Message-ID", &len)) == NULL)
		return NULL;
	while (len > 0 && strchr(" \t\r\n", *v) != NULL) {
		v++;
		len--;
	}
	while (len > 0 && strchr(" \t\r\n", v[len - 1]) != NULL)
		len--;
	if (len >= 2 && v[0] == '<' && v[len - 1] == '>') {
		v++;
		len -= 2;
	}
	*lenp = len;
	return v;
}

static void
header(char *dst, size_t size, const struct mailmsg *m, const char *name)
{
	const char *v;
	size_t len;

	if ((v = mailmsg_get(m, name, &len)) != NULL)
		copy_field(dst, size, v, len);
}

/* patch - the patch's hashes, m_core, patch-id, trailers and author */
static void
patch(struct arrival *a, const struct msghash *h,
    const struct patchfacts *pf)
{
	char hex[DIGEST_HEXLEN + 1];

	a->has_patch = 1;
	digest_hex(a->i, h->entry[0].i);
	digest_hex(a->m, h->entry[0].m);
	digest_hex(a->p, h->entry[0].p);
	if (pf->has_m_core) {
		digest_hex(hex, pf->m_core);
		memcpy(a->m_core, hex, sizeof(a->m_core));
	}
	memcpy(a->patch_id, pf->patch_id, sizeof(a->patch_id));
	memcpy(a->trailers, pf->trailers.buf, pf->trailers.len + 1);
	if (pf->mi->has_from)
		snprintf(a->author, sizeof(a->author), "%s <%s>",
		    pf->mi->author.buf, pf->mi->email.buf);
}

void
arrival_fill(struct arrival *a, const struct mailmsg *m,
    const struct msghash *h, const struct patchfacts *pf, int has_patch)
{
	const char *id;
	size_t len;

	memset(a, 0, sizeof(*a));
	if ((id = arrival_message_id(m, &len)) != NULL)
		arrival_set_message_id(a, id, len);
	header(a->author, sizeof(a->author), m, "From");
	header(a->subject, sizeof(a->subject), m, "Subject");
	header(a->list_id, sizeof(a->list_id), m, "List-Id");
	if (has_patch && h->n > 0 && h->entry[0].origin == 0)
		patch(a, h, pf);
}

int
arrival_from_mail(struct arrival *a, const struct mailmsg *m,
    struct msghash *h, struct patchfacts *pf, struct pa_err *err)
{
	int rc, has_patch;

	rc = msghash_compute(h, m, 0, err);
	if (rc == PA_ENOMEM || rc == PA_ETOOBIG)
		goto fault;
	has_patch = rc == 0;
	if (has_patch && (rc = patchfacts_compute(pf, m, h)) != 0) {
		if (rc == PA_ENOMEM || rc == PA_ETOOBIG)
			goto fault;
		has_patch = 0;
	}
	arrival_fill(a, m, h, pf, has_patch);
	return 0;
fault:
	memset(a, 0, sizeof(*a));
	pa_err_set(err, "the mail cannot be read: %s", pa_strerror(rc));
	return rc;
}

/* has_line - whether the lines of set hold line (len bytes) */
static int
has_line(const char *set, const char *line, size_t len)
{
	const char *s = set, *nl;

	for (; (nl = strchr(s, '\n')) != NULL; s = nl + 1)
		if ((size_t)(nl - s) == len && memcmp(s, line, len) == 0)
			return 1;
	return 0;
}

/* subset - whether every line of a is among b's */
static int
subset(const char *a, const char *b)
{
	const char *nl;

	for (; (nl = strchr(a, '\n')) != NULL; a = nl + 1)
		if (!has_line(b, a, (size_t)(nl - a)))
			return 0;
	return 1;
}

static int
is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/*
 * same_text - a and b alike but for blanks at either end and the length
 * of runs of blanks: a header folded elsewhere (b4 folds a long Subject)
 */
static int
same_text(const char *a, const char *b)
{
	while (is_blank(*a))
		a++;
	while (is_blank(*b))
		b++;
	while (*a != '\0' && *b != '\0') {
		if (is_blank(*a) && is_blank(*b)) {
			while (is_blank(*a))
				a++;
			while (is_blank(*b))
				b++;
		} else if (*a++ != *b++)
			return 0;
	}
	while (is_blank(*a))
		a++;
	while (is_blank(*b))
		b++;
	return *a == '\0' && *b == '\0';
}

enum arrival_match
arrival_compare(const struct arrival *cur, const struct arrival *old,
    unsigned *parts)
{
	*parts = 0;
	if (!cur->has_patch || !old->has_patch) {
		if (cur->has_patch != old->has_patch ||
		    !same_text(cur->subject, old->subject))
			*parts = ARRIVAL_PART_I;
		return *parts ? ARRIVAL_DIFFERS : ARRIVAL_SAME;
	}
	if (strcmp(cur->i, old->i) != 0)
		*parts |= ARRIVAL_PART_I;
	if (strcmp(cur->p, old->p) != 0)
		*parts |= ARRIVAL_PART_P;
	if (strcmp(cur->m, old->m) != 0 && (old->m_core[0] == '\0' ||
	    strcmp(cur->m_core, old->m_core) != 0 ||
	    !subset(old->trailers, cur->trailers)))
		*parts |= ARRIVAL_PART_M;
	if (*parts)
		return ARRIVAL_DIFFERS;
	return strcmp(cur->m, old->m) != 0 ? ARRIVAL_SAME_TRAILERS :
	    ARRIVAL_SAME;
}

unsigned
arrival_fields_differ(const struct arrival *cur, const struct arrival *old)
{
	return (same_text(cur->author, old->author) ? 0 : ARRIVAL_FIELD_FROM) |
	    (same_text(cur->subject, old->subject) ? 0 :
	    ARRIVAL_FIELD_SUBJECT);
}

void
arrival_added_trailers(struct sbuf *out, const struct arrival *cur,
    const struct arrival *old)
{
	const char *s = cur->trailers, *nl;

	for (; (nl = strchr(s, '\n')) != NULL; s = nl + 1)
		if (!has_line(old->trailers, s, (size_t)(nl - s)))
			sbuf_add(out, s, (size_t)(nl - s + 1));
}
