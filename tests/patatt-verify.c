/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * patatt-verify - our verdict on the patatt signatures (X-Developer-
 * Signature) of message files, for tests/t-patatt.sh to set beside the
 * patatt tool's own (built for make check, not a test itself).
 *
 *	patatt-verify [-v] [-k KEYRING]... [-g GNUPGHOME] FILE...
 *
 * Each FILE is one raw message (LF or CRLF).  Each KEYRING is a patatt
 * keyring folder (ALGO/<domain>/<local>/<selector>), searched in the
 * order given; GNUPGHOME the GnuPG home whose keys check OpenPGP
 * signatures without a keyring file; either may be left out.  For every
 * signature, in header order, one line of tab-separated fields:
 *
 *	FILE	IDENTITY	ALGORITHM	RESULT	DETAIL
 *
 * ALGORITHM is "ed25519", "openpgp", "openssh" or "unknown"; RESULT is
 * patatt_result_name()'s word.  A message without a signature gives one
 * line with identity and algorithm "-" and result "nosig".  With -v six
 * fields follow DETAIL: the signing time (Unix seconds, 0 if none), the
 * OpenPGP key fingerprint, the key source, the key the message offers
 * in X-Developer-Key, what a badsig says was changed ("body", "headers",
 * "headers-or-signature") and the headers h= names as a reason shows
 * them (each "-" when empty or not known).
 *
 * Exit status 0 when every file was judged, 1 when a file could not be
 * read or parsed or patatt_check() failed (a line with result "failed"
 * and the reason stands for it), 2 on a usage error.  Only lib/sig/patatt.h
 * is used (with what it includes: the mailmsg lifecycle of patchattest.h
 * and pa_global_init() of patchattest.h).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "patatt.h"

#define MAX_MAIL	((size_t)64 << 20)

static const char *const changed_names[] = {
	[PATATT_CHANGED_UNKNOWN] = "-",
	[PATATT_CHANGED_BODY] = "body",
	[PATATT_CHANGED_HEADERS] = "headers",
	[PATATT_CHANGED_HEADERS_OR_SIG] = "headers-or-signature",
};

static const char *const algo_names[] = {
	[PATATT_ED25519] = "ed25519",
	[PATATT_OPENPGP] = "openpgp",
	[PATATT_OPENSSH] = "openssh",
	[PATATT_ALGO_UNKNOWN] = "unknown",
};

static int	 read_file(const char *, char **, size_t *, struct pa_err *);
static void	 field(const char *);
static int	 judge(struct patatt *, struct mailmsg *, const char *, int);

/* field - print s as one field: "-" if empty, tabs and newlines blanked */
static void
field(const char *s)
{
	if (*s == '\0') {
		fputs("-", stdout);
		return;
	}
	for (; *s != '\0'; s++)
		putchar(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s);
}

