/* SPDX-License-Identifier: BSD-2-Clause */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "patchattest.h"
#include "base.h"
#include "mailident.h"
#include "mailinfo.h"
#include "rfc2047.h"

/*
 * The reading follows git mailinfo step by step (see the specification of
 * the attestation scheme, section 3), quirks included: the hashes of a
 * signed patch depend on every one of them.
 */

enum {
	HDR_FROM,
	HDR_SUBJECT,
	HDR_DATE,
	HDR_COUNT
};

enum {
	TE_NONE,
	TE_QP,
	TE_BASE64
};

static const char *const hdr_name[HDR_COUNT] = { "From", "Subject", "Date" };

static int	git_isspace(int);
static int	next_line(struct mailinfo *, const char **, size_t *);
static int	read_header_line(struct mailinfo *);
static int	is_header_line(const struct sbuf *);
static int	match_name(struct mailinfo *, const char *, size_t, const char *,
		    size_t *);
static int	decode_value(struct mailinfo *, const char *, size_t,
		    struct sbuf *);
static int	check_header(struct mailinfo *, const char *, size_t,
		    struct sbuf *, unsigned *, int);
static int	slurp_attr(const char *, const char *, struct sbuf *);
static int	content_type(struct mailinfo *, const char *);
static int	handle_body(struct mailinfo *);
static int	find_boundary(struct mailinfo *, const char **, size_t *);
static int	is_boundary(const struct mailinfo *, const char *, size_t);
static int	handle_boundary(struct mailinfo *, const char **, size_t *);
static int	decode_line(struct mailinfo *, const char *, size_t);
static int	flowed(struct mailinfo *, const char *, size_t);
static int	filter(struct mailinfo *, const char *, size_t);
static int	commit_msg(struct mailinfo *, const char **, size_t *, int *);
static int	inbody_header(struct mailinfo *, const char *, size_t, int *);
static int	flush_accum(struct mailinfo *);
static int	is_format_patch_separator(const char *, size_t);
static int	is_patch_break(const char *, size_t);
static int	fail(struct mailinfo *, int, const char *, const char *);

