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
 * read back from the ledger.  Whose habit: a reply with a diff is judged
 * by none and teaches none; a patch relayed for another author is judged
 * by its sender's habit and teaches it, never the author's, and so is
 * mail the kernel's web endpoint relays (X-Original-From).
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
#define DORA		"Dora Example <dora@example.org>"
#define DORA_KEY	"ed25519/example.org/dora/d1"
#define CAROL		"Carol Writer <carol@example.net>"
#define IN_REPLY	"In-Reply-To: <t-signer-series@example.org>\n"

static struct pa_config cf;
static struct decider *dc;
static struct ledger *lg;
static unsigned nmsg;

/*
 * hdrs_as - the fixture's headers with from, the Subject field subj,
 * the fields extra and a Message-ID of its own
 */
static void
hdrs_as(struct sbuf *out, const char *from, const char *subj,
    const char *extra)
{
	sbuf_reset(out);
	sbuf_addf(out, "%sTo: linux-leds@vger.kernel.org\n"
	    "Date: Mon, 2 Jun 2025 10:00:00 +0200\n%s%s"
	    "List-Id: <linux-leds.vger.kernel.org>\n"
	    "Message-ID: <t-signer-%u@example.org>\n", from, subj, extra,
	    ++nmsg);
}

/* hdrs - the fixture's headers with from and a Message-ID of its own */
static void
hdrs(struct sbuf *out, const char *from)
{
	hdrs_as(out, from, SUBJ, "");
}

/*
 * patch_body - the fixture's patch with a diff of its own, n: a habit
 * counts patches, and the same patch sent again counts once
 */
static void
patch_body(struct sbuf *out, unsigned n)
{
	char line[64];

	sbuf_reset(out);
	sbuf_addstr(out, BODY);
	snprintf(line, sizeof(line), "+\tdelay = %u;", n);
	replace(out, "+\tdelay = delay;", line);
}

/* signed_by - a patch by alice signed with key, selector sel */
static void
signed_by(struct sbuf *msg, const struct key *key, const char *sel)
{
	struct spec sp;
	struct sbuf h, body;

	sbuf_init(&h, SBUF_NOMAX);
	sbuf_init(&body, SBUF_NOMAX);
	hdrs(&h, FROM_ALICE);
	patch_body(&body, nmsg);
	memset(&sp, 0, sizeof(sp));
	sp.hdrs = h.buf;
	sp.body = body.buf;
	sp.key = key;
	sp.s = sel;
	build(msg, &sp);
	sbuf_release(&h);
	sbuf_release(&body);
}

/* unsigned_from - a patch of its own, unsigned, from from */
static void
unsigned_from(struct sbuf *msg, const char *from)
{
	struct sbuf body;

	sbuf_init(&body, SBUF_NOMAX);
	hdrs(msg, from);
	patch_body(&body, nmsg);
	sbuf_addch(msg, '\n');
	sbuf_addstr(msg, body.buf);
	sbuf_release(&body);
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
	decide_arrival(dc, d,
	    &(struct arrival_origin){ "<alice@example.org>", NULL, NULL }, a);
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
	replace(&msg, "+\tdelay = ", "+\tdelay = 1000 + ");
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
	/* libpq's message, long and on several lines, whole words only */
	decider_use_ledger(dc, NULL, "lost the state database (database "
	    "postgres on /run/postgresql): FATAL:  terminating connection due "
	    "to administrator command\nserver closed the connection "
	    "unexpectedly");
	unsigned_from(&msg, FROM_ALICE);
	judge(&msg, &d, &a);
	tap_check_str(d.reason, "signer memory could not be consulted: lost "
	    "the state database (database postgres on /run/postgresql): "
	    "FATAL: terminating connection due...; this one is unsigned",
	    "a long reason from the database: cut after a whole word, on "
	    "one line");
	decider_use_ledger(dc, NULL, NULL);
	judge(&msg, &d, &a);
	tap_check_str(d.reason, "", "signer memory off: nothing said");
	sbuf_release(&msg);
}

