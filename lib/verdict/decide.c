/* SPDX-License-Identifier: BSD-2-Clause */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "patchattest.h"
#include "decide.h"
#include "decide-int.h"
#include "base.h"
#include "mail.h"
#include "sig.h"

/* What a key's state means for a signature that checks out. */
enum reason_detail {
	DETAIL_NONE,
	DETAIL_MODEL,		/* append the trust model */
	DETAIL_KEY		/* append the signing key's fingerprint */
};

static const struct {
	enum pgp_keystate	 state;
	enum verdict		 verdict;
	const char		*reason;
	enum reason_detail	 detail;
} key_verdicts[] = {
	{ PGP_KEY_TRUSTED, VERDICT_PASS, "", DETAIL_NONE },
	{ PGP_KEY_UNTRUSTED, VERDICT_UNTRUSTED,
	    "the signing key is not trusted under trust model ", DETAIL_MODEL },
	{ PGP_KEY_REVOKED, VERDICT_UNTRUSTED, "the signing key is revoked",
	    DETAIL_NONE },
	{ PGP_KEY_EXPIRED, VERDICT_UNTRUSTED, "the signing key has expired",
	    DETAIL_NONE },
	{ PGP_KEY_MISSING, VERDICT_NOKEY, "no public key in the keyring for ",
	    DETAIL_KEY },
};

/* A verdict in the making: the best one found so far wins. */
struct candidate {
	struct decision	 d;
	int		 set;
};

int
decider_new(struct decider **dp, const struct pa_config *cfg,
    struct patatt_keyring *keys, struct pa_err *err)
{
	struct decider *d;
	int rc;

	*dp = NULL;
	if ((d = calloc(1, sizeof(*d))) == NULL) {
		pa_err_set(err, "%s", pa_strerror(PA_ENOMEM));
		return PA_ENOMEM;
	}
	d->cfg = cfg;
	mailfacts_init(&d->own);
	d->f = &d->own;
	sbuf_init(&d->name, 4096);
	sbuf_init(&d->email, 4096);
	sbuf_init(&d->work, 1 << 16);
	if (keys == NULL && (rc = patatt_keyring_new(&d->own_keys,
	    cfg->patatt_keyrings.v, cfg->patatt_keyrings.n, err)) != 0) {
		decider_free(d);
		return rc;
	}
	d->keys = keys != NULL ? keys : d->own_keys;
	if ((rc = pgp_new(&d->pgp, cfg->gnupg_home, cfg->trust_model,
	    err)) != 0 ||
	    (rc = patatt_new(&d->pt, d->keys, cfg->gnupg_home, err)) != 0) {
		decider_free(d);
		return rc;
	}
	*dp = d;
	return 0;
}

void
decider_rebind(struct decider *d, const struct pa_config *cfg)
{
	d->cfg = cfg;
}

void
decider_use_pins(struct decider *d, struct pins *pins, int record)
{
	d->pins = pins;
	d->record = record;
}

void
decider_use_ledger(struct decider *d, struct ledger *ledger,
    const char *why)
{
	d->ledger = ledger;
	d->ledger_why = ledger != NULL ? NULL : why;
}

void
decider_free(struct decider *d)
{
	if (d == NULL)
		return;
	pgp_free(d->pgp);
	patatt_free(d->pt);
	patatt_keyring_free(d->own_keys);
	mailfacts_release(&d->own);
	sbuf_release(&d->name);
	sbuf_release(&d->email);
	sbuf_release(&d->work);
	free(d);
}

void
decision_fault(struct decision *d, int lasting, const char *why)
{
	memset(d, 0, sizeof(*d));
	d->result = VERDICT_TEMPERROR;
	d->has_patch = 1;
	d->lasting = lasting;
	snprintf(d->reason, sizeof(d->reason), "%s", why);
}

