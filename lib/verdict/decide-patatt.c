/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * decide-patatt.c - the verdict of patatt's in-mail signatures, and one
 * verdict for both schemes (see decide.h).
 *
 * A signature that verifies is judged like a 2020 document: a key by
 * being in a patatt keyring folder the admin keeps (whatever its kind),
 * an OpenPGP key of the GnuPG home by the trust model; then UIDMatch,
 * StalenessDays and MaxClockSkew against the mail's arrival.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "decide.h"
#include "decide-int.h"
#include "sig.h"
#include "state.h"
#include "base.h"

static int	 same_identity(const char *, const char *);
static void	 first_use(const struct patatt_context *,
		    const struct patatt_sig *, struct decision *);
static void	 body_changed(const struct patatt_earlier *,
		    const struct patatt_sig *, struct decision *);
static void	 headers_changed(const struct patatt_earlier *,
		    const struct patatt_sig *, struct decision *);
static void	 mismatch(const struct patatt_context *,
		    const struct patatt_sig *, struct decision *);

static const char *const algo_names[] = {
	[PATATT_ED25519] = "ed25519-sha256",
	[PATATT_OPENPGP] = "openpgp-sha256",
	[PATATT_OPENSSH] = "openssh-sha256",
	[PATATT_ALGO_UNKNOWN] = "unknown",
};

/* key_verdict - an OpenPGP signer's key under the trust model */
static int
key_verdict(const struct patatt_context *j, const struct patatt_sig *s,
    struct decision *c)
{
	struct pgp_key key;
	struct pa_err err;

	if (pgp_key(j->pgp, s->key, j->now, &key, &err) != 0) {
		c->result = VERDICT_TEMPERROR;
		snprintf(c->reason, sizeof(c->reason), "%s", err.msg);
		return -1;
	}
	if (key.nuids > 0)
		snprintf(c->signer, sizeof(c->signer), "%s", key.uid[0]);
	if (key.state != PGP_KEY_MISSING)
		snprintf(c->key, sizeof(c->key), "%s", key.primary);
	switch (key.state) {
	case PGP_KEY_TRUSTED:
		c->result = VERDICT_PASS;
		break;
	case PGP_KEY_MISSING:
		c->result = VERDICT_NOKEY;
		snprintf(c->reason, sizeof(c->reason), "no public key in the "
		    "keyring for %s", s->key);
		break;
	default:
		c->result = VERDICT_UNTRUSTED;
		snprintf(c->reason, sizeof(c->reason), "the signing key is %s",
		    key.state == PGP_KEY_REVOKED ? "revoked" :
		    key.state == PGP_KEY_EXPIRED ? "expired" : "not trusted");
		break;
	}
	return 0;
}

/*
 * same_identity - a and b are one identity: equal once lowered in ASCII,
 * the form patatt_identity_canon() gives key files and pins
 */
static int
same_identity(const char *a, const char *b)
{
	for (; *a != '\0' && ascii_lower(*a) == ascii_lower(*b); a++, b++)
		;
	return *a == '\0' && *b == '\0';
}

/*
 * first_use - PatattTOFU for a signature that verifies only with the key
 * the mail offers, c its verdict were that key trusted: a pass pins the
 * key when the identity has none (the caller may refuse: mail that is no
 * patch); any other verdict only reads the pin.  Another key pinned
 * fails; no pin is nokey.
 */
static void
first_use(const struct patatt_context *j, const struct patatt_sig *s,
    struct decision *c)
{
	struct pin pin;
	struct pa_err why;
	char cause[201];

	switch (j->tofu(j->tofu_arg, s->identity, s->offered,
	    c->result == VERDICT_PASS, &pin, &why)) {
	case TOFU_FIRST:
		snprintf(c->tofu_key, sizeof(c->tofu_key), "%s", s->offered);
		/* FALLTHROUGH */
	case TOFU_SAME:
		if (c->result == VERDICT_PASS)
			snprintf(c->reason, sizeof(c->reason), "the key the "
			    "mail offers, trusted on first use");
		break;
	case TOFU_OTHER:
		c->result = VERDICT_FAIL;
		snprintf(c->reason, sizeof(c->reason), "the key for %.200s "
		    "is not the one first used", pin.identity);
		break;
	case TOFU_UNPINNED:
		c->result = VERDICT_NOKEY;
		snprintf(c->reason, sizeof(c->reason), "only the mail offers "
		    "a key, not pinned (a first key is pinned from a patch "
		    "only): %s", s->offered);
		break;
	case TOFU_UNKNOWN:
		c->result = VERDICT_TEMPERROR;
		snprintf(c->reason, sizeof(c->reason), "the key pinned on "
		    "first use could not be consulted: %s",
		    hdrfmt_clip(cause, sizeof(cause), why.msg));
		break;
	}
}