/* dora_signs - a patch by dora, signed with her key (selector d1) */
static void
dora_signs(struct sbuf *msg, const struct key *dora)
{
	struct sbuf h, body;
	struct spec sp;

	sbuf_init(&h, SBUF_NOMAX);
	sbuf_init(&body, SBUF_NOMAX);
	hdrs(&h, "From: " DORA "\n");
	patch_body(&body, nmsg);
	memset(&sp, 0, sizeof(sp));
	sp.hdrs = h.buf;
	sp.body = body.buf;
	sp.canon_hdrs = "from:" DORA "\r\nsubject:leds: fix the blinking\r\n";
	sp.i = "dora@example.org";
	sp.s = "d1";
	sp.key = dora;
	build(msg, &sp);
	sbuf_release(&h);
	sbuf_release(&body);
}

/*
 * unsigned_mail - an unsigned patch mail: from, the Subject field subj,
 * the fields extra, and the body: an in-body "From: " line when inbody
 * is not NULL, then text (NULL: the fixture's patch)
 */
static void
unsigned_mail(struct sbuf *msg, const char *from, const char *subj,
    const char *extra, const char *inbody, const char *text)
{
	struct sbuf body;

	sbuf_init(&body, SBUF_NOMAX);
	patch_body(&body, nmsg + 1);
	hdrs_as(msg, from, subj, extra);
	sbuf_addch(msg, '\n');
	if (inbody != NULL)
		sbuf_addf(msg, "From: %s\n\n", inbody);
	sbuf_addstr(msg, text != NULL ? text : body.buf);
	sbuf_release(&body);
}

/* recent - identity's recent patch mails and how many were signed */
static void
recent(const char *identity, unsigned *n, unsigned *signed_n)
{
	struct habit h;
	struct pa_err err;

	*n = *signed_n = 0;
	if (ledger_habit(lg, identity, &h, &err) == 0) {
		*n = h.recent;
		*signed_n = h.recent_signed;
	}
}

/* What a reviewer sends: the patch quoted, a diff of its own. */
#define REVIEW \
	"On Mon, 2 Jun 2025, Bob Example wrote:\n" \
	"> The LED blinked twice as fast as asked.\n" \
	"\n" \
	"Something like this instead, untested:\n" \
	"\n" \
	"diff --git a/drivers/leds/led-core.c b/drivers/leds/led-core.c\n" \
	"index 1111111..3333333 100644\n" \
	"--- a/drivers/leds/led-core.c\n" \
	"+++ b/drivers/leds/led-core.c\n" \
	"@@ -1 +1 @@\n" \
	"-\tdelay /= 2; \n" \
	"+\tdelay *= 1;\n"

/*
 * test_reply - dora signs 3 patches; her replies with a diff, unsigned,
 * under each spelling of a reply, are none, recorded without an
 * identity, and leave her habit as it was, and a ledger that cannot be
 * read does not matter to them; a series' patch (In-Reply-To its cover
 * letter), and a "Re:" that answers nothing, are still judged
 */
