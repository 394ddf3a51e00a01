/*
 * t-patatt-corpus - our patatt verdicts against the real tool's on the
 * signed messages of the corpus (CORPUS/linux-leds/patatt-expected.tsv:
 * Debian's patatt 0.6.3, clock at 2026-12-03).
 *
 * Keys: the keyring directory CORPUS/linux-leds/patatt-keys (ed25519
 * keys are files there, so patatt's PASS is our VALID, not OFFERED), and
 * for OpenPGP a GnuPG home made for this run into which every
 * openpgp/... key file of that keyring is imported through GPGME.
 *
 * Every ed25519 row must agree.  On openpgp rows patatt's BADSIG with
 * EXPKEYSIG in its detail (a good signature by a key expired since) is
 * our KEY_EXPIRED; any other difference fails the test, except a PASS
 * that is KEY_EXPIRED here: the clock has moved past a key's expiry
 * since the verdicts were taken, and a diagnostic says so.
 *
 * CORPUS is $PATCHATTEST_CORPUS, else $srcdir/../shared/corpus; without
 * it the test skips and says so.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "patchattest.h"
#include "patatt.h"
#include "pgp.h"
#include "tap.h"

#define MAX_MESSAGE	(64u << 20)

struct tally {
	unsigned	rows, ed_rows, ed_agree, pgp_rows, pgp_agree;
	unsigned	expkeysig, clock, bad;
};

static char home[64];
static struct pgp *imp;
static unsigned imported, key_files;

static void
kill_agent(void)
{
	pid_t pid;
	int st, fd;

	fflush(stdout);
	if ((pid = fork()) == 0) {
		if ((fd = open("/dev/null", O_RDWR)) >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execlp("gpgconf", "gpgconf", "--homedir", home, "--kill", "all",
		    (char *)NULL);
		_exit(127);
	}
	if (pid > 0)
		waitpid(pid, &st, 0);
}

static void
cleanup(void)
{
	pgp_free(imp);
	imp = NULL;
	if (home[0]) {
		kill_agent();
		tap_rmtree(home);
	}
}

/* import_key - one key file into the home, through GPGME */
static int
import_key(const char *path, const struct stat *sb, int flag,
    struct FTW *ftw)
{
	struct pa_err err;
	unsigned n;
	size_t len;
	char *data;

	(void)sb;
	(void)ftw;
	if (flag != FTW_F)
		return 0;
	key_files++;
	if ((data = tap_read_file(path, &len)) == NULL)
		return 0;
	if (pgp_import(imp, data, len, &n, &err) == 0)
		imported++;
	else
		tap_diag("import %s: %s", path, err.msg);
	free(data);
	return 0;
}

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

/* want_of - patatt's word as our result */
static enum patatt_result
want_of(const char *result, const char *detail)
{
	if (strcmp(result, "PASS") == 0)
		return PATATT_VALID;
	if (strcmp(result, "NOKEY") == 0)
		return PATATT_NOKEY;
	if (strcmp(result, "BADSIG") == 0)
		return strstr(detail, "EXPKEYSIG") ? PATATT_KEY_EXPIRED :
		    PATATT_BADSIG;
	return PATATT_ERROR;
}

static void
check_row(const char *dir, char **col, struct patatt *pt,
    struct mailmsg *m, struct tally *t)
{
	struct patatt_report r;
	struct pa_err err;
	enum patatt_result want;
	const struct patatt_sig *s;
	char path[8192];
	char *raw;
	size_t len;
	int ed = strncmp(col[2], "ed25519", 7) == 0, agree;

