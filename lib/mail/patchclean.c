/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * patchclean - b4's patch cleaning (V1, V2, V3) and the p hash.
 *
 * The b4 code keeps a list B of the lines seen outside hunks and appends
 * to an output string OUT.  Here B is a list of runs: maximal stretches of
 * consecutive text lines, kept as offsets into the text, so that a line
 * is never copied.  OUT goes straight into SHA-256, with adjacent pieces
 * of the text merged into one update.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "patchattest.h"
#include "patchclean.h"

/*
 * Hunk counts are Python ints.  A count is only ever decremented once per
 * line, so any value above the number of lines acts the same: saturate.
 */
#define COUNT_MAX	((long long)1 << 62)

/* A piece of the text: one line, or consecutive lines joined by LF. */
struct span {
	size_t	off;
	size_t	end;
};

/* b4's list B. */
struct pending {
	struct span	*run;
	size_t		 nrun;
	size_t		 arun;
	size_t		 nlines;
	struct span	 tail[3];	/* B[-3], B[-2], B[-1] */
	int		 head;		/* B ends with a non-blank line */
	size_t		 head_run;	/* where that non-blank tail starts */
	size_t		 head_off;
};

/* OUT, streamed: text[a..b) is pending, not yet in the digest. */
struct out {
	struct digest	 d;
	const char	*text;
	size_t		 len;
	size_t		 a;
	size_t		 b;
};

struct hunk {
	long long	old_count;
	long long	new_count;
	int		has_old;
	int		has_new;
};

static int	hunk_parse(struct hunk *, const char *, size_t);
static size_t	count_parse(const char *, size_t, size_t, long long *);
static int	starts(const char *, size_t, const char *);
static int	pending_add(struct pending *, const char *, size_t, size_t);
static void	pending_reset(struct pending *);
static void	out_text(struct out *, size_t, size_t);
static void	out_lf(struct out *);
static void	out_flush(struct out *);
static void	out_join(struct out *, const struct pending *, size_t, size_t);
static void	out_lookback(struct out *, struct pending *);
static int	clean_early(struct out *, struct pending *, const char *,
		    size_t, size_t, int);
static int	clean_v3(struct out *, struct pending *, const char *, size_t);
static char	*strip_cr(const char *, size_t, size_t *);

/* starts - 1 iff the line s[0..n) starts with prefix */
static int
starts(const char *s, size_t n, const char *prefix)
{
	size_t pl = strlen(prefix);

	return n >= pl && memcmp(s, prefix, pl) == 0;
}

/*
 * count_parse - ASCII digits at s[i..n) into *val (saturated); returns
 * the index after them, or i when there are none.
 */
static size_t
count_parse(const char *s, size_t n, size_t i, long long *val)
{
	long long v = 0;

	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
		if (v > (COUNT_MAX - 9) / 10)
			v = COUNT_MAX;
		else
			v = v * 10 + (s[i] - '0');
	}
	*val = v;
	return i;
}

/*
 * hunk_parse - 1 iff the line matches, at its start,
 * ^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@
 * The regex never backtracks into another parse: a "," that is not
 * followed by digits leaves nothing that " +" or " @@" could match.
 * Python's \d also takes non-ASCII decimal digits; patches have none.
 */
static int
hunk_parse(struct hunk *h, const char *s, size_t n)
{
	long long dummy;
	size_t i, j;

	if (!starts(s, n, "@@ -"))
		return 0;
	memset(h, 0, sizeof(*h));
	if ((j = count_parse(s, n, 4, &dummy)) == 4)
		return 0;
	i = j;
	if (i < n && s[i] == ',') {
		if ((j = count_parse(s, n, i + 1, &h->old_count)) == i + 1)
			return 0;
		h->has_old = 1;
		i = j;
	}
	if (!starts(s + i, n - i, " +"))
		return 0;
	i += 2;
	if ((j = count_parse(s, n, i, &dummy)) == i)
		return 0;
	i = j;
	if (i < n && s[i] == ',') {
		if ((j = count_parse(s, n, i + 1, &h->new_count)) == i + 1)
			return 0;
		h->has_new = 1;
		i = j;
	}
	return starts(s + i, n - i, " @@");
}

