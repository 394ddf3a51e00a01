/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t-signer - signer memory and the arrival record, through the decider
 * and a real ledger: Ed25519 keys made for the run sign patches as patatt
 * does (patatt-fixture), the decider judges them against a keyring folder
 * and records each; then a patch in a habitual signer's name that comes
 * unsigned, or signed by a key we do not have, is unsigned-by-signer, and
 * nothing else is: another identity's unsigned patch, a pass by a new
 * trusted key, a fail, a habit below SignerHabitMinimum or broken more
 * often than kept, a ledger that cannot be read.  One record's fields are
 * read back from the ledger.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decide.h"
#include "ledger.h"
#include "mailmsg.h"
#include "patatt-fixture.h"
#include "tap.h"

#define NOW		((time_t)1764720000)
#define ALICE_KEY	"ed25519/example.org/alice/20250602"
#define FROM_BOB	"From: Bob Example <bob@example.org>\n"

static struct pa_config cf;
static struct decider *dc;
static struct ledger *lg;
static unsigned nmsg;

/* hdrs - the fixture's headers with from and a Message-ID of its own */
static void
hdrs(struct sbuf *out, const char *from)
{
	sbuf_reset(out);
	sbuf_addf(out, "%sTo: linux-leds@vger.kernel.org\n"
	    "Date: Mon, 2 Jun 2025 10:00:00 +0200\n%s"
	    "List-Id: <linux-leds.vger.kernel.org>\n"
	    "Message-ID: <t-signer-%u@example.org>\n", from, SUBJ, ++nmsg);
}

/* signed_by - a patch by alice signed with key, selector sel */
static void
signed_by(struct sbuf *msg, const struct key *key, const char *sel)
{
	struct spec sp;
	struct sbuf h;

	sbuf_init(&h, SBUF_NOMAX);
	hdrs(&h, FROM_ALICE);
	memset(&sp, 0, sizeof(sp));
	sp.hdrs = h.buf;
	sp.key = key;
	sp.s = sel;
	build(msg, &sp);
	sbuf_release(&h);
}

/* unsigned_from - the fixture's patch, unsigned, from from */
static void
unsigned_from(struct sbuf *msg, const char *from)
{
	hdrs(msg, from);
	sbuf_addstr(msg, "\n" BODY);
}

/*
 * judge - msg decided and recorded (and committed, so the next message
 * sees it), its decision into d and its record into a
 */
static enum verdict
judge(const struct sbuf *msg, struct decision *d, struct arrival *a)
{
	struct mailmsg *m;
	struct pa_err err;

	if (mailmsg_new(&m, 1 << 20) != 0 ||
	    mailmsg_parse(m, msg->buf, msg->len) != 0 ||
	    decide_begin(dc, m, NOW + nmsg) != 0) {
		mailmsg_free(m);
		tap_diag("the message could not be read");
		return VERDICT_TEMPERROR;
	}
	decide_end(dc, NULL, NULL, d);
	decide_arrival(dc, m, d, "<alice@example.org>", a);
	mailmsg_free(m);
	if (lg != NULL && (ledger_record(lg, a, &err) != 0 ||
	    ledger_sync(lg, &err) != 0))
		tap_diag("the record: %s", err.msg);
	return d->result;
}

/* first - fn of ledger_by_message_id(): the first copy into arg */
static int
first(void *arg, const struct arrival *a)
{
	*(struct arrival *)arg = *a;
	return 1;
}

