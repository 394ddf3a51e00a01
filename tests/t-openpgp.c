/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t-openpgp - OpenPGP signed messages checked by librnp (lib/sig/openpgp.h),
 * with keys and signatures made by gpg for this run: what a good, a
 * changed, a foreign, a doubly signed, an oversized and a compressed-bomb
 * message give, each compression gpg makes, the shapes refused before
 * librnp reads them, and keys revoked as compromised.  Expired and revoked
 * signing subkeys are checked against patatt itself in t-patatt.sh.
 */
#include "config.h"

#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "patchattest.h"
#include "openpgp.h"
#include "sbuf.h"
#include "tap.h"

#define PLAIN_CAP	1024

static char top[64], home[128];

static void
cleanup(void)
{
	if (home[0])
		tap_run(NULL, "gpgconf", "--homedir", home, "--kill", "all",
		    NULL);
	if (top[0])
		tap_rmtree(top);
}

/* gpg - gpg in the test's home, output into out (NULL: discarded) */
#define gpg(out, ...) tap_run(out, "gpg", "--homedir", home, "--batch", \
	"--quiet", "--yes", __VA_ARGS__, (char *)NULL)

/* path_of - name inside the test's folder */
static const char *
path_of(const char *name)
{
	static char buf[4][256];
	static int k;

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", top, name);
	return buf[k];
}

/* fpr_of - the primary fingerprint of the key with user ID uid */
static int
fpr_of(const char *uid, char fpr[41])
{
	char *list, *p;
	size_t len;

	if (gpg(path_of("list"), "--with-colons", "--list-keys", uid) != 0 ||
	    (list = tap_read_file(path_of("list"), &len)) == NULL)
		return -1;
	p = strstr(list, "\nfpr:::::::::");
	if (p != NULL && strlen(p) > 13 + 40) {
		memcpy(fpr, p + 13, 40);
		fpr[40] = '\0';
	}
	free(list);
	return p ? 0 : -1;
}

/* load - the keys of a gpg export of who */
static struct openpgp_keys *
load(const char *who, int armor)
{
	struct openpgp_keys *k = NULL;
	struct pa_err err;
	char *data;
	size_t len;

	if ((armor ? gpg(path_of("export"), "--armor", "--export", who) :
	    gpg(path_of("export"), "--export", who)) != 0 ||
	    (data = tap_read_file(path_of("export"), &len)) == NULL)
		return NULL;
	if (openpgp_keys_load(&k, data, len, &err) != 0)
		tap_diag("load %s: %s", who, err.msg);
	free(data);
	return k;
}

/* verify - the signed message in file name, checked with k, into sig */
static int
verify(struct openpgp_keys *k, const char *name, struct sbuf *plain,
    struct openpgp_sig *sig)
{
	char *data;
	size_t len;
	int rc;

	memset(sig, 0, sizeof(*sig));
	sig->status = OPENPGP_UNUSABLE;
	if ((data = tap_read_file(path_of(name), &len)) == NULL)
		return -1;
	rc = openpgp_verify(k, data, len, plain, sig);
	free(data);
	return rc;
}

/* craft - file name made of head, then the bytes of file from */
static int
craft(const char *name, const void *head, size_t hlen, const char *from)
{
	struct sbuf b;
	char *data;
	size_t len;
	int rc;

	if ((data = tap_read_file(path_of(from), &len)) == NULL)
		return -1;
	sbuf_init(&b, SBUF_NOMAX);
	sbuf_add(&b, head, hlen);
	sbuf_add(&b, data, len);
	rc = sbuf_failed(&b) ? -1 : tap_write_file(path_of(name), b.buf,
	    b.len);
	free(data);
	sbuf_release(&b);
	return rc;
}

/* unusable - the file name is unusable, for the reason why */
static void
unusable(struct openpgp_keys *k, const char *name, const char *why,
    const char *what)
{
	struct openpgp_sig sig;
	struct sbuf plain;

	sbuf_init(&plain, PLAIN_CAP);
	tap_check(verify(k, name, &plain, &sig) == 0 &&
	    sig.status == OPENPGP_UNUSABLE && strstr(sig.detail, why) &&
	    plain.len == 0, "%s: unusable (%s)", what, sig.detail);
	sbuf_release(&plain);
}

/*
 * test_shapes - the one shape gpg --sign makes, with each compression,
 * verifies; compressed data that unpacks past the cap, other packets,
 * a second compression and random bytes are refused before librnp reads
 * them
 */
