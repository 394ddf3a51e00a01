/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * signer.c - signer memory: a patch sent in the name of an identity that
 * habitually signs its patches with a trusted key, which comes unsigned,
 * signed by a key we do not have, or signed by a key that is not
 * trusted, is unsigned-by-signer.
 *
 * Whose habit: the sender's, the address in From (for mail the kernel's
 * web submission endpoint relays, whose From is the relay's "devnull+..."
 * address, its X-Original-From; for mail whose From has no address, the
 * author's), the name the mail is in: a forger who does not sign must
 * still put his victim there.  A patch whose author as git am reads it
 * (the in-body From) is someone else is relayed: a stable-tree bot's
 * selection, a colleague sending a series on.  It is judged by the
 * sender's habit too, and the reason names both.  By the author's it
 * would be flagged whenever its author habitually signs (the author's
 * signature covers a From that the sender's mail does not have), and a
 * forger who puts the victim in From would escape by naming anyone in
 * the body.  The other way round, a mail from F whose body names V as its
 * author is not V's mail: the maintainer reads F in From and takes the
 * patch on F's word, as with every relay (F's Signed-off-by under V's);
 * V's habit says how V sends mail, not what others send of V's work, and
 * no relay it would flag could be told from a forged one.  So such a
 * mail is F's to judge, and what F sends teaches F's habit, never V's:
 * an unsigned relay does not dilute its author's habit (arrival.c keeps
 * the record under the sender).  What stays unguarded is the authorship
 * a relay claims, which only V's signature could vouch for.
 *
 * A reply ("Re: [PATCH v2 3/7] ..." in any of the spellings below, with
 * In-Reply-To or References) that carries a diff is a reviewer's
 * suggestion, not a submission.  It is recorded, but judged by no habit
 * and, signed or not, teaches none: its record has no identity.  Replies
 * thus neither flag nor dilute a habit, and a signature on one cannot
 * be used to wear a victim's habit down unseen.  A forger may dress a
 * patch as a reply; it is then a diff offered in a review thread in the
 * victim's name, with what any unsigned mail gets.  The patches of a
 * series carry In-Reply-To too (their cover letter), so it alone is no
 * reply: the Subject says so, and a patch's starts with its "[PATCH".
 *
 * What a habit is: at least SignerHabitMinimum of the identity's recent
 * patch mails (the ledger keeps HABIT_WINDOW of them) passed with a
 * trusted key, and they are at least half of them: someone who signed 3
 * of their last 30 patches has no habit to break.
 *
 * What stays: a pass (by any trusted key: a new key is not flagged), a
 * fail (a contradiction says more), stale and uidmismatch (a trusted key
 * signed it; they have their own actions), temperror.  Signer memory that
 * cannot be read (a damaged file, the state database away) makes a mail
 * it would have judged temperror, OnError's to act on, as any fault of
 * ours: a forger must not pass as merely unsigned because our store was
 * away.  (A record that cannot be written is the caller's fault to
 * handle, through OnError, too.)
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "decide.h"
#include "decide-int.h"
#include "base.h"
#include "mail.h"
#include "sig.h"
#include "state.h"

#define RELAY_LOCALPART	"devnull+"	/* the web endpoint's From */
#define FULLWIDTH_COLON	"\xef\xbc\x9a"	/* U+FF1A, after CJK words */

/*
 * The words a mailer puts before a reply's Subject, lower case: those of
 * the mailers and languages that write to kernel lists.
 */
static const char *const reply_words[] = {
	"re",		/* RFC 5322's, and most mailers' in any language */
	"aw",		/* German */
	"sv",		/* Danish, Norwegian, Swedish */
	"vs",		/* Finnish */
	"antw",		/* Dutch */
	"odp",		/* Polish */
	"r", "rif",	/* Italian */
	"\xe5\x9b\x9e\xe5\xa4\x8d",	/* Chinese: hui fu */
	"\xe7\xad\x94\xe5\xa4\x8d",	/* Chinese: da fu */
	"\xe5\x9b\x9e\xe8\xa6\x86",	/* Chinese, traditional: hui fu */
	"\xed\x9a\x8c\xec\x8b\xa0",	/* Korean: hoesin */
};