/*
 * body_changed - the reason of a signature whose body changed: the parts
 * that the first copy e (or NULL) says differ, else that it is unknown
 */
static void
body_changed(const struct patatt_earlier *e, const struct patatt_sig *s,
    struct decision *c)
{
	char parts[64];

	if (e == NULL || !e->has_patch) {
		snprintf(c->reason, sizeof(c->reason), "the body changed (the "
		    "signature does not say which part): %s", s->detail);
		return;
	}
	if (e->match == ARRIVAL_SAME_TRAILERS) {
		snprintf(c->reason, sizeof(c->reason), "the signed body "
		    "changed: trailers were added to its commit message since "
		    "the copy that arrived first");
		return;
	}
	if ((e->parts & (ARRIVAL_PART_M | ARRIVAL_PART_P)) == 0) {
		snprintf(c->reason, sizeof(c->reason), "the signed body "
		    "changed, though its commit message and diff are those of "
		    "the copy that arrived first");
		return;
	}
	decide_parts(parts, sizeof(parts),
	    (e->parts & ARRIVAL_PART_I ? DECIDE_DIFF_I : 0) |
	    (e->parts & ARRIVAL_PART_M ? DECIDE_DIFF_M : 0) |
	    (e->parts & ARRIVAL_PART_P ? DECIDE_DIFF_P : 0));
	snprintf(c->reason, sizeof(c->reason), "the signed body changed: its "
	    "%s %s from the copy that arrived first", parts,
	    (e->parts & (e->parts - 1)) ? "differ" : "differs");
}

/*
 * headers_changed - the reason of a signature whose signed headers (or,
 * OpenSSH, the signature itself) changed: From or Subject when the first
 * copy e (or NULL) has another one, else every header it signs
 */
static void
headers_changed(const struct patatt_earlier *e, const struct patatt_sig *s,
    struct decision *c)
{
	unsigned f = e != NULL && (!e->has_patch ||
	    (e->parts & ARRIVAL_PART_I)) ? e->fields : 0;

	if (f != 0) {
		snprintf(c->reason, sizeof(c->reason), "the signed %s changed "
		    "since the copy that arrived first",
		    f == ARRIVAL_FIELD_FROM ? "From" :
		    f == ARRIVAL_FIELD_SUBJECT ? "Subject" : "From and Subject");
	} else if (e != NULL && e->has_patch && (e->parts & ARRIVAL_PART_I))
		snprintf(c->reason, sizeof(c->reason), "the signed author or "
		    "subject changed since the copy that arrived first");
	else if (s->changed == PATATT_CHANGED_HEADERS)
		snprintf(c->reason, sizeof(c->reason), "one of the headers it "
		    "signs changed (%s)", s->signed_headers[0] ?
		    s->signed_headers : "From, Subject");
	else
		snprintf(c->reason, sizeof(c->reason), "one of the headers it "
		    "signs changed (%s), or the signature did: %.80s",
		    s->signed_headers[0] ? s->signed_headers : "From, Subject",
		    s->detail);
}

/*
 * mismatch - the reason of a bad signature: the part that changed, as
 * far as the signature and the first copy of the Message-ID (when it
 * has the signer's identity) can tell
 */
static void
mismatch(const struct patatt_context *j, const struct patatt_sig *s,
    struct decision *c)
{
	const struct patatt_earlier *e = j->earlier;

	if (e != NULL && !same_identity(e->identity, s->identity))
		e = NULL;
	switch (s->changed) {
	case PATATT_CHANGED_BODY:
		body_changed(e, s, c);
		break;
	case PATATT_CHANGED_HEADERS:
	case PATATT_CHANGED_HEADERS_OR_SIG:
		headers_changed(e, s, c);
		break;
	case PATATT_CHANGED_UNKNOWN:
		snprintf(c->reason, sizeof(c->reason), "%s", s->detail[0] ?
		    s->detail : "the signature does not verify");
		break;
	}
}