	t->rows++;
	if (ed)
		t->ed_rows++;
	else
		t->pgp_rows++;
	want = want_of(col[3], col[4]);
	if (want == PATATT_KEY_EXPIRED)
		t->expkeysig++;
	snprintf(path, sizeof(path), "%s/%s", dir, col[0]);
	if ((raw = tap_read_file(path, &len)) == NULL) {
		tap_ok(0, "%s: cannot read", col[0]);
		t->bad++;
		return;
	}
	if (mailmsg_parse(m, raw, len) != 0 ||
	    patatt_check(pt, m, &r, &err) != 0 || r.n != 1) {
		free(raw);
		tap_ok(0, "%s: judged (%s)", col[0], err.msg);
		t->bad++;
		return;
	}
	free(raw);
	s = &r.sig[0];
	agree = s->result == want && strcmp(s->identity, col[1]) == 0;
	if (agree) {
		if (ed)
			t->ed_agree++;
		else
			t->pgp_agree++;
		return;
	}
	if (!ed && want == PATATT_VALID && s->result == PATATT_KEY_EXPIRED) {
		/* The key was valid when the verdicts were taken. */
		t->clock++;
		tap_diag("%s: patatt PASS, now key-expired: %s", col[0],
		    s->detail);
		return;
	}
	t->bad++;
	tap_ok(0, "%s (%s, %s): patatt %s, we %s", col[0], col[1], col[2],
	    col[3], patatt_result_name(s->result));
	tap_diag("  ours: %s %s", s->identity, s->detail);
	tap_diag("  patatt: %s", col[4]);
}

int
main(void)
{
	struct tally t;
	struct patatt *pt;
	struct mailmsg *m;
	struct pa_err err;
	struct stat st;
	const char *corpus = getenv("PATCHATTEST_CORPUS"), *tmp;
	char dir[4096], path[8192], *tsv, *line, *next, *col[8];
	size_t len;

	if (corpus && *corpus)
		snprintf(dir, sizeof(dir), "%s/linux-leds", corpus);
	else
		snprintf(dir, sizeof(dir), "%s/../shared/corpus/linux-leds",
		    tap_srcdir());
	snprintf(path, sizeof(path), "%s/patatt-expected.tsv", dir);
	if (stat(path, &st) != 0)
		tap_skip_all("no corpus: %s not found (set PATCHATTEST_CORPUS "
		    "to the folder that holds linux-leds/)", path);
	if (pa_global_init(&err) != 0)
		tap_skip_all("GnuPG not usable: %s", err.msg);
	/* Agent sockets live in the home: keep the path short. */
	tmp = getenv("TMPDIR");
	snprintf(home, sizeof(home), "%s/t-pcorp.XXXXXX",
	    tmp && tmp[0] && strlen(tmp) < 40 ? tmp : "/tmp");
	if (mkdtemp(home) == NULL)
		tap_skip_all("cannot make a temporary GnuPG home");
	atexit(cleanup);
	if ((imp = pgp_new(home, TRUST_GPG, &err)) == NULL)
		tap_skip_all("GnuPG home: %s", err.msg);
	snprintf(path, sizeof(path), "%s/patatt-keys/openpgp", dir);
	nftw(path, import_key, 16, FTW_PHYS);
	tap_ok(key_files > 0 && imported == key_files, "OpenPGP key files "
	    "imported into a new GnuPG home: %u of %u", imported, key_files);

	snprintf(path, sizeof(path), "%s/patatt-keys", dir);
	if ((pt = patatt_new(path, home, &err)) == NULL) {
		tap_ok(0, "patatt_new: %s", err.msg);
		return tap_done();
	}
	m = mailmsg_new(MAX_MESSAGE);
	snprintf(path, sizeof(path), "%s/patatt-expected.tsv", dir);
	if (m == NULL || (tsv = tap_read_file(path, &len)) == NULL) {
		tap_ok(0, "read %s", path);
		return tap_done();
	}
	memset(&t, 0, sizeof(t));
	for (line = tsv; line && *line; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		if (line == tsv || split_tabs(line, col, 8) < 5)
			continue;	/* the column names */
		check_row(dir, col, pt, m, &t);
	}
	free(tsv);
	mailmsg_free(m);
	patatt_free(pt);

	printf("# rows: %u (ed25519 %u, openpgp %u)\n", t.rows, t.ed_rows,
	    t.pgp_rows);
	printf("# ed25519: %u of %u agree\n", t.ed_agree, t.ed_rows);
	printf("# openpgp: %u of %u agree (%u EXPKEYSIG BADSIGs read as "
	    "key-expired), %u expired since\n", t.pgp_agree, t.pgp_rows,
	    t.expkeysig, t.clock);
	tap_ok(t.rows > 0, "corpus rows read: %u", t.rows);
	tap_check_int(t.ed_agree, t.ed_rows, "every ed25519 row agrees");
	tap_check_int(t.pgp_agree + t.clock, t.pgp_rows,
	    "every openpgp row agrees (EXPKEYSIG as key-expired)");
	tap_check_int(t.bad, 0, "no disagreement");
	return tap_done();
}