/* author - the address of the mail's From, the way git mailinfo reads it */
static void
author(struct decider *d, const struct mailmsg *msg)
{
	const char *v;
	size_t len;

	sbuf_reset(&d->email);
	if ((v = mailmsg_get(msg, "From", &len)) != NULL)
		mailident_from(&d->name, &d->email, &d->work, v, len, 0);
}

/* pick_uid - the user ID with the author's address, else the first one */
static int
pick_uid(const struct decider *d, const struct pgp_key *key, char *out,
    size_t size)
{
	size_t k;

	for (k = 0; k < key->nuids; k++) {
		if (d->email.len && strcasecmp(key->addr[k], d->email.buf) == 0) {
			snprintf(out, size, "%s", key->uid[k]);
			return 1;
		}
	}
	if (key->nuids)
		snprintf(out, size, "%s", key->uid[0]);
	return 0;
}

/* diff_reason - the parts in differs are not what a document attests */
static void
diff_reason(char *out, size_t size, unsigned differs)
{
	char parts[64];

	decide_parts(parts, sizeof(parts), differs);
	snprintf(out, size, "%s %s not what was attested", parts,
	    (differs & (differs - 1)) ? "are" : "is");
}

static void
offer(struct candidate *best, const struct decision *d)
{
	if (!best->set || d->result < best->d.result) {
		best->d = *d;
		best->set = 1;
	}
}

void
record_verdict(const struct record_facts *f, const struct pa_config *cfg,
    struct decision *d)
{
	size_t k;

	d->differs = 0;
	d->reason[0] = '\0';
	if (f->sig == PGP_SIG_BAD || f->sig == PGP_SIG_ERROR) {
		d->result = VERDICT_FAIL;
		snprintf(d->reason, sizeof(d->reason), "%s", f->sig ==
		    PGP_SIG_BAD ? "the attestation's signature does not verify" :
		    "the attestation's signature cannot be checked");
		return;
	}
	if (f->differs) {
		d->result = VERDICT_FAIL;
		d->differs = f->differs;
		diff_reason(d->reason, sizeof(d->reason), f->differs);
		return;
	}
	for (k = 0; key_verdicts[k].state != f->key &&
	    k + 1 < sizeof(key_verdicts) / sizeof(key_verdicts[0]); k++)
		;
	d->result = key_verdicts[k].verdict;
	snprintf(d->reason, sizeof(d->reason), "%s%s", key_verdicts[k].reason,
	    key_verdicts[k].detail == DETAIL_KEY ? f->fpr :
	    key_verdicts[k].detail == DETAIL_MODEL ?
	    config_choice_name("TrustModel", cfg->trust_model) : "");
	if (d->result != VERDICT_PASS)
		return;
	if (!f->author_uid && cfg->uid_match == UID_STRICT) {
		d->result = VERDICT_UIDMISMATCH;
		snprintf(d->reason, sizeof(d->reason), "no user ID of the signing "
		    "key has the author's address <%s>", f->author);
	} else
		d->result = decide_signing_time(cfg, f->signed_at, f->arrived,
		    d->reason, sizeof(d->reason));
}

