/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * patatt.c - the verifier object, and the verdict on each
 * X-Developer-Signature of a message (patatt.md 6) in the order patatt
 * reaches it: the tags, the identity, the key, then for each reading of
 * the body the checks of patatt-verify.c.
 *
 * Where this differs from patatt 0.6.3/0.7.1 on purpose:
 *  - each signature is judged on its own (patatt checks the first one
 *    with the same identity twice);
 *  - l= is never used to cut the body; a body longer than l= that does
 *    not hash to bh= is BADSIG;
 *  - a bad OpenPGP signature is BADSIG (patatt: NOKEY for any gpg
 *    failure), and a good one by a key expired or revoked, since or
 *    already when it signed, is KEY_EXPIRED (patatt: BADSIG, as gpg says
 *    EXPKEYSIG or REVKEYSIG);
 *  - where patatt crashes (no a=, no identity, an identity without "@",
 *    b= not Base64, a key file that is no key) the signature is ERROR;
 *  - an OpenPGP keyring file is read by librnp in this process (patatt
 *    imports it into a throw-away GnuPG home: the same keys, and only
 *    they, can sign for the identity), and so are the GnuPG home's keys;
 *  - an OpenPGP b= that is not the one shape gpg --sign makes (one-pass
 *    signature, literal data, signature, at most once compressed), or
 *    that is over 4 KiB sent or uncompressed, is BADSIG unread (gpg
 *    skips unknown packets and inflates anything);
 *  - a mail with more than PATATT_MAX_SIGS signatures has none verified:
 *    each is ERROR.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "patchattest.h"
#include "mail.h"
#include "patatt.h"
#include "patatt-int.h"
#include "pgp.h"
#include "base.h"

#define SIG_MAX		(PATATT_VALUE_MAX / 4 * 3)	/* decoded b= */
#define PLAIN_MAX	1024		/* OpenPGP signed content read */
#define KEYS_MAX	16		/* X-Developer-Key fields read */
#define STRING(x)	STRING_(x)
#define STRING_(x)	#x

/* Real mail has one or two; a flood is not worth verifying in part. */
static const char over_budget[] = "over " STRING(PATATT_MAX_SIGS)
    " X-Developer-Signature fields: none is verified";

/*
 * The readings of the body tried in turn (patatt.md 2.3): as git >= 2.33
 * reads it (no charset conversion), then as git < 2.32 did (conversion to
 * UTF-8, and names under 3 bytes replaced by the address).  A reading
 * without conversion cannot tell whether conversion would change a
 * byte, so the second one runs whenever the first does not verify.
 */
static const struct {
	struct mailinfo_opts	 opts;
	const char		*name;
} readings[] = {
	{ { .convert = 0 }, "git >= 2.33" },
	{ { .convert = 1, .short_names = 1 }, "git < 2.32" },
};
#define NREADINGS	(sizeof(readings) / sizeof(readings[0]))

_Static_assert(NREADINGS == PATATT_NREADINGS, "struct patatt: rd[]");

static const struct {
	const char		*prefix;	/* a= starts with it */
	enum patatt_algo	 algo;
} algos[] = {
	{ "ed25519", PATATT_ED25519 },
	{ "openpgp", PATATT_OPENPGP },
	{ "openssh", PATATT_OPENSSH },
};

static const char *const result_names[] = {
	[PATATT_VALID] = "valid",
	[PATATT_KEY_EXPIRED] = "key-expired",
	[PATATT_OFFERED] = "offered",
	[PATATT_BADSIG] = "badsig",
	[PATATT_NOKEY] = "nokey",
	[PATATT_KEYFAULT] = "keyfault",
	[PATATT_ERROR] = "error",
};

static void	 parse_from(struct patatt *);
static int	 offered(struct patatt *, struct patatt_sig *, const char *);
static int	 no_gnupg_home(struct patatt *);
static enum patatt_held held(struct patatt *, const struct patatt_sig *,
		    struct pa_err *);
static int	 find_key(struct patatt *, struct patatt_check *,
		    struct patatt_sig *);
static int	 verify_readings(struct patatt *, struct patatt_check *,
		    struct patatt_sig *, struct pa_err *);
static int	 signer(struct patatt *, struct patatt_check *,
		    struct patatt_sig *);
static int	 verify_field(struct patatt *, size_t, struct patatt_sig *,
		    struct pa_err *);

