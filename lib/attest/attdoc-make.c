/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * attdoc-make.c - a new attestation document: its YAML text, and the
 * subject and headers of the mail that carries it, as the original tool
 * wrote them (spec section 5.3).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "patchattest.h"
#include "attdoc.h"
#include "base.h"

#define SUBJ_TOKENS_MAX	64	/* bracketed prefix words kept */
#define HDR_FOLD	78	/* fold header lines after this many bytes */

static void	 add_clean(struct sbuf *, const char *);
static void	 add_subject(struct sbuf *, const char *);

int
attdoc_payload(struct sbuf *out, const struct msghash_entry *e, size_t n)
{
	char hi[DIGEST_HEXLEN + 1], hm[DIGEST_HEXLEN + 1];
	char hp[DIGEST_HEXLEN + 1];
	size_t k;

	if (n == 0)
		return PA_ENOTFOUND;
	for (k = 0; k < n; k++) {
		digest_hex(hi, e[k].i);
		digest_hex(hm, e[k].m);
		digest_hex(hp, e[k].p);
		sbuf_addf(out, "%s%s:\n  i: %s\n  m: %s\n  p: %s",
		    k ? "\n" : "", e[k].attid, hi, hm, hp);
	}
	return sbuf_failed(out);
}

/* The words of a subject's leading bracketed prefixes, and its counter. */
struct prefixes {
	const char	*tok[SUBJ_TOKENS_MAX];
	size_t		 toklen[SUBJ_TOKENS_MAX], ntok;
	long		 counter;	/* the last n/N's n; -1: none */
	long		 expected;	/* its N */
	const char	*text;		/* what follows them */
};

/* counter - tok is "n/N", one to three digits each: 1, with *a and *b */
static int
counter(const char *tok, size_t len, long *a, long *b)
{
	const char *q, *slash;

	if ((slash = memchr(tok, '/', len)) == NULL)
		return 0;
	for (q = tok, *a = 0; q < slash && *q >= '0' && *q <= '9'; q++)
		*a = *a * 10 + (*q - '0');
	if (q != slash || q == tok || q - tok > 3)
		return 0;
	for (q = slash + 1, *b = 0; q < tok + len && *q >= '0' && *q <= '9';
	    q++)
		*b = *b * 10 + (*q - '0');
	return q == tok + len && q != slash + 1 && q - slash - 1 <= 3;
}

/*
 * read_prefixes - the words of subject's leading bracketed prefixes
 * (trailing "," and ";" dropped) and the last n/N counter among them
 */
static void
read_prefixes(const char *subject, struct prefixes *px)
{
	const char *p, *q, *t, *end;
	size_t n, k;
	long a, b;

	px->ntok = 0;
	px->counter = -1;
	px->expected = 0;
	for (p = subject; *p == ' ' || *p == '\t' || *p == '\r' || *p == '\n';
	    p++)
		;
	while (*p == '[' && (end = strchr(p, ']')) != NULL) {
		for (q = p + 1; q < end; ) {
			while (q < end && (*q == ' ' || *q == '\t' ||
			    *q == '\r' || *q == '\n'))
				q++;
			for (n = 0; q + n < end && q[n] != ' ' &&
			    q[n] != '\t' && q[n] != '\r' && q[n] != '\n'; n++)
				;
			if (n == 0)
				break;
			t = q;
			q += n;
			while (n > 0 && (t[n - 1] == ',' || t[n - 1] == ';'))
				n--;
			if (n > 0 && px->ntok < SUBJ_TOKENS_MAX) {
				px->tok[px->ntok] = t;
				px->toklen[px->ntok++] = n;
			}
		}
		for (p = end + 1; *p == ' ' || *p == '\t' || *p == '\r' ||
		    *p == '\n'; p++)
			;
	}
	px->text = p;
	for (k = 0; k < px->ntok; k++)
		if (counter(px->tok[k], px->toklen[k], &a, &b)) {
			px->counter = a;
			px->expected = b;
		}
}

int
attdoc_is_cover(const char *subject)
{
	struct prefixes px;

	read_prefixes(subject, &px);
	return px.counter == 0;
}

/*
 * attdoc_subject - spec 5.3.  The words of the leading bracketed prefixes
 * make one new prefix: PATCH (any case, also "PATCHv3") becomes PSIGN,
 * the counter "0/N" becomes "X/N"; the subject text follows.  A subject
 * whose last n/N counter is not 0 is no cover letter's, and gets the
 * default.
 */
