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

/* message_id - the Message-ID without its <>, as the ledger keys it */
static void
message_id(struct arrival *a, const struct mailmsg *m)
{
	const char *v;
	size_t len;

	if ((v = mailmsg_get(m, "Message-ID", &len)) == NULL)
		return;
	copy_field(a->message_id, sizeof(a->message_id), v, len);
	len = strlen(a->message_id);
	if (len >= 2 && a->message_id[0] == '<' &&
	    a->message_id[len - 1] == '>') {
		memmove(a->message_id, a->message_id + 1, len - 2);
		a->message_id[len - 2] = '\0';
	}
}

static void
header(char *dst, size_t size, const struct mailmsg *m, const char *name)
{
	const char *v;
	size_t len;

	if ((v = mailmsg_get(m, name, &len)) != NULL)
		copy_field(dst, size, v, len);
}

/* patch - the hashes of the patch the mail carries, when it has one */
static int
patch(struct arrival *a, const struct mailmsg *m, struct msghash *h,
    struct patchfacts *pf, struct pa_err *err)
{
	char hex[DIGEST_HEXLEN + 1];
	int rc;

	rc = msghash_compute(h, m, 0, err);
	if (rc == PA_ENOMEM || rc == PA_ETOOBIG)
		return rc;
	if (rc != 0 || h->n == 0 || h->entry[0].origin != 0)
		return 0;
	if ((rc = patchfacts_compute(pf, m)) != 0)
		return rc == PA_ENOMEM || rc == PA_ETOOBIG ? rc : 0;
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
	if (pf->mi.has_from)
		snprintf(a->author, sizeof(a->author), "%s <%s>",
		    pf->mi.author.buf, pf->mi.email.buf);
	return 0;
}

int
arrival_from_mail(struct arrival *a, const struct mailmsg *m,
    struct msghash *h, struct patchfacts *pf, struct pa_err *err)
{
	int rc;

	memset(a, 0, sizeof(*a));
	message_id(a, m);
	header(a->author, sizeof(a->author), m, "From");
	header(a->subject, sizeof(a->subject), m, "Subject");
	header(a->list_id, sizeof(a->list_id), m, "List-Id");
	if ((rc = patch(a, m, h, pf, err)) != 0)
		pa_err_set(err, "the mail cannot be read: %s", pa_strerror(rc));
	return rc;
}
