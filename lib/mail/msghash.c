/* SPDX-License-Identifier: BSD-2-Clause */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "patchattest.h"
#include "mailinfo.h"
#include "msghash-int.h"
#include "mailmsg.h"
#include "mime.h"
#include "patchclean.h"
#include "pycodec.h"

/*
 * The hashes of spec section 4: i over mailinfo's Author/Email/Subject
 * lines, m over the commit message, p over the cleaned patch; every tool
 * and git version in use in 2020 gives one variant of them.
 */

/* mailinfo options that a variant can flip, with the origin bit of each */
static const struct {
	unsigned	saw;		/* MAILINFO_SAW_* that makes it matter */
	unsigned	origin;
} axes[] = {
	{ MAILINFO_SAW_CONVERSION, MSGHASH_O_MODE_N },
	{ MAILINFO_SAW_SHORTNAME, MSGHASH_O_SHORTNAME },
	{ MAILINFO_SAW_TIGHT, MSGHASH_O_OLDCOLON },
	{ MAILINFO_SAW_UNKNOWN, MSGHASH_O_UTF8LABEL },
	{ MAILINFO_SAW_SCISSORS, MSGHASH_O_SCISSORS },
};
#define NAXES	(sizeof(axes) / sizeof(axes[0]))

/* patch cleanings, most recent b4 first */
static const struct {
	enum patchclean_algo	algo;
	int			strict_text;	/* b4 <= 0.5.0 read it as text */
	unsigned		origin;
} pclean[] = {
	{ PATCHCLEAN_V3, 0, 0 },
	{ PATCHCLEAN_V3, 1, MSGHASH_O_P_TEXT },
	{ PATCHCLEAN_V2, 1, MSGHASH_O_P_V2 },
	{ PATCHCLEAN_V1, 1, MSGHASH_O_P_V1 },
};
#define NPCLEAN	(sizeof(pclean) / sizeof(pclean[0]))

struct msghash_work {
	struct mailinfo	 mi;
	int		 mi_primary;	/* mi holds the primary reading */
	struct sbuf	 text;
	struct sbuf	 text2;
	char		 charset[64];	/* b4 0.5.x patch charset, "" unknown */
};

struct charset_pick {
	char		 top[64];
	char		 chosen[64];
	struct sbuf	 param;
};

/* axes_seen - the axes (bit per row of axes[]) that saw makes relevant */
static unsigned
axes_seen(unsigned saw)
{
	unsigned mask = 0;
	size_t a;

	for (a = 0; a < NAXES; a++)
		if (saw & axes[a].saw)
			mask |= 1u << a;
	return mask;
}

static void
lower_copy(char *dst, size_t size, const char *src, size_t len)
{
	ascii_lower_copy(dst, src, len < size ? len : size - 1);
}

/*
 * pick - b4 0.5.x took the charset of the last text/plain or x-patch part
 * (else of the message), and UTF-8 for a label Python does not know.
 */
static void
pick(struct charset_pick *cp, const char *type, const char *ct, size_t ctlen)
{
	char label[64];

	if (!strstr(type, "/plain") && !strstr(type, "/x-patch"))
		return;
	if (ct && mime_param(ct, ctlen, "charset", &cp->param) &&
	    cp->param.len > 0 && cp->param.len < sizeof(label))
		lower_copy(label, sizeof(label), cp->param.buf, cp->param.len);
	else
		memcpy(label, cp->top, sizeof(label));
	if (pycodec_known(label))
		memcpy(cp->chosen, label, sizeof(label));
	else
		memcpy(cp->chosen, "utf-8", sizeof("utf-8"));
}

static int
pick_part(const struct mime_part *part, void *arg)
{
	const char *ct;
	size_t ctlen;

	ct = mime_header(part->hdr, part->hdrlen, "Content-Type", &ctlen);
	pick(arg, part->type, ct, ctlen);
	return 0;
}

