/* SPDX-License-Identifier: BSD-2-Clause */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "patchattest.h"
#include "archive.h"
#include "attdoc.h"
#include "base.h"
#include "indexer.h"
#include "mail.h"

#define BATCH		256	/* archive entries per write transaction */
#define MAX_MARKS	64



static void
warn(const struct indexer_hooks *h, const char *where, const char *what)
{
	if (h && h->warn)
		h->warn(h->arg, where, what);
}

/* counted - "1 entry", "2 entries" */
static void
counted(struct sbuf *out, size_t n, const char *one, const char *many)
{
	sbuf_addf(out, "%zu %s", n, n == 1 ? one : many);
}

void
indexer_summary(struct sbuf *out, const struct indexer_stats *st)
{
	counted(out, st->entries, "entry", "entries");
	sbuf_addstr(out, " read: ");
	counted(out, st->documents, "attestation document",
	    "attestation documents");
	sbuf_addf(out, " (%zu verified, %zu bad or unverifiable, %zu already "
	    "indexed), %zu skipped; ", st->verified, st->bad, st->known,
	    st->skipped);
	counted(out, st->attestations, "attestation", "attestations");
	sbuf_addstr(out, " indexed, ");
	counted(out, st->removed, "document", "documents");
	sbuf_addstr(out, " removed");
}

int
indexer_worth_reading(const char *raw, size_t len)
{
	return memmem(raw, len, "-----BEGIN PGP SIGNED MESSAGE-----", 34) ||
	    memmem(raw, len, "base64", 6) || memmem(raw, len, "BASE64", 6) ||
	    memmem(raw, len, "Base64", 6);
}

/* add_part - a text part, transfer-decoded, onto the sbuf in arg */
static int
add_part(const struct mime_part *part, void *arg)
{
	struct sbuf *text = arg;
	const char *cte;
	size_t len;

	if (strncmp(part->type, "text/", 5) != 0)
		return 0;
	cte = mime_header(part->hdr, part->hdrlen, "Content-Transfer-Encoding",
	    &len);
	if (cte && len >= 6 && memmem(cte, len, "ase64", 5))
		codec_b64_body(text, part->body, part->bodylen);
	else if (cte && (memmem(cte, len, "uoted-printable", 15) ||
	    memmem(cte, len, "UOTED-PRINTABLE", 15)))
		codec_qp_body(text, part->body, part->bodylen);
	else
		sbuf_add(text, part->body, part->bodylen);
	sbuf_addch(text, '\n');
	return 0;
}

/* message_text - the decoded text parts of a raw message */
static int
message_text(struct mailmsg *m, struct sbuf *out, const char *raw,
    size_t len, const char **msgid, size_t *msgidlen)
{
	const char *hdr, *body;
	size_t hdrlen, bodylen;
	int rc;

	if ((rc = mailmsg_parse(m, raw, len)) != 0)
		return rc;
	*msgid = mailmsg_get(m, "Message-ID", msgidlen);
	hdr = mailmsg_headers(m, &hdrlen);
	body = mailmsg_body_text(m, &bodylen);
	mime_walk(hdr, hdrlen, body, bodylen, add_part, out);
	return sbuf_failed(out);
}

static void
copy_trimmed(char *dst, size_t size, const char *s, size_t len)
{
	while (len && (*s == ' ' || *s == '\t' || *s == '\n' || *s == '<')) {
		s++;
		len--;
	}
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\n' ||
	    s[len - 1] == '>'))
		len--;
	snprintf(dst, size, "%.*s", (int)len, s);
}

/* What each_document() hands to its callback for one clearsigned block. */
struct block {
	const char	*text, *msgid;
	size_t		 len, msgidlen;
};

/*
 * each_document - fn for every clearsigned block of a raw message, until
 * fn returns non-zero (returned).
 */
static int
each_document(const char *raw, size_t len,
    int (*fn)(const struct block *, void *), void *arg)
{
	struct mailmsg *m;
	struct sbuf text;
	struct block b = { NULL, NULL, 0, 0 };
	size_t pos = 0, start;
	int rc;

	if (!indexer_worth_reading(raw, len))
		return 0;
	if ((rc = mailmsg_new(&m, len + 1)) != 0)
		return rc;
	sbuf_init(&text, len * 2 + 1024);
	rc = message_text(m, &text, raw, len, &b.msgid, &b.msgidlen);
	while (rc == 0 && attdoc_next_span(text.buf, text.len, &pos, &start,
	    &b.len)) {
		b.text = text.buf + start;
		rc = fn(&b, arg);
	}
	sbuf_release(&text);
	mailmsg_free(m);
	return rc;
}