/* judge_record - what one indexed record says about the message's entry e */
static void
judge_record(struct decider *d, const struct msghash_entry *e,
    const struct att_hit *hit, struct candidate *best)
{
	struct record_facts f = { hit->doc.status, 0, PGP_KEY_MISSING, 0,
		hit->doc.when, hit->doc.fpr, d->email.buf, d->now };
	struct decision c;
	struct pgp_key key;
	struct pa_err err;

	memset(&c, 0, sizeof(c));
	memcpy(c.attid, e->attid, sizeof(c.attid));
	snprintf(c.key, sizeof(c.key), "%s", hit->doc.fpr);
	c.signed_at = hit->doc.when;
	f.differs = (memcmp(hit->t.i, e->i, 32) ? DECIDE_DIFF_I : 0) |
	    (memcmp(hit->t.m, e->m, 32) ? DECIDE_DIFF_M : 0) |
	    (memcmp(hit->t.p, e->p, 32) ? DECIDE_DIFF_P : 0);
	/* The key matters only to a document that says what the mail is. */
	if (f.differs == 0 && (f.sig == PGP_SIG_GOOD || f.sig == PGP_SIG_NOKEY)) {
		if (pgp_key(d->pgp, hit->doc.fpr, d->now, &key, &err) != 0) {
			d->temperror = 1;
			snprintf(d->temperror_why, sizeof(d->temperror_why),
			    "%s", err.msg);
			return;
		}
		if (f.sig == PGP_SIG_GOOD) {
			f.key = key.state;
			if (key.state != PGP_KEY_MISSING)
				snprintf(c.key, sizeof(c.key), "%s",
				    key.primary);
		}
		f.author_uid = pick_uid(d, &key, c.signer, sizeof(c.signer));
	}
	record_verdict(&f, d->cfg, &c);
	if (c.result != VERDICT_FAIL && c.signer[0] == '\0' &&
	    hit->doc.uids[0] != '\0')
		snprintf(c.signer, sizeof(c.signer), "%.*s",
		    (int)strcspn(hit->doc.uids, "\n"), hit->doc.uids);
	offer(best, &c);
}

/*
 * index_failed - the index could not be read (or is damaged): no
 * evidence either way, so the message is temperror, never fail or none
 */
static void
index_failed(struct decider *d, const struct pa_err *err)
{
	d->temperror = 1;
	snprintf(d->temperror_why, sizeof(d->temperror_why), "%s", err->msg);
}

/*
 * look_by_id - every record filed under the attestation IDs of the
 * message's variants.  A variant with an empty diff attests nothing.
 */
static void
look_by_id(struct decider *d, struct candidate *best)
{
	struct pa_err err;
	size_t k, j, n;

	for (k = 0; k < d->f->h.n; k++) {
		if (memcmp(d->f->h.entry[k].p, digest_empty, 32) == 0)
			continue;
		if (attindex_lookup(d->ix, d->f->h.entry[k].attid, d->hits,
		    MAX_HITS, &n, &err) != 0) {
			index_failed(d, &err);
			return;
		}
		for (j = 0; j < n; j++)
			judge_record(d, &d->f->h.entry[k], &d->hits[j],
			    best);
	}
}

/*
 * look_by_author - without a document for the patch itself: one that a
 * trusted key signed for the same author and subject and the same commit
 * message or diff means the other part was changed on the way.
 */
static void
look_by_author(struct decider *d, struct candidate *best)
{
	const struct msghash_entry *e;
	const struct att_hit *hit;
	struct msghash_entry attested;
	struct candidate c;
	struct decision f;
	struct pa_err err;
	size_t k, j, n;
	int same_m, same_p;

	for (k = 0; k < d->f->h.n; k++) {
		e = &d->f->h.entry[k];
		if (attindex_lookup_i(d->ix, e->i, d->hits, MAX_HITS, &n,
		    &err) != 0) {
			index_failed(d, &err);
			return;
		}
		for (j = 0; j < n; j++) {
			hit = &d->hits[j];
			same_m = memcmp(hit->t.m, e->m, 32) == 0;
			same_p = memcmp(hit->t.p, e->p, 32) == 0;
			if (!same_m && !same_p)
				continue;	/* another patch, same subject */
			/* Only a document that would pass speaks for it. */
			memset(&attested, 0, sizeof(attested));
			memcpy(attested.i, hit->t.i, 32);
			memcpy(attested.m, hit->t.m, 32);
			memcpy(attested.p, hit->t.p, 32);
			memset(&c, 0, sizeof(c));
			judge_record(d, &attested, hit, &c);
			if (!c.set || c.d.result != VERDICT_PASS)
				continue;
			f = c.d;
			f.result = VERDICT_FAIL;
			f.differs = (same_m ? 0 : DECIDE_DIFF_M) |
			    (same_p ? 0 : DECIDE_DIFF_P);
			memcpy(f.attid, e->attid, sizeof(f.attid));
			diff_reason(f.reason, sizeof(f.reason), f.differs);
			offer(best, &f);
		}
	}
}