static void
test_reply(const struct key *dora)
{
	static const struct {
		const char	*subj, *extra, *what;
	} replies[] = {
		{ "Subject: Re: [PATCH v2 3/7] leds: fix the blinking\n",
		    IN_REPLY, "Re:" },
		{ "Subject: RE: [PATCH v2 3/7] leds: fix the blinking\n",
		    "References: <t-signer-series@example.org>\n",
		    "RE:, with References only" },
		{ "Subject: Re[2]: [PATCH v2 3/7] leds: fix the blinking\n",
		    IN_REPLY, "Re[2]:" },
		{ "Subject: re : [PATCH v2 3/7] leds: fix the blinking\n",
		    IN_REPLY, "re :" },
		{ "Subject: AW: [PATCH v2 3/7] leds: fix the blinking\n",
		    IN_REPLY, "AW: (German)" },
		{ "Subject: =?UTF-8?B?5Zue5aSN77ya?= [PATCH v2 3/7] leds: fix "
		    "the blinking\n", IN_REPLY,
		    "an encoded Chinese reply word, full-width colon" },
		{ "Subject: \xe7\xad\x94\xe5\xa4\x8d: [PATCH v2 3/7] leds\n",
		    IN_REPLY, "a Chinese reply word in UTF-8 as sent" },
	};
	struct arrival a;
	struct decision d;
	struct sbuf msg;
	unsigned n0, s0, n, sn;
	size_t k;

	sbuf_init(&msg, SBUF_NOMAX);
	put_key(DORA_KEY, dora->pub);
	for (k = 0; k < 3; k++) {
		dora_signs(&msg, dora);
		judge(&msg, &d, &a);
	}
	tap_check_int(d.result, VERDICT_PASS, "dora signs 3 patches: pass");
	recent("dora@example.org", &n0, &s0);
	for (k = 0; k < sizeof(replies) / sizeof(replies[0]); k++) {
		unsigned_mail(&msg, "From: " DORA "\n", replies[k].subj,
		    replies[k].extra, NULL, REVIEW);
		tap_check_int(judge(&msg, &d, &a), VERDICT_NONE,
		    "dora's reply with a diff, unsigned, %s: none",
		    replies[k].what);
		tap_check(d.has_patch && a.has_patch && a.identity[0] ==
		    '\0' && strcmp(a.result, "none") == 0 &&
		    strcmp(a.author, DORA) == 0, "... recorded as a patch "
		    "mail, with no identity: identity \"%s\"", a.identity);
	}
	recent("dora@example.org", &n, &sn);
	tap_check(n == n0 && sn == s0 && s0 == 3,
	    "the replies taught no habit: dora signed %u of %u, as before "
	    "(%u of %u)", sn, n, s0, n0);

	decider_use_ledger(dc, NULL, "the state file is damaged");
	unsigned_mail(&msg, "From: " DORA "\n", replies[0].subj, IN_REPLY,
	    NULL, REVIEW);
	tap_check_int(judge(&msg, &d, &a), VERDICT_NONE,
	    "a reply, the ledger unreadable: none, no habit judges it");
	decider_use_ledger(dc, lg, NULL);

	unsigned_mail(&msg, "From: " DORA "\n",
	    "Subject: [PATCH v2 3/7] leds: fix the blinking\n", IN_REPLY,
	    NULL, NULL);
	tap_check_int(judge(&msg, &d, &a), VERDICT_UNSIGNED_BY_SIGNER,
	    "a series' patch (In-Reply-To its cover letter), unsigned: "
	    "unsigned-by-signer");
	unsigned_mail(&msg, "From: " DORA "\n", replies[0].subj, "", NULL,
	    REVIEW);
	tap_check_int(judge(&msg, &d, &a), VERDICT_UNSIGNED_BY_SIGNER,
	    "a \"Re:\" that answers no mail: unsigned-by-signer");
	unsigned_mail(&msg, "From: " DORA "\n", "Subject: Revert "
	    "\"leds: fix the blinking\"\n", IN_REPLY, NULL, NULL);
	tap_check_int(judge(&msg, &d, &a), VERDICT_UNSIGNED_BY_SIGNER,
	    "\"Revert\" is no reply: unsigned-by-signer");
	for (k = 0; k < 3; k++) {
		dora_signs(&msg, dora);
		judge(&msg, &d, &a);
	}
	sbuf_release(&msg);
}

/*
 * test_relayed - dora (who signed 6 of her last 9) sends carol's patch
 * unsigned: judged by dora's habit, the reason naming both, and it
 * teaches dora's habit, not carol's; carol sends dora's patch: judged
 * by carol's, who has none, and dora's habit is untouched; a From
 * without an address leaves the mail in its author's name
 */
