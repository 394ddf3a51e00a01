/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t-patatt-keyring - the keyring folder under a running verifier: key
 * files changed, changed again in the same clock tick, removed, and more
 * signers than the key cache holds; a changed file met by ten threads at
 * once is parsed once, and one dated in the future is not parsed again
 * for every message.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "patchattest.h"
#include "codec.h"
#include "digest.h"
#include "mailmsg.h"
#include "patatt.h"
#include "patatt-int.h"
#include "pgp.h"
#include "pyheader.h"
#include "sbuf.h"
#include "patatt-fixture.h"
#include "tap.h"

/*
 * keyfiles - keyring files changed while the verifier lives: a change is
 * seen at once, also a second change in the same clock tick; more signers
 * than the key cache holds all verify.
 */
static void
keyfiles(struct patatt *pt)
{
	enum { NSIGNERS = PATATT_KEYCACHE_MAX + 8 };
	static struct key dev[NSIGNERS];
	struct key alice, bob;
	struct spec sp;
	struct sbuf msg;
	char rel[128], id[64], path[512], *big;
	size_t i, round, ok, len;
	const char *ring_rel = "ed25519/example.org/kf/20250602";

	keygen(&alice);
	keygen(&bob);
	sbuf_init(&msg, SBUF_NOMAX);
	memset(&sp, 0, sizeof(sp));
	sp.key = &alice;
	sp.i = "kf@example.org";
	build(&msg, &sp);

	put_key(ring_rel, alice.pub);
	usleep(1100 * 1000);	/* old enough to be kept */
	expect(pt, &msg, PATATT_VALID, "key file read once");
	expect(pt, &msg, PATATT_VALID, "  ... and again");
	put_key(ring_rel, bob.pub);	/* same size, same inode */
	expect(pt, &msg, PATATT_BADSIG, "  ... replaced by another key");
	put_key(ring_rel, alice.pub);
	expect(pt, &msg, PATATT_VALID, "  ... the first key back");
	put_key(ring_rel, bob.pub);	/* within the same tick, likely */
	expect(pt, &msg, PATATT_BADSIG,
	    "  ... replaced again right after it was read");
	snprintf(path, sizeof(path), "%s/%s", ring, ring_rel);
	unlink(path);
	expect(pt, &msg, PATATT_NOKEY, "  ... removed");
	big = malloc(PATATT_KEYFILE_MAX + 2);
	for (i = 0; big != NULL && i < 2; i++) {
		/* just under the cap: read whole; just over: refused */
		len = PATATT_KEYFILE_MAX - 10 + 11 * i;
		memset(big, 'A', len);
		big[len] = '\0';
		put_key(ring_rel, big);
		if (expect(pt, &msg, PATATT_KEYFAULT, "key file of %zu bytes",
		    len))
			tap_check(strstr(report.sig[0].detail, i == 0 ?
			    "is not an ed25519 key" : "over") != NULL, "  %s",
			    report.sig[0].detail);
	}
	free(big);
	unlink(path);

	for (i = 0; i < NSIGNERS; i++) {
		keygen(&dev[i]);
		snprintf(rel, sizeof(rel),
		    "ed25519/example.org/dev%zu/20250602", i);
		put_key(rel, dev[i].pub);
	}
	usleep(1100 * 1000);
	for (round = 0; round < 2; round++) {
		for (i = ok = 0; i < NSIGNERS; i++) {
			snprintf(id, sizeof(id), "dev%zu@example.org", i);
			sp.i = id;
			sp.key = &dev[i];
			build(&msg, &sp);
			ok += check(pt, msg.buf, msg.len) == 0 &&
			    report.n == 1 &&
			    report.sig[0].result == PATATT_VALID;
			sp.key = &dev[(i + 1) % NSIGNERS];
			build(&msg, &sp);
			ok += check(pt, msg.buf, msg.len) == 0 &&
			    report.n == 1 &&
			    report.sig[0].result == PATATT_BADSIG;
		}
		tap_check_int((long long)ok, 2 * NSIGNERS, "%d signers, "
		    "each with its own key and not another's (round %zu)",
		    NSIGNERS, round + 1);
	}
	for (i = 0; i < NSIGNERS; i++)
		EVP_PKEY_free(dev[i].pk);
	EVP_PKEY_free(alice.pk);
	EVP_PKEY_free(bob.pk);
	sbuf_release(&msg);
}

static pthread_barrier_t start;

/* getter - one lookup of the key file of arg, at the same time as others */
static void *
getter(void *arg)
{
	struct patatt_keyfile *kf = NULL;
	struct pa_err err;
	intptr_t ok;

	pthread_barrier_wait(&start);
	ok = patatt_keyring_get(kr, arg, PATATT_ED25519, &kf, &err) == 0;
	patatt_keyring_put(kr, kf);
	return (void *)ok;
}

/* parses - key files parsed by the keyring so far */
static unsigned long
parses(void)
{
	struct patatt_cache_stats st;

	patatt_keyring_stats(kr, &st);
	return st.parses;
}

/*
 * once - a key file just changed, looked up by ten threads at once: one
 * parse, which the others wait for; a file dated a day ahead is parsed
 * once, however many messages name it
 */
static void
once(struct patatt *pt)
{
	enum { NTHREADS = 10 };
	static const char rel[] = "ed25519/example.org/once/20250602";
	pthread_t th[NTHREADS];
	struct timespec times[2];
	struct key k;
	struct spec sp;
	struct sbuf msg;
	char path[512];
	unsigned long before;
	void *ok;
	size_t i, good;

	keygen(&k);
	put_key(rel, k.pub);
	pthread_barrier_init(&start, NULL, NTHREADS);
	before = parses();
	for (i = 0; i < NTHREADS; i++)
		pthread_create(&th[i], NULL, getter, (void *)rel);
	for (i = good = 0; i < NTHREADS; i++) {
		pthread_join(th[i], &ok);
		good += ok != NULL;
	}
	pthread_barrier_destroy(&start);
	tap_check_int((long long)good, NTHREADS, "%d threads found the key",
	    NTHREADS);
	tap_check_int((long long)(parses() - before), 1,
	    "  ... which was parsed once");

	snprintf(path, sizeof(path), "%s/%s", ring, rel);
	clock_gettime(CLOCK_REALTIME, &times[0]);
	times[1] = times[0];
	times[1].tv_sec += 86400;
	utimensat(AT_FDCWD, path, times, 0);
	sbuf_init(&msg, SBUF_NOMAX);
	memset(&sp, 0, sizeof(sp));
	sp.key = &k;
	sp.i = "once@example.org";
	build(&msg, &sp);
	before = parses();
	for (i = good = 0; i < 5; i++)
		good += check(pt, msg.buf, msg.len) == 0 && report.n == 1 &&
		    report.sig[0].result == PATATT_VALID;
	tap_check_int((long long)good, 5, "a key file dated a day ahead: "
	    "5 messages verify");
	tap_check_int((long long)(parses() - before), 1, "  ... with one "
	    "parse");
	EVP_PKEY_free(k.pk);
	sbuf_release(&msg);
}

int
main(void)
{
	struct patatt *pt = fixture_start();
	struct patatt_keyring *none = NULL;
	struct pa_err err;

	tap_check(patatt_keyring_new(&none, (char *[]){ "/nonexistent/keys" },
	    1, &err) == PA_ERROR && none == NULL && err.msg[0],
	    "a keyring that is not there: %s", err.msg);
	tap_check_str(patatt_result_name(PATATT_KEY_EXPIRED), "key-expired",
	    "result names");
	keyfiles(pt);
	once(pt);
	return fixture_end(pt);
}