struct index_job {
	struct attindex			*ix;
	struct pgp			*pgp;
	const char			*where;
	struct indexer_stats		*st;
	const struct indexer_hooks	*h;
	struct pa_err			*err;
	/* A mail: GnuPG runs at most, each document committed on its own;
	   0: an archive entry, in the caller's transaction. */
	size_t				 max;
	size_t				 runs;
};

/*
 * over_budget - before a GnuPG run: the job's cap of documents verified
 * is reached, or its hooks ask to stop (then PA_ETOOBIG or 1: the rest
 * of the message is left)
 */
static int
over_budget(struct index_job *j)
{
	if (j->max > 0 && j->runs == j->max) {
		pa_err_set(j->err, "more than %zu attestation documents in one "
		    "mail (LearnMaxDocuments): the rest are not learnt",
		    j->max);
		return PA_ETOOBIG;
	}
	if (j->max > 0 && j->h && j->h->stop && j->h->stop(j->h->arg))
		return 1;
	j->runs++;
	return 0;
}

/* put - the document, in a write transaction of its own for a mail */
static int
put(struct index_job *j, const struct att_docinfo *info,
    const struct att_triple *t, size_t n)
{
	int rc;

	if (j->max > 0 && (rc = attindex_begin(j->ix, j->err)) != 0)
		return rc;
	rc = attindex_put(j->ix, info, t, n, j->err);
	if (j->max > 0 && rc == 0)
		rc = attindex_commit(j->ix, j->err);
	else if (j->max > 0)
		attindex_abort(j->ix);
	return rc;
}

/* store - verify one clearsigned block and store what it attests */
static int
store(struct index_job *j, const struct block *b)
{
	struct indexer_stats *st = j->st;
	const struct indexer_hooks *h = j->h;
	struct pa_err *err = j->err;
	struct att_docinfo info;
	struct attdoc doc;
	struct pgp_sig sig;
	struct sbuf plain;
	struct pgp_key key;
	struct pa_err why;
	size_t k, n;
	int rc;

	if ((rc = attdoc_check_armor(b->text, b->len, &why)) == PA_ENOTFOUND)
		return 0;	/* signed, but not an attestation */
	st->documents++;
	if (rc != 0) {
		st->bad++;
		warn(h, j->where, why.msg);
		return 0;
	}
	memset(&info, 0, sizeof(info));
	if ((rc = digest_sha256(info.docid, b->text, b->len)) != 0)
		return rc;
	if (attindex_has(j->ix, info.docid)) {
		st->known++;
		return 0;
	}
	if ((rc = over_budget(j)) != 0) {
		st->documents--;	/* not read */
		return rc;
	}
	sbuf_init(&plain, ATTDOC_MAX_BYTES);
	attdoc_init(&doc);
	if ((rc = pgp_verify(j->pgp, b->text, b->len, &sig, &plain,
	    err)) != 0) {
		if (rc != PA_ETOOBIG)
			goto out;
		/* Anyone may post one: it costs itself, not its neighbours. */
		st->bad++;
		warn(h, j->where, err->msg);
		rc = 0;
		goto out;
	}
	if ((rc = attdoc_parse(&doc, plain.buf, plain.len, &why)) != 0) {
		st->bad++;
		warn(h, j->where, why.msg);
		rc = 0;
		goto out;
	}
	info.status = sig.status;
	info.when = sig.when;
	snprintf(info.fpr, sizeof(info.fpr), "%s", sig.fpr);
	snprintf(info.where, sizeof(info.where), "%s", j->where);
	if (b->msgid)
		copy_trimmed(info.msgid, sizeof(info.msgid), b->msgid,
		    b->msgidlen);
	/* The signer's user IDs as they are now, for the record. */
	if (sig.status == PGP_SIG_GOOD &&
	    pgp_key(j->pgp, sig.fpr, sig.when, &key, &why) == 0) {
		for (k = 0, n = 0; k < key.nuids; k++)
			n += (size_t)snprintf(info.uids + n, n < sizeof(info.uids) ?
			    sizeof(info.uids) - n : 0, "%s\n", key.uid[k]);
	}
	if (sig.status == PGP_SIG_GOOD)
		st->verified++;
	else
		st->bad++;
	/* Triples with an empty diff attest no content: leave them out. */
	for (k = 0, n = 0; k < doc.n; k++)
		if (memcmp(doc.t[k].p, digest_empty, 32) != 0)
			doc.t[n++] = doc.t[k];
	if ((rc = put(j, &info, doc.t, n)) == 0)
		st->attestations += n;
out:
	attdoc_release(&doc);
	sbuf_release(&plain);
	return rc;
}

