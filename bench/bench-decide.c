/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bench-decide - what GnuPG costs when documents are indexed, and how long
 * the decision on one patch takes once they are.
 *
 * usage: bench-decide [-k] [-d DOCS] [-t TRIPLES] [-n DECISIONS] PATCH
 *
 * In a temporary directory (removed afterwards, unless -k): a GnuPG home
 * with a new ed25519 key (made through GPGME, no passphrase), DOCS
 * (default 300) attestation mails signed with it, each attesting TRIPLES
 * (default 10) synthetic patches, the first one also the real PATCH.
 * Then:
 *  - "index": the mails go through indexer_message() into a new index,
 *    as an archive's entries would; documents per second;
 *  - "gnupg": pgp_verify() alone on the same documents: its share of the
 *    indexing time;
 *  - "decide": DECISIONS (default 20,000) calls of decide() on PATCH (a
 *    pass, the key's validity from the cache) and on a copy with another
 *    subject (none: no document has its ID, nor its author line), each
 *    timed: p50, p99 and the largest, in microseconds.
 * Each figure is one line "name value unit".
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gpgme.h>

#include "attest.h"
#include "verdict.h"
#include "base.h"
#include "patchattest.h"
#include "sig.h"
#include "benchutil.h"

#define BENCH_UID	"Bench Developer <bench@example.org>"
#define MAX_TRIPLES	1000
#define COMMIT_EVERY	256
#define MAX_MAIL	((size_t)64 << 20)

static unsigned long	 ndocs = 300, ntriples = 10, ndecisions = 20000;

/* make_key - a signing key in home, through GPGME as a user's gpg would */
static void
make_key(const char *home)
{
	gpgme_ctx_t ctx;
	gpgme_error_t ge;

	if ((ge = gpgme_new(&ctx)) != 0 ||
	    (ge = gpgme_ctx_set_engine_info(ctx, GPGME_PROTOCOL_OpenPGP, NULL,
	    home)) != 0 ||
	    (ge = gpgme_op_createkey(ctx, BENCH_UID, "ed25519", 0, 0, NULL,
	    GPGME_CREATE_SIGN | GPGME_CREATE_NOPASSWD |
	    GPGME_CREATE_NOEXPIRE)) != 0)
		bench_die("making a GnuPG key", gpgme_strerror(ge));
	gpgme_release(ctx);
}

/* synth - a deterministic pseudo-random triple for serial number k */
static void
synth(struct msghash_entry *e, uint64_t k)
{
	unsigned char seed[8];
	char hex[3 * 2 * 4 + 3];
	int b;

	for (b = 0; b < 8; b++)
		seed[b] = (unsigned char)(k >> (8 * b));
	digest_sha256(e->i, seed, sizeof(seed));
	digest_sha256(e->m, e->i, sizeof(e->i));
	digest_sha256(e->p, e->m, sizeof(e->m));
	snprintf(hex, sizeof(hex), "%02x%02x%02x%02x-%02x%02x%02x%02x-"
	    "%02x%02x%02x%02x", e->i[0], e->i[1], e->i[2], e->i[3], e->m[0],
	    e->m[1], e->m[2], e->m[3], e->p[0], e->p[1], e->p[2], e->p[3]);
	memcpy(e->attid, hex, MSGHASH_ATTID_LEN + 1);
	e->origin = 0;
}

/*
 * make_docs - ndocs attestation mails, each in its own sbuf of mails[];
 * the first attests the real patch too.
 */
static void
make_docs(struct pgp *pgp, const struct msghash_entry *real,
    struct sbuf *mails, struct sbuf *docs)
{
	static const char *const comments[] = {
		"att-fmt-ver: " ATTDOC_FMT_VERSION, "att-hash: sha256", NULL
	};
	static struct msghash_entry e[MAX_TRIPLES + 1];
	struct sbuf payload;
	struct pa_err err;
	unsigned long k, t;
	size_t n;

	sbuf_init(&payload, SBUF_NOMAX);
	for (k = 0; k < ndocs; k++) {
		n = 0;
		if (k == 0)
			e[n++] = *real;
		for (t = 0; t < ntriples; t++)
			synth(&e[n++], (uint64_t)k * ntriples + t);
		sbuf_reset(&payload);
		sbuf_init(&docs[k], SBUF_NOMAX);
		sbuf_init(&mails[k], SBUF_NOMAX);
		if (attdoc_payload(&payload, e, n) != 0 ||
		    pgp_clearsign(pgp, NULL, payload.buf, payload.len,
		    comments, &docs[k], &err) != 0 ||
		    attdoc_mail(&mails[k], NULL, NULL, NULL, docs[k].buf,
		    docs[k].len) != 0)
			bench_die("signing a document", err.msg);
	}
	sbuf_release(&payload);
}

static void
index_docs(const char *dir, struct pgp *pgp, struct sbuf *mails)
{
	struct indexer_stats st;
	struct attindex *h;
	struct pa_err err;
	unsigned long k;
	double t0, t1;

	memset(&st, 0, sizeof(st));
	if (attindex_open(&h, dir, 1, &err) != 0)
		bench_die(dir, err.msg);
	t0 = bench_now();
	for (k = 0; k < ndocs; k++) {
		if (k % COMMIT_EVERY == 0 && attindex_begin(h, &err) != 0)
			bench_die("index", err.msg);
		if (indexer_message(h, pgp, mails[k].buf, mails[k].len,
		    "bench", &st, NULL, &err) != 0)
			bench_die("index", err.msg);
		if ((k + 1) % COMMIT_EVERY == 0 || k + 1 == ndocs)
			if (attindex_commit(h, &err) != 0)
				bench_die("index", err.msg);
	}
	t1 = bench_now();
	attindex_close(h);
	if (st.verified != ndocs)
		bench_die("index", "a document did not verify");
	printf("index_documents %lu documents_of_%lu_attestations\n", ndocs,
	    ntriples);
	printf("index_rate %.0f documents/s\n", (double)ndocs / (t1 - t0));
	printf("index_time %.3f s\n", t1 - t0);
}

static void
verify_docs(struct pgp *pgp, struct sbuf *docs, double indexed)
{
	struct pgp_sig sig;
	struct sbuf plain;
	struct pa_err err;
	unsigned long k;
	double t0, t1;

	sbuf_init(&plain, SBUF_NOMAX);
	t0 = bench_now();
	for (k = 0; k < ndocs; k++)
		if (pgp_verify(pgp, docs[k].buf, docs[k].len, &sig, &plain,
		    &err) != 0 || sig.status != PGP_SIG_GOOD)
			bench_die("verify", err.msg);
	t1 = bench_now();
	sbuf_release(&plain);
	printf("gnupg_rate %.0f verifications/s\n", (double)ndocs /
	    (t1 - t0));
	printf("gnupg_share %.1f %%_of_index_time\n", 100 * (t1 - t0) /
	    indexed);
}

/* time_decisions - ndecisions decisions on msg; each must be want */
static void
time_decisions(struct decider *dc, struct attindex *ix,
    const struct mailmsg *msg, enum verdict want, const char *name)
{
	struct decision d;
	double *lat, t0;
	unsigned long k;
	char prefix[64];

	if ((lat = calloc(ndecisions, sizeof(*lat))) == NULL)
		bench_die("decide", strerror(errno));
	for (k = 0; k < ndecisions; k++) {
		t0 = bench_now();
		if (decide(dc, msg, ix, time(NULL), &d) != 0)
			bench_die("decide", "the patch is not patch mail");
		lat[k] = bench_now() - t0;
		if (d.result != want)
			bench_die(name, d.reason[0] ? d.reason :
			    verdict_name(d.result));
	}
	snprintf(prefix, sizeof(prefix), "decide_%s", name);
	bench_latencies(prefix, lat, ndecisions);
	free(lat);
}

static void
decisions(struct pa_config *cf, const char *raw, size_t len)
{
	struct mailmsg *pass, *none;
	struct decider *dc;
	struct attindex *h;
	struct pa_err err;
	struct sbuf other;
	const char *subj;

	sbuf_init(&other, SBUF_NOMAX);
	if ((subj = strstr(raw, "\nSubject: ")) == NULL)
		bench_die("the patch", "no Subject header");
	subj += strlen("\nSubject: ");
	sbuf_add(&other, raw, (size_t)(subj - raw));
	sbuf_addstr(&other, "[PATCH] an unattested subject ");
	sbuf_add(&other, subj, len - (size_t)(subj - raw));
	if (mailmsg_new(&pass, MAX_MAIL) != 0 ||
	    mailmsg_new(&none, MAX_MAIL) != 0)
		bench_die("decide", strerror(ENOMEM));
	if (mailmsg_parse(pass, raw, len) != 0 ||
	    mailmsg_parse(none, other.buf, other.len) != 0)
		bench_die("the patch", "it cannot be parsed");
	if (attindex_open(&h, cf->index_path, 0, &err) != 0 ||
	    decider_new(&dc, cf, NULL, &err) != 0)
		bench_die("decide", err.msg);
	printf("decide_count %lu decisions\n", ndecisions);
	time_decisions(dc, h, pass, VERDICT_PASS, "pass");
	time_decisions(dc, h, none, VERDICT_NONE, "none");
	decider_free(dc);
	attindex_close(h);
	mailmsg_free(pass);
	mailmsg_free(none);
	sbuf_release(&other);
}

static char *
read_file(const char *path, size_t *len)
{
	FILE *f;
	char *buf;
	long n;

	if ((f = fopen(path, "rb")) == NULL || fseek(f, 0, SEEK_END) != 0 ||
	    (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0 ||
	    (buf = malloc((size_t)n + 1)) == NULL ||
	    fread(buf, 1, (size_t)n, f) != (size_t)n)
		bench_die(path, strerror(errno));
	fclose(f);
	buf[n] = '\0';
	*len = (size_t)n;
	return buf;
}

int
main(int argc, char **argv)
{
	struct msghash_entry real;
	struct sbuf *mails, *docs;
	struct pa_config cf;
	struct msghash hs;
	struct mailmsg *m;
	struct pa_err err;
	struct pgp *pgp;
	char tmp[] = "/tmp/bench-decide.XXXXXX", home[64], index[64];
	char *raw;
	size_t len;
	unsigned long k;
	double t0, t1;
	int c, keep = 0;

	bench_name = "bench-decide";
	while ((c = getopt(argc, argv, "kd:t:n:")) != -1)
		switch (c) {
		case 'k':
			keep = 1;
			break;
		case 'd':
			ndocs = bench_getnum(optarg, 1, 1000000);
			break;
		case 't':
			ntriples = bench_getnum(optarg, 1, MAX_TRIPLES);
			break;
		case 'n':
			ndecisions = bench_getnum(optarg, 1, 100000000);
			break;
		default:
			goto usage;
		}
	if (argc - optind != 1)
		goto usage;
	raw = read_file(argv[optind], &len);
	msghash_init(&hs);
	if (mailmsg_new(&m, MAX_MAIL) != 0 ||
	    mailmsg_parse(m, raw, len) != 0 || msghash_compute(&hs, m, 0, &err) != 0)
		bench_die(argv[optind], "not a patch");
	real = hs.entry[0];
	msghash_release(&hs);
	mailmsg_free(m);

	if (mkdtemp(tmp) == NULL)
		bench_die("mkdtemp", strerror(errno));
	snprintf(home, sizeof(home), "%s/gnupg", tmp);
	snprintf(index, sizeof(index), "%s/index", tmp);
	if (mkdir(home, 0700) != 0)
		bench_die(home, strerror(errno));
	if (pa_global_init(&err) != 0)
		bench_die("GPGME", err.msg);
	make_key(home);
	if (pgp_new(&pgp, home, TRUST_KEYRING, &err) != 0)
		bench_die("GPGME", err.msg);
	mails = calloc(ndocs, sizeof(*mails));
	docs = calloc(ndocs, sizeof(*docs));
	if (mails == NULL || docs == NULL)
		bench_die("memory", strerror(ENOMEM));
	t0 = bench_now();
	make_docs(pgp, &real, mails, docs);
	t1 = bench_now();
	printf("sign_rate %.0f documents/s\n", (double)ndocs / (t1 - t0));
	t0 = bench_now();
	index_docs(index, pgp, mails);
	t1 = bench_now();
	verify_docs(pgp, docs, t1 - t0);
	pgp_free(pgp);

	if (config_init(&cf) != 0)
		bench_die("config", strerror(ENOMEM));
	free(cf.index_path);
	free(cf.gnupg_home);
	cf.index_path = strdup(index);
	cf.gnupg_home = strdup(home);
	cf.trust_model = TRUST_KEYRING;
	if (cf.index_path == NULL || cf.gnupg_home == NULL)
		bench_die("config", strerror(ENOMEM));
	decisions(&cf, raw, len);
	config_release(&cf);

	for (k = 0; k < ndocs; k++) {
		sbuf_release(&mails[k]);
		sbuf_release(&docs[k]);
	}
	free(mails);
	free(docs);
	free(raw);
	if (keep)
		printf("kept %s\n", tmp);
	else if (bench_rmtree(tmp) != 0)
		bench_die(tmp, strerror(errno));
	return 0;
usage:
	fprintf(stderr, "usage: bench-decide [-k] [-d DOCS] [-t TRIPLES] "
	    "[-n DECISIONS] PATCH\n");
	return 2;
}