/* git's own ctype: only SP, HT, LF and CR are whitespace. */
static int
git_isspace(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static int
fail(struct mailinfo *mi, int rc, const char *what, const char *detail)
{
	if (rc == PA_ENOMEM || rc == PA_ETOOBIG)
		return rc;
	if (mi->error[0] == '\0') {
		if (detail)
			snprintf(mi->error, sizeof(mi->error), "%s: %s", what,
			    detail);
		else
			snprintf(mi->error, sizeof(mi->error), "%s", what);
	}
	return PA_EMAILINFO;
}

void
mailinfo_init(struct mailinfo *mi)
{
	const size_t max = 0;	/* each run sets the caps for its input */
	int i;

	memset(mi, 0, sizeof(*mi));
	sbuf_init(&mi->author, max);
	sbuf_init(&mi->email, max);
	sbuf_init(&mi->subject, max);
	sbuf_init(&mi->date, max);
	sbuf_init(&mi->msg, max);
	sbuf_init(&mi->patch, max);
	for (i = 0; i < HDR_COUNT; i++) {
		sbuf_init(&mi->hdr[i], max);
		sbuf_init(&mi->inbody[i], max);
	}
	sbuf_init(&mi->line, max);
	sbuf_init(&mi->work, max);
	sbuf_init(&mi->prev, max);
	sbuf_init(&mi->flow, max);
	sbuf_init(&mi->conv, max);
	sbuf_init(&mi->accum, max);
	sbuf_init(&mi->val, max);
	sbuf_init(&mi->scratch, max);
	sbuf_init(&mi->charset, max);
	for (i = 0; i < 4; i++)
		sbuf_init(&mi->boundary[i], max);
	charset_conv_init(&mi->cc, max);
}

void
mailinfo_release(struct mailinfo *mi)
{
	int i;

	sbuf_release(&mi->author);
	sbuf_release(&mi->email);
	sbuf_release(&mi->subject);
	sbuf_release(&mi->date);
	sbuf_release(&mi->msg);
	sbuf_release(&mi->patch);
	for (i = 0; i < HDR_COUNT; i++) {
		sbuf_release(&mi->hdr[i]);
		sbuf_release(&mi->inbody[i]);
	}
	sbuf_release(&mi->line);
	sbuf_release(&mi->work);
	sbuf_release(&mi->prev);
	sbuf_release(&mi->flow);
	sbuf_release(&mi->conv);
	sbuf_release(&mi->accum);
	sbuf_release(&mi->val);
	sbuf_release(&mi->scratch);
	sbuf_release(&mi->charset);
	for (i = 0; i < 4; i++)
		sbuf_release(&mi->boundary[i]);
	charset_conv_release(&mi->cc);
}

/* next_line - the next input line with its LF (the last may lack it) */
static int
next_line(struct mailinfo *mi, const char **p, size_t *len)
{
	const char *s, *nl;

	if (mi->pos >= mi->inlen)
		return 0;
	s = mi->in + mi->pos;
	nl = memchr(s, '\n', mi->inlen - mi->pos);
	*len = nl ? (size_t)(nl - s) + 1 : mi->inlen - mi->pos;
	*p = s;
	mi->pos += *len;
	return 1;
}

static void
rtrim(struct sbuf *sb)
{
	size_t n = sb->len;

	while (n && git_isspace((unsigned char)sb->buf[n - 1]))
		n--;
	sbuf_setlen(sb, n);
}

/*
 * is_header_line - an mbox "From " line, or a name of printable ASCII
 * (no ':') up to a colon.  The line is read as a C string, as git does.
 */
static int
is_header_line(const struct sbuf *line)
{
	const unsigned char *p = (const unsigned char *)line->buf;

	if (strncmp(line->buf, "From ", 5) == 0 ||
	    strncmp(line->buf, ">From ", 6) == 0)
		return 1;
	for (; *p; p++) {
		if (*p == ':')
			return 1;
		if (*p < 33 || *p > 126)
			return 0;
	}
	return 0;
}

/*
 * read_header_line - the next header field, unfolded, into mi->line.
 * Returns 0 when the block is over: mi->line then holds the line that
 * ended it (rtrimmed, plus LF), or, at the end of input, still the last
 * field (git's reader leaves its buffer alone once it has seen EOF).
 */
static int
read_header_line(struct mailinfo *mi)
{
	const char *p;
	size_t len, start;

	if (!next_line(mi, &p, &len))
		return 0;
	if (p[len - 1] == '\n')
		len--;
	sbuf_reset(&mi->line);
	sbuf_add(&mi->line, p, len);
	rtrim(&mi->line);
	if (mi->line.len == 0 || !is_header_line(&mi->line)) {
		sbuf_addch(&mi->line, '\n');
		return 0;
	}
	while (mi->pos < mi->inlen &&
	    (mi->in[mi->pos] == ' ' || mi->in[mi->pos] == '\t')) {
		next_line(mi, &p, &len);
		if (p[len - 1] == '\n')
			len--;
		start = mi->line.len;
		sbuf_add(&mi->line, p, len);
		if (!sbuf_failed(&mi->line))
			mi->line.buf[start] = ' ';
		rtrim(&mi->line);
	}
	return 1;
}

/*
 * match_name - line starts with "name:" (ASCII case-insensitive); *val is
 * where the value starts: after any blanks (git >= 2.26) or after the one
 * blank that older git required.
 */
static int
match_name(struct mailinfo *mi, const char *line, size_t len,
    const char *name, size_t *val)
{
	size_t n = strlen(name), v;

	if (len <= n || line[n] != ':' || strncasecmp(line, name, n) != 0)
		return 0;
	v = n + 1;
	if (v >= len || !git_isspace((unsigned char)line[v]))
		mi->saw |= MAILINFO_SAW_TIGHT;
	if (mi->opts.old_colon) {
		if (v >= len || !git_isspace((unsigned char)line[v]))
			return 0;
		*val = v + 1;
		return 1;
	}
	while (v < len && git_isspace((unsigned char)line[v]))
		v++;
	*val = v;
	return 1;
}

/* decode_value - RFC 2047 decoding of a header value into out */
static int
decode_value(struct mailinfo *mi, const char *v, size_t len, struct sbuf *out)
{
	const char *why = NULL;
	int converted = 0, rc;

	sbuf_reset(out);
	rc = rfc2047_decode(out, v, len, mi->opts.convert ? &mi->cc : NULL,
	    &mi->scratch, &converted, &why);
	if (converted)
		mi->saw |= MAILINFO_SAW_CONVERSION;
	if (rc == PA_ECHARSET || rc == PA_EDECODE)
		mi->saw |= MAILINFO_SAW_CONVERSION;
	if (rc != 0)
		return fail(mi, rc, why ? why : "cannot decode header", NULL);
	return 0;
}

/*
 * check_header - act on one header field: From, Subject and Date fill the
 * given slots (only empty ones unless overwrite), Content-Type and
 * Content-Transfer-Encoding set the reading state, Message-ID is decoded
 * only for its errors.
 */
static int
check_header(struct mailinfo *mi, const char *line, size_t len,
    struct sbuf *slot, unsigned *set, int overwrite)
{
	size_t v;
	int i, rc;

	for (i = 0; i < HDR_COUNT; i++) {
		if ((!(*set & 1u << i) || overwrite) &&
		    match_name(mi, line, len, hdr_name[i], &v)) {
			if ((rc = decode_value(mi, line + v, len - v, &slot[i])))
				return rc;
			*set |= 1u << i;
			return 0;
		}
	}
	if (match_name(mi, line, len, "Content-Type", &v)) {
		if ((rc = decode_value(mi, line + v, len - v, &mi->val)))
			return rc;
		return content_type(mi, mi->val.buf);
	}
	if (match_name(mi, line, len, "Content-Transfer-Encoding", &v)) {
		if ((rc = decode_value(mi, line + v, len - v, &mi->val)))
			return rc;
		if (strcasestr(mi->val.buf, "base64"))
			mi->encoding = TE_BASE64;
		else if (strcasestr(mi->val.buf, "quoted-printable"))
			mi->encoding = TE_QP;
		else
			mi->encoding = TE_NONE;
		return 0;
	}
	if (match_name(mi, line, len, "Message-ID", &v))
		return decode_value(mi, line + v, len - v, &mi->val);
	return 0;
}

/*
 * slurp_attr - git's attribute lookup: the first occurrence of name
 * anywhere in the value; quoted up to the next quote, else up to ';' or a
 * blank.  out is emptied when there is none.
 */
static int
slurp_attr(const char *value, const char *name, struct sbuf *out)
{
	const char *ap = strcasestr(value, name);

	sbuf_reset(out);
	if (ap == NULL)
		return 0;
	ap += strlen(name);
	if (*ap == '"') {
		ap++;
		sbuf_add(out, ap, strcspn(ap, "\""));
	} else
		sbuf_add(out, ap, strcspn(ap, "; \t"));
	return 1;
}

static int
content_type(struct mailinfo *mi, const char *value)
{
	struct sbuf *b;

	slurp_attr(value, "format=", &mi->scratch);
	mi->flowed = strcasecmp(mi->scratch.buf, "flowed") == 0;
	slurp_attr(value, "delsp=", &mi->scratch);
	mi->delsp = strcasecmp(mi->scratch.buf, "yes") == 0;
	if (slurp_attr(value, "boundary=", &mi->scratch)) {
		if (mi->nboundary == 4)
			return fail(mi, PA_EMAILINFO, "too many nested MIME "
			    "boundaries (git handles 4)", NULL);
		b = &mi->boundary[mi->nboundary++];
		sbuf_reset(b);
		sbuf_add(b, "--", 2);
		sbuf_add(b, mi->scratch.buf, mi->scratch.len);
	}
	slurp_attr(value, "charset=", &mi->charset);
	return sbuf_failed(&mi->charset);
}

static int
is_boundary(const struct mailinfo *mi, const char *p, size_t len)
{
	const struct sbuf *b;

	if (mi->nboundary == 0)
		return 0;
	b = &mi->boundary[mi->nboundary - 1];
	return len >= b->len && memcmp(p, b->buf, b->len) == 0;
}

/* find_boundary - skip to a line starting with the boundary (LF dropped) */
static int
find_boundary(struct mailinfo *mi, const char **p, size_t *len)
{
	while (next_line(mi, p, len)) {
		if ((*p)[*len - 1] == '\n')
			(*len)--;
		if (is_boundary(mi, *p, *len))
			return 1;
	}
	return 0;
}

/*
 * handle_boundary - at a boundary line: a closing one pops the boundary and
 * emits a blank line (once), then skips to the next boundary; an opening
 * one reads the part's headers.  Returns 1 with the part's first line in
 * (*p, *len), 0 at the end of the body, or an error.
 */
static int
handle_boundary(struct mailinfo *mi, const char **p, size_t *len)
{
	const struct sbuf *top;
	int rc, first_close = 1;

	for (;;) {
		top = &mi->boundary[mi->nboundary - 1];
		if (*len < top->len + 2 || (*p)[top->len] != '-' ||
		    (*p)[top->len + 1] != '-')
			break;
		mi->nboundary--;
		rc = filter(mi, "\n", first_close);
		first_close = 0;
		if (rc != 0)
			return rc;
		if (!find_boundary(mi, p, len))
			return 0;
	}
	mi->encoding = TE_NONE;
	sbuf_reset(&mi->charset);
	while (read_header_line(mi))
		if ((rc = check_header(mi, mi->line.buf, mi->line.len, mi->hdr,
		    &mi->hdr_set, 0)) != 0)
			return rc;
	/* The line that ended the part's headers is dropped. */
	if (!next_line(mi, p, len))
		return 0;
	if ((*p)[*len - 1] != '\n') {
		sbuf_reset(&mi->line);
		sbuf_add(&mi->line, *p, *len);
		sbuf_addch(&mi->line, '\n');
		*p = mi->line.buf;
		*len = mi->line.len;
	}
	return sbuf_failed(&mi->line) ? sbuf_failed(&mi->line) : 1;
}

/*
 * decode_line - undo the transfer encoding of one body line; decoded text
 * is passed on a line at a time, a partial last line waits in prev.
 */
static int
decode_line(struct mailinfo *mi, const char *p, size_t len)
{
	const char *s, *end, *nl;
	int rc;

	if (mi->encoding == TE_NONE)
		return flowed(mi, p, len);
	sbuf_reset(&mi->work);
	sbuf_add(&mi->work, mi->prev.buf, mi->prev.len);
	sbuf_reset(&mi->prev);
	if (mi->encoding == TE_QP)
		codec_qp_line(&mi->work, p, len, 0);
	else
		codec_b64(&mi->work, p, len);
	if ((rc = sbuf_failed(&mi->work)) != 0)
		return rc;
	s = mi->work.buf;
	end = s + mi->work.len;
	while (s < end) {
		if ((nl = memchr(s, '\n', (size_t)(end - s))) == NULL)
			return sbuf_add(&mi->prev, s, (size_t)(end - s));
		if ((rc = flowed(mi, s, (size_t)(nl - s) + 1)) != 0)
			return rc;
		s = nl + 1;
	}
	return 0;
}

/* flowed - RFC 3676 format=flowed unwrapping, git's way */
static int
flowed(struct mailinfo *mi, const char *x, size_t xlen)
{
	size_t clen = xlen;
	int rc;

	if (!mi->flowed)
		return filter(mi, x, xlen);
	if (clen && x[clen - 1] == '\n')
		clen--;
	if (clen && x[clen - 1] == '\r')
		clen--;
	if (clen == 3 && memcmp(x, "-- ", 3) == 0) {
		if (mi->prev.len) {
			rc = filter(mi, mi->prev.buf, mi->prev.len);
			sbuf_reset(&mi->prev);
			if (rc != 0)
				return rc;
		}
		return filter(mi, x, xlen);
	}
	if (clen && x[0] == ' ') {
		x++;
		xlen--;
		clen--;
	}
	if (clen && x[clen - 1] == ' ')
		return sbuf_add(&mi->prev, x, clen - mi->delsp);
	if (mi->prev.len == 0)
		return filter(mi, x, xlen);
	sbuf_reset(&mi->flow);
	sbuf_add(&mi->flow, mi->prev.buf, mi->prev.len);
	sbuf_add(&mi->flow, x, xlen);
	sbuf_reset(&mi->prev);
	if ((rc = sbuf_failed(&mi->flow)) != 0)
		return rc;
	return filter(mi, mi->flow.buf, mi->flow.len);
}

/* filter - one decoded line to the commit message or to the patch */
static int
filter(struct mailinfo *mi, const char *x, size_t xlen)
{
	int rc, brk = 0;

	if (!mi->in_patch) {
		if ((rc = commit_msg(mi, &x, &xlen, &brk)) != 0 || !brk)
			return rc;
		mi->in_patch = 1;
	}
	mi->patch_lines++;
	return sbuf_add(&mi->patch, x, xlen);
}

static int
is_patch_break(const char *x, size_t len)
{
	size_t i;

	if ((len >= 6 && memcmp(x, "diff -", 6) == 0) ||
	    (len >= 7 && memcmp(x, "Index: ", 7) == 0))
		return 1;
	if (len < 4 || memcmp(x, "---", 3) != 0)
		return 0;
	/* "--- file", or "---" and blanks to the end of the line */
	if (x[3] == ' ' && (len == 4 || !git_isspace((unsigned char)x[4])))
		return 1;
	for (i = 3; i < len; i++) {
		if (x[i] == '\n')
			return 1;
		if (!git_isspace((unsigned char)x[i]))
			return 0;
	}
	return 0;
}

/*
 * commit_msg - a line of the message stage: in-body headers, charset
 * conversion, scissors, the patch break.  *brk is set at the break, with
 * (*x, *xlen) the converted line that starts the patch.
 */
static int
commit_msg(struct mailinfo *mi, const char **x, size_t *xlen, int *brk)
{
	const char *label = mi->charset.buf;
	int rc, consumed, changed;

	if (mi->header_stage) {
		if (*xlen == 0 || (*xlen == 1 && (*x)[0] == '\n')) {
			if (mi->accum.len) {
				mi->header_stage = 0;
				return flush_accum(mi);
			}
			return 0;
		}
		if ((rc = inbody_header(mi, *x, *xlen, &consumed)) != 0)
			return rc;
		mi->header_stage = consumed;
		if (consumed)
			return 0;
	}
	if (mi->opts.convert && label[0] && !charset_is_utf8(label)) {
		sbuf_reset(&mi->conv);
		sbuf_add(&mi->conv, *x, *xlen);
		rc = charset_conv_utf8(&mi->cc, &mi->conv, label, &changed);
		if (rc == PA_ECHARSET) {
			mi->saw |= MAILINFO_SAW_UNKNOWN | MAILINFO_SAW_CONVERSION;
			if (!mi->opts.utf8_unknown)
				return fail(mi, PA_EMAILINFO,
				    "cannot convert from charset", label);
		} else if (rc == PA_EDECODE) {
			mi->saw |= MAILINFO_SAW_CONVERSION;
			return fail(mi, PA_EMAILINFO,
			    "text is not valid in its charset", label);
		} else if (rc != 0)
			return rc;
		else {
			if (changed)
				mi->saw |= MAILINFO_SAW_CONVERSION;
			*x = mi->conv.buf;
			*xlen = mi->conv.len;
		}
	}
	if (mailident_is_scissors(*x, *xlen)) {
		mi->saw |= MAILINFO_SAW_SCISSORS;
		if (mi->opts.scissors) {
			sbuf_reset(&mi->msg);
			mi->header_stage = 1;
			mi->inbody_set = 0;
			return 0;
		}
	}
	if (is_patch_break(*x, *xlen)) {
		*brk = 1;
		return 0;
	}
	return sbuf_add(&mi->msg, *x, *xlen);
}

/*
 * is_format_patch_separator - "From <40 hex> Mon Sep 17 00:00:00 2001\n",
 * the first line of git format-patch output.
 */
static int
is_format_patch_separator(const char *x, size_t len)
{
	static const char tail[] = " Mon Sep 17 00:00:00 2001\n";
	size_t i;

	if (len != 5 + 40 + sizeof(tail) - 1 || memcmp(x, "From ", 5) != 0)
		return 0;
	for (i = 5; i < 45; i++)
		if (!((x[i] >= '0' && x[i] <= '9') || (x[i] >= 'a' && x[i] <= 'f')))
			return 0;
	return memcmp(x + 45, tail, sizeof(tail) - 1) == 0;
}

/*
 * inbody_header - a line at the top of the message body that sets From,
 * Subject or Date (git's "in-body headers"); *consumed when it was one.
 */
static int
inbody_header(struct mailinfo *mi, const char *x, size_t xlen, int *consumed)
{
	size_t v;
	int i, rc;

	*consumed = 0;
	if (mi->accum.len && (x[0] == ' ' || x[0] == '\t')) {
		if (mi->opts.scissors && mailident_is_scissors(x, xlen))
			return flush_accum(mi);
		if (mi->accum.buf[mi->accum.len - 1] == '\n')
			sbuf_setlen(&mi->accum, mi->accum.len - 1);
		*consumed = 1;
		return sbuf_add(&mi->accum, x, xlen);
	}
	if ((rc = flush_accum(mi)) != 0)
		return rc;
	if (xlen > 5 && memcmp(x, ">From", 5) == 0 &&
	    git_isspace((unsigned char)x[5])) {
		*consumed = is_format_patch_separator(x + 1, xlen - 1);
		return 0;
	}
	if (xlen > 7 && memcmp(x, "[PATCH]", 7) == 0 &&
	    git_isspace((unsigned char)x[7])) {
		sbuf_reset(&mi->inbody[HDR_SUBJECT]);
		mi->inbody_set |= 1u << HDR_SUBJECT;
		*consumed = 1;
		return sbuf_add(&mi->inbody[HDR_SUBJECT], x, xlen);
	}
	for (i = 0; i < HDR_COUNT; i++) {
		if (!(mi->inbody_set & 1u << i) &&
		    match_name(mi, x, xlen, hdr_name[i], &v)) {
			*consumed = 1;
			return sbuf_add(&mi->accum, x, xlen);
		}
	}
	return 0;
}

static int
flush_accum(struct mailinfo *mi)
{
	int rc;

	if (mi->accum.len == 0)
		return 0;
	rc = check_header(mi, mi->accum.buf, mi->accum.len, mi->inbody,
	    &mi->inbody_set, 0);
	sbuf_reset(&mi->accum);
	return rc;
}

/* handle_body - everything after the top-level header block */
static int
handle_body(struct mailinfo *mi)
{
	const char *p = mi->line.buf;
	size_t len = mi->line.len;
	int rc;

	if (mi->nboundary && !find_boundary(mi, &p, &len))
		return 0;
	for (;;) {
		if (is_boundary(mi, p, len)) {
			if (mi->prev.len) {
				rc = filter(mi, mi->prev.buf, mi->prev.len);
				sbuf_reset(&mi->prev);
				if (rc != 0)
					return rc;
			}
			if ((rc = handle_boundary(mi, &p, &len)) <= 0)
				return rc;
		}
		if ((rc = decode_line(mi, p, len)) != 0)
			return rc;
		if (!next_line(mi, &p, &len))
			break;
	}
	if (mi->prev.len) {
		rc = filter(mi, mi->prev.buf, mi->prev.len);
		sbuf_reset(&mi->prev);
		if (rc != 0)
			return rc;
	}
	return flush_accum(mi);
}

static void
reset_run(struct mailinfo *mi, const char *in, size_t len,
    const struct mailinfo_opts *opts)
{
	struct sbuf *all[] = {
		&mi->author, &mi->email, &mi->subject, &mi->date, &mi->msg,
		&mi->patch, &mi->hdr[0], &mi->hdr[1], &mi->hdr[2],
		&mi->inbody[0], &mi->inbody[1], &mi->inbody[2], &mi->line,
		&mi->work, &mi->prev, &mi->flow, &mi->conv, &mi->accum,
		&mi->val, &mi->scratch, &mi->charset, &mi->boundary[0],
		&mi->boundary[1], &mi->boundary[2], &mi->boundary[3],
		&mi->cc.tmp,
	};
	size_t k;

	/* No output can grow past four times the input. */
	for (k = 0; k < sizeof(all) / sizeof(all[0]); k++) {
		sbuf_reset(all[k]);
		all[k]->max = len * 4 + 4096;
	}

	mi->opts = *opts;
	mi->in = in;
	mi->inlen = len;
	mi->pos = 0;
	mi->has_from = mi->has_subject = mi->has_date = 0;
	mi->hdr_set = mi->inbody_set = 0;
	mi->patch_lines = 0;
	mi->saw = 0;
	mi->error[0] = '\0';
	mi->nboundary = 0;
	mi->encoding = TE_NONE;
	mi->flowed = mi->delsp = 0;
	mi->header_stage = 1;
	mi->in_patch = 0;
}

/*
 * finish_info - the values git prints: in-body ones when there is a patch,
 * else the mail's own.
 */
static int
finish_info(struct mailinfo *mi)
{
	const struct sbuf *src;
	int i, rc = 0;

	for (i = 0; i < HDR_COUNT && rc == 0; i++) {
		if (mi->patch_lines && (mi->inbody_set & 1u << i))
			src = &mi->inbody[i];
		else if (mi->hdr_set & 1u << i)
			src = &mi->hdr[i];
		else
			continue;
		if (memchr(src->buf, '\0', src->len))
			return fail(mi, PA_EMAILINFO, "a NUL byte in header "
			    "is not allowed", hdr_name[i]);
		switch (i) {
		case HDR_FROM:
			rc = mailident_from(&mi->author, &mi->email, &mi->work,
			    src->buf, src->len, mi->opts.short_names);
			if (rc == MAILIDENT_SHORT_NAME) {
				mi->saw |= MAILINFO_SAW_SHORTNAME;
				rc = 0;
			}
			if (rc == PA_EMAILINFO)
				return fail(mi, rc, "unterminated quote or "
				    "comment in From", NULL);
			mi->has_from = 1;
			break;
		case HDR_SUBJECT:
			rc = mailident_subject(&mi->subject, src->buf, src->len);
			mi->has_subject = 1;
			break;
		default:
			rc = mailident_collapse(&mi->date, src->buf, src->len);
			mi->has_date = 1;
			break;
		}
	}
	return rc;
}

int
mailinfo_run(struct mailinfo *mi, const char *in, size_t len,
    const struct mailinfo_opts *opts)
{
	size_t skip = 0;
	int rc;

	reset_run(mi, in, len, opts);
	while (skip < len && git_isspace((unsigned char)in[skip]))
		skip++;
	if (skip == len)
		return fail(mi, PA_EMAILINFO, "empty patch", NULL);
	mi->pos = skip;
	while (read_header_line(mi))
		if ((rc = check_header(mi, mi->line.buf, mi->line.len, mi->hdr,
		    &mi->hdr_set, 1)) != 0)
			return rc;
	if ((rc = sbuf_failed(&mi->line)) != 0 ||
	    (rc = handle_body(mi)) != 0 ||
	    (rc = finish_info(mi)) != 0)
		return rc;
	if ((rc = sbuf_failed(&mi->msg)) != 0 ||
	    (rc = sbuf_failed(&mi->patch)) != 0)
		return rc;
	return 0;
}

int
mailinfo_info(const struct mailinfo *mi, struct sbuf *out)
{
	if (mi->has_from)
		sbuf_addf(out, "Author: %s\nEmail: %s\n", mi->author.buf,
		    mi->email.buf);
	if (mi->has_subject)
		sbuf_addf(out, "Subject: %s\n", mi->subject.buf);
	if (mi->has_date)
		sbuf_addf(out, "Date: %s\n", mi->date.buf);
	return sbuf_addch(out, '\n');
}