const char *
patatt_result_name(enum patatt_result r)
{
	if ((unsigned)r >= sizeof(result_names) / sizeof(result_names[0]))
		return "error";
	return result_names[r];
}

int
patatt_new(struct patatt **out, struct patatt_keyring *keys,
    const char *gnupg_home, struct pa_err *err)
{
	struct patatt *pt;
	size_t i;
	int rc;

	*out = NULL;
	if ((pt = calloc(1, sizeof(*pt))) == NULL) {
		pa_err_set(err, "out of memory");
		return PA_ENOMEM;
	}
	mailinfo_init(&pt->mi);
	patatt_msg_init(&pt->msg);
	for (i = 0; i < NREADINGS; i++)
		patatt_reading_init(&pt->rd[i]);
	patatt_tags_init(&pt->tags);
	patatt_tags_init(&pt->ktags);
	sbuf_init(&pt->work, 0);
	sbuf_init(&pt->sig, SIG_MAX);
	sbuf_init(&pt->plain, PLAIN_MAX);
	pt->keys = keys;
	pt->gnupg_default = gnupg_home == NULL;
	if ((rc = pgp_new(&pt->pgp, gnupg_home, TRUST_GPG, err)) != 0)
		goto fail;
	*out = pt;
	return 0;
fail:
	patatt_free(pt);
	return rc;
}

void
patatt_free(struct patatt *pt)
{
	size_t i;

	if (pt == NULL)
		return;
	pgp_free(pt->pgp);
	mailinfo_release(&pt->mi);
	patatt_msg_release(&pt->msg);
	for (i = 0; i < NREADINGS; i++)
		patatt_reading_release(&pt->rd[i]);
	patatt_tags_release(&pt->tags);
	patatt_tags_release(&pt->ktags);
	sbuf_release(&pt->work);
	sbuf_release(&pt->sig);
	sbuf_release(&pt->plain);
	free(pt->used);
	free(pt);
}

/*
 * parse_from - what patatt does with every From header: decode it as
 * UTF-8 (it fails the message otherwise) and keep the address of the
 * last one for signatures without i= (email.utils.parseaddr, for the
 * usual "Name <addr>" and bare "addr" forms).
 */
static void
parse_from(struct patatt *pt)
{
	const struct patatt_msg *m = &pt->msg;
	const char *v, *lt, *gt;
	size_t i, len, n;

	pt->from_id[0] = '\0';
	for (i = 0; i < m->n; i++) {
		if (!patatt_field_is(m, i, "from"))
			continue;
		v = patatt_field_value(m, i, &len);
		if (!pytext_utf8_valid(v, len)) {
			pt->bad_msg = "Error parsing headers (a From header "
			    "is not UTF-8)";
			return;
		}
		while (len > 0 && (*v == ' ' || (*v >= '\t' && *v <= '\r'))) {
			v++;
			len--;
		}
		if ((lt = memchr(v, '<', len)) != NULL &&
		    (gt = memchr(lt, '>', len - (size_t)(lt - v))) != NULL) {
			v = lt + 1;
			len = (size_t)(gt - v);
		}
		for (n = 0; n < len && v[n] != ' ' && (v[n] < '\t' ||
		    v[n] > '\r') && v[n] != '(' && v[n] != ','; n++)
			;
		patatt_copy(pt->from_id, sizeof(pt->from_id), v, n);
	}
}

/*
 * offered - the key the message's X-Developer-Key offers for this
 * identity and algorithm (i= and a= equal), into s->offered
 */
static int
offered(struct patatt *pt, struct patatt_sig *s, const char *word)
{
	const struct patatt_msg *m = &pt->msg;
	struct patatt_tags *t = &pt->ktags;
	enum patatt_tag k = strcmp(word, "ed25519") == 0 ? TAG_PK : TAG_FPR;
	const char *v;
	size_t i, len, seen;
	int rc;

	for (i = 0, seen = 0; i < m->n && seen < KEYS_MAX; i++) {
		if (!patatt_field_is(m, i, "x-developer-key"))
			continue;
		seen++;
		v = patatt_field_value(m, i, &len);
		if ((rc = patatt_tags_parse(t, v, len)) == PA_ENOMEM)
			return rc;
		if (rc != 0 || !patatt_tag_is(t, TAG_I, s->identity) ||
		    !patatt_tag_is(t, TAG_A, word) || t->v[k] == NULL ||
		    t->len[k] >= sizeof(s->offered))
			continue;
		patatt_copy(s->offered, sizeof(s->offered), t->v[k], t->len[k]);
		return 0;
	}
	return 0;
}

