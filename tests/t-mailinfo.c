/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t-mailinfo - mailinfo against the golden outputs of real git mailinfo.
 *
 * For every tests/fixtures/mail/NAME.eml (names sorted) the message is
 * newline-normalised (CRLF -> LF, a lone CR kept, as mailmsg does before
 * mailinfo) and run three times on one struct mailinfo:
 *
 *   R  convert=1              git mailinfo -u        NAME.{exit,info,msg,patch}
 *   N  convert=0              --encoding=UTF-8       NAME.n.* if present,
 *                             (git >= 2.32)          else the R files
 *   S  convert=1, scissors=1  -u --scissors          NAME.s.* if present,
 *                                                    else the R files
 *
 * NAME.exit holds git's exit status: 0 must be mailinfo_run() == 0 and
 * then info, msg and patch must equal the files byte for byte; 1 must be
 * PA_EMAILINFO (the outputs are then meaningless and not compared).
 * Reusing the object for the three runs also checks that each run starts
 * afresh.  tests/fixtures/make-expect.sh regenerates the expected files.
 */
#include "config.h"

#include <sys/types.h>

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "patchattest.h"
#include "digest.h"
#include "mailinfo.h"
#include "sbuf.h"
#include "tap.h"

#define FIXTURE_DIR	"tests/fixtures/mail"
#define MAILINFO_MAX	(16UL * 1024 * 1024)

#ifndef PATH_MAX
#define PATH_MAX	4096
#endif

struct mode {
	const char	*label;		/* "R", "N" or "S" in names */
	const char	*suffix;	/* expected files NAME<suffix>.* */
	unsigned	 convert:1;
	unsigned	 scissors:1;
};

static const struct mode modes[] = {
	{ "R", "",   1, 0 },
	{ "N", ".n", 0, 0 },
	{ "S", ".s", 1, 1 },
};

static int	  cmp_names(const void *, const void *);
static char	**list_fixtures(const char *, size_t *);
static void	  free_list(char **, size_t);
static char	 *normalise(const char *, size_t, size_t *);
static int	  expect_path(char *, size_t, const char *, const char *,
		      const char *, const char *);
static int	  read_exit(const char *, int *);
static void	  check_file(const char *, const char *, const char *,
		      const char *, const char *, const struct sbuf *);
static void	  check_mode(struct mailinfo *, const char *, const char *,
		      const char *, size_t, const struct mode *);
static void	  check_fixture(const char *, const char *);

/* cmp_names - qsort comparator for an array of C strings */
static int
cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* list_fixtures - sorted NAMEs of the NAME.eml files in dir, or NULL */
static char **
list_fixtures(const char *dir, size_t *np)
{
	DIR *dp;
	struct dirent *de;
	char **names = NULL, **p;
	size_t n = 0, alloc = 0, len;

	*np = 0;
	if ((dp = opendir(dir)) == NULL)
		return NULL;
	while ((de = readdir(dp)) != NULL) {
		len = strlen(de->d_name);
		if (len <= 4 || strcmp(de->d_name + len - 4, ".eml") != 0)
			continue;
		if (n == alloc) {
			alloc = alloc ? alloc * 2 : 64;
			p = realloc(names, alloc * sizeof(*names));
			if (p == NULL)
				goto fail;
			names = p;
		}
		if ((names[n] = malloc(len - 3)) == NULL)
			goto fail;
		memcpy(names[n], de->d_name, len - 4);
		names[n][len - 4] = '\0';
		n++;
	}
	closedir(dp);
	if (n > 0)
		qsort(names, n, sizeof(*names), cmp_names);
	*np = n;
	return names != NULL ? names : calloc(1, sizeof(*names));

fail:
	closedir(dp);
	free_list(names, n);
	return NULL;
}