int
attdoc_subject(struct sbuf *out, const char *cover)
{
	struct prefixes px;
	const char *const *tok = px.tok;
	const size_t *toklen = px.toklen;
	const char *p;
	size_t k, n;
	long expected;
	char zero[32];

	if (cover == NULL)
		return sbuf_addstr(out, "Patch attestation");
	read_prefixes(cover, &px);
	p = px.text;
	expected = px.expected;
	if (px.counter != 0)
		return sbuf_addstr(out, "Patch attestation");
	snprintf(zero, sizeof(zero), "0/%ld", expected);
	sbuf_addch(out, '[');
	for (k = 0; k < px.ntok; k++) {
		if (k)
			sbuf_addch(out, ' ');
		if (textline_ieq(tok[k], toklen[k], "patch"))
			sbuf_addstr(out, "PSIGN");
		else if (toklen[k] > 6 && textline_ieq(tok[k], 6, "patchv") &&
		    tok[k][6] >= '0' && tok[k][6] <= '9') {
			sbuf_addstr(out, "PSIGN ");
			sbuf_add(out, tok[k] + 5, toklen[k] - 5);
		} else if (toklen[k] == strlen(zero) &&
		    memcmp(tok[k], zero, toklen[k]) == 0)
			sbuf_addf(out, "X/%ld", expected);
		else
			sbuf_add(out, tok[k], toklen[k]);
	}
	sbuf_addch(out, ']');
	/* The subject text, white space collapsed. */
	for (n = 1; *p; p++) {
		if (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') {
			n = 1;
			continue;
		}
		if (n)
			sbuf_addch(out, ' ');
		n = 0;
		sbuf_addch(out, *p);
	}
	return sbuf_failed(out);
}

/* add_clean - s without control characters (no header injection) */
static void
add_clean(struct sbuf *out, const char *s)
{
	for (; *s; s++)
		sbuf_addch(out, (unsigned char)*s < 0x20 || *s == 0x7f ? ' ' :
		    *s);
}

/*
 * add_subject - the Subject field body: words folded before column 78
 * when all ASCII, else RFC 2047 Q-encoded UTF-8 words of at most 75
 * bytes, never splitting a character, one per line.
 */
static void
add_subject(struct sbuf *out, const char *s)
{
	char esc[4] = "=";	/* "=XY" */
	const char *p, *w;
	size_t col = sizeof("Subject: ") - 1, n, k, cl, enc;
	int ascii = 1;
	unsigned char c;

	for (p = s; *p; p++)
		if ((unsigned char)*p >= 0x80)
			ascii = 0;
	if (ascii) {
		for (p = s; *p; p = w) {
			for (w = p; *w == ' '; w++)
				;
			if (*w == '\0')
				break;
			for (n = 0; w[n] && w[n] != ' '; n++)
				;
			if (p != s && col + 1 + n > HDR_FOLD) {
				sbuf_addstr(out, "\n");
				col = 0;
			}
			if (p != s) {
				sbuf_addch(out, ' ');
				col++;
			}
			sbuf_add(out, w, n);
			col += n;
			w += n;
		}
		return;
	}
	for (p = s, k = 0; *p; k++) {
		if (k)
			sbuf_addstr(out, "\n ");
		sbuf_addstr(out, "=?utf-8?q?");
		enc = 12;	/* "=?utf-8?q?" and "?=" */
		while (*p) {
			/* One character: a lead byte and its continuations. */
			for (cl = 1; p[cl] && ((unsigned char)p[cl] & 0xc0) ==
			    0x80 && cl < 4; cl++)
				;
			for (n = 0, w = p; w < p + cl; w++) {
				c = (unsigned char)*w;
				n += c == ' ' || (c > 0x20 && c < 0x7f &&
				    c != '=' && c != '?' && c != '_') ? 1 : 3;
			}
			if (enc + n > 75)
				break;
			for (w = p; w < p + cl; w++) {
				c = (unsigned char)*w;
				if (c == ' ')
					sbuf_addch(out, '_');
				else if (c > 0x20 && c < 0x7f && c != '=' &&
				    c != '?' && c != '_')
					sbuf_addch(out, c);
				else {
					codec_hex(esc + 1, &c, 1, 1);
					sbuf_addstr(out, esc);
				}
			}
			enc += n;
			p += cl;
		}
		sbuf_addstr(out, "?=");
	}
}

int
attdoc_mail(struct sbuf *out, const char *from, const char *subject,
    const char *msgid, const char *clearsigned, size_t len)
{
	struct sbuf clean;
	int rc;

	if (from == NULL || from[0] == '\0')
		from = "<devnull@kernel.org>";
	sbuf_addstr(out, "From: ");
	if (strchr(from, '<') == NULL) {
		sbuf_addch(out, '<');
		add_clean(out, from);
		sbuf_addch(out, '>');
	} else
		add_clean(out, from);
	sbuf_addstr(out, "\nTo: <signatures@kernel.org>\nSubject: ");
	sbuf_init(&clean, out->max);
	add_clean(&clean, subject ? subject : "Patch attestation");
	if ((rc = sbuf_failed(&clean)) != 0) {
		sbuf_release(&clean);
		return rc;
	}
	add_subject(out, clean.buf);
	sbuf_release(&clean);
	sbuf_addch(out, '\n');
	if (msgid && msgid[0]) {
		sbuf_addstr(out, "Message-Id: ");
		if (msgid[0] != '<')
			sbuf_addch(out, '<');
		add_clean(out, msgid);
		if (msgid[strlen(msgid) - 1] != '>')
			sbuf_addch(out, '>');
		sbuf_addch(out, '\n');
	}
	sbuf_addch(out, '\n');
	sbuf_add(out, clearsigned, len);
	if (len == 0 || clearsigned[len - 1] != '\n')
		sbuf_addch(out, '\n');
	return sbuf_failed(out);
}