static void
patch_charset(const struct mailmsg *msg, char out[64])
{
	struct charset_pick cp;
	const char *hdr, *body, *ct;
	size_t hdrlen, bodylen, ctlen = 0;
	char type[MIME_TYPE_MAX];

	sbuf_init(&cp.param, 256);
	memcpy(cp.top, "utf-8", sizeof("utf-8"));
	ct = mailmsg_get(msg, "Content-Type", &ctlen);
	if (ct && mime_param(ct, ctlen, "charset", &cp.param) &&
	    cp.param.len > 0 && cp.param.len < sizeof(cp.top))
		lower_copy(cp.top, sizeof(cp.top), cp.param.buf, cp.param.len);
	memcpy(cp.chosen, cp.top, sizeof(cp.top));
	if (ct)
		mime_type(ct, ctlen, type);
	else
		memcpy(type, "text/plain", sizeof("text/plain"));
	if (strncmp(type, "multipart/", 10) == 0 ||
	    strcmp(type, "message/rfc822") == 0) {
		hdr = mailmsg_headers(msg, &hdrlen);
		body = mailmsg_body_text(msg, &bodylen);
		mime_walk(hdr, hdrlen, body, bodylen, pick_part, &cp);
	} else
		pick(&cp, type, ct, ctlen);
	memcpy(out, cp.chosen, 64);
	sbuf_release(&cp.param);
}

/* hash_i - the Author, Email and Subject lines, as Python decoded them */
static int
hash_i(struct msghash_work *r, unsigned char out[DIGEST_LEN])
{
	struct mailinfo *mi = &r->mi;
	int rc;

	sbuf_reset(&r->text);
	if (mi->has_from)
		sbuf_addf(&r->text, "Author: %s\nEmail: %s\n", mi->author.buf,
		    mi->email.buf);
	if (mi->has_subject)
		sbuf_addf(&r->text, "Subject: %s\n", mi->subject.buf);
	if ((rc = sbuf_failed(&r->text)) != 0)
		return rc;
	if (pytext_utf8_valid(r->text.buf, r->text.len))
		return digest_sha256(out, r->text.buf, r->text.len);
	sbuf_reset(&r->text2);
	if ((rc = pytext_utf8_replace(&r->text2, r->text.buf, r->text.len)))
		return rc;
	return digest_sha256(out, r->text2.buf, r->text2.len);
}

/* as_text - bytes read the way Python's open(path, 'r') read them */
static int
as_text(struct msghash_work *r, const char *s, size_t len, const char **t,
    size_t *tlen)
{
	int rc;

	if (!pytext_utf8_valid(s, len))
		return PA_ENOHASH;
	if (memchr(s, '\r', len) == NULL) {
		*t = s;
		*tlen = len;
		return 0;
	}
	sbuf_reset(&r->text);
	if ((rc = pytext_newlines(&r->text, s, len)) != 0)
		return rc;
	*t = r->text.buf;
	*tlen = r->text.len;
	return 0;
}

static int
hash_m(struct msghash_work *r, unsigned char out[DIGEST_LEN])
{
	const char *t;
	size_t tlen;
	int rc;

	if ((rc = as_text(r, r->mi.msg.buf, r->mi.msg.len, &t, &tlen)) != 0)
		return rc;
	return digest_sha256(out, t, tlen);
}

int
msghash_text(unsigned char out[DIGEST_LEN], const char *msg, size_t len)
{
	struct msghash_work r;
	const char *t;
	size_t tlen;
	int rc;

	/* Universal newlines never make the text longer. */
	sbuf_init(&r.text, len);
	if ((rc = as_text(&r, msg, len, &t, &tlen)) == 0)
		rc = digest_sha256(out, t, tlen);
	sbuf_release(&r.text);
	return rc;
}

/* patch_text - the patch as cleaning which reads it, into *t and *tlen */
static int
patch_text(struct msghash_work *r, size_t which, const char **t,
    size_t *tlen)
{
	const struct sbuf *patch = &r->mi.patch;
	int rc;

	*t = patch->buf;
	*tlen = patch->len;

	if (pclean[which].strict_text)
		rc = as_text(r, patch->buf, patch->len, t, tlen);
	else if (r->charset[0] == '\0')
		rc = PA_ENOHASH;
	else if ((strcmp(r->charset, "utf-8") == 0 ||
	    strcmp(r->charset, "utf8") == 0) &&
	    pytext_utf8_valid(patch->buf, patch->len))
		rc = 0;
	else {
		sbuf_reset(&r->text);
		rc = pycodec_decode(&r->text, r->charset, patch->buf, patch->len);
		*t = r->text.buf;
		*tlen = r->text.len;
		if (rc == PA_ECHARSET || rc == PA_ERROR)
			rc = PA_ENOHASH;
	}
	return rc;
}

