/* SPDX-License-Identifier: BSD-2-Clause */
#include "config.h"

#include <string.h>

#include "base.h"
#include "patchattest.h"
#include "mailmsg.h"
#include "msghash-int.h"
#include "patchfacts.h"
#include "trailers.h"

void
patchfacts_init(struct patchfacts *pf)
{
	memset(pf, 0, sizeof(*pf));
	sbuf_init(&pf->trailers, PATCHFACTS_TRAILERS_MAX);
	mailinfo_init(&pf->own);
	pf->mi = &pf->own;
}

void
patchfacts_release(struct patchfacts *pf)
{
	sbuf_release(&pf->trailers);
	mailinfo_release(&pf->own);
}

/* keep_lines - the trailer lines of all into pf, whole lines that fit */
static int
keep_lines(struct patchfacts *pf, const struct sbuf *all)
{
	size_t n = all->len;

	if (n > PATCHFACTS_TRAILERS_MAX) {
		n = PATCHFACTS_TRAILERS_MAX;
		while (n > 0 && all->buf[n - 1] != '\n')
			n--;
		pf->trailers_cut = 1;
	}
	return sbuf_add(&pf->trailers, all->buf, n);
}

/* reading - git mailinfo's primary reading of msg into pf->mi */
static int
reading(struct patchfacts *pf, const struct mailmsg *msg,
    const struct msghash *h)
{
	struct mailinfo_opts o = { 0 };
	const char *text;
	size_t len;

	if (h != NULL && (pf->mi = msghash_reading(h)) != NULL)
		return 0;
	pf->mi = &pf->own;
	text = mailmsg_text(msg, &len);
	o.convert = 1;
	return mailinfo_run(&pf->own, text, len, &o);
}

int
patchfacts_compute(struct patchfacts *pf, const struct mailmsg *msg,
    const struct msghash *h)
{
	const struct mailinfo *mi;
	struct trailers t;
	struct sbuf all;
	int rc;

	pf->patch_id[0] = '\0';
	pf->has_m_core = 0;
	pf->trailers_cut = 0;
	sbuf_reset(&pf->trailers);
	if ((rc = reading(pf, msg, h)) != 0)
		return rc;
	mi = pf->mi;
	if (mi->patch.len == 0)
		return PA_ENOPATCH;
	rc = patchid_compute(pf->patch_id, mi->patch.buf, mi->patch.len);
	if (rc != 0 && rc != PA_ENOPATCH)
		return rc;
	trailers_find(&t, mi->msg.buf, mi->msg.len);
	rc = trailers_core_hash(pf->m_core, mi->msg.buf, mi->msg.len, &t);
	if (rc != 0 && rc != PA_ENOHASH)
		return rc;
	pf->has_m_core = rc == 0;
	sbuf_init(&all, mi->msg.len * 2 + 1);
	if ((rc = trailers_lines(&all, mi->msg.buf, &t)) == 0)
		rc = keep_lines(pf, &all);
	sbuf_release(&all);
	return rc;
}
