/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bench-patatt - what verifying a patatt signature (X-Developer-Signature)
 * costs per message: ed25519, OpenPGP with a keyring folder the size of
 * the kernel's, and OpenPGP through GnuPG.
 *
 * usage: bench-patatt [-k] [-n CHECKS] [-p PGPCHECKS] [-g GPGCHECKS]
 *		       [-K KEYS] [-s SIGNERS] [-c CORPUS]... PATCH...
 *
 * In a temporary directory (removed afterwards, unless -k): an Ed25519
 * key filed in a patatt keyring folder, and KEYS (default 700) OpenPGP
 * keys made by one GnuPG run, each exported to the folder as the kernel's
 * .keyring files them (openpgp/example.org/devN/default).  Every PATCH is
 * signed with the Ed25519 key, and one PATCH per OpenPGP signer (the
 * first SIGNERS keys, default 64) with that signer's key, as patatt signs
 * (bench/patattsign.c).  Every signed message must verify before it is
 * timed.  Then, each patatt_check() call timed, in microseconds (p50,
 * p99, largest) and messages per second:
 *  - "ed25519": CHECKS (default 20,000) checks of the Ed25519 messages;
 *    "ed25519_raw": libsodium's verification of one digest alone, the
 *    floor under it;
 *  - "openpgp_first_use": the first check of each signer's message, which
 *    reads and parses the signer's key file;
 *  - "openpgp": PGPCHECKS (default 2,000) more, the key files parsed
 *    already (librnp, in this process); the aim is a p50 under 1 ms;
 *  - "openpgp_gnupg": GPGCHECKS (default 100) checks of the same messages
 *    by a verifier with no keyring folder, so that GnuPG's home serves
 *    (its keys exported by gpg once, then librnp in this process);
 *  - "crafted_*": what hostile OpenPGP signatures for a signer of the
 *    GnuPG home cost, CRAFTED (200) checks each: a BZip2 bomb of 1 GiB of
 *    zeros, ZIP and ZLIB bombs as large as fit the size cap, a packet of
 *    tag 60 before a good message, random bytes; then a mail with
 *    PATATT_MAX_SIGS BZip2 bombs (the most verified in one mail, the
 *    worst case per message) and one with one more (none verified);
 *  - with -c: CORPUS is a corpus directory (../shared/corpus/NAME): its
 *    ed25519 messages that patatt passed with CORPUS/patatt-keys, and its
 *    OpenPGP ones that patatt passed with the kernel's own key files
 *    (CORPUS/kernel-keyring), first use and again.
 * Each figure is one line "name value unit".
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gpgme.h>
#include <sodium.h>

#include "mail.h"
#include "sig.h"
#include "base.h"
#include "benchutil.h"
#include "patattsign.h"
#include "craftsig.h"

#define ED_ID		"bench@example.org"
#define ED_SELECTOR	"bench"
#define MAX_MAIL	((size_t)64 << 20)
#define MAX_PATCHES	64
#define MAX_SIGNERS	4096
#define MAX_CORPUS	4
#define MAX_CORPUS_MSGS	4096
#define ED_BUDGET_US	100.0
#define PGP_BUDGET_US	1000.0
#define CRAFTED		200

static unsigned long	 nchecks = 20000, npgp = 2000, ngpg = 100;
static unsigned long	 nkeys = 700, nsigners = 64;
static char		 tmp[] = "/tmp/bench-patatt.XXXXXX";

/* in_tmp - the path of NAME in the temporary folder */
static const char *
in_tmp(const char *name)
{
	static char buf[4][256];
	static int k;

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", tmp, name);
	return buf[k];
}

/* mkdirs - every folder of path */
static void
mkdirs(const char *path)
{
	char buf[512], *p;

	snprintf(buf, sizeof(buf), "%s", path);
	for (p = buf + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			if (mkdir(buf, 0755) != 0 && errno != EEXIST)
				bench_die(buf, strerror(errno));
			*p = '/';
		}
	if (mkdir(buf, 0755) != 0 && errno != EEXIST)
		bench_die(buf, strerror(errno));
}