/*
 * first_key - PatattTOFU: key against identity's pin, pinned now when pin
 * is asked, the decider records, the message is a patch judged whole
 * (a cover letter or any other mail only reads the pins) and identity
 * has none; a pin already there is the one read with the message's
 * other state (consult.c), so that only a first use writes
 */
static enum tofu_seen
first_key(void *arg, const char *identity, const char *key, int pin,
    struct pin *pinned, struct pa_err *why)
{
	struct decider *d = arg;
	const struct state_lookup *looked;
	struct lookup_pin *e;
	enum pin_seen seen;
	int rc;

	if (d->pins == NULL) {
		pa_err_set(why, "the pins are not open (the log says why)");
		return TOFU_UNKNOWN;
	}
	looked = decider_state(d);
	if (looked->pins_rc != 0) {
		*why = looked->pins_why;
		return TOFU_UNKNOWN;
	}
	/* read with the message's state: decide_patatt() asks of its
	   signatures' identities alone, every one of which was looked up */
	if ((e = decider_pin(d, identity)) == NULL) {
		pa_err_set(why, "%s is none of the message's signers",
		    identity);
		return TOFU_UNKNOWN;
	}
	if ((rc = e->rc) == 0)
		*pinned = e->pin;
	if (rc == 0)
		return strcmp(pinned->key, key) == 0 ? TOFU_SAME : TOFU_OTHER;
	if (rc == PA_ENOTFOUND && pin && d->record && d->has_patch &&
	    !d->temperror) {
		rc = pins_first_use(d->pins, identity, key, d->now, &seen,
		    pinned, why);
		if (rc == 0) {
			e->rc = 0;	/* a second signature of it sees it */
			e->pin = *pinned;
		}
		if (rc == 0)
			return seen == PIN_NEW ? TOFU_FIRST : seen == PIN_SAME ?
			    TOFU_SAME : TOFU_OTHER;
	}
	if (rc == PA_ENOTFOUND)
		return TOFU_UNPINNED;	/* or never to be pinned */
	return TOFU_UNKNOWN;
}

/* has_diff - some variant of the patch has a diff (not only a diffstat) */
static int
has_diff(const struct msghash *h)
{
	size_t k;

	for (k = 0; k < h->n; k++)
		if (memcmp(h->entry[k].p, digest_empty, 32) != 0)
			return 1;
	return 0;
}

int
decide_begin(struct decider *d, const struct mailmsg *msg, time_t now)
{
	(void)mailfacts_read(&d->own, msg, MSGHASH_VARIANTS);
	return decide_begin_read(d, &d->own, now);
}

int
decide_begin_read(struct decider *d, struct mailfacts *f, time_t now)
{
	const struct mailmsg *msg = f->msg;
	struct pa_err err;
	const char *v;
	size_t len;
	int rc = f->hash_rc;

	d->now = now;
	d->ix = NULL;
	d->looked_up = 0;
	d->f = f;
	d->msg = msg;
	d->temperror = d->patatt_failed = d->lasting = 0;
	d->temperror_why[0] = '\0';
	/*
	 * No patch, or one git mailinfo would have refused (the 2020 tools
	 * could attest neither); anything else is a patch not judged.
	 */
	if (rc != 0 && rc != PA_ENOPATCH && rc != PA_EMAILINFO) {
		d->temperror = 1;
		d->lasting = rc == PA_ETOOBIG;
		snprintf(d->temperror_why, sizeof(d->temperror_why), "%s",
		    rc == PA_ETOOBIG ? "the patch is too big to hash" :
		    f->hash_why.msg[0] ? f->hash_why.msg : pa_strerror(rc));
	}
	/* A cover letter's diffstat has no diff: nothing to attest. */
	d->has_patch = d->temperror || (rc == 0 && has_diff(&f->h));
	if (patatt_check(d->pt, msg, now, &d->report, &err) != 0) {
		d->report.n = 0;
		d->report.total = 1;
		d->patatt_failed = 1;
		if (!d->temperror)
			snprintf(d->temperror_why, sizeof(d->temperror_why),
			    "%s", err.msg);
	}
	if (!d->has_patch && d->report.total == 0)
		return PA_ENOPATCH;
	d->date = 0;
	if ((v = mailmsg_get(msg, "Date", &len)) != NULL &&
	    maildate_parse(v, len, &d->date) != 0)
		d->date = 0;
	author(d, msg);
	dkim_vouched(d, msg);
	signer_read(d, msg);
	return 0;
}