/* relayed - the web endpoint relayed it: From is its own address */
static int
relayed(const char *addr)
{
	return strncmp(addr, RELAY_LOCALPART, strlen(RELAY_LOCALPART)) == 0;
}

/* canon - addr, canonical, into out (ARRIVAL_TEXT_MAX); "" if it is none */
static void
canon(char *out, const char *addr)
{
	if (patatt_identity_canon(out, ARRIVAL_TEXT_MAX, addr) != 0)
		out[0] = '\0';
}

/* set_author - "name <addr>" as the message's author */
static void
set_author(struct decider *d, const struct sbuf *name,
    const struct sbuf *addr)
{
	if (name->len > 0)
		snprintf(d->author, sizeof(d->author), "%s <%s>", name->buf,
		    addr->buf);
	else
		snprintf(d->author, sizeof(d->author), "%s", addr->buf);
	canon(d->author_id, addr->buf);
}

/*
 * original_from - X-Original-From's name and address, its encoded words
 * as patatt reads them (the bytes if they fail): 0, or PA_ENOTFOUND
 */
static int
original_from(struct decider *d, const struct mailmsg *msg,
    struct sbuf *name, struct sbuf *addr)
{
	const char *v;
	struct sbuf text;
	size_t len;
	int rc = PA_ENOTFOUND;

	if ((v = mailmsg_get(msg, "X-Original-From", &len)) == NULL)
		return rc;
	sbuf_init(&text, 4 * ARRIVAL_TEXT_MAX);
	if (pyheader_decode(&text, v, len) != 0) {
		sbuf_reset(&text);
		sbuf_add(&text, v, len);
	}
	if (!sbuf_failed(&text) && mailident_from(name, addr, &d->work,
	    text.buf, text.len, 0) == 0 && addr->len > 0)
		rc = 0;
	sbuf_release(&text);
	return rc;
}

/*
 * reply_prefix - s (len bytes) begins with a reply's word: "Re:", "RE :",
 * "Re[2]:", "AW:", "回复：" and so on
 */
static int
reply_prefix(const char *s, size_t len)
{
	const char *p, *end = s + len;
	size_t k, n;

	while (s < end && strchr(" \t\r\n", *s) != NULL)
		s++;
	for (k = 0; k < sizeof(reply_words) / sizeof(reply_words[0]); k++) {
		n = strlen(reply_words[k]);
		if ((size_t)(end - s) < n || !ascii_is(s, n, reply_words[k]))
			continue;
		p = s + n;
		/* a count of replies: "Re[2]:", "Re(2):", "Re^2:" */
		if (p < end && strchr("[(^", *p) != NULL) {
			for (p++; p < end && *p >= '0' && *p <= '9'; p++)
				;
			if (p < end && (*p == ']' || *p == ')'))
				p++;
		}
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if ((p < end && *p == ':') || ((size_t)(end - p) >=
		    strlen(FULLWIDTH_COLON) && memcmp(p, FULLWIDTH_COLON,
		    strlen(FULLWIDTH_COLON)) == 0))
			return 1;
	}
	return 0;
}

/*
 * is_reply - msg answers another mail (In-Reply-To or References) and
 * its Subject, as sent or its encoded words decoded, says it is a reply
 */
static int
is_reply(const struct mailmsg *msg)
{
	const char *v;
	struct sbuf text;
	size_t len;
	int yes;

	if ((mailmsg_get(msg, "In-Reply-To", &len) == NULL &&
	    mailmsg_get(msg, "References", &len) == NULL) ||
	    (v = mailmsg_get(msg, "Subject", &len)) == NULL)
		return 0;
	if (reply_prefix(v, len))
		return 1;
	if (memmem(v, len, "=?", 2) == NULL)
		return 0;
	sbuf_init(&text, 4 * ARRIVAL_TEXT_MAX);
	yes = pyheader_decode(&text, v, len) == 0 && !sbuf_failed(&text) &&
	    reply_prefix(text.buf, text.len);
	sbuf_release(&text);
	return yes;
}