/* read_file - the whole of path into a new buffer *buf (caller frees) */
static int
read_file(const char *path, char **buf, size_t *len, struct pa_err *err)
{
	FILE *f;
	char *p = NULL, *np;
	size_t n = 0, cap = 0, got;

	if ((f = fopen(path, "rb")) == NULL) {
		pa_err_set(err, "%s", strerror(errno));
		return -1;
	}
	for (;;) {
		if (cap - n < 65536) {
			if (cap >= MAX_MAIL) {
				pa_err_set(err, "larger than %zu bytes",
				    MAX_MAIL);
				goto fail;
			}
			cap = cap == 0 ? 65536 : cap * 2;
			if ((np = realloc(p, cap + 1)) == NULL) {
				pa_err_set(err, "%s", strerror(ENOMEM));
				goto fail;
			}
			p = np;
		}
		got = fread(p + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		pa_err_set(err, "read error");
		goto fail;
	}
	fclose(f);
	p[n] = '\0';
	*buf = p;
	*len = n;
	return 0;
fail:
	fclose(f);
	free(p);
	return -1;
}

/* judge - print the lines for one file; 0, or -1 if it was not judged */
static int
judge(struct patatt *pt, struct mailmsg *m, const char *path, int verbose)
{
	struct patatt_report r;
	struct pa_err err;
	const struct patatt_sig *s;
	const char *algo;
	char *raw = NULL;
	size_t len, k;
	int rc;

	err.msg[0] = '\0';
	mailmsg_reset(m);
	if (read_file(path, &raw, &len, &err) != 0)
		goto failed;
	if ((rc = mailmsg_parse(m, raw, len)) != 0) {
		pa_err_set(&err, "cannot parse: %s", pa_strerror(rc));
		goto failed;
	}
	memset(&r, 0, sizeof(r));
	if ((rc = patatt_check(pt, m, time(NULL), &r, &err)) != 0) {
		if (err.msg[0] == '\0')
			pa_err_set(&err, "%s", pa_strerror(rc));
		goto failed;
	}
	free(raw);
	if (r.n == 0) {
		printf("%s\t-\t-\tnosig\tno signatures found", path);
		if (verbose)
			fputs("\t0\t-\t-\t-\t-\t-", stdout);
		putchar('\n');
		return 0;
	}
	for (k = 0; k < r.n && k < PATATT_MAX_SIGS; k++) {
		s = &r.sig[k];
		printf("%s\t", path);
		field(s->identity);
		algo = (unsigned)s->algo <= PATATT_ALGO_UNKNOWN ?
		    algo_names[s->algo] : "unknown";
		printf("\t%s\t%s\t", algo, patatt_result_name(s->result));
		field(s->detail);
		if (verbose) {
			printf("\t%lld\t", (long long)s->signed_at);
			field(s->key);
			putchar('\t');
			field(s->keysrc);
			putchar('\t');
			field(s->offered);
			printf("\t%s\t", changed_names[s->changed]);
			field(s->signed_headers);
		}
		putchar('\n');
	}
	return 0;
failed:
	free(raw);
	printf("%s\t-\t-\tfailed\t", path);
	field(err.msg);
	if (verbose)
		fputs("\t0\t-\t-\t-\t-\t-", stdout);
	putchar('\n');
	return -1;
}

int
main(int argc, char **argv)
{
	char *keyrings[8];
	const char *home = NULL;
	struct patatt_keyring *kr;
	struct patatt *pt;
	struct mailmsg *m;
	struct pa_err err;
	size_t nkeyrings = 0;
	int c, i, verbose = 0, status = 0;

	while ((c = getopt(argc, argv, "vk:g:")) != -1)
		switch (c) {
		case 'v':
			verbose = 1;
			break;
		case 'k':
			if (nkeyrings == sizeof(keyrings) / sizeof(keyrings[0]))
				goto usage;
			keyrings[nkeyrings++] = optarg;
			break;
		case 'g':
			home = optarg;
			break;
		default:
			goto usage;
		}
	if (optind == argc)
		goto usage;
	err.msg[0] = '\0';
	/* GPGME's one-time set-up (pgp.h, which patatt.h includes) */
	if (pa_global_init(&err) != 0) {
		fprintf(stderr, "patatt-verify: %s\n", err.msg);
		return 1;
	}
	if (patatt_keyring_new(&kr, keyrings, nkeyrings, &err) != 0) {
		fprintf(stderr, "patatt-verify: %s\n", err.msg);
		return 1;
	}
	if (patatt_new(&pt, kr, home, &err) != 0) {
		fprintf(stderr, "patatt-verify: %s\n",
		    err.msg[0] ? err.msg : "cannot make a verifier");
		patatt_keyring_free(kr);
		return 1;
	}
	if (mailmsg_new(&m, MAX_MAIL) != 0) {
		fprintf(stderr, "patatt-verify: %s\n", strerror(ENOMEM));
		patatt_free(pt);
		patatt_keyring_free(kr);
		return 1;
	}
	for (i = optind; i < argc; i++)
		if (judge(pt, m, argv[i], verbose) != 0)
			status = 1;
	mailmsg_free(m);
	patatt_free(pt);
	patatt_keyring_free(kr);
	if (fflush(stdout) != 0)
		status = 1;
	return status;
usage:
	fprintf(stderr, "usage: patatt-verify [-v] [-k KEYRING]... "
	    "[-g GNUPGHOME] FILE...\n");
	return 2;
}