/* pending_add - append the line text[off..end) to B */
static int
pending_add(struct pending *b, const char *text, size_t off, size_t end)
{
	int rc;

	/* the next line of the text continues the last run */
	if (b->nrun > 0 && off == b->run[b->nrun - 1].end + 1)
		b->run[b->nrun - 1].end = end;
	else {
		if ((rc = GROW(b->run, b->nrun, b->arun, 16, SIZE_MAX)) != 0)
			return rc;
		b->run[b->nrun].off = off;
		b->run[b->nrun].end = end;
		b->nrun++;
	}
	b->nlines++;
	b->tail[0] = b->tail[1];
	b->tail[1] = b->tail[2];
	b->tail[2].off = off;
	b->tail[2].end = end;
	/* LOOKBACK needs only the lines after the last blank one */
	if (pytext_is_blank(text + off, end - off))
		b->head = 0;
	else if (!b->head) {
		b->head = 1;
		b->head_run = b->nrun - 1;
		b->head_off = off;
	}
	return 0;
}

/* pending_reset - B := [] (the allocation stays) */
static void
pending_reset(struct pending *b)
{
	b->nrun = 0;
	b->nlines = 0;
	b->head = 0;
}

/* out_flush - hash the pending piece of text */
static void
out_flush(struct out *o)
{
	digest_update(&o->d, o->text + o->a, o->b - o->a);
	o->a = o->b;
}

/* out_text - OUT += text[off..end) */
static void
out_text(struct out *o, size_t off, size_t end)
{
	if (off != o->b) {
		out_flush(o);
		o->a = off;
	}
	o->b = end;
}

/* out_lf - OUT += LF, taken from the text when it is the next byte there */
static void
out_lf(struct out *o)
{
	if (o->b < o->len && o->text[o->b] == '\n') {
		o->b++;
		return;
	}
	out_flush(o);
	digest_update(&o->d, "\n", 1);
}

/* out_join - OUT += LF.join(B from run r at offset off) */
static void
out_join(struct out *o, const struct pending *b, size_t r, size_t off)
{
	size_t i;

	for (i = r; i < b->nrun; i++) {
		if (i > r)
			out_lf(o);
		out_text(o, i == r ? off : b->run[i].off, b->run[i].end);
	}
}

/*
 * out_lookback - b4's leading_header(): the lines of B after its last
 * blank one, joined and ended by LF, if there are any; then B := [].
 */
static void
out_lookback(struct out *o, struct pending *b)
{
	if (b->head) {
		out_join(o, b, b->head_run, b->head_off);
		out_lf(o);
	}
	pending_reset(b);
}

/*
 * clean_early - V1 (v1 set) and V2 over the lines of text[s..e).  V1
 * splits strip() + "\n": its lines are followed by one empty line.
 */
static int
clean_early(struct out *o, struct pending *b, const char *text, size_t s,
    size_t e, int v1)
{
	struct hunk h;
	long long pp = 0;
	const char *nl;
	size_t pos, end;
	int rc;

	for (pos = s;; pos = end + 1) {
		nl = memchr(text + pos, '\n', e - pos);
		end = nl ? (size_t)(nl - text) : e;
		if (hunk_parse(&h, text + pos, end - pos)) {
			if (!h.has_new)
				return PA_ENOHASH;	/* int(None) raised */
			pp = h.new_count;
			out_lookback(o, b);
			out_text(o, pos, end);
			out_lf(o);
		} else if (pp > 0) {
			out_text(o, pos, end);
			out_lf(o);
			if (end == pos && v1)
				return PA_ENOHASH;	/* line[0] raised */
			if (end == pos || text[pos] != '-')
				pp--;
		} else if ((rc = pending_add(b, text, pos, end)) != 0)
			return rc;
		if (nl == NULL)
			break;
	}
	/*
	 * V1's extra empty line raises inside a hunk; elsewhere it would go
	 * to B, where nothing reads it any more.
	 */
	if (v1 && pp > 0)
		return PA_ENOHASH;
	return 0;
}