void
signer_read(struct decider *d, const struct mailmsg *msg)
{
	struct sbuf name, addr;
	int rc, endpoint;

	d->author[0] = d->author_id[0] = d->sender_id[0] = '\0';
	d->habit_id[0] = '\0';
	d->endpoint = 0;
	sbuf_init(&name, ARRIVAL_TEXT_MAX);
	sbuf_init(&addr, ARRIVAL_TEXT_MAX);
	/* the sender: From, or whom the web endpoint sends for */
	if (d->email.len > 0)
		canon(d->sender_id, d->email.buf);
	endpoint = relayed(d->sender_id) &&
	    original_from(d, msg, &name, &addr) == 0;
	if (endpoint)
		canon(d->sender_id, addr.buf);
	/* the author: git am's reading, whose author the patch will have */
	rc = mailfacts_patch(d->f);
	if ((rc == 0 || rc == PA_ENOPATCH) && d->f->pf.mi->has_from)
		set_author(d, &d->f->pf.mi->author, &d->f->pf.mi->email);
	else if (d->email.len > 0)
		set_author(d, &d->name, &d->email);
	if (endpoint && relayed(d->author_id)) {
		set_author(d, &name, &addr);	/* no in-body From */
		d->endpoint = 1;
	}
	sbuf_release(&name);
	sbuf_release(&addr);
	/* without an address in From, the mail is in its author's name */
	if (d->sender_id[0] == '\0')
		memcpy(d->sender_id, d->author_id, sizeof(d->sender_id));
	d->reply = is_reply(msg);
	if (!d->reply)
		memcpy(d->habit_id, d->sender_id, sizeof(d->habit_id));
}

const char *
decide_habit_identity(const struct decider *d)
{
	return d->habit_id;
}

/* breaks - how out breaks the habit, or NULL when it does not */
static const char *
breaks(const struct decision *out)
{
	switch (out->result) {
	case VERDICT_NONE:
		return "unsigned";
	case VERDICT_NOKEY:
		return "signed by a key we do not have";
	case VERDICT_UNTRUSTED:
		return "signed by a key that is not trusted";
	default:
		return NULL;
	}
}

/*
 * not_consulted - signer memory could not be read (why): whether out
 * breaks a habit (how it would) is unknown, so the mail cannot be
 * judged, a fault of ours that OnError acts on; the reason keeps what it
 * was otherwise
 */
static void
not_consulted(struct decision *out, const char *how, const char *why)
{
	char cause[101], was[61];

	/* both cut after a whole word: why may be libpq's long message */
	hdrfmt_clip(cause, sizeof(cause), why);
	hdrfmt_clip(was, sizeof(was), out->reason);
	if (!out->has_patatt)
		out->v01 = out->result;	/* the 2020 scheme's own, kept */
	out->result = VERDICT_TEMPERROR;
	out->lasting = 0;
	snprintf(out->reason, sizeof(out->reason), "signer memory could not "
	    "be consulted: %s; this one is %s%s%s%s", cause, how,
	    was[0] ? " (" : "", was, was[0] ? ")" : "");
}

void
signer_memory(struct decider *d, struct decision *out)
{
	const char *how = breaks(out);
	const struct state_lookup *looked;
	const struct habit *h;

	if (how == NULL || d->habit_id[0] == '\0')
		return;
	if (d->ledger == NULL) {
		if (d->ledger_why != NULL)
			not_consulted(out, how, d->ledger_why);
		return;
	}
	looked = decider_state(d);
	if (looked->habit_rc == PA_ENOTFOUND)
		return;
	if (looked->habit_rc != 0) {
		not_consulted(out, how, looked->habit_why.msg);
		return;
	}
	h = &looked->habit;
	if (h->recent_signed < (unsigned)d->cfg->signer_habit_minimum ||
	    2 * h->recent_signed < h->recent)
		return;
	if (!out->has_patatt)
		out->v01 = out->result;	/* the 2020 scheme's own, kept */
	out->result = VERDICT_UNSIGNED_BY_SIGNER;
	out->differs = 0;
	if (d->author_id[0] != '\0' && strcmp(d->author_id, d->habit_id) != 0)
		snprintf(out->reason, sizeof(out->reason), "%.40s signed %u of "
		    "its last %u patches with %.52s; this one, sent for author "
		    "%.40s, is %s", d->habit_id, h->recent_signed, h->recent,
		    h->key, d->author_id, how);
	else
		snprintf(out->reason, sizeof(out->reason), "%.60s signed %u of "
		    "its last %u patches with %.80s; this one is %s",
		    d->habit_id, h->recent_signed, h->recent, h->key, how);
}