static void
add_entry(struct msghash *h, const unsigned char i[32],
    const unsigned char m[32], const unsigned char p[32], unsigned origin)
{
	struct msghash_entry *e;
	size_t k;

	for (k = 0; k < h->n; k++) {
		e = &h->entry[k];
		if (!memcmp(e->i, i, 32) && !memcmp(e->m, m, 32) &&
		    !memcmp(e->p, p, 32))
			return;
	}
	if (h->n == MSGHASH_MAX)
		return;
	e = &h->entry[h->n++];
	memcpy(e->i, i, 32);
	memcpy(e->m, m, 32);
	memcpy(e->p, p, 32);
	e->origin = origin;
	msghash_attid(e->attid, i, m, p);
}

void
msghash_attid(char out[MSGHASH_ATTID_LEN + 1], const unsigned char *i,
    const unsigned char *m, const unsigned char *p)
{
	const unsigned char *part[3] = { i, m, p };
	size_t k;

	/* the NUL after each part but the last becomes its '-' */
	for (k = 0; k < 3; k++) {
		codec_hex(out, part[k], 4, 0);
		out += 8;
		if (k < 2)
			*out++ = '-';
	}
}

/*
 * run_one - one mailinfo reading and every patch cleaning over it.
 * Returns 0 when at least one entry came out, else why not.
 */
static int
run_one(struct msghash_work *r, struct msghash *h, const char *text, size_t len,
    unsigned origin, size_t ncleanings, struct pa_err *err)
{
	struct mailinfo_opts o = { 0 };
	unsigned char i[32], m[32], p[32];
	const char *t, *hashed = NULL;	/* the patch's own bytes, hashed */
	size_t k, tlen;
	int rc, got = 0, why = PA_ENOPATCH;

	o.convert = !(origin & MSGHASH_O_MODE_N);
	o.short_names = !!(origin & MSGHASH_O_SHORTNAME);
	o.old_colon = !!(origin & MSGHASH_O_OLDCOLON);
	o.utf8_unknown = !!(origin & MSGHASH_O_UTF8LABEL);
	o.scissors = !!(origin & MSGHASH_O_SCISSORS);
	r->mi_primary = 0;
	if ((rc = mailinfo_run(&r->mi, text, len, &o)) != 0) {
		if (rc == PA_EMAILINFO && err && !err->msg[0])
			snprintf(err->msg, sizeof(err->msg), "%s", r->mi.error);
		return rc;
	}
	r->mi_primary = origin == 0;
	if (r->mi.patch.len == 0)
		return PA_ENOPATCH;
	if ((rc = hash_i(r, i)) != 0)
		return rc;
	if ((rc = hash_m(r, m)) != 0) {
		if (rc == PA_ENOHASH && err && !err->msg[0])
			snprintf(err->msg, sizeof(err->msg),
			    "commit message is not valid UTF-8");
		return rc;
	}
	for (k = 0; k < ncleanings; k++) {
		/*
		 * A UTF-8 patch without CR reads the same as text and as its
		 * charset: the cleaning before, of the same algorithm, hashed
		 * the same bytes, and its entry is there.
		 */
		if ((rc = patch_text(r, k, &t, &tlen)) == 0 && t == hashed &&
		    t == r->mi.patch.buf && pclean[k].algo == pclean[k - 1].algo)
			continue;
		hashed = NULL;
		if (rc == 0 && (rc = patchclean_hash(p, pclean[k].algo, t,
		    tlen)) == 0 && t == r->mi.patch.buf)
			hashed = t;
		if (rc == PA_ENOMEM)
			return rc;
		if (rc != 0) {
			if (why == PA_ENOPATCH && rc != PA_ENOPATCH)
				why = rc;
			continue;
		}
		add_entry(h, i, m, p, origin | pclean[k].origin);
		got = 1;
	}
	if (!got && why == PA_ENOHASH && err && !err->msg[0])
		snprintf(err->msg, sizeof(err->msg),
		    "the patch cannot be read as its charset");
	return got ? 0 : why;
}

