/*
 * bench-patatt - what verifying a patatt signature (X-Developer-Signature)
 * costs per message, ed25519 and OpenPGP apart.
 *
 * usage: bench-patatt [-k] [-n CHECKS] [-p PGPCHECKS] [-c CORPUS]... PATCH...
 *
 * In a temporary directory (removed afterwards, unless -k): an Ed25519
 * key made with OpenSSL, filed in a patatt keyring directory, and an
 * OpenPGP key made through GPGME (no passphrase) in a GnuPG home.  Each
 * PATCH is signed twice, as patatt would sign it (spec patatt.md §2, §3):
 * the body and the From and Subject from "git mailinfo --encoding=utf-8
 * --no-scissors", the digest D over the canonical signed headers and the
 * signature header up to "b=", then b= the Ed25519 signature and D
 * (ed25519-sha256), or the OpenPGP signed message of D made by GnuPG
 * (openpgp-sha256).  Every signed message must verify before it is timed.
 * Then:
 *  - "ed25519": CHECKS (default 20,000) patatt_check() calls on the
 *    parsed messages in turn, each timed: p50, p99 and the largest in
 *    microseconds, and messages per second over the whole run;
 *  - "ed25519_raw": the bare OpenSSL Ed25519 verification of one digest,
 *    the floor under the figure above, and the p50 difference (the
 *    canonicalisation, key lookup and parsing patatt_check() adds);
 *  - "openpgp": PGPCHECKS (default 300) patatt_check() calls, GnuPG doing
 *    the signature (a gpg process per check);
 *  - with -c: CORPUS is a corpus directory with patatt-expected.tsv,
 *    messages/ and patatt-keys/ (../shared/corpus/NAME); its ed25519
 *    messages that patatt passed are timed the same way ("corpus").
 * Each figure is one line "name value unit".
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <gpgme.h>
#include <openssl/evp.h>

#include "patatt.h"
#include "sbuf.h"
#include "benchutil.h"

#define ED_ID		"bench@example.org"
#define ED_SELECTOR	"bench"
#define PGP_UID		"Bench Developer <pgpbench@example.org>"
#define PGP_ID		"pgpbench@example.org"
#define MAX_MAIL	((size_t)64 << 20)
#define MAX_PATCHES	64
#define MAX_CORPUS	4
#define MAX_CORPUS_MSGS	4096
#define BUDGET_US	100.0

static unsigned long	 nchecks = 20000, npgp = 300;
static char		 tmp[] = "/tmp/bench-patatt.XXXXXX";

struct signer {
	const char	*algo;		/* "ed25519" or "openpgp" */
	const char	*identity;
	const char	*selector;	/* NULL: none (patatt: "default") */
	EVP_PKEY	*ed;
	gpgme_ctx_t	 pgp;
	char		 offer[128];	/* X-Developer-Key pk= or fpr= */
};

static void
read_file(const char *path, struct sbuf *out)
{
	char buf[65536];
	FILE *f;
	size_t n;

	if ((f = fopen(path, "rb")) == NULL)
		bench_die(path, strerror(errno));
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		sbuf_add(out, buf, n);
	if (ferror(f) || sbuf_failed(out))
		bench_die(path, "cannot read it");
	fclose(f);
}

static void
write_file(const char *path, const void *p, size_t len)
{
	FILE *f;

	if ((f = fopen(path, "wb")) == NULL ||
	    fwrite(p, 1, len, f) != len || fclose(f) != 0)
		bench_die(path, strerror(errno));
}

