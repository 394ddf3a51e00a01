/* SPDX-License-Identifier: BSD-2-Clause */
#include "config.h"

#include <limits.h>
#include <string.h>

#include "base.h"
#include "patchattest.h"
#include "patchid.h"

/* git hashes an object id of up to 64 hex digits from an index line */
#define OID_STR_MAX	64

/* One patch as git's get_one_patchid() reads it. */
struct pid_state {
	struct digest	 d;
	unsigned char	 sum[DIGEST_SHA1_LEN];
	long		 patchlen;
	int		 before, after;
	int		 binary;
	char		 pre[OID_STR_MAX + 1], post[OID_STR_MAX + 1];
};

/* One line: s[0..n) up to its first NUL, its line end included. */
struct pid_line {
	const char	*s;
	size_t		 n;
};

/* git's isspace(): its own table, without \v and \f */
static int
git_space(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static int
git_alpha(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int
starts(const struct pid_line *l, const char *prefix)
{
	size_t k = strlen(prefix);

	return l->n >= k && memcmp(l->s, prefix, k) == 0;
}

/* find - strstr() within the line from off, or -1 */
static long
find(const struct pid_line *l, size_t off, const char *needle)
{
	size_t k = strlen(needle), i;

	for (i = off; i + k <= l->n; i++)
		if (memcmp(l->s + i, needle, k) == 0)
			return (long)i;
	return -1;
}

/*
 * git_atoi - atoi() as glibc's: strtol() saturated to long, then cut to
 * int; a hunk header of hostile numbers counts the way git counts it
 */
static int
git_atoi(const char *s, size_t n)
{
	unsigned long v = 0, lim;
	size_t i = 0;
	int neg = 0;

	while (i < n && (s[i] == ' ' || (s[i] >= '\t' && s[i] <= '\r')))
		i++;
	if (i < n && (s[i] == '+' || s[i] == '-'))
		neg = s[i++] == '-';
	lim = neg ? (unsigned long)LONG_MAX + 1 : (unsigned long)LONG_MAX;
	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
		if (v > (lim - (unsigned long)(s[i] - '0')) / 10)
			v = lim;
		else
			v = v * 10 + (unsigned long)(s[i] - '0');
	}
	if (neg)
		v = 0 - v;
	return (int)(unsigned)v;
}

static size_t
digits(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n && s[i] >= '0' && s[i] <= '9')
		i++;
	return i;
}

/* scan_hunk - git's scan_hunk_header(): the counts of "@@ -a,b +c,d" */
static void
scan_hunk(const struct pid_line *l, int *before, int *after)
{
	const char *q = l->s + 4, *r, *end = l->s + l->n;
	size_t k;

	k = digits(q, (size_t)(end - q));
	if (q + k < end && q[k] == ',') {
		q += k + 1;
		*before = git_atoi(q, (size_t)(end - q));
		k = digits(q, (size_t)(end - q));
	} else
		*before = 1;
	if (k == 0 || q + k + 1 >= end || q[k] != ' ' || q[k + 1] != '+')
		return;
	r = q + k + 2;
	k = digits(r, (size_t)(end - r));
	if (r + k < end && r[k] == ',') {
		r += k + 1;
		*after = git_atoi(r, (size_t)(end - r));
	} else
		*after = 1;
}

/* flush - one file's digest added to the sum, as git adds it */
static int
flush(struct pid_state *st)
{
	unsigned char h[DIGEST_LEN];
	unsigned carry = 0;
	size_t i;
	int rc;

	if ((rc = digest_final(&st->d, h)) != 0)
		return rc;
	for (i = 0; i < DIGEST_SHA1_LEN; i++) {
		carry += st->sum[i] + h[i];
		st->sum[i] = (unsigned char)carry;
		carry >>= 8;
	}
	return 0;
}

/*
 * hash_line - the line without its whitespace, gathered first: a digest
 * update per word costs more than the word
 */
static void
hash_line(struct pid_state *st, const struct pid_line *l)
{
	char kept[512];
	size_t i, n = 0;

	for (i = 0; i < l->n; i++) {
		if (git_space((unsigned char)l->s[i]))
			continue;
		if (n == sizeof(kept)) {
			digest_update(&st->d, kept, n);
			st->patchlen += (long)n;
			n = 0;
		}
		kept[n++] = l->s[i];
	}
	if (n > 0) {
		digest_update(&st->d, kept, n);
		st->patchlen += (long)n;
	}
}

static void
copy_oid(char *dst, const char *s, size_t n)
{
	if (n > OID_STR_MAX)
		n = OID_STR_MAX;
	memcpy(dst, s, n);
	dst[n] = '\0';
}

