/* SPDX-License-Identifier: BSD-2-Clause */
#include "config.h"

#include <string.h>

#include "base.h"
#include "patchattest.h"
#include "trailers.h"

/* git's scissors line, after which "git commit" ignores the message */
#define CUT_LINE	"# ------------------------ >8 ------------------------\n"

/* The trailers git writes itself: one of them makes a block git's. */
static const char *const git_prefixes[] = {
	"Signed-off-by: ",
	"(cherry picked from commit ",
};

/* git's isspace(): its own table, without \v and \f */
static int
git_space(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static int
token_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '-';
}

/* line_end - past the line at s[off] (its '\n' included), within n */
static size_t
line_end(const char *s, size_t n, size_t off)
{
	const char *nl = memchr(s + off, '\n', n - off);

	return nl ? (size_t)(nl - s) + 1 : n;
}

static int
starts(const char *s, size_t n, size_t off, const char *prefix)
{
	size_t k = strlen(prefix);

	return n - off >= k && memcmp(s + off, prefix, k) == 0;
}

static int
blank_line(const char *s, size_t n, size_t off)
{
	while (off < n && s[off] != '\n' && git_space((unsigned char)s[off]))
		off++;
	return off == n || s[off] == '\n';
}

/*
 * separator - whether the line at s[off] is "Token: value" (git's
 * find_separator() with ":": a token, blanks, the colon)
 */
static int
separator(const char *s, size_t n, size_t off)
{
	size_t c;
	int blank = 0;

	for (c = off; c < n; c++) {
		if (s[c] == ':')
			return c > off;
		if (!blank && token_char((unsigned char)s[c]))
			continue;
		if (c != off && (s[c] == ' ' || s[c] == '\t')) {
			blank = 1;
			continue;
		}
		break;
	}
	return 0;
}

/* patch_start - where a "---" line starts, as git am cuts the message */
static size_t
patch_start(const char *s, size_t n)
{
	size_t off;

	for (off = 0; off < n; off = line_end(s, n, off))
		if (starts(s, n, off, "---") && off + 3 < n &&
		    git_space((unsigned char)s[off + 3]))
			return off;
	return n;
}

/*
 * trailer_end - the end of s[0..n) without the blank and comment lines
 * at its end and what follows a scissors line (git's
 * ignored_log_message_bytes())
 */
static size_t
trailer_end(const char *s, size_t n)
{
	size_t off, boc = 0, cutoff = n;
	int found = 0, conflicts = 0;

	for (off = 0; off < n; off = line_end(s, n, off))
		if (starts(s, n, off, CUT_LINE) &&
		    (off == 0 || s[off - 1] == '\n')) {
			cutoff = off;
			break;
		}
	for (off = 0; off < cutoff; off = line_end(s, n, off)) {
		if (s[off] == '#' || s[off] == '\n' ||
		    starts(s, n, off, "Conflicts:\n")) {
			conflicts |= starts(s, n, off, "Conflicts:\n");
			if (!found)
				boc = off;
			found = 1;
		} else if (conflicts && s[off] == '\t')
			;
		else
			found = conflicts = 0;
	}
	return found ? boc : cutoff;
}

/* prev_line - the start of the line before the one at off (off > 0) */
static size_t
prev_line(const char *s, size_t off)
{
	size_t i = off - 1;

	while (i > 0 && s[i - 1] != '\n')
		i--;
	return i;
}

/* the counts of git's find_trailer_start(), walking up from the end */
struct walk {
	unsigned	trailers, others, maybe_cont;
	int		recognized, only_blank;
};

/* accept - the block found when walking up reaches a blank line */
static int
accept(struct walk *w)
{
	w->others += w->maybe_cont;
	if (w->recognized && w->trailers * 3 >= w->others)
		return 1;
	return w->trailers && !w->others;
}