/* ed_signer - a new Ed25519 key, its public half filed in keyring */
static void
ed_signer(struct signer *s, const char *keyring)
{
	struct sbuf path, val;

	memset(s, 0, sizeof(*s));
	s->algo = "ed25519";
	s->identity = ED_ID;
	s->selector = ED_SELECTOR;
	crypto_sign_keypair(s->ed_pk, s->ed_sk);
	sbuf_init(&path, SBUF_NOMAX);
	sbuf_init(&val, SBUF_NOMAX);
	patattsign_b64(&val, s->ed_pk, sizeof(s->ed_pk));
	snprintf(s->offer, sizeof(s->offer), "pk=%s", val.buf);
	sbuf_addch(&val, '\n');
	/* ed25519/<domain>/<local>/<selector> (§4.1) */
	sbuf_addf(&path, "%s/ed25519/example.org/bench", keyring);
	mkdirs(path.buf);
	sbuf_addstr(&path, "/" ED_SELECTOR);
	bench_write_file(path.buf, val.buf, val.len);
	sbuf_release(&path);
	sbuf_release(&val);
}

/*
 * pgp_keys - nkeys OpenPGP keys dev0..devN@example.org made in home by one
 * GnuPG run, each exported into keyring as the kernel files them
 */
static void
pgp_keys(const char *home, const char *keyring)
{
	char *gen[] = { "gpg", "--homedir", (char *)home, "--batch",
	    "--quiet", "--gen-key", NULL, NULL };
	char *exp[] = { "gpg", "--homedir", (char *)home, "--batch",
	    "--armor", "--export", NULL, NULL };
	char uid[64], dir[512], file[600];
	struct sbuf params;
	double t0 = bench_now();
	unsigned long k;

	sbuf_init(&params, SBUF_NOMAX);
	for (k = 0; k < nkeys; k++)
		sbuf_addf(&params, "%%no-protection\nKey-Type: eddsa\n"
		    "Key-Curve: ed25519\nKey-Usage: sign\nName-Real: Dev %lu\n"
		    "Name-Email: dev%lu@example.org\nExpire-Date: 0\n"
		    "%%commit\n", k, k);
	bench_write_file(in_tmp("params"), params.buf, params.len);
	sbuf_release(&params);
	gen[6] = (char *)in_tmp("params");
	if (bench_run(gen, NULL, NULL) != 0)
		bench_die("gpg --gen-key", "failed");
	for (k = 0; k < nkeys; k++) {
		snprintf(uid, sizeof(uid), "dev%lu@example.org", k);
		snprintf(dir, sizeof(dir), "%s/openpgp/example.org/dev%lu",
		    keyring, k);
		snprintf(file, sizeof(file), "%s/default", dir);
		mkdirs(dir);
		exp[6] = uid;
		if (bench_run(exp, NULL, file) != 0)
			bench_die(uid, "gpg --export failed");
	}
	printf("patatt_openpgp_keyring_files %lu keys (made and filed in "
	    "%.0f s)\n", nkeys, bench_now() - t0);
}

/* pgp_signer - a GPGME context in home signing as uid */
static void
pgp_signer(struct signer *s, const char *home, const char *uid)
{
	gpgme_error_t ge;
	gpgme_key_t key;

	memset(s, 0, sizeof(*s));
	s->algo = "openpgp";
	s->identity = uid;
	if ((ge = gpgme_new(&s->pgp)) != 0 ||
	    (ge = gpgme_ctx_set_engine_info(s->pgp, GPGME_PROTOCOL_OpenPGP,
	    NULL, home)) != 0 ||
	    (ge = gpgme_get_key(s->pgp, uid, &key, 1)) != 0 ||
	    (ge = gpgme_signers_add(s->pgp, key)) != 0)
		bench_die(uid, gpgme_strerror(ge));
	snprintf(s->offer, sizeof(s->offer), "fpr=%s", key->fpr);
	gpgme_key_unref(key);
	gpgme_set_armor(s->pgp, 0);
}

/* parse - raw as a new message, or die */
static struct mailmsg *
parse(const char *raw, size_t len, const char *what)
{
	struct mailmsg *m;

	if (mailmsg_new(&m, MAX_MAIL) != 0 ||
	    mailmsg_parse(m, raw, len) != 0)
		bench_die(what, "cannot parse it");
	return m;
}

/* valid - m has one signature, and it is VALID */
static int
valid(struct patatt *pt, struct mailmsg *m, const char *what)
{
	struct patatt_report r;
	struct pa_err err;

	if (patatt_check(pt, m, time(NULL), &r, &err) != 0)
		bench_die(what, err.msg);
	if (r.n == 1 && r.sig[0].result == PATATT_VALID)
		return 1;
	fprintf(bench_err, "bench-patatt: %s: %s: %s\n", what,
	    r.n ? patatt_result_name(r.sig[0].result) : "nosig",
	    r.n ? r.sig[0].detail : "no signature found");
	return 0;
}