static void
test_record(const struct key *alice)
{
	struct arrival a, back;
	struct decision d;
	struct sbuf msg;
	struct pa_err err;

	sbuf_init(&msg, SBUF_NOMAX);
	signed_by(&msg, alice, NULL);
	tap_check_int(judge(&msg, &d, &a), VERDICT_PASS, "alice signs: pass");
	memset(&back, 0, sizeof(back));
	tap_check_int(ledger_by_message_id(lg, "t-signer-1@example.org", first,
	    &back, &err), 1, "its record is found by Message-ID");
	tap_check_int(back.copy, 1, "record: the first copy");
	tap_check_int(back.arrived, NOW + 1, "record: arrived at decide's now");
	tap_check_str(back.envelope_from, "alice@example.org",
	    "record: the envelope sender, without <>");
	tap_check_str(back.author, "Alice Example <alice@example.org>",
	    "record: the author");
	tap_check_str(back.identity, "alice@example.org", "record: identity");
	tap_check_str(back.subject, "[PATCH] leds: fix the blinking",
	    "record: the Subject");
	tap_check_str(back.list_id, "<linux-leds.vger.kernel.org>",
	    "record: List-Id");
	tap_check_int(back.has_patch, 1, "record: a patch");
	tap_check(strlen(back.i) == 64 && strlen(back.m) == 64 &&
	    strlen(back.p) == 64 && strncmp(back.i, d.attid, 8) == 0 &&
	    strncmp(back.m, d.attid + 9, 8) == 0 &&
	    strncmp(back.p, d.attid + 18, 8) == 0,
	    "record: i, m, p in hex, those of the attestation ID %s", d.attid);
	tap_check(strlen(back.m_core) == 64 && strcmp(back.m_core, back.m),
	    "record: m_core, m without the trailers");
	tap_check(strlen(back.patch_id) == 40, "record: a patch-id");
	tap_check_str(back.trailers, "Signed-off-by: Alice Example "
	    "<alice@example.org>\n", "record: the trailers");
	tap_check_str(back.result, "pass", "record: the result");
	tap_check_str(back.v01, "none", "record: the 2020 scheme's");
	tap_check_str(back.patatt, "pass", "record: patatt's");
	tap_check_str(back.key, ALICE_KEY, "record: the key");
	tap_check_int(back.signed_trusted, 1, "record: signed with a trusted "
	    "key");
	sbuf_release(&msg);
}

static void
test_habit(const struct key *alice, const struct key *stranger,
    const struct key *alice_new)
{
	struct arrival a;
	struct decision d;
	struct sbuf msg;

	sbuf_init(&msg, SBUF_NOMAX);
	/* two more signed patches: 3 of 3, the minimum */
	unsigned_from(&msg, FROM_ALICE);
	tap_check_int(judge(&msg, &d, &a), VERDICT_NONE,
	    "alice unsigned after 1 signed patch of 1: none (minimum 3)");
	signed_by(&msg, alice, NULL);
	judge(&msg, &d, &a);
	signed_by(&msg, alice, NULL);
	judge(&msg, &d, &a);
	signed_by(&msg, alice, NULL);
	judge(&msg, &d, &a);

	unsigned_from(&msg, FROM_ALICE);
	tap_check_int(judge(&msg, &d, &a), VERDICT_UNSIGNED_BY_SIGNER,
	    "alice unsigned after 4 signed of 5: unsigned-by-signer");
	tap_check_str(d.reason, "alice@example.org signed 4 of its last 5 "
	    "patches with " ALICE_KEY "; this one is unsigned",
	    "... the reason names the habit");
	tap_check_str(a.result, "unsigned-by-signer", "... and is recorded so");
	tap_check_str(a.v01, "none", "... the 2020 scheme's own kept");
	tap_check_int(a.signed_trusted, 0, "... not signed: no habit taught");

	unsigned_from(&msg, FROM_BOB);
	tap_check_int(judge(&msg, &d, &a), VERDICT_NONE,
	    "bob, who never signed, unsigned: none");

	signed_by(&msg, stranger, "stranger");
	tap_check_int(judge(&msg, &d, &a), VERDICT_UNSIGNED_BY_SIGNER,
	    "alice signed by a key we do not have: unsigned-by-signer");
	tap_check(strstr(d.reason, "this one is signed by a key we do not "
	    "have") != NULL, "... and says so: %s", d.reason);
	tap_check_str(a.patatt, "nokey", "... patatt's own verdict recorded");

	signed_by(&msg, alice, NULL);
	replace(&msg, "+\tdelay = delay;", "+\tdelay = 0;");
	tap_check_int(judge(&msg, &d, &a), VERDICT_FAIL,
	    "alice's patch changed after she signed it: fail stays fail");

	put_key("ed25519/example.org/alice/new", alice_new->pub);
	signed_by(&msg, alice_new, "new");
	tap_check_int(judge(&msg, &d, &a), VERDICT_PASS,
	    "alice signs with a new trusted key: pass");
	sbuf_release(&msg);
}