/* attested - the 2020 scheme's verdict on the patch, into out */
static void
attested(struct decider *d, const char *ix_fault, struct decision *out)
{
	struct candidate best;

	memset(&best, 0, sizeof(best));
	if (d->ix == NULL && ix_fault != NULL) {
		d->temperror = 1;
		snprintf(d->temperror_why, sizeof(d->temperror_why), "%s",
		    ix_fault);
	}
	if (d->ix != NULL && !d->temperror)
		look_by_id(d, &best);
	if (d->ix != NULL && !best.set && !d->temperror)
		look_by_author(d, &best);
	if (best.set && (best.d.result == VERDICT_PASS || !d->temperror))
		*out = best.d;
	else if (d->temperror) {
		out->result = VERDICT_TEMPERROR;
		out->lasting = d->lasting;
		snprintf(out->reason, sizeof(out->reason), "%s",
		    d->temperror_why);
	} else
		out->result = VERDICT_NONE;
	if (out->result != VERDICT_NONE)
		out->scheme = SCHEME_V01;
	if (out->attid[0] == '\0' && d->f->h.n > 0)
		memcpy(out->attid, d->f->h.entry[0].attid,
		    sizeof(out->attid));
}

/* signed_by - patatt's verdict on the mail's signatures, into out */
static void
signed_by(struct decider *d, struct decision *out)
{
	struct patatt_context j = { d->cfg, d->keys, d->pgp, NULL, d->now,
		first_key, d, NULL };
	struct patatt_earlier first;
	struct decision pt;

	if (d->patatt_failed) {
		memset(&pt, 0, sizeof(pt));
		pt.result = VERDICT_TEMPERROR;
		pt.scheme = SCHEME_PATATT;
		snprintf(pt.reason, sizeof(pt.reason), "%s",
		    d->temperror_why);
	} else {
		j.author = d->email.len ? d->email.buf : NULL;
		if (changed_since_first(d, &first) == 0)
			j.earlier = &first;
		if (decide_patatt(&j, &d->report, &pt) == PA_ENOTFOUND)
			return;
	}
	if (d->has_patch)
		decision_combine(out, &pt);
	else {
		*out = pt;
		out->has_patatt = 1;
		out->v01 = VERDICT_NONE;
		out->patatt = pt.result;
	}
}

void
decide_end(struct decider *d, struct attindex *ix, const char *ix_fault,
    struct decision *out)
{
	memset(out, 0, sizeof(*out));
	d->ix = ix;
	if (d->has_patch)
		attested(d, ix_fault, out);
	if (d->report.total > 0)
		signed_by(d, out);
	if (d->has_patch)
		signer_memory(d, out);
	out->has_patch = d->has_patch;
	out->mail_date = d->date;
	memcpy(out->dkim_domain, d->dkim_domain, sizeof(out->dkim_domain));
	out->authres_ignored = d->authres_ignored;
	d->ix = NULL;
	d->msg = NULL;
}

int
decide(struct decider *d, const struct mailmsg *msg, struct attindex *ix,
    time_t now, struct decision *out)
{
	int rc;

	if ((rc = decide_begin(d, msg, now)) != 0)
		return rc;
	decide_end(d, ix, ix ? NULL : "the attestation index is not open",
	    out);
	return 0;
}