/* walk_line - one non-blank, non-comment line of the walk */
static void
walk_line(struct walk *w, const char *s, size_t n, size_t off)
{
	size_t k;

	for (k = 0; k < sizeof(git_prefixes) / sizeof(git_prefixes[0]); k++)
		if (starts(s, n, off, git_prefixes[k])) {
			w->trailers++;
			w->maybe_cont = 0;
			w->recognized = 1;
			return;
		}
	if (separator(s, n, off) && !git_space((unsigned char)s[off])) {
		w->trailers++;
		w->maybe_cont = 0;
	} else if (git_space((unsigned char)s[off]))
		w->maybe_cont++;
	else {
		w->others += 1 + w->maybe_cont;
		w->maybe_cont = 0;
	}
}

void
trailers_find(struct trailers *t, const char *msg, size_t len)
{
	struct walk w = { 0, 0, 0, 0, 1 };
	size_t n, end, off, at;

	/* git reads the message as a string: up to its first NUL. */
	n = strnlen(msg, len);
	end = trailer_end(msg, patch_start(msg, n));
	t->start = t->end = end;
	if (end == 0)
		return;
	/*
	 * Walk up from the last line.  The subject and a blank line stand
	 * before msg in the commit, so the top of msg ends the walk as a
	 * blank line would.
	 */
	for (off = prev_line(msg, end);; off = prev_line(msg, off)) {
		if (msg[off] == '#') {
			w.others += w.maybe_cont;
			w.maybe_cont = 0;
		} else if (blank_line(msg, end, off)) {
			if (w.only_blank)
				goto up;
			at = line_end(msg, end, off);
			if (accept(&w))
				t->start = at;
			return;
		} else {
			w.only_blank = 0;
			walk_line(&w, msg, end, off);
		}
up:
		if (off == 0)
			break;
	}
	if (!w.only_blank && accept(&w))
		t->start = 0;
}

/* add_trimmed - s[a..b) without the blanks at either end */
static void
add_trimmed(struct sbuf *out, const char *s, size_t a, size_t b)
{
	while (a < b && git_space((unsigned char)s[a]))
		a++;
	while (b > a && git_space((unsigned char)s[b - 1]))
		b--;
	sbuf_add(out, s + a, b - a);
}

/*
 * add_item - one line of the block, its continuation lines in s[a..b):
 * a trailer as "Token: value" (git's form of it), its line ends and the
 * blanks after them one space; another line as it is
 */
static void
add_item(struct sbuf *out, const char *s, size_t a, size_t b)
{
	size_t colon, k, next;

	if (separator(s, b, a)) {
		colon = (size_t)((const char *)memchr(s + a, ':', b - a) - s);
		add_trimmed(out, s, a, colon);
		sbuf_addstr(out, ": ");
		a = colon + 1;
	}
	for (k = a; k < b; k = next) {
		next = line_end(s, b, k);
		if (k > a)
			sbuf_addch(out, ' ');
		add_trimmed(out, s, k, next);
	}
	sbuf_addch(out, '\n');
}

int
trailers_lines(struct sbuf *out, const char *msg, const struct trailers *t)
{
	size_t off, next;

	for (off = t->start; off < t->end; off = next) {
		next = line_end(msg, t->end, off);
		while (next < t->end && git_space((unsigned char)msg[next]) &&
		    !blank_line(msg, t->end, next))
			next = line_end(msg, t->end, next);
		add_item(out, msg, off, next);
	}
	return sbuf_failed(out);
}

int
trailers_core(struct sbuf *out, const char *msg, size_t len,
    const struct trailers *t)
{
	size_t base = out->len, k;

	sbuf_add(out, msg, t->start);
	sbuf_add(out, msg + t->end, len - t->end);
	if (sbuf_failed(out))
		return sbuf_failed(out);
	/* Blank lines at the end, left by the block or not, are not text. */
	k = out->len;
	while (k > base && git_space((unsigned char)out->buf[k - 1]))
		k--;
	if (k < out->len && k > base)
		k = line_end(out->buf, out->len, k);
	sbuf_setlen(out, k);
	return 0;
}

int
trailers_core_hash(unsigned char out[DIGEST_LEN], const char *msg,
    size_t len, const struct trailers *t)
{
	struct sbuf core;
	int rc;

	sbuf_init(&core, len);
	if ((rc = trailers_core(&core, msg, len, t)) == 0)
		rc = msghash_text(out, core.buf, core.len);
	sbuf_release(&core);
	return rc;
}