static int
index_block(const struct block *b, void *arg)
{
	struct index_job *j = arg;

	return store(j, b);
}

int
indexer_message(struct attindex *ix, struct pgp *pgp, const char *raw,
    size_t len, const char *where, struct indexer_stats *st,
    const struct indexer_hooks *h, struct pa_err *err)
{
	struct index_job j = { ix, pgp, where, st, h, err, 0, 0 };

	return each_document(raw, len, index_block, &j);
}

int
indexer_mail(struct attindex *ix, struct pgp *pgp, const char *raw,
    size_t len, size_t max, struct indexer_stats *st,
    const struct indexer_hooks *h, struct pa_err *err)
{
	struct index_job j = { ix, pgp, "mail", st, h, err, max, 0 };
	int rc;

	rc = each_document(raw, len, index_block, &j);
	return rc == 1 ? 0 : rc;	/* 1: stopped */
}

static int
unindex_block(const struct block *b, void *arg)
{
	struct index_job *j = arg;
	unsigned char docid[32];
	int rc;

	if ((rc = digest_sha256(docid, b->text, b->len)) != 0 ||
	    !attindex_has(j->ix, docid))
		return rc;
	if ((rc = attindex_remove(j->ix, docid, j->err)) == 0)
		j->st->removed++;
	return rc;
}

int
indexer_unindex(struct attindex *ix, const char *raw, size_t len,
    struct indexer_stats *st, struct pa_err *err)
{
	struct index_job j = { ix, NULL, NULL, st, NULL, err, 0, 0 };

	return each_document(raw, len, unindex_block, &j);
}

/* commit - store the archive's marks with the entries read so far */
static int
commit(struct attindex *ix, struct archive *a, struct pa_err *err)
{
	const struct archive_mark *marks;
	size_t n;
	int rc;

	marks = archive_marks(a, &n);
	if ((rc = attindex_set_marks(ix, marks, n, err)) != 0)
		return rc;
	return attindex_commit(ix, err);
}

int
indexer_archive(const struct pa_config *cfg, struct attindex *ix,
    struct pgp *pgp, struct indexer_stats *st, const struct indexer_hooks *h,
    struct pa_err *err)
{
	struct archive_mark marks[MAX_MARKS];
	struct archive_entry e;
	struct archive *a;
	size_t nmarks, inbatch = 0;
	int rc;

	if (cfg->archive == NULL) {
		snprintf(err->msg, sizeof(err->msg), "no Archive configured");
		return PA_ECONFIG;
	}
	if ((rc = attindex_get_marks(ix, marks, MAX_MARKS, &nmarks, err)) != 0)
		return rc;
	if ((rc = archive_open(&a, cfg->archive, cfg->archive_type, marks,
	    nmarks, err)) != 0)
		return rc;
	if ((rc = attindex_begin(ix, err)) != 0) {
		archive_close(a);
		return rc;
	}
	while ((rc = archive_next(a, &e, err)) == 1) {
		st->entries++;
		switch (e.op) {
		case ARCHIVE_ADD:
			rc = indexer_message(ix, pgp, e.data, e.len, e.where, st,
			    h, err);
			break;
		case ARCHIVE_REMOVE:
			rc = indexer_unindex(ix, e.data, e.len, st, err);
			break;
		default:
			st->skipped++;
			warn(h, e.where, e.why);
			rc = 0;
			break;
		}
		if (rc != 0)
			break;
		/* The marks stand after this entry: stopping loses nothing. */
		if (h && h->stop && h->stop(h->arg))
			break;
		if (++inbatch == BATCH) {
			if ((rc = commit(ix, a, err)) != 0 ||
			    (rc = attindex_begin(ix, err)) != 0)
				break;
			inbatch = 0;
			if (h && h->progress)
				h->progress(h->arg, st);
		}
	}
	if (rc == 0)
		rc = commit(ix, a, err);
	if (rc != 0)
		attindex_abort(ix);
	archive_close(a);
	if (h && h->progress)
		h->progress(h->arg, st);
	return rc;
}