/* index_line - the blob ids of "index PRE..POST[ mode]", as git cuts them */
static void
index_line(struct pid_state *st, const struct pid_line *l)
{
	long dots, sp;
	size_t end;

	if ((dots = find(l, 0, "..")) < 0)
		return;
	sp = find(l, (size_t)dots, " ");
	end = sp >= 0 ? (size_t)sp : l->n - 1;
	copy_oid(st->pre, l->s + 6, (size_t)dots - 6);
	if ((size_t)dots + 2 <= end)
		copy_oid(st->post, l->s + dots + 2, end - (size_t)dots - 2);
	else
		st->post[0] = '\0';
}

enum pid_step { PID_NEXT, PID_END };

/* diff_header - a line before a file's first hunk; PID_END ends the patch */
static enum pid_step
diff_header(struct pid_state *st, const struct pid_line *l, int *consumed)
{
	*consumed = 1;
	if (starts(l, "GIT binary patch") || starts(l, "Binary files")) {
		st->binary = 1;
		st->before = 0;
		digest_update(&st->d, st->pre, strlen(st->pre));
		digest_update(&st->d, st->post, strlen(st->post));
		return flush(st) != 0 ? PID_END : PID_NEXT;
	}
	if (starts(l, "index ")) {
		index_line(st, l);
		return PID_NEXT;
	}
	*consumed = 0;
	if (starts(l, "--- "))
		st->before = st->after = 1;
	else if (l->n == 0 || !git_alpha((unsigned char)l->s[0]))
		return PID_END;
	return PID_NEXT;
}

/* oid_line - whether git takes the line for the next commit's id */
static int
oid_line(const struct pid_line *l)
{
	size_t off = 0, i;

	if (starts(l, "commit "))
		off = 7;
	else if (starts(l, "From "))
		off = 5;
	else if (starts(l, "\\ ") && l->n > 12)
		return -1;	/* "\ No newline at end of file": skipped */
	if (l->n - off < 40)
		return 0;
	for (i = 0; i < 40; i++)
		if (codec_hexval((unsigned char)l->s[off + i]) < 0)
			return 0;
	return 1;
}

/* one_line - git's loop body for one line: PID_END ends this patch */
static enum pid_step
one_line(struct pid_state *st, const struct pid_line *l)
{
	int consumed, k;

	if ((k = oid_line(l)) != 0)
		return k > 0 ? PID_END : PID_NEXT;
	if (st->patchlen == 0 && !starts(l, "diff "))
		return PID_NEXT;
	if (st->before == -1) {
		if (diff_header(st, l, &consumed) == PID_END)
			return PID_END;
		if (consumed)
			return PID_NEXT;
	}
	if (st->binary) {
		if (starts(l, "diff ")) {
			st->binary = 0;
			st->before = -1;
		}
		return PID_NEXT;
	}
	if (st->before == 0 && st->after == 0) {
		if (starts(l, "@@ -")) {
			scan_hunk(l, &st->before, &st->after);
			return PID_NEXT;
		}
		if (!starts(l, "diff ") || flush(st) != 0)
			return PID_END;
		st->before = st->after = -1;
	}
	/* Counted in unsigned: hostile counts wrap as git's ints do. */
	if (l->s[0] == '-' || l->s[0] == ' ')
		st->before = (int)((unsigned)st->before - 1);
	if (l->s[0] == '+' || l->s[0] == ' ')
		st->after = (int)((unsigned)st->after - 1);
	hash_line(st, l);
	return PID_NEXT;
}

static void
pid_reset(struct pid_state *st)
{
	memset(st->sum, 0, sizeof(st->sum));
	st->patchlen = 0;
	st->before = st->after = -1;
	st->binary = 0;
	st->pre[0] = st->post[0] = '\0';
}

/* next_line - the line at *pos into l, *pos past it: 0 at the end */
static int
next_line(const char *text, size_t len, size_t *pos, struct pid_line *l)
{
	const char *s = text + *pos, *nl, *nul;
	size_t n;

	if (*pos >= len)
		return 0;
	nl = memchr(s, '\n', len - *pos);
	n = nl ? (size_t)(nl - s) + 1 : len - *pos;
	*pos += n;
	if ((nul = memchr(s, '\0', n)) != NULL)
		n = (size_t)(nul - s);
	l->s = s;
	l->n = n;
	return 1;
}

int
patchid_compute(char out[PATCHID_HEXLEN + 1], const char *patch, size_t len)
{
	struct pid_state st;
	struct pid_line l;
	size_t pos = 0;
	int rc = PA_ENOPATCH, more = 1;

	digest_init_sha1(&st.d);
	/* git prints the first patch that hashed anything. */
	while (rc == PA_ENOPATCH && more && pos < len) {
		pid_reset(&st);
		while ((more = next_line(patch, len, &pos, &l)) != 0)
			if (one_line(&st, &l) == PID_END)
				break;
		if (flush(&st) != 0)
			rc = PA_ENOMEM;
		else if (st.patchlen > 0)
			rc = 0;
	}
	digest_release(&st.d);
	if (rc != 0)
		return rc;
	codec_hex(out, st.sum, DIGEST_SHA1_LEN, 0);
	return 0;
}