/*
 * timed - n patatt_check() calls on msgs[0..nmsgs) in turn, each must be
 * one VALID signature; the figures as patatt_NAME_*, and whether the p50
 * and p99 are under budget (microseconds; 0: none); returns the p50
 */
static double
timed(struct patatt *pt, struct mailmsg **msgs, size_t nmsgs,
    unsigned long n, const char *name, double budget)
{
	struct patatt_report r;
	struct pa_err err;
	double *lat, t0, start, p50;
	unsigned long k;
	char prefix[64];

	if ((lat = calloc(n, sizeof(*lat))) == NULL)
		bench_die("timing", strerror(ENOMEM));
	start = bench_now();
	for (k = 0; k < n; k++) {
		t0 = bench_now();
		if (patatt_check(pt, msgs[k % nmsgs], time(NULL), &r,
		    &err) != 0)
			bench_die(name, err.msg);
		lat[k] = bench_now() - t0;
		if (r.n != 1 || r.sig[0].result != PATATT_VALID)
			bench_die(name, r.n ? r.sig[0].detail : "no signature");
	}
	t0 = bench_now() - start;
	printf("patatt_%s_messages %zu distinct\n", name, nmsgs);
	printf("patatt_%s_count %lu verifications\n", name, n);
	snprintf(prefix, sizeof(prefix), "patatt_%s", name);
	bench_latencies(prefix, lat, n);
	printf("patatt_%s_rate %.0f messages/s\n", name, (double)n / t0);
	if (budget > 0) {
		printf("patatt_%s_p50_under_%.0fus %s\n", name, budget,
		    lat[n / 2] * 1e6 < budget ? "yes" : "NO");
		printf("patatt_%s_p99_under_%.0fus %s\n", name, budget,
		    lat[n * 99 / 100] * 1e6 < budget ? "yes" : "NO");
	}
	p50 = lat[n / 2];
	free(lat);
	return p50;
}

/* raw_ed25519 - libsodium's verification of one digest, n times */
static double
raw_ed25519(const struct signer *s, unsigned long n)
{
	unsigned char d[32], sig[64];
	double *lat, t0, p50;
	unsigned long k;

	memset(d, 0x5a, sizeof(d));
	if ((lat = calloc(n, sizeof(*lat))) == NULL ||
	    crypto_sign_detached(sig, NULL, d, sizeof(d), s->ed_sk) != 0)
		bench_die("Ed25519", "libsodium cannot sign");
	for (k = 0; k < n; k++) {
		t0 = bench_now();
		if (crypto_sign_verify_detached(sig, d, sizeof(d),
		    s->ed_pk) != 0)
			bench_die("Ed25519", "libsodium cannot verify");
		lat[k] = bench_now() - t0;
	}
	bench_latencies("ed25519_raw_verify", lat, n);
	p50 = lat[n / 2];
	free(lat);
	return p50;
}

/* next_field - the next tab-separated field of a line, NUL-terminated */
static char *
next_field(char **p)
{
	char *f = *p, *t;

	if (f == NULL)
		return NULL;
	if ((t = strchr(f, '\t')) != NULL) {
		*t = '\0';
		*p = t + 1;
	} else
		*p = NULL;
	return f;
}

/*
 * corpus_run - the messages of dir that patatt passed by algorithm algo
 * (TSV: name, identity, algorithm, result, ...) with the keyring folder
 * ring, timed as NAME; for OpenPGP the first check of each is timed
 * apart (NAME_first_use)
 */