/* run - argv with stdin from in and stdout to out (NULL: /dev/null) */
static int
run(char *const argv[], const char *in, const char *out)
{
	pid_t pid;
	int st, fd;

	fflush(stdout);
	if ((pid = fork()) < 0)
		bench_die("fork", strerror(errno));
	if (pid == 0) {
		if ((fd = open(in ? in : "/dev/null", O_RDONLY)) < 0 ||
		    dup2(fd, 0) < 0)
			_exit(127);
		close(fd);
		if ((fd = open(out ? out : "/dev/null",
		    O_WRONLY | O_CREAT | O_TRUNC, 0600)) < 0 || dup2(fd, 1) < 0)
			_exit(127);
		close(fd);
		execvp(argv[0], argv);
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			bench_die("waitpid", strerror(errno));
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* b64 - Base64 of in appended to out */
static void
b64(struct sbuf *out, const unsigned char *in, size_t len)
{
	unsigned char *p;
	int n;

	if (len > MAX_MAIL || (p = malloc(4 * ((len + 2) / 3) + 1)) == NULL)
		bench_die("base64", strerror(ENOMEM));
	n = EVP_EncodeBlock(p, in, (int)len);
	sbuf_add(out, p, (size_t)n);
	free(p);
}

static void
sha256(unsigned char out[32], const void *p, size_t len)
{
	if (EVP_Digest(p, len, out, NULL, EVP_sha256(), NULL) != 1)
		bench_die("SHA-256", "OpenSSL failed");
}

static int
is_ws(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' ||
	    c == '\f';
}

/* canon_value - a header value canonicalised as patatt does (§2.2) */
static void
canon_value(struct sbuf *out, const char *v, size_t len)
{
	size_t i, start = out->len;
	int blank = 0;

	for (i = 0; i < len; i++) {
		if (v[i] == '\r' || v[i] == '\n')
			continue;
		if (is_ws((unsigned char)v[i])) {
			blank = 1;
			continue;
		}
		if (blank && out->len > start)
			sbuf_addch(out, ' ');
		blank = 0;
		sbuf_addch(out, v[i]);
	}
	sbuf_addstr(out, "\r\n");
}

/* info_get - the stripped value of "Name: value" in mailinfo's output */
static void
info_get(const struct sbuf *info, const char *name, struct sbuf *out)
{
	const char *p = info->buf, *end = info->buf + info->len, *eol;
	size_t n = strlen(name);

	for (; p < end; p = eol + 1) {
		if ((eol = memchr(p, '\n', (size_t)(end - p))) == NULL)
			eol = end;
		if ((size_t)(eol - p) > n && memcmp(p, name, n) == 0 &&
		    p[n] == ':') {
			p += n + 1;
			while (p < eol && is_ws((unsigned char)*p))
				p++;
			while (eol > p && is_ws((unsigned char)eol[-1]))
				eol--;
			sbuf_add(out, p, (size_t)(eol - p));
			return;
		}
		if (eol == end)
			break;
	}
}

/*
 * header_end - length of the header block of msg (through the LF before
 * the first whitespace-only line); the body starts after that line
 */
static size_t
header_end(const char *msg, size_t len, size_t *body)
{
	size_t at = 0, eol, k;

	while (at < len) {
		for (eol = at; eol < len && msg[eol] != '\n'; eol++)
			;
		for (k = at; k < eol && is_ws((unsigned char)msg[k]); k++)
			;
		if (k == eol) {
			*body = eol < len ? eol + 1 : len;
			return at;
		}
		at = eol + 1;
	}
	bench_die("a patch", "no body");
	return 0;
}

/* last_field - the raw value of the last header field name, or NULL */
static const char *
last_field(const char *hdr, size_t len, const char *name, size_t *vlen)
{
	const char *found = NULL, *p = hdr, *end = hdr + len, *q;
	size_t n = strlen(name);

	while (p < end) {
		q = p;
		do {
			q = memchr(q, '\n', (size_t)(end - q));
			q = q ? q + 1 : end;
		} while (q < end && (*q == ' ' || *q == '\t'));
		if ((size_t)(q - p) > n && strncasecmp(p, name, n) == 0 &&
		    p[n] == ':') {
			found = p + n + 1;
			*vlen = (size_t)(q - found);
		}
		p = q;
	}
	return found;
}

/* sign_digest - b= for digest d */
static void
sign_digest(struct signer *s, const unsigned char d[32], struct sbuf *b)
{
	unsigned char sig[64 + 32];
	size_t siglen = 64;
	EVP_MD_CTX *ctx;
	gpgme_data_t in, out;
	gpgme_error_t ge;
	char *p;
	size_t n;

	if (s->ed != NULL) {
		if ((ctx = EVP_MD_CTX_new()) == NULL ||
		    EVP_DigestSignInit(ctx, NULL, NULL, NULL, s->ed) != 1 ||
		    EVP_DigestSign(ctx, sig, &siglen, d, 32) != 1 ||
		    siglen != 64)
			bench_die("Ed25519", "OpenSSL cannot sign");
		EVP_MD_CTX_free(ctx);
		memcpy(sig + 64, d, 32);	/* PyNaCl's signed message */
		b64(b, sig, sizeof(sig));
		return;
	}
	if ((ge = gpgme_data_new_from_mem(&in, (const char *)d, 32, 0)) != 0 ||
	    (ge = gpgme_data_new(&out)) != 0 ||
	    (ge = gpgme_op_sign(s->pgp, in, out, GPGME_SIG_MODE_NORMAL)) != 0)
		bench_die("GnuPG signing", gpgme_strerror(ge));
	gpgme_data_release(in);
	if ((p = gpgme_data_release_and_get_mem(out, &n)) == NULL)
		bench_die("GnuPG signing", "no output");
	b64(b, (const unsigned char *)p, n);
	gpgme_free(p);
}

/*
 * sign_message - raw (LF line ends) signed by s as patatt signs (§5):
 * the headers X-Developer-Signature and X-Developer-Key appended to the
 * header block, into out
 */
static void
sign_message(struct signer *s, const char *raw, size_t len, struct sbuf *out)
{
	char mpath[128], ppath[128], ipath[128], inpath[128];
	char *argv[] = { "git", "mailinfo", "--encoding=utf-8",
	    "--no-scissors", mpath, ppath, NULL };
	struct sbuf info, mp, body, tags, hdrs, v, b;
	unsigned char d[32];
	const char *mid, *p, *end, *eol;
	size_t hlen, boff, midlen, i;

	snprintf(inpath, sizeof(inpath), "%s/in", tmp);
	snprintf(mpath, sizeof(mpath), "%s/m", tmp);
	snprintf(ppath, sizeof(ppath), "%s/p", tmp);
	snprintf(ipath, sizeof(ipath), "%s/i", tmp);
	write_file(inpath, raw, len);
	if (run(argv, inpath, ipath) != 0)
		bench_die("git mailinfo", "failed (is git installed?)");
	sbuf_init(&info, MAX_MAIL);
	sbuf_init(&mp, MAX_MAIL);
	sbuf_init(&body, MAX_MAIL);
	sbuf_init(&tags, MAX_MAIL);
	sbuf_init(&hdrs, MAX_MAIL);
	sbuf_init(&v, MAX_MAIL);
	sbuf_init(&b, MAX_MAIL);
	read_file(ipath, &info);
	read_file(mpath, &mp);
	read_file(ppath, &mp);

	/* the body (§2.3): trailing CR/LF dropped, each line ending CRLF */
	while (mp.len > 0 && (mp.buf[mp.len - 1] == '\n' ||
	    mp.buf[mp.len - 1] == '\r'))
		mp.len--;
	for (p = mp.buf, end = mp.buf + mp.len; ; p = eol + 1) {
		if ((eol = memchr(p, '\n', (size_t)(end - p))) == NULL)
			eol = end;
		for (i = (size_t)(eol - p); i > 0 && p[i - 1] == '\r'; i--)
			;
		sbuf_add(&body, p, i);
		sbuf_addstr(&body, "\r\n");
		if (eol == end)
			break;
	}
	sha256(d, body.buf, body.len);

	/* the signed headers (§2.2): From and Subject as mailinfo saw them */
	hlen = header_end(raw, len, &boff);
	sbuf_addch(&v, ' ');
	info_get(&info, "Author", &v);
	sbuf_addstr(&v, " <");
	info_get(&info, "Email", &v);
	sbuf_addch(&v, '>');
	sbuf_addstr(&hdrs, "from:");
	canon_value(&hdrs, v.buf, v.len);
	sbuf_reset(&v);
	sbuf_addch(&v, ' ');
	info_get(&info, "Subject", &v);
	sbuf_addstr(&hdrs, "subject:");
	canon_value(&hdrs, v.buf, v.len);
	if ((mid = last_field(raw, hlen, "Message-ID", &midlen)) != NULL) {
		if (memmem(mid, midlen, "?q?", 3) != NULL)
			bench_die("a patch", "a Message-ID with ?q? (RFC 2047)");
		sbuf_addstr(&hdrs, "message-id:");
		canon_value(&hdrs, mid, midlen);
	}

	/* the tags in patatt's order, then D over headers and tags (§3.1) */
	sbuf_addf(&tags, "v=1; a=%s-sha256; ", s->algo);
	if (s->ed != NULL)
		sbuf_addf(&tags, "t=%lld; ", (long long)time(NULL));
	sbuf_addf(&tags, "l=%zu; i=%s; ", body.len, s->identity);
	if (s->selector != NULL)
		sbuf_addf(&tags, "s=%s; ", s->selector);
	sbuf_addf(&tags, "h=from:subject%s; bh=", mid ? ":message-id" : "");
	b64(&tags, d, 32);
	sbuf_addstr(&tags, "; b=");
	sbuf_addstr(&hdrs, "x-developer-signature:");
	sbuf_add(&hdrs, tags.buf, tags.len);
	sha256(d, hdrs.buf, hdrs.len);
	sign_digest(s, d, &b);

	/* the message: header, the two fields folded as patatt folds them */
	sbuf_add(out, raw, hlen);
	sbuf_addstr(out, "X-Developer-Signature: ");
	for (p = tags.buf, end = tags.buf + tags.len; p < end; p++)
		if (p[0] == ' ' && (p[1] == 'i' || p[1] == 'b'))
			sbuf_addstr(out, "\n ");	/* before i= bh= b= */
		else
			sbuf_addch(out, *p);
	for (i = 0; i < b.len; i += i == 0 ? 73 : 75) {
		if (i > 0)
			sbuf_addstr(out, "\n ");
		sbuf_add(out, b.buf + i, b.len - i < (i == 0 ? 73 : 75) ?
		    b.len - i : (i == 0 ? 73 : 75));
	}
	sbuf_addf(out, "\nX-Developer-Key: i=%s; a=%s;\n %s\n", s->identity,
	    s->algo, s->offer);
	sbuf_add(out, raw + hlen, len - hlen);
	if (sbuf_failed(out) || sbuf_failed(&hdrs) || sbuf_failed(&body))
		bench_die("signing", strerror(ENOMEM));
	sbuf_release(&info);
	sbuf_release(&mp);
	sbuf_release(&body);
	sbuf_release(&tags);
	sbuf_release(&hdrs);
	sbuf_release(&v);
	sbuf_release(&b);
}

/* ed_signer - a new Ed25519 key, its public half filed in keyring */
static void
ed_signer(struct signer *s, const char *keyring)
{
	unsigned char pk[32];
	size_t pklen = sizeof(pk);
	EVP_PKEY_CTX *kc;
	struct sbuf path, val;

	memset(s, 0, sizeof(*s));
	s->algo = "ed25519";
	s->identity = ED_ID;
	s->selector = ED_SELECTOR;
	if ((kc = EVP_PKEY_CTX_new_id(EVP_PKEY_ED25519, NULL)) == NULL ||
	    EVP_PKEY_keygen_init(kc) != 1 || EVP_PKEY_keygen(kc, &s->ed) != 1 ||
	    EVP_PKEY_get_raw_public_key(s->ed, pk, &pklen) != 1 || pklen != 32)
		bench_die("Ed25519", "OpenSSL cannot make a key");
	EVP_PKEY_CTX_free(kc);
	sbuf_init(&path, SBUF_NOMAX);
	sbuf_init(&val, SBUF_NOMAX);
	b64(&val, pk, 32);
	snprintf(s->offer, sizeof(s->offer), "pk=%s", val.buf);
	sbuf_addch(&val, '\n');
	/* ed25519/<domain>/<local>/<selector> (§4.1) */
	sbuf_addf(&path, "%s/ed25519", keyring);
	if (mkdir(keyring, 0755) != 0 || mkdir(path.buf, 0755) != 0)
		bench_die(path.buf, strerror(errno));
	sbuf_addstr(&path, "/example.org");
	if (mkdir(path.buf, 0755) != 0)
		bench_die(path.buf, strerror(errno));
	sbuf_addstr(&path, "/bench");
	if (mkdir(path.buf, 0755) != 0)
		bench_die(path.buf, strerror(errno));
	sbuf_addstr(&path, "/" ED_SELECTOR);
	write_file(path.buf, val.buf, val.len);
	sbuf_release(&path);
	sbuf_release(&val);
}

/* pgp_signer - a new OpenPGP key in home, through GPGME */
static void
pgp_signer(struct signer *s, const char *home)
{
	gpgme_genkey_result_t gr;
	gpgme_error_t ge;
	gpgme_key_t key;

	memset(s, 0, sizeof(*s));
	s->algo = "openpgp";
	s->identity = PGP_ID;
	if ((ge = gpgme_new(&s->pgp)) != 0 ||
	    (ge = gpgme_ctx_set_engine_info(s->pgp, GPGME_PROTOCOL_OpenPGP,
	    NULL, home)) != 0 ||
	    (ge = gpgme_op_createkey(s->pgp, PGP_UID, "ed25519", 0, 0, NULL,
	    GPGME_CREATE_SIGN | GPGME_CREATE_NOPASSWD |
	    GPGME_CREATE_NOEXPIRE)) != 0)
		bench_die("making a GnuPG key", gpgme_strerror(ge));
	if ((gr = gpgme_op_genkey_result(s->pgp)) == NULL || gr->fpr == NULL)
		bench_die("making a GnuPG key", "no fingerprint");
	snprintf(s->offer, sizeof(s->offer), "fpr=%s", gr->fpr);
	if ((ge = gpgme_get_key(s->pgp, gr->fpr, &key, 1)) != 0 ||
	    (ge = gpgme_signers_add(s->pgp, key)) != 0)
		bench_die("the GnuPG key", gpgme_strerror(ge));
	gpgme_key_unref(key);
	gpgme_set_armor(s->pgp, 0);
}

/*
 * timed - n patatt_check() calls on msgs[0..nmsgs) in turn, each must be
 * one VALID signature; the figures as name_*; returns the p50 in seconds
 */
static double
timed(struct patatt *pt, struct mailmsg **msgs, size_t nmsgs,
    unsigned long n, const char *name)
{
	struct patatt_report r;
	struct pa_err err;
	double *lat, t0, t1, start, p50;
	unsigned long k;
	char prefix[64];

	if ((lat = calloc(n, sizeof(*lat))) == NULL)
		bench_die("timing", strerror(ENOMEM));
	start = bench_now();
	for (k = 0; k < n; k++) {
		t0 = bench_now();
		if (patatt_check(pt, msgs[k % nmsgs], time(NULL), &r, &err) != 0)
			bench_die(name, err.msg);
		t1 = bench_now();
		lat[k] = t1 - t0;
		if (r.n != 1 || r.sig[0].result != PATATT_VALID)
			bench_die(name, r.n ? r.sig[0].detail : "no signature");
	}
	t1 = bench_now() - start;
	printf("patatt_%s_messages %zu distinct\n", name, nmsgs);
	printf("patatt_%s_count %lu verifications\n", name, n);
	snprintf(prefix, sizeof(prefix), "patatt_%s", name);
	bench_latencies(prefix, lat, n);
	printf("patatt_%s_rate %.0f messages/s\n", name, (double)n / t1);
	if (strcmp(name, "openpgp") != 0) {
		printf("patatt_%s_p50_under_%.0fus %s\n", name, BUDGET_US,
		    lat[n / 2] * 1e6 < BUDGET_US ? "yes" : "NO");
		printf("patatt_%s_p99_under_%.0fus %s\n", name, BUDGET_US,
		    lat[n * 99 / 100] * 1e6 < BUDGET_US ? "yes" : "NO");
	}
	p50 = lat[n / 2];
	free(lat);
	return p50;
}

/* check_once - msg must give one signature, VALID */
static void
check_once(struct patatt *pt, struct mailmsg *m, const char *what)
{
	struct patatt_report r;
	struct pa_err err;

	if (patatt_check(pt, m, time(NULL), &r, &err) != 0)
		bench_die(what, err.msg);
	if (r.n != 1 || r.sig[0].result != PATATT_VALID) {
		fprintf(stderr, "bench-patatt: %s: %s: %s\n", what,
		    r.n ? patatt_result_name(r.sig[0].result) : "nosig",
		    r.n ? r.sig[0].detail : "no signature found");
		exit(1);
	}
}

/* raw_ed25519 - the bare Ed25519 verification, n times; the p50 */
static double
raw_ed25519(EVP_PKEY *key, unsigned long n)
{
	unsigned char d[32], sig[64];
	size_t siglen = sizeof(sig);
	EVP_MD_CTX *ctx;
	double *lat, t0, p50;
	unsigned long k;

	memset(d, 0x5a, sizeof(d));
	if ((lat = calloc(n, sizeof(*lat))) == NULL ||
	    (ctx = EVP_MD_CTX_new()) == NULL ||
	    EVP_DigestSignInit(ctx, NULL, NULL, NULL, key) != 1 ||
	    EVP_DigestSign(ctx, sig, &siglen, d, sizeof(d)) != 1)
		bench_die("Ed25519", "OpenSSL cannot sign");
	for (k = 0; k < n; k++) {
		t0 = bench_now();
		EVP_MD_CTX_reset(ctx);
		if (EVP_DigestVerifyInit(ctx, NULL, NULL, NULL, key) != 1 ||
		    EVP_DigestVerify(ctx, sig, siglen, d, sizeof(d)) != 1)
			bench_die("Ed25519", "OpenSSL cannot verify");
		lat[k] = bench_now() - t0;
	}
	EVP_MD_CTX_free(ctx);
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
 * corpus - the ed25519 messages of dir that patatt passed
 * (patatt-expected.tsv: name, identity, algorithm, result, ...), verified
 * with the keys in dir/patatt-keys
 */
static void
corpus(const char *dir)
{
	static struct mailmsg *msgs[MAX_CORPUS_MSGS];
	struct sbuf tsv, path, raw;
	struct patatt_report r;
	struct pa_err err;
	struct patatt_keyring *kr;
	struct patatt *pt;
	char *line, *next, *p, *name, *algo, *result;
	size_t n = 0, notvalid = 0, bytes = 0, k;

	sbuf_init(&tsv, MAX_MAIL);
	sbuf_init(&path, SBUF_NOMAX);
	sbuf_init(&raw, MAX_MAIL);
	sbuf_addf(&path, "%s/patatt-expected.tsv", dir);
	read_file(path.buf, &tsv);
	sbuf_reset(&path);
	sbuf_addf(&path, "%s/patatt-keys", dir);
	if (patatt_keyring_new(&kr, &path.buf, 1, &err) != 0 ||
	    (pt = patatt_new(kr, NULL, &err)) == NULL)
		bench_die(path.buf, err.msg);
	for (line = tsv.buf; line != NULL && *line != '\0'; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		p = line;
		name = next_field(&p);
		(void)next_field(&p);
		algo = next_field(&p);
		result = next_field(&p);
		if (result == NULL || strcmp(algo, "ed25519-sha256") != 0 ||
		    strcmp(result, "PASS") != 0 || n == MAX_CORPUS_MSGS)
			continue;
		sbuf_reset(&path);
		sbuf_addf(&path, "%s/%s", dir, name);
		sbuf_reset(&raw);
		read_file(path.buf, &raw);
		if ((msgs[n] = mailmsg_new(MAX_MAIL)) == NULL ||
		    mailmsg_parse(msgs[n], raw.buf, raw.len) != 0)
			bench_die(path.buf, "cannot parse it");
		if (patatt_check(pt, msgs[n], time(NULL), &r, &err) != 0)
			bench_die(path.buf, err.msg);
		for (k = 0; k < r.n; k++)
			if (r.sig[k].algo == PATATT_ED25519 &&
			    r.sig[k].result == PATATT_VALID)
				break;
		if (r.n != 1 || k == r.n) {
			/* patatt passed it, we did not: the tests say why */
			fprintf(stderr, "bench-patatt: %s: not valid to us: "
			    "%s\n", path.buf, r.n ? r.sig[0].detail : "nosig");
			notvalid++;
			mailmsg_free(msgs[n]);
			continue;
		}
		bytes += raw.len;
		n++;
	}
	printf("corpus %s\n", dir);
	printf("patatt_corpus_not_valid %zu messages_patatt_passed\n",
	    notvalid);
	if (n > 0) {
		printf("patatt_corpus_mean_size %zu bytes\n", bytes / n);
		(void)timed(pt, msgs, n, nchecks, "corpus");
	}
	for (k = 0; k < n; k++)
		mailmsg_free(msgs[k]);
	patatt_free(pt);
	patatt_keyring_free(kr);
	sbuf_release(&tsv);
	sbuf_release(&path);
	sbuf_release(&raw);
}

int
main(int argc, char **argv)
{
	static struct mailmsg *ed[MAX_PATCHES], *pg[MAX_PATCHES];
	const char *corpora[MAX_CORPUS];
	char keyring[64], home[64];
	char *killargv[] = { "gpgconf", "--homedir", home, "--kill", "all",
	    NULL };
	struct signer es, ps;
	struct sbuf raw, lf, out;
	struct patatt_keyring *kr;
	struct patatt *pt;
	struct pa_err err;
	size_t ncorpora = 0, npatches, k, i, bytes = 0;
	double p50;
	int c, keep = 0;

	bench_name = "bench-patatt";
	while ((c = getopt(argc, argv, "kn:p:c:")) != -1)
		switch (c) {
		case 'k':
			keep = 1;
			break;
		case 'n':
			nchecks = bench_getnum(optarg, 1, 100000000);
			break;
		case 'p':
			npgp = bench_getnum(optarg, 1, 1000000);
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

	if (mkdtemp(tmp) == NULL)
		bench_die("mkdtemp", strerror(errno));
	snprintf(home, sizeof(home), "%s/gnupg", tmp);
	snprintf(keyring, sizeof(keyring), "%s/keyring", tmp);
	if (mkdir(home, 0700) != 0)
		bench_die(home, strerror(errno));
	if (pa_global_init(&err) != 0)
		bench_die("GPGME", err.msg);
	ed_signer(&es, keyring);
	pgp_signer(&ps, home);

	sbuf_init(&raw, MAX_MAIL);
	sbuf_init(&lf, MAX_MAIL);
	sbuf_init(&out, MAX_MAIL);
	for (k = 0; k < npatches; k++) {
		sbuf_reset(&raw);
		sbuf_reset(&lf);
		read_file(argv[optind + k], &raw);
		for (i = 0; i < raw.len; i++)	/* as patatt 0.6: CRLF -> LF */
			if (!(raw.buf[i] == '\r' && i + 1 < raw.len &&
			    raw.buf[i + 1] == '\n'))
				sbuf_addch(&lf, raw.buf[i]);
		bytes += lf.len;
		sbuf_reset(&out);
		sign_message(&es, lf.buf, lf.len, &out);
		if ((ed[k] = mailmsg_new(MAX_MAIL)) == NULL ||
		    mailmsg_parse(ed[k], out.buf, out.len) != 0)
			bench_die(argv[optind + k], "cannot parse it signed");
		if (keep) {
			char name[96];

			snprintf(name, sizeof(name), "%s/ed25519-%zu.eml", tmp,
			    k);
			write_file(name, out.buf, out.len);
		}
		sbuf_reset(&out);
		sign_message(&ps, lf.buf, lf.len, &out);
		if ((pg[k] = mailmsg_new(MAX_MAIL)) == NULL ||
		    mailmsg_parse(pg[k], out.buf, out.len) != 0)
			bench_die(argv[optind + k], "cannot parse it signed");
		if (keep) {
			char name[96];

			snprintf(name, sizeof(name), "%s/openpgp-%zu.eml", tmp,
			    k);
			write_file(name, out.buf, out.len);
		}
	}
	sbuf_release(&raw);
	sbuf_release(&lf);
	sbuf_release(&out);

	if (patatt_keyring_new(&kr, (char *[]){ keyring }, 1, &err) != 0 ||
	    (pt = patatt_new(kr, home, &err)) == NULL)
		bench_die("patatt_new", err.msg);
	for (k = 0; k < npatches; k++) {
		check_once(pt, ed[k], argv[optind + k]);
		check_once(pt, pg[k], argv[optind + k]);
	}
	printf("patatt_patch_mean_size %zu bytes\n", bytes / npatches);
	p50 = timed(pt, ed, npatches, nchecks, "ed25519");
	/* what is left when OpenSSL's share is taken out */
	printf("patatt_ed25519_beyond_raw_p50 %.1f us\n",
	    (p50 - raw_ed25519(es.ed, nchecks)) * 1e6);
	(void)timed(pt, pg, npatches, npgp, "openpgp");
	patatt_free(pt);
	patatt_keyring_free(kr);
	for (k = 0; k < ncorpora; k++)
		corpus(corpora[k]);

	for (k = 0; k < npatches; k++) {
		mailmsg_free(ed[k]);
		mailmsg_free(pg[k]);
	}
	EVP_PKEY_free(es.ed);
	gpgme_release(ps.pgp);
	(void)run(killargv, NULL, NULL);
	if (keep)
		printf("kept %s\n", tmp);
	else if (bench_rmtree(tmp) != 0)
		bench_die(tmp, strerror(errno));
	return 0;
usage:
	fprintf(stderr, "usage: bench-patatt [-k] [-n CHECKS] [-p PGPCHECKS] "
	    "[-c CORPUS]... PATCH...\n");
	return 2;
}