void
msghash_init(struct msghash *h)
{
	h->n = 0;
	h->work = NULL;
}

void
msghash_release(struct msghash *h)
{
	if (h->work == NULL)
		return;
	mailinfo_release(&h->work->mi);
	sbuf_release(&h->work->text);
	sbuf_release(&h->work->text2);
	free(h->work);
	h->work = NULL;
}

int
msghash_compute(struct msghash *h, const struct mailmsg *msg, unsigned flags,
    struct pa_err *err)
{
	struct msghash_work *r;
	const char *text;
	size_t len, a;
	unsigned axismask, done, subset, origin, saw;

	int rc, first = 0, any = 0;

	h->n = 0;
	if (err)
		err->msg[0] = '\0';
	if ((r = h->work) == NULL) {
		if ((r = malloc(sizeof(*r))) == NULL)
			return PA_ENOMEM;
		mailinfo_init(&r->mi);
		sbuf_init(&r->text, 0);
		sbuf_init(&r->text2, 0);
		h->work = r;
	}
	r->mi_primary = 0;
	text = mailmsg_text(msg, &len);
	/* Decoding and conversion grow text at most fourfold. */
	r->text.max = r->text2.max = len * 4 + 4096;
	patch_charset(msg, r->charset);
	if (!pycodec_known(r->charset))
		r->charset[0] = '\0';

	first = run_one(r, h, text, len, 0,
	    flags & MSGHASH_VARIANTS ? NPCLEAN : 1, err);
	saw = r->mi.saw;
	any = first == 0;
	if (first == PA_ENOMEM || first == PA_ETOOBIG ||
	    !(flags & MSGHASH_VARIANTS))
		goto out;

	/*
	 * Every combination of the options the message made relevant; a
	 * reading under new options may make further ones relevant.
	 */
	done = 1;	/* subset 0 is the primary reading */
	do {
		axismask = axes_seen(saw);
		for (subset = 1; subset < 1u << NAXES; subset++) {
			if ((subset & ~axismask) || (done & 1u << subset))
				continue;
			done |= 1u << subset;
			origin = 0;
			for (a = 0; a < NAXES; a++)
				if (subset & 1u << a)
					origin |= axes[a].origin;
			rc = run_one(r, h, text, len, origin, NPCLEAN, NULL);
			if (rc == PA_ENOMEM || rc == PA_ETOOBIG) {
				first = rc;
				goto out;
			}
			any |= rc == 0;
			saw |= r->mi.saw;
		}
	} while (axes_seen(saw) != axismask);
out:
	if (any && h->n > 0)
		return 0;
	if (first == 0)
		first = PA_ENOPATCH;
	if (err && !err->msg[0])
		snprintf(err->msg, sizeof(err->msg), "%s", pa_strerror(first));
	return first;
}

const struct mailinfo *
msghash_reading(const struct msghash *h)
{
	return h->work != NULL && h->work->mi_primary ? &h->work->mi : NULL;
}

const char *
msghash_origin_name(unsigned origin, char *buf, size_t len)
{
	static const struct {
		unsigned	 bit;
		const char	*name;
	} names[] = {
		{ MSGHASH_O_MODE_N, "git>=2.32" },
		{ MSGHASH_O_SHORTNAME, "git<2.33" },
		{ MSGHASH_O_OLDCOLON, "git<2.26" },
		{ MSGHASH_O_UTF8LABEL, "b4>=0.4.3-charset" },
		{ MSGHASH_O_SCISSORS, "scissors" },
		{ MSGHASH_O_P_V1, "b4-0.3.0" },
		{ MSGHASH_O_P_V2, "b4-0.3.4" },
		{ MSGHASH_O_P_TEXT, "b4-0.4.0" },
	};
	size_t k, n = 0;

	if (len == 0)
		return buf;
	buf[0] = '\0';
	if (origin == 0) {
		snprintf(buf, len, "primary");
		return buf;
	}
	for (k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
		if (!(origin & names[k].bit))
			continue;
		n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%s",
		    n ? "," : "", names[k].name);
		if (n >= len)
			break;
	}
	return buf;
}