static void
corpus_run(const char *dir, const char *tsv_name, const char *ring,
    const char *algo, const char *name, double budget)
{
	static struct mailmsg *msgs[MAX_CORPUS_MSGS];
	struct sbuf tsv, path, raw;
	struct patatt_keyring *kr;
	struct patatt *pt;
	struct pa_err err;
	char *line, *next, *p, *file, *alg, *result, label[64];
	double *first, t0;
	size_t n = 0, notvalid = 0, bytes = 0, k;

	sbuf_init(&tsv, MAX_MAIL);
	sbuf_init(&path, SBUF_NOMAX);
	sbuf_init(&raw, MAX_MAIL);
	sbuf_addf(&path, "%s/%s", dir, tsv_name);
	if (access(path.buf, R_OK) != 0) {
		printf("patatt_%s none (no %s)\n", name, path.buf);
		goto out;
	}
	bench_read_file(path.buf, &tsv);
	sbuf_reset(&path);
	sbuf_addf(&path, "%s/%s", dir, ring);
	if (patatt_keyring_new(&kr, &path.buf, 1, &err) != 0 ||
	    patatt_new(&pt, kr, in_tmp("gnupg-empty"), &err) != 0)
		bench_die(path.buf, err.msg);
	if ((first = calloc(MAX_CORPUS_MSGS, sizeof(*first))) == NULL)
		bench_die("timing", strerror(ENOMEM));
	for (line = tsv.buf; line != NULL && *line != '\0'; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		p = line;
		file = next_field(&p);
		(void)next_field(&p);
		alg = next_field(&p);
		result = next_field(&p);
		if (result == NULL || strcmp(alg, algo) != 0 ||
		    strcmp(result, "PASS") != 0 || n == MAX_CORPUS_MSGS)
			continue;
		sbuf_reset(&path);
		sbuf_addf(&path, "%s/%s", dir, file);
		sbuf_reset(&raw);
		bench_read_file(path.buf, &raw);
		msgs[n] = parse(raw.buf, raw.len, path.buf);
		t0 = bench_now();
		if (!valid(pt, msgs[n], path.buf)) {
			notvalid++;	/* the tests say why */
			mailmsg_free(msgs[n]);
			continue;
		}
		first[n] = bench_now() - t0;
		bytes += raw.len;
		n++;
	}
	printf("patatt_%s_not_valid %zu messages_patatt_passed\n", name,
	    notvalid);
	if (n > 0) {
		printf("patatt_%s_mean_size %zu bytes\n", name, bytes / n);
		if (strcmp(algo, "openpgp-sha256") == 0) {
			snprintf(label, sizeof(label), "patatt_%s_first_use",
			    name);
			bench_latencies(label, first, n);
		}
		(void)timed(pt, msgs, n, nchecks / 10 + n, name, budget);
	}
	for (k = 0; k < n; k++)
		mailmsg_free(msgs[k]);
	free(first);
	patatt_free(pt);
	patatt_keyring_free(kr);
out:
	sbuf_release(&tsv);
	sbuf_release(&path);
	sbuf_release(&raw);
}

/* openpgp - the signers' messages: first use, again, and through GnuPG */
static void
openpgp(struct patatt_keyring *kr, struct mailmsg **msgs, size_t n,
    const char *home)
{
	struct patatt *pt, *gnupg;
	struct pa_err err;
	double *first, t0;
	size_t k;

	if (patatt_new(&pt, kr, in_tmp("gnupg-empty"), &err) != 0 ||
	    patatt_new(&gnupg, NULL, home, &err) != 0)
		bench_die("patatt_new", err.msg);
	if ((first = calloc(n, sizeof(*first))) == NULL)
		bench_die("timing", strerror(ENOMEM));
	for (k = 0; k < n; k++) {
		t0 = bench_now();
		if (!valid(pt, msgs[k], "an OpenPGP signed patch"))
			exit(1);
		first[k] = bench_now() - t0;
	}
	printf("patatt_openpgp_signers %zu of the keyring's %lu\n", n, nkeys);
	bench_latencies("patatt_openpgp_first_use", first, n);
	(void)timed(pt, msgs, n, npgp, "openpgp", PGP_BUDGET_US);
	(void)timed(gnupg, msgs, n, ngpg, "openpgp_gnupg", 0);
	free(first);
	patatt_free(pt);
	patatt_free(gnupg);
}

/*
 * crafted_timed - CRAFTED checks of m, each nsigs signatures all judged
 * want; the figures as patatt_crafted_NAME_*
 */
static void
crafted_timed(struct patatt *pt, struct mailmsg *m, const char *name,
    size_t nsigs, enum patatt_result want)
{
	struct patatt_report r;
	struct pa_err err;
	double lat[CRAFTED], t0;
	char prefix[64];
	size_t k, i;

	for (k = 0; k < CRAFTED; k++) {
		t0 = bench_now();
		if (patatt_check(pt, m, time(NULL), &r, &err) != 0)
			bench_die(name, err.msg);
		lat[k] = bench_now() - t0;
		for (i = 0; i < r.n; i++)
			if (r.sig[i].result != want)
				bench_die(name, r.sig[i].detail);
		if (r.n != nsigs)
			bench_die(name, "not every signature judged");
	}
	printf("patatt_crafted_%s_why %s\n", name, r.sig[0].detail);
	snprintf(prefix, sizeof(prefix), "patatt_crafted_%s", name);
	bench_latencies(prefix, lat, CRAFTED);
}

