/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t-corpus - differential test against the reference oracle's hashes of
 * real list mail.
 *
 * For every corpus directory (CORPUS/NAME/expected.tsv beside
 * CORPUS/NAME/messages/) each message is hashed and compared with the
 * oracle's row: attid, i, m and p must all agree where the oracle made an
 * attestation ID, and nothing may come out where it made none.  The
 * figures are printed; the test requires at least 99.5% agreement, no
 * disagreement at all on plain single-part 7bit/8bit messages, and every
 * disagreement of a known corpus explained in tests/corpus-residuals.tsv.
 * The b4 0.3.x patch variants are checked against the oracle's p_v030 and
 * p_v033 columns the same way.
 *
 * CORPUS is $PATCHATTEST_CORPUS, else $srcdir/../shared/corpus; without
 * one, the test skips and says so.
 */
#include "config.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "patchattest.h"
#include "digest.h"
#include "mailmsg.h"
#include "tap.h"

#define MAX_MESSAGE	(64u << 20)

struct tally {
	unsigned	rows;		/* oracle rows */
	unsigned	attested;	/* rows with an oracle attid */
	unsigned	agree;		/* ... that we reproduce exactly */
	unsigned	spurious;	/* we made one where the oracle had none */
	unsigned	plain_bad;	/* disagreements on plain messages */
	unsigned	unexplained;
	unsigned	var_rows;	/* p_v030/p_v033 hashes in the oracle */
	unsigned	var_agree;
};

static char	*residuals;

static int
split_tabs(char *line, char **col, int max)
{
	int n = 0;

	col[n++] = line;
	while (n < max && (line = strchr(line, '\t')) != NULL) {
		*line++ = '\0';
		col[n++] = line;
	}
	return n;
}

/* explained - the residuals file names this corpus entry */
static int
explained(const char *corpus, const char *name)
{
	char key[1024];

	if (residuals == NULL)
		return 0;
	snprintf(key, sizeof(key), "\n%s/%s\t", corpus, name);
	return strstr(residuals, key) != NULL;
}

/* is_plain - one part, no base64 or quoted-printable */
static int
header_has(const struct mailmsg *m, const char *name, const char *word)
{
	const char *v;
	size_t len;
	char buf[256];

	if ((v = mailmsg_get(m, name, &len)) == NULL)
		return 0;
	if (len >= sizeof(buf))
		len = sizeof(buf) - 1;
	memcpy(buf, v, len);
	buf[len] = '\0';
	return strcasestr(buf, word) != NULL;
}

static int
is_plain(const struct mailmsg *m)
{
	return !header_has(m, "Content-Type", "multipart") &&
	    !header_has(m, "Content-Transfer-Encoding", "base64") &&
	    !header_has(m, "Content-Transfer-Encoding", "quoted-printable");
}

/* has_p - some variant with the primary i and m has this p */
static int
has_p(const struct msghash *h, const char *want)
{
	char hex[DIGEST_HEXLEN + 1];
	size_t k;

	for (k = 0; k < h->n; k++) {
		if (memcmp(h->entry[k].i, h->entry[0].i, DIGEST_LEN) != 0 ||
		    memcmp(h->entry[k].m, h->entry[0].m, DIGEST_LEN) != 0)
			continue;
		digest_hex(hex, h->entry[k].p);
		if (strcmp(hex, want) == 0)
			return 1;
	}
	return 0;
}

static void
check_row(const char *dir, const char *corpus, char **col,
    struct mailmsg *m, struct msghash *h, struct tally *t)
{
	struct pa_err err;
	char path[8192], hex[3][DIGEST_HEXLEN + 1];
	char *data;
	size_t len;
	int rc, same, want_attid;