/* clean_v3 - b4 v0.4.0 .. v0.5.4 get_clean_diff() over text[0..len) */
static int
clean_v3(struct out *o, struct pending *b, const char *text, size_t len)
{
	struct hunk h;
	long long pp = 0, mm = 0;
	const char *nl, *l;
	size_t pos = 0, end, n;
	int bin = 0, rc, i;

	for (;;) {
		nl = memchr(text + pos, '\n', len - pos);
		end = nl ? (size_t)(nl - text) : len;
		l = text + pos;
		n = end - pos;

		if (n == 0) {
			/* a blank line closes a binary chunk: B goes out whole */
			if (bin) {
				bin = 0;
				out_join(o, b, 0, b->nrun ? b->run[0].off : 0);
				out_lf(o);
				out_lf(o);
				pending_reset(b);
			} else if ((rc = pending_add(b, text, pos, end)) != 0)
				return rc;
		} else if (bin) {
			if ((rc = pending_add(b, text, pos, end)) != 0)
				return rc;
		} else if (starts(l, n, "index ") && b->nlines > 1 &&
		    starts(text + b->tail[2].off,
		    b->tail[2].end - b->tail[2].off, "deleted ")) {
			/* a deletion without hunks: diff --git, deleted, index */
			if ((rc = pending_add(b, text, pos, end)) != 0)
				return rc;
			for (i = 0; i < 3; i++) {
				if (i > 0)
					out_lf(o);
				out_text(o, b->tail[i].off, b->tail[i].end);
			}
			out_lf(o);
			pending_reset(b);
		} else if (starts(l, n, "delta ") || starts(l, n, "literal ")) {
			bin = 1;
			if ((rc = pending_add(b, text, pos, end)) != 0)
				return rc;
		} else if (hunk_parse(&h, l, n)) {
			mm = h.has_old ? h.old_count : 1;
			pp = h.has_new ? h.new_count : 1;
			out_lookback(o, b);
			out_text(o, pos, end);
			out_lf(o);
		} else if (pp > 0 || mm > 0) {
			out_text(o, pos, end);
			out_lf(o);
			if (l[0] == ' ' || l[0] == '-')
				mm--;
			if (l[0] == ' ' || l[0] == '+')
				pp--;
		} else if ((rc = pending_add(b, text, pos, end)) != 0)
			return rc;

		if (nl == NULL)
			break;
		pos = end + 1;
	}
	return 0;
}

/* strip_cr - a malloc()ed copy of text without its CRs, or NULL */
static char *
strip_cr(const char *text, size_t len, size_t *lenp)
{
	const char *p = text, *end = text + len, *cr;
	char *copy, *d;

	if ((copy = malloc(len ? len : 1)) == NULL)
		return NULL;
	d = copy;
	while ((cr = memchr(p, '\r', (size_t)(end - p))) != NULL) {
		memcpy(d, p, (size_t)(cr - p));
		d += cr - p;
		p = cr + 1;
	}
	memcpy(d, p, (size_t)(end - p));
	d += end - p;
	*lenp = (size_t)(d - copy);
	return copy;
}

int
patchclean_hash(unsigned char out[32], enum patchclean_algo algo,
    const char *text, size_t len)
{
	struct pending b;
	struct out o;
	char *copy = NULL;
	size_t s, e;
	int rc, frc;

	if (pytext_is_blank(text, len))
		return PA_ENOPATCH;
	if (memchr(text, '\r', len) != NULL) {
		if ((copy = strip_cr(text, len, &len)) == NULL)
			return PA_ENOMEM;
		text = copy;
	}

	memset(&b, 0, sizeof(b));
	memset(&o, 0, sizeof(o));
	digest_init(&o.d);
	o.text = text;
	o.len = len;

	switch (algo) {
	case PATCHCLEAN_V1:
		pytext_strip(text, len, &s, &e);
		rc = clean_early(&o, &b, text, s, e, 1);
		break;
	case PATCHCLEAN_V2:
		rc = clean_early(&o, &b, text, 0, len, 0);
		break;
	case PATCHCLEAN_V3:
		rc = clean_v3(&o, &b, text, len);
		break;
	default:
		rc = PA_ERROR;
		break;
	}
	if (rc == 0) {
		out_flush(&o);
		if ((frc = digest_final(&o.d, out)) != 0)
			rc = frc;
	}
	digest_release(&o.d);
	free(b.run);
	free(copy);
	return rc;
}