/* crafted - hostile signatures in mail signed by signer 0 (good) */
static void
crafted(const char *home, struct mailmsg *good)
{
	static const struct {
		enum craft	 kind;
		const char	*name;
	} kinds[] = {
		{ CRAFT_BZIP2, "bzip2_1gib" }, { CRAFT_ZIP, "zip" },
		{ CRAFT_ZLIB, "zlib" }, { CRAFT_TAG60, "tag60" },
		{ CRAFT_RANDOM, "random" },
	};
	struct sbuf mail, raw, many;
	struct mailmsg *m;
	struct patatt *pt;
	struct pa_err err;
	const char *text;
	size_t k, len;

	if (patatt_new(&pt, NULL, home, &err) != 0)
		bench_die("patatt_new", err.msg);
	if (!valid(pt, good, "the good OpenPGP message"))
		exit(1);
	text = mailmsg_text(good, &len);
	sbuf_init(&mail, MAX_MAIL);
	sbuf_init(&raw, MAX_MAIL);
	sbuf_init(&many, MAX_MAIL);
	sbuf_add(&mail, text, len);
	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		craftsig_mail(&mail, kinds[k].kind, &raw);
		m = parse(raw.buf, raw.len, kinds[k].name);
		crafted_timed(pt, m, kinds[k].name, 1, PATATT_BADSIG);
		mailmsg_free(m);
	}
	craftsig_mail(&mail, CRAFT_BZIP2, &raw);
	craftsig_repeat(&raw, PATATT_MAX_SIGS, &many);
	m = parse(many.buf, many.len, "the most bombs");
	crafted_timed(pt, m, "max_sigs_bzip2", PATATT_MAX_SIGS, PATATT_BADSIG);
	mailmsg_free(m);
	craftsig_repeat(&raw, PATATT_MAX_SIGS + 1, &many);
	m = parse(many.buf, many.len, "one bomb more");
	crafted_timed(pt, m, "over_max_sigs", PATATT_MAX_SIGS, PATATT_ERROR);
	mailmsg_free(m);
	sbuf_release(&mail);
	sbuf_release(&raw);
	sbuf_release(&many);
	patatt_free(pt);
}

/*
 * sign_patches - nout messages: the patches in turn, CRLF made LF (as
 * patatt 0.6 does), signed by the signers in turn; the mean size
 */
static size_t
sign_patches(char **files, size_t nfiles, const struct signer *s,
    size_t nsig, struct mailmsg **out, size_t nout)
{
	struct sbuf raw, lf, signed_;
	size_t k, i, bytes = 0;

	sbuf_init(&raw, MAX_MAIL);
	sbuf_init(&lf, MAX_MAIL);
	sbuf_init(&signed_, MAX_MAIL);
	for (k = 0; k < nout; k++) {
		sbuf_reset(&raw);
		sbuf_reset(&lf);
		sbuf_reset(&signed_);
		bench_read_file(files[k % nfiles], &raw);
		for (i = 0; i < raw.len; i++)
			if (!(raw.buf[i] == '\r' && i + 1 < raw.len &&
			    raw.buf[i + 1] == '\n'))
				sbuf_addch(&lf, raw.buf[i]);
		bytes += lf.len;
		patattsign_message(&s[k % nsig], tmp, lf.buf, lf.len,
		    &signed_);
		out[k] = parse(signed_.buf, signed_.len, files[k % nfiles]);
	}
	sbuf_release(&raw);
	sbuf_release(&lf);
	sbuf_release(&signed_);
	return bytes / nout;
}