/*
 * no_gnupg_home - no GnuPG home was configured and GnuPG's default one
 * cannot be used: patatt has no default keyring to fall back to either
 */
static int
no_gnupg_home(struct patatt *pt)
{
	struct pgp_key key;
	struct pa_err err;

	return pt->gnupg_default && pgp_key(pt->pgp, NULL, pt->now, &key,
	    &err) != 0;
}

/*
 * held - whether the keyrings hold any key file for s's identity (err
 * says why when they cannot tell)
 */
static enum patatt_held
held(struct patatt *pt, const struct patatt_sig *s, struct pa_err *err)
{
	switch (patatt_keyring_holds(pt->keys, s->identity, s->selector,
	    err)) {
	case 0:
		return PATATT_HELD_NONE;
	case 1:
		return PATATT_HELD_SOME;
	default:
		return PATATT_HELD_UNKNOWN;
	}
}

/*
 * find_key - the keyring's key for the signature, else the offered one
 * (ed25519, OpenSSH), else for OpenPGP the GnuPG home's.  Returns
 * PA_ENOMEM, else 0 with s->result set when the verdict is already known
 * (ERROR, KEYFAULT, NOKEY); c->key is held when set.
 */
static int
find_key(struct patatt *pt, struct patatt_check *c, struct patatt_sig *s)
{
	char path[PATATT_PATH_MAX];
	struct pa_err kerr;
	int rc;

	kerr.msg[0] = '\0';
	s->held = PATATT_HELD_UNKNOWN;
	rc = patatt_key_path(path, sizeof(path), c->word, s->identity,
	    s->selector);
	if (rc == -1) {
		patatt_set(s, PATATT_ERROR, "identity %s has no @",
		    s->identity);
		return 0;
	}
	if (rc == 0)
		rc = patatt_keyring_get(pt->keys, path, s->algo, &c->key,
		    &kerr);
	else
		rc = PA_ENOTFOUND;
	if (rc == PA_ENOMEM)
		return rc;
	if (rc != 0 && rc != PA_ENOTFOUND) {
		patatt_set(s, PATATT_KEYFAULT, "%s", kerr.msg);
		return 0;
	}
	s->result = PATATT_BADSIG;	/* until something verifies */
	if (rc == 0) {
		s->held = PATATT_HELD_SOME;
		patatt_copy(s->keysrc, sizeof(s->keysrc), c->key->src,
		    strlen(c->key->src));
		c->from = PATATT_KEY_RING;
		memcpy(c->ed, c->key->ed, sizeof(c->ed));
		return 0;
	}
	s->keysrc[0] = '\0';
	s->held = held(pt, s, &kerr);
	if (s->held == PATATT_HELD_UNKNOWN && s->offered[0])
		patatt_set(s, PATATT_KEYFAULT, "%s", kerr.msg);
	else if (s->held == PATATT_HELD_SOME && s->offered[0])
		patatt_set(s, PATATT_NOKEY, "%s/%s: no matching %s key found, "
		    "and the keyring has other key files for %s (the offered "
		    "key is not used)", s->identity, s->selector, c->word,
		    s->identity);
	else if (s->algo == PATATT_OPENPGP && no_gnupg_home(pt))
		patatt_set(s, PATATT_NOKEY, "%s/%s: no OpenPGP key file, and "
		    "no GnuPG home", s->identity, s->selector);
	else if (s->algo == PATATT_OPENPGP)
		return 0;	/* the GnuPG home's keys */
	else if (s->algo == PATATT_ED25519 && s->offered[0] &&
	    patatt_key_ed25519(s->offered, strlen(s->offered), c->ed) == 0)
		c->from = PATATT_KEY_OFFERED;
	else if (s->algo == PATATT_OPENSSH && s->offered[0])
		c->from = PATATT_KEY_OFFERED;	/* the blob's key, if it is that one */
	else
		patatt_set(s, PATATT_NOKEY, "%s/%s: no matching %s key found%s",
		    s->identity, s->selector, c->word, s->offered[0] ?
		    " (the offered key is not one)" : "");
	return 0;
}

/*
 * verify_readings - the signature with its key (c) against each reading
 * of the body until one verifies, else the first reading's verdict,
 * into s
 */
static int
verify_readings(struct patatt *pt, struct patatt_check *c, struct patatt_sig *s,
    struct pa_err *err)
{
	struct patatt_sig first;
	char why[sizeof(s->detail)];
	size_t i;
	int rc;

