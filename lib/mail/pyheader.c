/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pyheader.c - Python 3.11's email.header.decode_header(), make_header()
 * and Header.__str__(), over bytes.
 *
 * decode_header() finds words with the pattern
 *	=\?([^?]*?)\?([qQbB])\?(.*?)\?=
 * (the text may not cross a line end), line by line (str.splitlines()),
 * strips blanks before a line's first word, drops blank text between two
 * words, decodes Q and B words to bytes and joins neighbours of one
 * charset (plain text with a space, encoded words without).
 * make_header() decodes each run with its charset; __str__() joins runs
 * of one charset with a space and puts a space between encoded and plain
 * text unless one side already has a blank, "(", ")" or "\" there.
 */
#include "config.h"

#include <string.h>

#include "base.h"
#include "patchattest.h"
#include "pycodec.h"
#include "pyheader.h"

#define LABEL_MAX	64

/* One piece of decode_header()'s list: plain text or an encoded word. */
struct word {
	size_t	off, len;	/* text in the ASCII copy */
	size_t	csoff, cslen;	/* charset, for a word */
	char	enc;		/* 0 (plain), 'q' or 'b' */
	char	drop;
};

/* A run of one charset: its bytes, later its text, at off in a buffer. */
struct run {
	size_t	off, len;
	char	cs[LABEL_MAX];	/* lower case */
	int	plain;
};

/* email.charset.ALIASES */
static const char *const aliases[][2] = {
	{ "latin_1", "iso-8859-1" }, { "latin-1", "iso-8859-1" },
	{ "latin_2", "iso-8859-2" }, { "latin-2", "iso-8859-2" },
	{ "latin_3", "iso-8859-3" }, { "latin-3", "iso-8859-3" },
	{ "latin_4", "iso-8859-4" }, { "latin-4", "iso-8859-4" },
	{ "latin_5", "iso-8859-9" }, { "latin-5", "iso-8859-9" },
	{ "latin_6", "iso-8859-10" }, { "latin-6", "iso-8859-10" },
	{ "latin_7", "iso-8859-13" }, { "latin-7", "iso-8859-13" },
	{ "latin_8", "iso-8859-14" }, { "latin-8", "iso-8859-14" },
	{ "latin_9", "iso-8859-15" }, { "latin-9", "iso-8859-15" },
	{ "latin_10", "iso-8859-16" }, { "latin-10", "iso-8859-16" },
	{ "cp949", "ks_c_5601-1987" }, { "euc_jp", "euc-jp" },
	{ "euc_kr", "euc-kr" }, { "ascii", "us-ascii" },
};

/* email.charset.CODEC_MAP, where it names another codec */
static const char *const codec_map[][2] = {
	{ "gb2312", "eucgb2312_cn" }, { "big5", "big5_tw" },
};

static int	 is_ws(int);
static int	 find_word(const char *, size_t, size_t, struct word *,
		    size_t *);
static int	 b64_word(struct sbuf *, const char *, size_t);
static int	 q_word(struct sbuf *, const char *, size_t);
static int	 add_word(struct sbuf *, const struct word *);
static int decode_run(struct sbuf *, const char *, const char *, size_t);
static int	 nonctext(const char *, size_t, int);
static void	 canon_cs(char [LABEL_MAX], const char *, size_t);
static int	 split(struct sbuf *, const struct sbuf *);
static int	 collapse(struct sbuf *, struct sbuf *, const struct sbuf *,
		    const struct sbuf *);
static int	 to_text(struct sbuf *, struct sbuf *, const struct sbuf *,
		    const struct sbuf *);

/* is_ws - ASCII whitespace of Python's str.isspace() */
static int
is_ws(int c)
{
	return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f);
}

/*
 * find_word - the first encoded word in s[from..len): fills w (text and
 * charset) and *end (just past "?="); 0 found, -1 none.
 */