static void
test_relayed(void)
{
	struct arrival a;
	struct decision d;
	struct sbuf msg;
	unsigned n, sn;

	sbuf_init(&msg, SBUF_NOMAX);
	unsigned_mail(&msg, "From: " DORA "\n", SUBJ, "", CAROL, NULL);
	tap_check_int(judge(&msg, &d, &a), VERDICT_UNSIGNED_BY_SIGNER,
	    "dora sends carol's patch unsigned: unsigned-by-signer, by "
	    "dora's habit");
	tap_check_str(d.reason, "dora@example.org signed 6 of its last 9 "
	    "patches with " DORA_KEY "; this one, sent for author "
	    "carol@example.net, is unsigned", "... the reason names both");
	tap_check_str(a.identity, "dora@example.org",
	    "... recorded under the sender");
	tap_check_str(a.author, CAROL, "... with its author, as git am has it");
	recent("carol@example.net", &n, &sn);
	tap_check_int(n, 0, "... and carol learnt no habit from it");
	recent("dora@example.org", &n, &sn);
	tap_check(n == 10 && sn == 6, "... dora's did: %u of %u", sn, n);

	unsigned_mail(&msg, "From: " CAROL "\n", SUBJ, "", DORA, NULL);
	tap_check_int(judge(&msg, &d, &a), VERDICT_NONE, "carol sends dora's "
	    "patch unsigned: none, carol has no habit");
	tap_check_str(a.identity, "carol@example.net",
	    "... recorded under the sender");
	tap_check_str(a.author, DORA, "... dora its author");
	recent("dora@example.org", &n, &sn);
	tap_check(n == 10 && sn == 6, "... dora's habit untouched: %u of %u",
	    sn, n);

	unsigned_mail(&msg, "From: undisclosed sender\n", SUBJ, "", DORA,
	    NULL);
	tap_check_int(judge(&msg, &d, &a), VERDICT_UNSIGNED_BY_SIGNER,
	    "a From without an address, dora's in the body: the mail is in "
	    "dora's name, unsigned-by-signer");
	tap_check_str(d.reason, "dora@example.org signed 6 of its last 10 "
	    "patches with " DORA_KEY "; this one is unsigned",
	    "... by dora's habit");
	sbuf_release(&msg);
}

/*
 * test_endpoint - mail the kernel's web endpoint relays: From is its own
 * address, the sender in X-Original-From (encoded as the relay writes
 * it); the author is the body's From when it has one
 */
static void
test_endpoint(void)
{
	struct arrival a;
	struct decision d;
	struct sbuf msg;
	const char *relay = "From: Dora Example via B4 Relay "
	    "<devnull+dora.example.org@kernel.org>\n"
	    "X-Original-From: =?utf-8?q?Dora_Exampl=C3=A9?= "
	    "<Dora@Example.ORG>\n";

	sbuf_init(&msg, SBUF_NOMAX);
	unsigned_mail(&msg, relay, SUBJ, "", NULL, NULL);
	tap_check_int(judge(&msg, &d, &a), VERDICT_UNSIGNED_BY_SIGNER,
	    "the web endpoint relays dora's patch unsigned: "
	    "unsigned-by-signer");
	tap_check_str(d.reason, "dora@example.org signed 6 of its last 11 "
	    "patches with " DORA_KEY "; this one is unsigned",
	    "... by dora's habit, X-Original-From's");
	tap_check_str(a.author, "Dora Exampl\xc3\xa9 <Dora@Example.ORG>",
	    "... the author is X-Original-From's, decoded");
	tap_check_str(a.identity, "dora@example.org",
	    "... the identity its address, canonical");
	unsigned_mail(&msg, relay, SUBJ, "", CAROL, NULL);
	tap_check_int(judge(&msg, &d, &a), VERDICT_UNSIGNED_BY_SIGNER,
	    "... and carol's patch, which dora sends through it: "
	    "unsigned-by-signer");
	tap_check(strstr(d.reason, "; this one, sent for author "
	    "carol@example.net, is unsigned") != NULL,
	    "... the reason names both: %s", d.reason);
	tap_check_str(a.author, CAROL, "... the author is the body's, as git "
	    "am");
	tap_check_str(a.identity, "dora@example.org",
	    "... the identity the sender's");
	sbuf_release(&msg);
}

int
main(void)
{
	struct patatt *pt = fixture_start();
	struct key alice, stranger, alice_new, dora;
	struct pa_err err;
	char path[256];

	keygen(&alice);
	keygen(&stranger);
	keygen(&alice_new);
	keygen(&dora);
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
	decider_use_ledger(dc, lg, NULL);
	test_reply(&dora);
	test_relayed();
	test_endpoint();
	decider_free(dc);
	ledger_close(lg);
	cf.patatt_keyrings.v = NULL;
	cf.patatt_keyrings.n = 0;
	config_release(&cf);
	EVP_PKEY_free(alice.pk);
	EVP_PKEY_free(stranger.pk);
	EVP_PKEY_free(alice_new.pk);
	EVP_PKEY_free(dora.pk);
	return fixture_end(pt);
}