static void
test_minimum(void)
{
	struct arrival a;
	struct decision d;
	struct sbuf msg;

	sbuf_init(&msg, SBUF_NOMAX);
	cf.signer_habit_minimum = 6;
	unsigned_from(&msg, FROM_ALICE);
	tap_check_int(judge(&msg, &d, &a), VERDICT_NONE,
	    "SignerHabitMinimum 6, alice signed 5 of 9: none");
	cf.signer_habit_minimum = 3;
	unsigned_from(&msg, FROM_ALICE);
	tap_check_int(judge(&msg, &d, &a), VERDICT_UNSIGNED_BY_SIGNER,
	    "alice signed 5 of her last 10, half: unsigned-by-signer");
	tap_check(strstr(d.reason, "signed 5 of its last 10 patches with "
	    "ed25519/example.org/alice/new;") != NULL,
	    "... the habit's key is the latest: %s", d.reason);
	unsigned_from(&msg, FROM_ALICE);
	tap_check_int(judge(&msg, &d, &a), VERDICT_NONE,
	    "alice signed 5 of her last 11, fewer than half: no habit, none");

	decider_use_ledger(dc, NULL, "the state file is damaged");
	unsigned_from(&msg, FROM_ALICE);
	tap_check_int(judge(&msg, &d, &a), VERDICT_TEMPERROR,
	    "the ledger unreadable: a habit unknown, temperror (OnError)");
	tap_check_str(d.reason, "signer memory could not be consulted: the "
	    "state file is damaged; this one is unsigned",
	    "... and the reason says why, and what it was otherwise");
	decider_use_ledger(dc, NULL, NULL);
	judge(&msg, &d, &a);
	tap_check_str(d.reason, "", "signer memory off: nothing said");
	sbuf_release(&msg);
}

/*
 * test_relay - mail the kernel's web endpoint relays: From is its own
 * address, the author in X-Original-From (encoded as the relay writes
 * it), unless the body names one
 */
static void
test_relay(void)
{
	struct arrival a;
	struct decision d;
	struct sbuf msg;
	const char *relay = "From: Alice Example via B4 Relay "
	    "<devnull+alice.example.org@kernel.org>\n"
	    "X-Original-From: =?utf-8?q?Alice_Exampl=C3=A9?= "
	    "<Alice@Example.ORG>\n";

	sbuf_init(&msg, SBUF_NOMAX);
	unsigned_from(&msg, relay);
	judge(&msg, &d, &a);
	tap_check_str(a.author, "Alice Exampl\xc3\xa9 <Alice@Example.ORG>",
	    "relayed: the author is X-Original-From's, decoded");
	tap_check_str(a.identity, "alice@example.org",
	    "relayed: the identity is its address, canonical");
	hdrs(&msg, relay);
	sbuf_addstr(&msg, "\nFrom: Bob Example <bob@example.org>\n\n" BODY);
	judge(&msg, &d, &a);
	tap_check_str(a.identity, "bob@example.org",
	    "relayed with an in-body From: the body's author, as git am");
	sbuf_release(&msg);
}

int
main(void)
{
	struct patatt *pt = fixture_start();
	struct key alice, stranger, alice_new;
	struct pa_err err;
	char path[256];

	keygen(&alice);
	keygen(&stranger);
	keygen(&alice_new);
	put_key(ALICE_KEY, alice.pub);
	config_init(&cf);
	cf.staleness_days = 0;	/* the fixture signed in 2023 */
	free(cf.gnupg_home);
	cf.gnupg_home = strdup(ghome);
	cf.patatt_keyrings.v = (char *[]){ ring };
	cf.patatt_keyrings.n = 1;
	snprintf(path, sizeof(path), "%s/state.mdb", top);
	if (decider_new(&dc, &cf, kr, &err) != 0)
		tap_skip_all("decider_new: %s", err.msg);
	if (ledger_open(&lg, path, 1, 1, 0, 0, &err) != 0)
		tap_skip_all("ledger_open: %s", err.msg);
	decider_use_ledger(dc, lg, NULL);
	test_record(&alice);
	test_habit(&alice, &stranger, &alice_new);
	test_minimum();
	test_relay();
	decider_free(dc);
	ledger_close(lg);
	cf.patatt_keyrings.v = NULL;
	cf.patatt_keyrings.n = 0;
	config_release(&cf);
	EVP_PKEY_free(alice.pk);
	EVP_PKEY_free(stranger.pk);
	EVP_PKEY_free(alice_new.pk);
	return fixture_end(pt);
}