	t->rows++;
	if (snprintf(path, sizeof(path), "%s/%s", dir, col[0]) >=
	    (int)sizeof(path) || (data = tap_read_file(path, &len)) == NULL) {
		tap_diag("%s/%s: cannot read", corpus, col[0]);
		t->unexplained++;
		return;
	}
	rc = mailmsg_parse(m, data, len);
	if (rc == 0)
		rc = msghash_compute(h, m, MSGHASH_VARIANTS, &err);
	free(data);
	want_attid = strcmp(col[1], "-") != 0;
	if (rc == 0 && h->entry[0].origin != 0)
		rc = PA_ENOPATCH;	/* only variants: no primary hashes */
	if (rc == 0) {
		digest_hex(hex[0], h->entry[0].i);
		digest_hex(hex[1], h->entry[0].m);
		digest_hex(hex[2], h->entry[0].p);
	}
	if (!want_attid) {
		if (rc == 0) {
			t->spurious++;
			tap_diag("%s/%s: we made %s, the oracle nothing", corpus,
			    col[0], h->entry[0].attid);
		}
		return;
	}
	t->attested++;
	same = rc == 0 && strcmp(h->entry[0].attid, col[1]) == 0 &&
	    strcmp(hex[0], col[2]) == 0 && strcmp(hex[1], col[3]) == 0 &&
	    strcmp(hex[2], col[4]) == 0;
	if (same)
		t->agree++;
	else {
		if (is_plain(m))
			t->plain_bad++;
		if (!explained(corpus, col[0]))
			t->unexplained++;
		tap_diag("%s/%s: want %s, got %s%s", corpus, col[0], col[1],
		    rc == 0 ? h->entry[0].attid : pa_strerror(rc),
		    explained(corpus, col[0]) ? " (explained)" : "");
		return;
	}
	/* b4 0.3.x cleanings, over the same i and m */
	if (strlen(col[5]) == DIGEST_HEXLEN && strcmp(col[5], col[4]) != 0) {
		t->var_rows++;
		t->var_agree += has_p(h, col[5]);
	}
	if (strlen(col[6]) == DIGEST_HEXLEN && strcmp(col[6], col[4]) != 0) {
		t->var_rows++;
		t->var_agree += has_p(h, col[6]);
	}
}

static void
run_corpus(const char *root, const char *corpus)
{
	struct tally t = { 0 };
	struct msghash h;
	struct mailmsg *m;
	char path[8192], *tsv, *line, *next, *col[8];
	size_t len;
	double pct;

	snprintf(path, sizeof(path), "%s/%s/expected.tsv", root, corpus);
	if ((tsv = tap_read_file(path, &len)) == NULL)
		return;
	(void)mailmsg_new(&m, MAX_MESSAGE);	/* NULL: each parse fails */
	msghash_init(&h);
	snprintf(path, sizeof(path), "%s/%s", root, corpus);
	for (line = tsv; line && *line; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		if (strncmp(line, "name\t", 5) == 0)
			continue;
		if (split_tabs(line, col, 8) != 8)
			continue;
		check_row(path, corpus, col, m, &h, &t);
	}
	msghash_release(&h);
	mailmsg_free(m);
	free(tsv);

	pct = t.attested ? 100.0 * t.agree / t.attested : 100.0;
	tap_diag("%s: %u messages, %u with an attestation ID; full agreement "
	    "on %u (%.2f%%); %u spurious; b4 0.3.x patch hashes %u/%u",
	    corpus, t.rows, t.attested, t.agree, pct, t.spurious, t.var_agree,
	    t.var_rows);
	tap_check(t.rows > 0, "%s: the corpus has rows", corpus);
	tap_check(pct >= 99.5, "%s: agreement %.2f%% >= 99.5%%", corpus, pct);
	tap_check_int(t.spurious, 0, "%s: no hashes where the oracle had none",
	    corpus);
	tap_check_int(t.plain_bad, 0, "%s: no disagreement on plain messages",
	    corpus);
	tap_check_int(t.unexplained, 0, "%s: every disagreement explained in "
	    "tests/corpus-residuals.tsv", corpus);
	tap_check_int(t.var_agree, t.var_rows, "%s: b4 0.3.x patch variants",
	    corpus);
}

int
main(void)
{
	char root[4096], path[8192];
	const char *env = getenv("PATCHATTEST_CORPUS");
	struct dirent **names;
	struct stat st;
	size_t len;
	int n, i, ran = 0;

	if (env && *env)
		snprintf(root, sizeof(root), "%s", env);
	else
		snprintf(root, sizeof(root), "%s/../shared/corpus", tap_srcdir());
	if (stat(root, &st) != 0 || !S_ISDIR(st.st_mode))
		tap_skip_all("no corpus at %s (set PATCHATTEST_CORPUS)", root);
	snprintf(path, sizeof(path), "%s/tests/corpus-residuals.tsv",
	    tap_srcdir());
	residuals = tap_read_file(path, &len);
	if ((n = scandir(root, &names, NULL, alphasort)) < 0)
		tap_skip_all("cannot list %s", root);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s/expected.tsv", root,
		    names[i]->d_name);
		if (names[i]->d_name[0] != '.' && stat(path, &st) == 0) {
			run_corpus(root, names[i]->d_name);
			ran++;
		}
		free(names[i]);
	}
	free(names);
	free(residuals);
	if (!ran)
		tap_skip_all("no corpus with expected.tsv under %s", root);
	return tap_done();
}