static void
test_shapes(const char *alice)
{
	static const char *const algos[] = { "none", "zip", "zlib", "bzip2" };
	struct openpgp_keys *ka;
	struct openpgp_sig sig;
	struct sbuf plain;
	char name[32], *data;
	unsigned char noise[600];
	unsigned seed = 19;
	size_t i;

	sbuf_init(&plain, PLAIN_CAP);
	if (!tap_check((ka = load(alice, 0)) != NULL, "alice's key loads"))
		return;
	for (i = 0; i < sizeof(algos) / sizeof(algos[0]); i++) {
		snprintf(name, sizeof(name), "%s.gpg", algos[i]);
		tap_check(gpg(NULL, "-u", alice, "--compress-algo", algos[i],
		    "-o", path_of(name), "-s", path_of("text")) == 0 &&
		    verify(ka, name, &plain, &sig) == 0 &&
		    sig.status == OPENPGP_GOOD && plain.len == 32,
		    "compression %s: good (%s)", algos[i], sig.detail);
	}
	/* 1 MiB unpacks from about 1 KiB of ZIP or ZLIB, 16 MiB from BZip2 */
	if ((data = malloc(1u << 20)) != NULL) {
		memset(data, 'x', 1u << 20);
		tap_write_file(path_of("mib"), data, 1u << 20);
		free(data);
	}
	for (i = 1; i < sizeof(algos) / sizeof(algos[0]); i++) {
		snprintf(name, sizeof(name), "bomb-%s.gpg", algos[i]);
		if (gpg(NULL, "-u", alice, "--compress-algo", algos[i], "-z",
		    "9", "-o", path_of(name), "-s", path_of(i == 3 ? "big" :
		    "mib")) != 0) {
			tap_check(0, "gpg -s a large file, %s", algos[i]);
			continue;
		}
		unusable(ka, name, "over 4096 bytes uncompressed", name);
	}
	/* an unknown packet (tag 60) before a good message */
	craft("tag60.gpg", "\xfc\x01\x00", 3, "good.gpg");
	unusable(ka, "tag60.gpg", "an unexpected packet 60",
	    "a packet of tag 60 first");
	/* good.gpg is one compressed packet: wrapped in one more */
	craft("nested.gpg", "\xa3\x00", 2, "good.gpg");
	unusable(ka, "nested.gpg", "a nested compressed packet",
	    "compression inside compression");
	if ((data = tap_read_file(path_of("good.gpg"), &i)) != NULL) {
		craft("twice.gpg", data, i, "good.gpg");
		free(data);
	}
	unusable(ka, "twice.gpg", "after the compressed",
	    "two messages in a row");
	for (i = 0; i < sizeof(noise); i++) {
		seed = seed * 1103515245 + 12345;
		noise[i] = (unsigned char)(seed >> 16);
	}
	tap_write_file(path_of("noise"), noise, sizeof(noise));
	unusable(ka, "noise", "", "600 random bytes");
	openpgp_keys_free(ka);
	sbuf_release(&plain);
}

static void
test_load(void)
{
	struct openpgp_keys *k = (struct openpgp_keys *)1;
	struct pa_err err;
	static const char junk[] = "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n"
	    "not base64 at all\n-----END PGP PUBLIC KEY BLOCK-----\n";

	err.msg[0] = '\0';
	tap_check_int(openpgp_keys_load(&k, "", 0, &err), PA_EBADDOC,
	    "an empty key file holds no key");
	tap_check(k == NULL && err.msg[0] != '\0', "  and says so: %s", err.msg);
	tap_check_int(openpgp_keys_load(&k, junk, sizeof(junk) - 1, &err),
	    PA_EBADDOC, "a broken armor holds no key");
	tap_check_int(openpgp_keys_load(&k, "\x99\x01", 2, &err), PA_EBADDOC,
	    "a truncated packet holds no key");
}

/*
 * crafted - alice's export, then a subkey of hers (added at the first
 * call) with its binding repeated copies times, as binary or armored
 * (gpg --enarmor); NULL on failure
 */
