/* SPDX-License-Identifier: BSD-2-Clause */
/* mailfacts - see mailfacts.h */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "mailfacts.h"
#include "patchattest.h"
#include "base.h"
#include "mail.h"
#include "state.h"

void
mailfacts_init(struct mailfacts *f)
{
	memset(f, 0, sizeof(*f));
	msghash_init(&f->h);
	patchfacts_init(&f->pf);
}

void
mailfacts_release(struct mailfacts *f)
{
	msghash_release(&f->h);
	patchfacts_release(&f->pf);
}

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

static void
header(char *dst, size_t size, const struct mailmsg *m, const char *name)
{
	const char *v;
	size_t len;

	if ((v = mailmsg_get(m, name, &len)) != NULL)
		copy_field(dst, size, v, len);
}

/*
 * message_id - m's Message-ID as the ledger keys it: all of its bytes (NUL
 * ones too, however long), blanks around it and one pair of <> cut; a
 * pointer into m and *len, or NULL when it has none
 */
static const char *
message_id(const struct mailmsg *m, size_t *lenp)
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

int
mailfacts_read(struct mailfacts *f, const struct mailmsg *msg,
    unsigned flags)
{
	struct arrival *a = &f->rec;

	f->msg = msg;
	f->pf_done = 0;
	f->hash_rc = msghash_compute(&f->h, msg, flags, &f->hash_why);
	if (f->hash_rc != 0)
		f->h.n = 0;	/* no hash to judge or record either */
	memset(a, 0, sizeof(*a));
	f->id_len = 0;
	if ((f->id = message_id(msg, &f->id_len)) != NULL)
		arrival_set_message_id(a, f->id, f->id_len);
	header(a->author, sizeof(a->author), msg, "From");
	header(a->subject, sizeof(a->subject), msg, "Subject");
	header(a->list_id, sizeof(a->list_id), msg, "List-Id");
	return f->hash_rc;
}

/*
 * patch - the patch's hashes (the primary reading's), m_core, patch-id,
 * trailers and author into f's record
 */
static void
patch(struct mailfacts *f)
{
	const struct patchfacts *pf = &f->pf;
	struct arrival *a = &f->rec;
	char hex[DIGEST_HEXLEN + 1];

	a->has_patch = 1;
	digest_hex(a->i, f->h.entry[0].i);
	digest_hex(a->m, f->h.entry[0].m);
	digest_hex(a->p, f->h.entry[0].p);
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

int
mailfacts_patch(struct mailfacts *f)
{
	if (f->pf_done)
		return f->pf_rc;
	/* git am's reading, from the hashes' when they kept it */
	f->pf_rc = patchfacts_compute(&f->pf, f->msg, &f->h);
	f->pf_done = 1;
	if (f->pf_rc == 0 && f->h.n > 0 && f->h.entry[0].origin == 0)
		patch(f);
	return f->pf_rc;
}

int
mailfacts_record(struct mailfacts *f, struct arrival *a, struct pa_err *err)
{
	int rc = f->hash_rc;

	if (rc != PA_ENOMEM && rc != PA_ETOOBIG)
		rc = mailfacts_patch(f);
	*a = f->rec;		/* the patch's part only when it was read */
	if (rc != PA_ENOMEM && rc != PA_ETOOBIG)
		return 0;
	pa_err_set(err, "the mail cannot be read: %s", pa_strerror(rc));
	return rc;
}