static int
find_word(const char *s, size_t len, size_t from, struct word *w,
    size_t *end)
{
	size_t i, k, m;

	for (i = from; i + 1 < len; i++) {
		if (s[i] != '=' || s[i + 1] != '?')
			continue;
		for (k = i + 2; k < len && s[k] != '?'; k++)
			;
		if (k + 2 >= len || s[k + 1] == 0 ||
		    !strchr("qQbB", s[k + 1]) || s[k + 2] != '?')
			continue;
		for (m = k + 3; m + 1 < len && s[m] != '\n'; m++)
			if (s[m] == '?' && s[m + 1] == '=')
				break;
		if (m + 1 >= len || s[m] != '?') {
			/*
			 * No "?=" before the line end: no word starting
			 * before it can end either (linear, not quadratic).
			 */
			for (; m < len && s[m] != '\n'; m++)
				;
			if (m >= len)
				return -1;
			i = m;
			continue;
		}
		w->csoff = i + 2;
		w->cslen = k - (i + 2);
		w->enc = (char)(s[k + 1] | 0x20);
		w->off = k + 3;
		w->len = m - (k + 3);
		w->drop = 0;
		*end = m + 2;
		return 0;
	}
	return -1;
}

/* b64_word - base64mime.decode() after decode_header()'s padding */
static int
b64_word(struct sbuf *out, const char *s, size_t len)
{
	static const char abc[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t i, total = len + (len % 4 ? 4 - len % 4 : 0);
	unsigned acc = 0, quad = 0, pads = 0, v;
	const char *p;
	int c;

	for (i = 0; i < total; i++) {
		c = i < len ? (unsigned char)s[i] : '=';
		if (c == '=') {
			if (quad >= 2 && quad + ++pads >= 4)
				return sbuf_failed(out);
			continue;
		}
		if (c == 0 || (p = strchr(abc, c)) == NULL)
			continue;
		v = (unsigned)(p - abc);
		pads = 0;	/* binascii counts only consecutive pads */
		switch (quad++) {
		case 0:
			acc = v << 2;
			break;
		case 1:
			sbuf_addch(out, (int)(acc | v >> 4));
			acc = (v & 15) << 4;
			break;
		case 2:
			sbuf_addch(out, (int)(acc | v >> 2));
			acc = (v & 3) << 6;
			break;
		default:
			sbuf_addch(out, (int)(acc | v));
			quad = 0;
			break;
		}
	}
	/* binascii: "Incorrect padding", or one data byte too many */
	return quad != 0 ? PA_EDECODE : sbuf_failed(out);
}

/* q_word - quoprimime.header_decode(), as bytes */
static int
q_word(struct sbuf *out, const char *s, size_t len)
{
	size_t i;
	int h, l;

	for (i = 0; i < len; i++) {
		if (s[i] == '=' && i + 2 < len &&
		    (h = codec_hexval((unsigned char)s[i + 1])) >= 0 &&
		    (l = codec_hexval((unsigned char)s[i + 2])) >= 0) {
			sbuf_addch(out, h << 4 | l);
			i += 2;
		} else
			sbuf_addch(out, s[i] == '_' ? ' ' : s[i]);
	}
	return sbuf_failed(out);
}

static int
add_word(struct sbuf *words, const struct word *w)
{
	return sbuf_add(words, w, sizeof(*w));
}

/*
 * decode_run - Header.append(): the bytes of one run in charset cs (""
 * for plain text) as UTF-8, strictly for ASCII and UTF-8.
 */
static int
decode_run(struct sbuf *out, const char *cs, const char *s, size_t len)
{
	const char *codec = cs;
	size_t i, start = out->len;
	int rc;

	if (cs[0] == '\0' || strcmp(cs, "us-ascii") == 0) {
		for (i = 0; i < len; i++)
			if ((unsigned char)s[i] > 0x7f)
				return PA_EDECODE;
		return sbuf_add(out, s, len);
	}
	if (strcmp(cs, "unknown-8bit") == 0) {
		for (i = 0; i < len; i++)
			if ((unsigned char)s[i] > 0x7f)
				sbuf_add(out, PYTEXT_REPL, PYTEXT_REPL_LEN);
			else
				sbuf_addch(out, s[i]);
		return sbuf_failed(out);
	}
	for (i = 0; i < sizeof(codec_map) / sizeof(codec_map[0]); i++)
		if (strcmp(cs, codec_map[i][0]) == 0)
			codec = codec_map[i][1];
	/* Header.append() encodes the text again: unknown labels raise. */
	if (!pycodec_known(codec))
		return PA_ECHARSET;
	if ((rc = pycodec_decode(out, codec, s, len)) != 0)
		return rc == PA_ERROR || rc == PA_ECHARSET ? PA_EDECODE : rc;
	/* errors='strict': a replacement character means Python raised. */
	if (strncmp(cs, "utf-8", 5) == 0 || strncmp(cs, "utf8", 4) == 0) {
		if (!pytext_utf8_valid(s, len))
			return PA_EDECODE;
	} else if (memmem(out->buf + start, out->len - start, PYTEXT_REPL,
	    PYTEXT_REPL_LEN) != NULL)
		return PA_EDECODE;
	return 0;
}

/* nonctext - Header._nonctext() of the first (last: at_end) character */
static int
nonctext(const char *s, size_t len, int at_end)
{
	size_t i, n;
	int valid;

	if (len == 0)
		return 0;
	if (!at_end) {
		n = pytext_utf8_char((const unsigned char *)s, len, &valid);
		return pytext_is_blank(s, n) || s[0] == '(' || s[0] == ')' ||
		    s[0] == '\\';
	}
	for (i = len - 1; i > 0 && ((unsigned char)s[i] & 0xc0) == 0x80; i--)
		;
	return pytext_is_blank(s + i, len - i) || s[i] == '(' ||
	    s[i] == ')' || s[i] == '\\';
}

/* canon_cs - email.charset.Charset's name for a word's charset label */
static void
canon_cs(char out[LABEL_MAX], const char *s, size_t len)
{
	size_t n;

	ascii_lower_copy(out, s, len);
	for (n = 0; n < sizeof(aliases) / sizeof(aliases[0]); n++)
		if (strcmp(out, aliases[n][0]) == 0) {
			memcpy(out, aliases[n][1], strlen(aliases[n][1]) + 1);
			break;
		}
}

/*
 * split - decode_header()'s list: plain pieces and words, line by line,
 * then the blank pieces between two words marked as dropped.
 */
static int
split(struct sbuf *words, const struct sbuf *a)
{
	struct word w, plain, *wv;
	size_t i, n, pos, lend, next, end, nw;
	int first;

	for (pos = 0; pos < a->len; pos = next) {
		for (lend = pos; lend < a->len &&
		    !strchr("\n\r\v\f\x1c\x1d\x1e", a->buf[lend]); lend++)
			;
		next = lend + (lend < a->len);
		if (lend + 1 < a->len && a->buf[lend] == '\r' &&
		    a->buf[lend + 1] == '\n')
			next++;
		for (first = 1, i = pos; ; first = 0) {
			n = find_word(a->buf, lend, i, &w, &end) == 0 ?
			    w.csoff - 2 : lend;
			if (first)
				while (i < n && is_ws((unsigned char)a->buf[i]))
					i++;
			if (i < n) {
				memset(&plain, 0, sizeof(plain));
				plain.off = i;
				plain.len = n - i;
				add_word(words, &plain);
			}
			if (n == lend)
				break;
			add_word(words, &w);
			i = end;
		}
	}
	if (sbuf_failed(words))
		return sbuf_failed(words);
	wv = (struct word *)(void *)words->buf;
	nw = words->len / sizeof(*wv);
	for (i = 2; i < nw; i++) {
		if (!wv[i].enc || !wv[i - 2].enc || wv[i - 1].len == 0)
			continue;
		for (n = 0; n < wv[i - 1].len &&
		    is_ws((unsigned char)a->buf[wv[i - 1].off + n]); n++)
			;
		if (n == wv[i - 1].len)
			wv[i - 1].drop = 1;
	}
	return 0;
}

/*
 * collapse - decode each word and join neighbours of one charset label
 * (decode_header()); the runs go to runs, their bytes to bytes.
 */
static int
collapse(struct sbuf *runs, struct sbuf *bytes, const struct sbuf *a,
    const struct sbuf *words)
{
	const struct word *wv = (const struct word *)(const void *)words->buf;
	size_t i, nw = words->len / sizeof(*wv), nr = 0;
	struct run r, *last;
	int rc;

	for (i = 0; i < nw; i++) {
		if (wv[i].drop)
			continue;
		memset(&r, 0, sizeof(r));
		r.plain = wv[i].enc == 0;
		if (!r.plain) {
			if (wv[i].cslen >= LABEL_MAX)
				return PA_ECHARSET;
			ascii_lower_copy(r.cs, a->buf + wv[i].csoff,
			    wv[i].cslen);
		}
		last = nr ? (struct run *)(void *)runs->buf + nr - 1 : NULL;
		if (last && last->plain == r.plain &&
		    strcmp(last->cs, r.cs) == 0) {
			if (r.plain)
				sbuf_addch(bytes, ' ');
		} else {
			r.off = bytes->len;
			if ((rc = sbuf_add(runs, &r, sizeof(r))) != 0)
				return rc;
			nr++;
		}
		if (wv[i].enc == 'q')
			rc = q_word(bytes, a->buf + wv[i].off, wv[i].len);
		else if (wv[i].enc == 'b')
			rc = b64_word(bytes, a->buf + wv[i].off, wv[i].len);
		else
			rc = sbuf_add(bytes, a->buf + wv[i].off, wv[i].len);
		if (rc != 0)
			return rc;
		last = (struct run *)(void *)runs->buf + nr - 1;
		last->len = bytes->len - last->off;
	}
	return 0;
}

/*
 * to_text - make_header() and _normalize(): each run decoded, runs of
 * one canonical charset joined with a space, into text and chunks.
 */
static int
to_text(struct sbuf *chunks, struct sbuf *text, const struct sbuf *runs,
    const struct sbuf *bytes)
{
	const struct run *rv = (const struct run *)(const void *)runs->buf;
	size_t i, nr = runs->len / sizeof(*rv), nc = 0;
	struct run c, *last;
	int rc;

	for (i = 0; i < nr; i++) {
		memset(&c, 0, sizeof(c));
		if (rv[i].plain)
			memcpy(c.cs, "us-ascii", sizeof("us-ascii"));
		else
			canon_cs(c.cs, rv[i].cs, strlen(rv[i].cs));
		last = nc ? (struct run *)(void *)chunks->buf + nc - 1 : NULL;
		if (last && strcmp(last->cs, c.cs) == 0)
			sbuf_addch(text, ' ');
		else {
			c.off = text->len;
			if ((rc = sbuf_add(chunks, &c, sizeof(c))) != 0)
				return rc;
			nc++;
		}
		if ((rc = decode_run(text, c.cs, bytes->buf + rv[i].off,
		    rv[i].len)) != 0)
			return rc;
		last = (struct run *)(void *)chunks->buf + nc - 1;
		last->len = text->len - last->off;
	}
	return sbuf_failed(text);
}

int
pyheader_decode(struct sbuf *out, const char *value, size_t len)
{
	struct sbuf a, words, runs, bytes, chunks, text;
	const struct run *cv;
	struct word w;
	size_t i, end, nc, cap = len * 4 + 256;
	int rc, lastspace = 0, last_ascii = 1, ascii;
	const char *s;

	sbuf_init(&a, cap);
	sbuf_init(&words, cap * sizeof(struct word));
	sbuf_init(&runs, cap * sizeof(struct run));
	sbuf_init(&bytes, cap);
	sbuf_init(&chunks, cap * sizeof(struct run));
	sbuf_init(&text, cap);
	for (i = 0; i < len; i++)
		if ((unsigned char)value[i] < 0x80)
			sbuf_addch(&a, value[i]);
	if ((rc = sbuf_failed(&a)) != 0)
		goto out;
	if (find_word(a.buf, a.len, 0, &w, &end) != 0) {
		rc = sbuf_add(out, a.buf, a.len);
		goto out;
	}
	if ((rc = split(&words, &a)) != 0 ||
	    (rc = collapse(&runs, &bytes, &a, &words)) != 0 ||
	    (rc = to_text(&chunks, &text, &runs, &bytes)) != 0)
		goto out;

	/* Header.__str__(): a space where encoded meets plain text */
	cv = (const struct run *)(const void *)chunks.buf;
	nc = chunks.len / sizeof(*cv);
	for (i = 0; i < nc; i++) {
		s = text.buf + cv[i].off;
		ascii = strcmp(cv[i].cs, "us-ascii") == 0;
		if (i > 0) {
			if (!last_ascii) {
				if (ascii && !nonctext(s, cv[i].len, 0))
					sbuf_addch(out, ' ');
			} else if (!ascii && !lastspace)
				sbuf_addch(out, ' ');
		}
		lastspace = nonctext(s, cv[i].len, 1);
		last_ascii = ascii;
		sbuf_add(out, s, cv[i].len);
	}
	rc = sbuf_failed(out);
out:
	sbuf_release(&a);
	sbuf_release(&words);
	sbuf_release(&runs);
	sbuf_release(&bytes);
	sbuf_release(&chunks);
	sbuf_release(&text);
	return rc;
}