static char *
crafted(const char *alice, size_t copies, int armor, size_t *lenp)
{
	static int added;
	char *bare = NULL, *full = NULL, *out = NULL;
	size_t blen, flen, i;
	FILE *f;

	if (!added && (gpg(path_of("bare"), "--export", alice) != 0 ||
	    gpg(NULL, "--passphrase", "", "--quick-add-key", alice, "ed25519",
	    "sign", "never") != 0 ||
	    gpg(path_of("full"), "--export", alice) != 0))
		return NULL;
	added = 1;
	if ((bare = tap_read_file(path_of("bare"), &blen)) == NULL ||
	    (full = tap_read_file(path_of("full"), &flen)) == NULL ||
	    flen <= blen || memcmp(full, bare, blen) != 0 ||
	    (f = fopen(path_of("crafted"), "wb")) == NULL)
		goto out;
	fwrite(bare, 1, blen, f);
	for (i = 0; i < copies; i++)
		fwrite(full + blen, 1, flen - blen, f);
	if (fclose(f) != 0 || (armor && tap_run(path_of("crafted.asc"), "sh",
	    "-c", "gpg --homedir \"$1\" --enarmor <\"$0\" | sed 's/PGP "
	    "ARMORED FILE/PGP PUBLIC KEY BLOCK/'", path_of("crafted"), home,
	    (char *)NULL) != 0))
		goto out;
	out = tap_read_file(path_of(armor ? "crafted.asc" : "crafted"), lenp);
out:
	free(bare);
	free(full);
	return out;
}

/*
 * test_limits - key files with more subkeys than a key file may have
 * are refused before librnp parses them, binary or armored; at the
 * limit they load
 */
static void
test_limits(const char *alice)
{
	static const size_t copies[] = { 3300, OPENPGP_SUBKEYS_MAX };
	struct openpgp_keys *k;
	struct pa_err err;
	size_t i, len;
	char *data;
	int armor, rc;

	for (i = 0; i < 2; i++)
		for (armor = 0; armor < 2; armor++) {
			k = NULL;
			err.msg[0] = '\0';
			if ((data = crafted(alice, copies[i], armor,
			    &len)) == NULL) {
				tap_check(0, "make a key file of %zu subkeys",
				    copies[i]);
				continue;
			}
			rc = openpgp_keys_load(&k, data, len, &err);
			if (i == 0)
				tap_check(rc == PA_EBADDOC && k == NULL &&
				    strstr(err.msg, "3300 subkeys") != NULL,
				    "%zu subkeys (%s, %zu bytes) refused: %s",
				    copies[i], armor ? "armored" : "binary",
				    len, err.msg);
			else
				tap_check(rc == 0 && k != NULL,
				    "%zu subkeys (%s) load: %s", copies[i],
				    armor ? "armored" : "binary", err.msg);
			openpgp_keys_free(k);
			free(data);
		}
}

static void
test_signatures(const char *alice, const char *bob)
{
	struct openpgp_keys *ka, *kab;
	struct openpgp_sig sig;
	struct sbuf plain;
	char *data;
	size_t len, i;
	time_t now = time(NULL);

	sbuf_init(&plain, PLAIN_CAP);
	tap_write_file(path_of("text"), "a digest of 32 bytes, say......\n",
	    32);
	ka = load(alice, 1);
	kab = load(bob, 0);
	if (!tap_check(ka != NULL && kab != NULL, "keys load, armored and "
	    "binary"))
		goto out;
	if (gpg(NULL, "-u", alice, "-o", path_of("good.gpg"), "-s",
	    path_of("text")) != 0) {
		tap_check(0, "gpg -s");
		goto out;
	}
	verify(ka, "good.gpg", &plain, &sig);
	tap_check_int(sig.status, OPENPGP_GOOD, "a good signature: good");
	tap_check_mem(plain.buf, plain.len, "a digest of 32 bytes, say......\n",
	    32, "  its content is what was signed");
	tap_check_str(sig.fpr, alice, "  by the signing key");
	tap_check(sig.when > now - 600 && sig.when <= now + 5,
	    "  made now: %lld", (long long)sig.when);
	tap_check(sig.valid_till == OPENPGP_FOREVER && !sig.revoked,
	    "  by a key that does not expire");
	verify(kab, "good.gpg", &plain, &sig);
	tap_check_int(sig.status, OPENPGP_NOKEY, "with another key's file: "
	    "nokey");
	tap_check(sig.fpr[0] != '\0' && strstr(alice, sig.fpr) != NULL,
	    "  names the signer: %s", sig.fpr);

	/* A byte of the literal data changed (uncompressed, to reach it). */
	if (gpg(NULL, "-u", alice, "--compress-algo", "none", "-o",
	    path_of("plain.gpg"), "-s", path_of("text")) == 0 &&
	    (data = tap_read_file(path_of("plain.gpg"), &len)) != NULL) {
		for (i = 0; i + 6 < len; i++)
			if (memcmp(data + i, "digest", 6) == 0) {
				data[i] = 'D';
				break;
			}
		tap_write_file(path_of("changed.gpg"), data, len);
		free(data);
		verify(ka, "changed.gpg", &plain, &sig);
		tap_check_int(sig.status, OPENPGP_BAD, "changed data: bad");
	} else
		tap_check(0, "gpg -s without compression");

	if (gpg(NULL, "-u", alice, "-u", bob, "-o", path_of("two.gpg"), "-s",
	    path_of("text")) == 0) {
		verify(kab, "two.gpg", &plain, &sig);
		tap_check_int(sig.status, OPENPGP_UNUSABLE,
		    "two signatures: unusable");
		tap_diag("  %s", sig.detail);
	} else
		tap_check(0, "gpg -s with two keys");

	/* Content past the cap, and a compressed bomb, stop at the cap. */
	if ((data = malloc(16u << 20)) != NULL) {
		memset(data, 'x', 16u << 20);
		tap_write_file(path_of("big"), data, 16u << 20);
		free(data);
	}
	if (gpg(NULL, "-u", alice, "-z", "9", "-o", path_of("bomb.gpg"), "-s",
	    path_of("big")) == 0) {
		verify(ka, "bomb.gpg", &plain, &sig);
		tap_check(sig.status != OPENPGP_GOOD && plain.len <= PLAIN_CAP,
		    "16 MiB compressed into a small message: not good, "
		    "%zu bytes kept", plain.len);
		tap_diag("  %s", sig.detail);
	} else
		tap_check(0, "gpg -s a large file");

	tap_check(verify(ka, "text", &plain, &sig) == 0 &&
	    sig.status == OPENPGP_UNUSABLE, "text that is no OpenPGP "
	    "message: unusable (%s)", sig.detail);
out:
	openpgp_keys_free(ka);
	openpgp_keys_free(kab);
	sbuf_release(&plain);
}