/* judge_signature - what a single signature means */
static void
judge_signature(const struct patatt_context *j, const struct patatt_sig *s,
    struct decision *c)
{
	memset(c, 0, sizeof(*c));
	c->scheme = SCHEME_PATATT;
	c->signed_at = s->signed_at;
	snprintf(c->signer, sizeof(c->signer), "%s", s->identity);
	snprintf(c->identity, sizeof(c->identity), "%s", s->identity);
	snprintf(c->selector, sizeof(c->selector), "%s", s->selector);
	snprintf(c->offered, sizeof(c->offered), "%s", s->offered[0] ?
	    s->offered : s->key);
	switch (s->result) {
	case PATATT_VALID:
		if (s->keysrc[0] == '\0') {	/* the GnuPG home's key */
			if (key_verdict(j, s, c) != 0)
				return;
		} else {
			c->result = VERDICT_PASS;
			snprintf(c->key, sizeof(c->key), "%s",
			    patatt_keyring_relative(j->keys, s->keysrc));
		}
		break;
	case PATATT_KEY_EXPIRED:
		c->result = VERDICT_UNTRUSTED;
		snprintf(c->key, sizeof(c->key), "%s", s->key);
		snprintf(c->reason, sizeof(c->reason), "%s", s->detail);
		return;
	case PATATT_OFFERED:
		if (j->cfg->patatt_tofu != CONFIG_YES || j->tofu == NULL) {
			c->result = VERDICT_NOKEY;
			snprintf(c->reason, sizeof(c->reason), "only the mail "
			    "offers a key: %s", s->offered);
			return;
		}
		c->result = VERDICT_PASS;	/* if the pin says so */
		break;
	case PATATT_BADSIG:
		c->result = VERDICT_FAIL;
		mismatch(j, s, c);
		return;
	case PATATT_NOKEY:
		c->result = VERDICT_NOKEY;
		snprintf(c->reason, sizeof(c->reason), "%s", s->detail[0] ?
		    s->detail : "no key for the signer");
		return;
	case PATATT_KEYFAULT:
		c->result = VERDICT_TEMPERROR;
		snprintf(c->reason, sizeof(c->reason), "%s", s->detail);
		return;
	case PATATT_ERROR:
		c->result = VERDICT_NONE;
		snprintf(c->reason, sizeof(c->reason), "%s", s->detail);
		return;
	}
	if (c->result != VERDICT_PASS)
		return;
	if (j->cfg->uid_match == UID_STRICT && (j->author == NULL ||
	    !same_identity(j->author, s->identity))) {
		c->result = VERDICT_UIDMISMATCH;
		snprintf(c->reason, sizeof(c->reason), "the signer %s is not "
		    "the author <%s>", s->identity, j->author ? j->author : "");
	} else
		c->result = decide_signing_time(j->cfg, s->signed_at, j->now,
		    c->reason, sizeof(c->reason));
	if (s->result == PATATT_OFFERED)
		first_use(j, s, c);
}

/* better - whether a beats b: a fail first, then the verdict order */
static int
better(const struct decision *a, const struct decision *b)
{
	if ((a->result == VERDICT_FAIL) != (b->result == VERDICT_FAIL))
		return a->result == VERDICT_FAIL;
	return a->result < b->result;
}

int
decide_patatt(const struct patatt_context *j, const struct patatt_report *r,
    struct decision *out)
{
	struct decision c;
	size_t k;

	if (r->n == 0)
		return PA_ENOTFOUND;
	for (k = 0; k < r->n && k < PATATT_MAX_SIGS; k++) {
		judge_signature(j, &r->sig[k], &c);
		if (k == 0 || better(&c, out)) {
			*out = c;
			snprintf(out->algo, sizeof(out->algo), "%s",
			    algo_names[r->sig[k].algo]);
		}
	}
	return 0;
}

void
decision_combine(struct decision *d, const struct decision *pt)
{
	struct decision v01 = *d;

	d->v01 = v01.result;
	d->patatt = pt->result;
	d->has_patatt = 1;
	memcpy(d->identity, pt->identity, sizeof(d->identity));
	memcpy(d->algo, pt->algo, sizeof(d->algo));
	memcpy(d->selector, pt->selector, sizeof(d->selector));
	memcpy(d->offered, pt->offered, sizeof(d->offered));
	memcpy(d->tofu_key, pt->tofu_key, sizeof(d->tofu_key));
	/* A 2020 "none" says only that there is no document. */
	if (v01.result == VERDICT_NONE || better(pt, &v01) ||
	    (pt->result == VERDICT_PASS && v01.result == VERDICT_PASS)) {
		memcpy(d->signer, pt->signer, sizeof(d->signer));
		memcpy(d->key, pt->key, sizeof(d->key));
		memcpy(d->reason, pt->reason, sizeof(d->reason));
		d->signed_at = pt->signed_at;
		d->differs = 0;
		d->result = pt->result;
		d->lasting = pt->lasting;
		d->scheme = SCHEME_PATATT;
	}
}