	memset(&first, 0, sizeof(first));
	for (i = 0; i < NREADINGS; i++) {
		if (!pt->rd[i].done && (rc = patatt_read(&pt->rd[i], &pt->mi,
		    &pt->work, pt->msg.text, pt->msg.len,
		    &readings[i].opts)) != 0)
			return rc;
		if ((rc = patatt_verify(pt, c, &pt->rd[i], s, err)) != 0)
			return rc;
		if (s->result == PATATT_VALID ||
		    s->result == PATATT_KEY_EXPIRED) {
			if (i > 0 && s->result == PATATT_VALID)
				patatt_set(s, PATATT_VALID,
				    "the body as %s reads it",
				    readings[i].name);
			break;
		}
		if (i == 0)
			first = *s;
		if (s->result == PATATT_NOKEY)
			break;	/* no key: no reading changes that */
	}
	if (s->result != PATATT_VALID && s->result != PATATT_KEY_EXPIRED)
		*s = first;
	if (c->from != PATATT_KEY_OFFERED)
		return 0;
	if (s->result == PATATT_VALID) {
		patatt_set(s, PATATT_OFFERED,
		    "verifies only with the key of X-Developer-Key");
		snprintf(s->keysrc, sizeof(s->keysrc), "X-Developer-Key");
	} else {
		memcpy(why, s->detail, sizeof(why));
		patatt_set(s, PATATT_NOKEY, "%s/%s: no matching %s key found; "
		    "with the offered key: %.150s", s->identity, s->selector,
		    c->word, why);
	}
	return 0;
}

/*
 * signer - the identity, selector, time and algorithm the tags name, into
 * s and c; 0 when they are usable, else -1 with s an ERROR
 */
static int
signer(struct patatt *pt, struct patatt_check *c, struct patatt_sig *s)
{
	const struct patatt_tags *t = &pt->tags;
	size_t i;

	/* i=, else the From address; s=, else "default"; t= */
	if (t->v[TAG_I])
		patatt_copy(s->identity, sizeof(s->identity), t->v[TAG_I],
		    t->len[TAG_I]);
	else
		memcpy(s->identity, pt->from_id, sizeof(pt->from_id));
	if (t->v[TAG_S] && t->len[TAG_S] > 0)
		patatt_copy(s->selector, sizeof(s->selector), t->v[TAG_S],
		    t->len[TAG_S]);
	for (i = 0; t->v[TAG_T] && i < t->len[TAG_T] && i < 18 &&
	    t->v[TAG_T][i] >= '0' && t->v[TAG_T][i] <= '9'; i++)
		s->signed_at = s->signed_at * 10 + (t->v[TAG_T][i] - '0');
	if (t->v[TAG_A] == NULL) {
		patatt_set(s, PATATT_ERROR,
		    "no algorithm specified in signature");
		return -1;
	}
	for (i = 0; i < sizeof(algos) / sizeof(algos[0]); i++)
		if (t->len[TAG_A] >= strlen(algos[i].prefix) &&
		    memcmp(t->v[TAG_A], algos[i].prefix,
		    strlen(algos[i].prefix)) == 0)
			break;
	if (i == sizeof(algos) / sizeof(algos[0])) {
		patatt_set(s, PATATT_ERROR, "Unknown algorithm: %.*s",
		    t->len[TAG_A] > 40 ? 40 : (int)t->len[TAG_A], t->v[TAG_A]);
		return -1;
	}
	s->algo = algos[i].algo;
	c->word = algos[i].prefix;
	if (s->identity[0] == '\0' || (t->v[TAG_I] &&
	    strlen(s->identity) != t->len[TAG_I])) {
		patatt_set(s, PATATT_ERROR,
		    "no usable identity (i=, or the From address)");
		return -1;
	}
	if (t->v[TAG_S] && strlen(s->selector) != t->len[TAG_S] &&
	    t->len[TAG_S] > 0) {
		patatt_set(s, PATATT_ERROR, "s= is not a usable selector");
		return -1;
	}
	return 0;
}

/* verify_field - the verdict on the signature in header field fi */
static int
verify_field(struct patatt *pt, size_t fi, struct patatt_sig *s,
    struct pa_err *err)
{
	struct patatt_check c;
	const char *v;
	size_t len;
	int rc;