/* test_compromised - a key revoked as compromised is never valid */
static void
test_compromised(const char *bob)
{
	struct openpgp_keys *k;
	struct openpgp_sig sig;
	struct sbuf plain;
	static const char revoke[] = "revkey\ny\n1\nkey stolen\n\ny\nsave\n";

	sbuf_init(&plain, PLAIN_CAP);
	if (gpg(NULL, "-u", bob, "-o", path_of("bob.gpg"), "-s",
	    path_of("text")) != 0 ||
	    tap_write_file(path_of("revcmd"), revoke, strlen(revoke)) != 0) {
		tap_check(0, "gpg -s by bob");
		return;
	}
	/* reason 1: the key has been compromised */
	if (tap_run(NULL, "sh", "-c", "exec gpg --homedir \"$0\" --batch "
	    "--yes --command-fd 0 --pinentry-mode loopback --passphrase '' "
	    "--edit-key \"$1\" <\"$2\"", home, bob, path_of("revcmd"),
	    (char *)NULL) != 0) {
		tap_check(0, "gpg revokes bob's key as compromised");
		return;
	}
	if ((k = load(bob, 1)) == NULL) {
		tap_check(0, "bob's revoked key loads");
		return;
	}
	verify(k, "bob.gpg", &plain, &sig);
	tap_check(sig.status == OPENPGP_KEY_INVALID && sig.valid_till == 0 &&
	    sig.revoked, "a key revoked as compromised was never valid");
	openpgp_keys_free(k);
	sbuf_release(&plain);
}

int
main(void)
{
	struct pa_err err;
	char alice[41], bob[41];
	const char *tmp = getenv("TMPDIR");

	if (pa_global_init(&err) != 0)
		tap_skip_all("%s", err.msg);
	if (tap_run(NULL, "gpg", "--version", (char *)NULL) != 0)
		tap_skip_all("gpg is not installed: no keys to make");
	/* Agent sockets live in the home: keep the path short. */
	snprintf(top, sizeof(top), "%s/t-opgp.XXXXXX",
	    tmp && tmp[0] && strlen(tmp) < 40 ? tmp : "/tmp");
	if (mkdtemp(top) == NULL)
		tap_skip_all("cannot make a temporary folder");
	atexit(cleanup);
	snprintf(home, sizeof(home), "%s/gnupg", top);
	if (mkdir(home, 0700) != 0 ||
	    gpg(NULL, "--passphrase", "", "--quick-gen-key",
	    "Alice <alice@example.org>", "ed25519", "sign", "never") != 0 ||
	    gpg(NULL, "--passphrase", "", "--quick-gen-key",
	    "Bob <bob@example.org>", "rsa2048", "sign", "never") != 0 ||
	    fpr_of("alice@example.org", alice) != 0 ||
	    fpr_of("bob@example.org", bob) != 0)
		tap_skip_all("gpg cannot make keys here");

	test_load();
	test_signatures(alice, bob);
	test_shapes(alice);
	test_compromised(bob);
	test_limits(alice);
	return tap_done();
}