int
main(int argc, char **argv)
{
	static struct mailmsg *ed[MAX_PATCHES], *pg[MAX_SIGNERS];
	static struct signer ps[MAX_SIGNERS];
	static char uid[MAX_SIGNERS][32];
	const char *corpora[MAX_CORPUS];
	char keyring[64], home[64];
	char *killargv[] = { "gpgconf", "--homedir", home, "--kill", "all",
	    NULL };
	struct signer es;
	struct patatt_keyring *kr;
	struct patatt *pt;
	struct pa_err err;
	size_t ncorpora = 0, npatches, k;
	double p50;
	int c, keep = 0;

	bench_name = "bench-patatt";
	bench_quiet();
	while ((c = getopt(argc, argv, "kn:p:g:K:s:c:")) != -1)
		switch (c) {
		case 'k':
			keep = 1;
			break;
		case 'n':
			nchecks = bench_getnum(optarg, 1, 100000000);
			break;
		case 'p':
			npgp = bench_getnum(optarg, 1, 100000000);
			break;
		case 'g':
			ngpg = bench_getnum(optarg, 1, 1000000);
			break;
		case 'K':
			nkeys = bench_getnum(optarg, 1, 100000);
			break;
		case 's':
			nsigners = bench_getnum(optarg, 1, MAX_SIGNERS);
			break;
		case 'c':
			if (ncorpora == MAX_CORPUS)
				bench_die(optarg, "too many corpora");
			corpora[ncorpora++] = optarg;
			break;
		default:
			goto usage;
		}
	npatches = (size_t)(argc - optind);
	if (npatches == 0 || npatches > MAX_PATCHES)
		goto usage;
	if (nsigners > nkeys)
		nsigners = nkeys;

	if (mkdtemp(tmp) == NULL)
		bench_die("mkdtemp", strerror(errno));
	snprintf(home, sizeof(home), "%s/gnupg", tmp);
	snprintf(keyring, sizeof(keyring), "%s/keyring", tmp);
	if (mkdir(home, 0700) != 0 || mkdir(in_tmp("gnupg-empty"), 0700) != 0)
		bench_die(home, strerror(errno));
	if (pa_global_init(&err) != 0)
		bench_die("set-up", err.msg);
	ed_signer(&es, keyring);
	pgp_keys(home, keyring);
	for (k = 0; k < nsigners; k++) {
		snprintf(uid[k], sizeof(uid[k]), "dev%zu@example.org", k);
		pgp_signer(&ps[k], home, uid[k]);
	}

	printf("patatt_patch_mean_size %zu bytes\n", sign_patches(argv +
	    optind, npatches, &es, 1, ed, npatches));
	(void)sign_patches(argv + optind, npatches, ps, nsigners, pg,
	    nsigners);

	if (patatt_keyring_new(&kr, (char *[]){ keyring }, 1, &err) != 0 ||
	    patatt_new(&pt, kr, home, &err) != 0)
		bench_die("patatt_new", err.msg);
	for (k = 0; k < npatches; k++)
		if (!valid(pt, ed[k], argv[optind + k]))
			exit(1);
	p50 = timed(pt, ed, npatches, nchecks, "ed25519", ED_BUDGET_US);
	/* what is left when libsodium's share is taken out */
	printf("patatt_ed25519_beyond_raw_p50 %.1f us\n",
	    (p50 - raw_ed25519(&es, nchecks)) * 1e6);
	patatt_free(pt);
	openpgp(kr, pg, nsigners, home);
	crafted(home, pg[0]);
	patatt_keyring_free(kr);

	for (k = 0; k < ncorpora; k++) {
		printf("corpus %s\n", corpora[k]);
		corpus_run(corpora[k], "patatt-expected.tsv", "patatt-keys",
		    "ed25519-sha256", "corpus_ed25519", ED_BUDGET_US);
		corpus_run(corpora[k], "patatt-expected-kernel.tsv",
		    "kernel-keyring", "openpgp-sha256", "corpus_openpgp",
		    PGP_BUDGET_US);
	}

	for (k = 0; k < npatches; k++)
		mailmsg_free(ed[k]);
	for (k = 0; k < nsigners; k++) {
		mailmsg_free(pg[k]);
		gpgme_release(ps[k].pgp);
	}
	(void)bench_run(killargv, NULL, NULL);
	if (keep)
		printf("kept %s\n", tmp);
	else if (bench_rmtree(tmp) != 0)
		bench_die(tmp, strerror(errno));
	return 0;
usage:
	fprintf(bench_err, "usage: bench-patatt [-k] [-n CHECKS] [-p PGPCHECKS] "
	    "[-g GPGCHECKS] [-K KEYS] [-s SIGNERS] [-c CORPUS]... PATCH...\n");
	return 2;
}