	memset(s, 0, sizeof(*s));
	memset(&c, 0, sizeof(c));
	s->result = PATATT_ERROR;
	s->algo = PATATT_ALGO_UNKNOWN;
	s->held = PATATT_HELD_UNKNOWN;
	memcpy(s->selector, "default", sizeof("default"));
	if (pt->bad_msg) {
		patatt_set(s, PATATT_ERROR, "%s", pt->bad_msg);
		return 0;
	}
	v = patatt_field_value(&pt->msg, fi, &len);
	if ((rc = patatt_tags_parse(&pt->tags, v, len)) == PA_ENOMEM)
		return rc;
	if (rc != 0) {
		patatt_set(s, PATATT_ERROR,
		    "X-Developer-Signature cannot be read: %s",
		    pa_strerror(rc));
		return 0;
	}
	if (signer(pt, &c, s) != 0)
		return 0;
	if ((rc = offered(pt, s, c.word)) == 0 &&
	    (rc = find_key(pt, &c, s)) == 0 &&
	    s->result != PATATT_ERROR && s->result != PATATT_NOKEY &&
	    s->result != PATATT_KEYFAULT)
		rc = verify_readings(pt, &c, s, err);
	if (c.key != NULL)
		patatt_keyring_put(pt->keys, c.key);
	return rc;
}

int
patatt_check(struct patatt *pt, const struct mailmsg *m, time_t now,
    struct patatt_report *r, struct pa_err *err)
{
	const char *text;
	size_t len, i;
	char *u;
	int rc;

	r->n = r->total = 0;
	pt->now = now;
	text = mailmsg_text(m, &len);
	if ((rc = patatt_msg_split(&pt->msg, text, len)) != 0) {
		pa_err_set(err, "out of memory");
		return rc;
	}
	r->total = pt->msg.nsig_over;
	for (i = 0; i < pt->msg.n; i++)
		if (patatt_field_is(&pt->msg, i, "x-developer-signature"))
			r->total++;
	if (r->total == 0)
		return 0;
	for (i = 0; i < NREADINGS; i++)
		pt->rd[i].done = 0;
	if (pt->aused < pt->msg.n) {
		if ((u = realloc(pt->used, pt->msg.n)) == NULL) {
			pa_err_set(err, "out of memory");
			return PA_ENOMEM;
		}
		pt->used = u;
		pt->aused = pt->msg.n;
	}
	/* patatt fails the whole message for these; we, past the budget */
	pt->bad_msg = pt->msg.invalid;
	if (r->total > PATATT_MAX_SIGS)
		pt->bad_msg = over_budget;
	for (i = 0; pt->bad_msg == NULL && i < pt->msg.n; i++)
		if (pt->msg.f[i].colon == pt->msg.f[i].len)
			pt->bad_msg = "Error parsing headers (a header line "
			    "without a colon)";
	if (pt->bad_msg == NULL)
		parse_from(pt);
	for (i = 0; i < pt->msg.n && r->n < PATATT_MAX_SIGS; i++) {
		if (!patatt_field_is(&pt->msg, i, "x-developer-signature"))
			continue;
		if ((rc = verify_field(pt, i, &r->sig[r->n], err)) != 0) {
			if (rc == PA_ENOMEM)
				pa_err_set(err, "out of memory");
			r->n = 0;
			return rc;
		}
		r->n++;
	}
	/* Signatures past the fields read: the message is refused. */
	for (i = 0; i < pt->msg.nsig_over && r->n < PATATT_MAX_SIGS; i++) {
		memset(&r->sig[r->n], 0, sizeof(r->sig[0]));
		r->sig[r->n].result = PATATT_ERROR;
		r->sig[r->n].algo = PATATT_ALGO_UNKNOWN;
		patatt_set(&r->sig[r->n++], PATATT_ERROR, "%s", pt->bad_msg);
	}
	return 0;
}

int
patatt_key_file(char *out, size_t size, const char *algo,
    const char *identity, const char *selector)
{
	size_t i;
	int rc;

	for (i = 0; i < sizeof(algos) / sizeof(algos[0]); i++)
		if (strncmp(algo, algos[i].prefix,
		    strlen(algos[i].prefix)) == 0)
			break;
	if (i == sizeof(algos) / sizeof(algos[0]))
		return PA_ENOTFOUND;
	rc = patatt_key_path(out, size, algos[i].prefix, identity,
	    selector[0] != '\0' ? selector : "default");
	return rc == -1 && strchr(identity, '@') != NULL ? PA_ETOOBIG :
	    rc != 0 ? PA_ENOTFOUND : 0;
}