static void
free_list(char **names, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* normalise - CRLF -> LF, into a malloc()ed copy */
static char *
normalise(const char *in, size_t len, size_t *outlen)
{
	char *out;
	size_t i, o = 0;

	if ((out = malloc(len + 1)) == NULL)
		return NULL;
	for (i = 0; i < len; i++)
		if (in[i] != '\r' || i + 1 == len || in[i + 1] != '\n')
			out[o++] = in[i];	/* not the CR of a CRLF */
	out[o] = '\0';
	*outlen = o;
	return out;
}

/* expect_path - "dir/NAME<suffix>.<ext>" into buf; -1 if it does not fit */
static int
expect_path(char *buf, size_t size, const char *dir, const char *name,
    const char *suffix, const char *ext)
{
	int n;

	n = snprintf(buf, size, "%s/%s%s.%s", dir, name, suffix, ext);
	return n < 0 || (size_t)n >= size ? -1 : 0;
}

/* read_exit - the decimal status in an .exit file; -1 if missing or bad */
static int
read_exit(const char *path, int *status)
{
	char *buf;
	size_t len, i;
	int v = 0;

	if ((buf = tap_read_file(path, &len)) == NULL)
		return -1;
	for (i = 0; i < len && buf[i] >= '0' && buf[i] <= '9' && v < 1000; i++)
		v = v * 10 + (buf[i] - '0');
	if (i == 0 || i + 1 != len || buf[i] != '\n') {
		free(buf);
		return -1;
	}
	free(buf);
	*status = v;
	return 0;
}

/* check_file - one TAP line: got equals the file dir/NAME<suffix>.<ext> */
static void
check_file(const char *dir, const char *name, const char *label,
    const char *suffix, const char *ext, const struct sbuf *got)
{
	char path[PATH_MAX], *want;
	size_t wantlen;

	if (expect_path(path, sizeof(path), dir, name, suffix, ext) == -1 ||
	    (want = tap_read_file(path, &wantlen)) == NULL) {
		tap_check(0, "%s %s: %s (cannot read %s%s.%s)", name, label, ext,
		    name, suffix, ext);
		return;
	}
	tap_check_mem(got->buf, got->len, want, wantlen, "%s %s: %s", name,
	    label, ext);
	free(want);
}

/* check_mode - run one mode on the normalised message, compare */
static void
check_mode(struct mailinfo *mi, const char *dir, const char *name,
    const char *in, size_t len, const struct mode *m)
{
	struct mailinfo_opts opts;
	struct sbuf info;
	char path[PATH_MAX];
	const char *suffix;
	int rc, got, want;

	/* mode N and S share the R files unless their result differs */
	suffix = m->suffix;
	if (*suffix != '\0' &&
	    (expect_path(path, sizeof(path), dir, name, suffix, "exit") == -1 ||
	    read_exit(path, &want) == -1))
		suffix = "";
	if (expect_path(path, sizeof(path), dir, name, suffix, "exit") == -1 ||
	    read_exit(path, &want) == -1) {
		tap_check(0, "%s %s: exit (cannot read %s%s.exit)", name, m->label,
		    name, suffix);
		return;
	}

	memset(&opts, 0, sizeof(opts));
	opts.convert = m->convert;
	opts.scissors = m->scissors;
	rc = mailinfo_run(mi, in, len, &opts);
	if (rc == 0)
		got = 0;
	else if (rc == PA_EMAILINFO)
		got = 1;
	else
		got = -1;	/* PA_ETOOBIG, PA_ENOMEM: never right here */

	if (!tap_check_int(got, want, "%s %s: exit", name, m->label)) {
		if (rc != 0 && rc != PA_EMAILINFO)
			tap_diag("mailinfo_run returned %d", rc);
		if (mi->error[0] != '\0')
			tap_diag("mailinfo: %.*s", (int)sizeof(mi->error),
			    mi->error);
	}
	if (want != 0)
		return;
	if (got != 0) {
		tap_skip("%s %s: info, msg, patch (mailinfo failed)", name,
		    m->label);
		return;
	}

	sbuf_init(&info, MAILINFO_MAX);
	if (!tap_check_int(mailinfo_info(mi, &info), 0, "%s %s: mailinfo_info",
	    name, m->label)) {
		sbuf_release(&info);
		return;
	}
	check_file(dir, name, m->label, suffix, "info", &info);
	check_file(dir, name, m->label, suffix, "msg", &mi->msg);
	check_file(dir, name, m->label, suffix, "patch", &mi->patch);
	sbuf_release(&info);
}

/*
 * check_hash - the primary hashes against the reference oracle's row
 * (NAME.hash: name, attid, i, m, p, ...; "-" where it made none).
 */
static void
check_hash(const char *dir, const char *name, const char *raw, size_t rawlen)
{
	struct mailmsg *m;
	struct msghash h;
	struct pa_err err;
	char path[PATH_MAX], *row, *col[5], *p, got[4 * DIGEST_HEXLEN + 8];
	char hex[3][DIGEST_HEXLEN + 1];
	size_t len;
	int i, rc;

	if (expect_path(path, sizeof(path), dir, name, "", "hash") == -1 ||
	    (row = tap_read_file(path, &len)) == NULL) {
		tap_check(0, "%s: cannot read %s.hash", name, name);
		return;
	}
	for (i = 0, p = row; i < 5 && p; i++) {
		col[i] = p;
		if ((p = strchr(p, '\t')) != NULL)
			*p++ = '\0';
	}
	if (i < 5 || p == NULL) {
		tap_check(0, "%s: malformed %s.hash", name, name);
		free(row);
		return;
	}
	msghash_init(&h);
	rc = mailmsg_new(&m, MAILINFO_MAX);
	if (rc == 0)
		rc = mailmsg_parse(m, raw, rawlen);
	if (rc == 0)
		rc = msghash_compute(&h, m, 0, &err);
	if (rc == 0) {
		for (i = 0; i < 3; i++)
			digest_hex(hex[i], i == 0 ? h.entry[0].i :
			    i == 1 ? h.entry[0].m : h.entry[0].p);
		snprintf(got, sizeof(got), "%s %s %s %s", h.entry[0].attid,
		    hex[0], hex[1], hex[2]);
	} else
		snprintf(got, sizeof(got), "- - - -");
	/* Without an attestation ID the oracle's partial hashes count for
	 * nothing: no attestation can exist. */
	if (strcmp(col[1], "-") == 0)
		snprintf(path, sizeof(path), "- - - -");
	else
		snprintf(path, sizeof(path), "%s %s %s %s", col[1], col[2],
		    col[3], col[4]);
	tap_check_str(got, path, "%s: hashes as the reference tool's", name);
	msghash_release(&h);
	mailmsg_free(m);
	free(row);
}

/* check_fixture - read NAME.eml, normalise it, check every mode */
static void
check_fixture(const char *dir, const char *name)
{
	struct mailinfo mi;
	char path[PATH_MAX], *raw, *in;
	size_t rawlen, len, i;

	if (expect_path(path, sizeof(path), dir, name, "", "eml") == -1 ||
	    (raw = tap_read_file(path, &rawlen)) == NULL) {
		tap_check(0, "%s: cannot read %s.eml", name, name);
		return;
	}
	check_hash(dir, name, raw, rawlen);
	if ((in = normalise(raw, rawlen, &len)) == NULL) {
		free(raw);
		tap_check(0, "%s: out of memory", name);
		return;
	}
	free(raw);

	mailinfo_init(&mi);
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		check_mode(&mi, dir, name, in, len, &modes[i]);
	mailinfo_release(&mi);
	free(in);
}

int
main(void)
{
	char dir[PATH_MAX], **names;
	size_t n, i;
	int len;

	len = snprintf(dir, sizeof(dir), "%s/%s", tap_srcdir(), FIXTURE_DIR);
	if (len < 0 || (size_t)len >= sizeof(dir))
		tap_skip_all("path of %s too long", FIXTURE_DIR);
	if ((names = list_fixtures(dir, &n)) == NULL) {
		tap_check(0, "list %s", dir);
		return tap_done();
	}
	tap_check(n > 0, "%zu fixtures in %s", n, FIXTURE_DIR);
	for (i = 0; i < n; i++)
		check_fixture(dir, names[i]);
	free_list(names, n);
	return tap_done();
}
