/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * patatt-fixture - what the patatt unit tests share: a work folder with a
 * keyring and a GnuPG home made for the run, Ed25519 keys made with
 * OpenSSL, and messages signed the way patatt signs them, from a spec, by
 * code of the test's own (the headers canonicalised by hand, the body by
 * the simple rule that holds for plain ASCII patches), so the library's
 * canonicalisation is checked, not just repeated.
 */
#ifndef PA_TESTS_PATATT_FIXTURE_H
#define PA_TESTS_PATATT_FIXTURE_H

#include <stddef.h>

#include <openssl/evp.h>

#include "patchattest.h"
#include "patatt.h"
#include "sbuf.h"


#define T_SIGNED	"1700000000"

#define FROM_ALICE	"From: Alice Example <alice@example.org>\n"
#define SUBJ		"Subject: [PATCH] leds: fix the blinking\n"
#define HDRS \
	FROM_ALICE \
	"To: linux-leds@vger.kernel.org\n" \
	"Date: Mon, 2 Jun 2025 10:00:00 +0200\n" \
	SUBJ \
	"Message-ID: <20250602.1@example.org>\n"
#define CANON_HDRS \
	"from:Alice Example <alice@example.org>\r\n" \
	"subject:leds: fix the blinking\r\n"
#define BODY \
	"The LED blinked twice as fast as asked.\n" \
	"\n" \
	"Signed-off-by: Alice Example <alice@example.org>\n" \
	"---\n" \
	" drivers/leds/led-core.c | 2 +-\n" \
	" 1 file changed, 1 insertion(+), 1 deletion(-)\n" \
	"\n" \
	"diff --git a/drivers/leds/led-core.c b/drivers/leds/led-core.c\n" \
	"index 1111111..2222222 100644\n" \
	"--- a/drivers/leds/led-core.c\n" \
	"+++ b/drivers/leds/led-core.c\n" \
	"@@ -1 +1 @@\n" \
	"-\tdelay /= 2; \n" \
	"+\tdelay = delay;\n" \
	"-- \n" \
	"2.43.0\n" \
	"\n" \
	"\n"

extern char top[64], ring[128], ghome[128];
extern struct patatt_keyring *kr;
extern struct patatt_report report;	/* of the last check() */

struct key {
	EVP_PKEY	*pk;
	char		 pub[64];	/* Base64 of the raw key */
};

/* What to sign: NULL fields take the defaults of the valid message. */
struct spec {
	const char		*hdrs;
	const char		*body;
	const char		*canon_body;	/* NULL: the simple rule */
	const char		*canon_hdrs;
	const char		*a;		/* "ed25519-sha256" */
	const char		*t;		/* T_SIGNED; "" leaves it out */
	const char		*i;		/* "alice@example.org" */
	const char		*s;		/* "20250602"; "" leaves it out */
	const char		*h;		/* "from:subject" */
	const struct key	*key;
	int			 no_b;
	const char		*after;		/* fields after the signature */
};

/*
 * fixture_start - the work folder, the keyring, the GnuPG home and a
 * verifier over them (the test is skipped when they cannot be made);
 * fixture_end - the verifier and the keyring freed, and the TAP result
 */
struct patatt	*fixture_start(void);
int		 fixture_end(struct patatt *);

void	b64(char *out, size_t size, const void *p, size_t n);
void	keygen(struct key *);
void	sign_raw(const struct key *, const void *msg, size_t len,
	    unsigned char sig[64]);
/* put_key - a keyring file, relative to the keyring */
void	put_key(const char *rel, const char *content);
/* test_canon - the simple rule: CRLF lines, trailing blank lines gone */
void	test_canon(struct sbuf *out, const char *body);
/* tags - "v=1; ...; b=" of a spec, with bh and l of the canonical body */
void	tags(struct sbuf *out, const struct spec *);
/* digest_of - D over the canonical headers and the tag string */
void	digest_of(unsigned char d[32], const char *canon_hdrs,
	    const struct sbuf *s);
/* sig_field - the signature field of a spec, folded as patatt folds it */
void	sig_field(struct sbuf *out, const struct spec *, const char *b_value);
/* build - the whole message of a spec */
void	build(struct sbuf *msg, const struct spec *);
/* replace - the first "from" in msg by "to" */
void	replace(struct sbuf *msg, const char *from, const char *to);
/* check - patatt_check on raw bytes into report; its return code */
int	check(struct patatt *, const char *raw, size_t len);
/* expect - one signature, with that result; says why when not */
int	expect(struct patatt *, const struct sbuf *, enum patatt_result,
	    const char *, ...) __attribute__((format(printf, 4, 5)));

#endif
