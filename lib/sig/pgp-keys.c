/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pgp-keys.c - the state of signers' keys, from a listing of the keyring
 * that is made again only when the keyring's files change, judged under
 * the configured trust model.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base.h"
#include "patchattest.h"
#include "pgp-int.h"

#define PGP_KEYS_MAX	1000000		/* keys in one listing */

/*
 * The files whose change means the listing is out of date: keyrings (the
 * 2.1+ keybox, the legacy keyring, keyboxd's database), the trust
 * database, the TOFU database, and gpg.conf (its trust model decides the
 * validities the gpg model reads).
 */
static const char *const pgp_stamp_files[] = {
	"pubring.kbx",
	"pubring.gpg",
	"public-keys.d/pubring.db",
	"trustdb.gpg",
	"tofu.db",
	"gpg.conf",
};
_Static_assert(sizeof(pgp_stamp_files) / sizeof(pgp_stamp_files[0]) ==
    PGP_NSTAMPS, "PGP_NSTAMPS");

/* pgp_recheck_every()'s: set once, before any thread starts */
static unsigned	 recheck_ms;

static int	 trusted_gpg(gpgme_key_t, time_t);
static int	 trusted_tofu(gpgme_key_t, time_t);
static int	 trusted_keyring(gpgme_key_t, time_t);
static int	 stamps_same(const struct pgp_stamp *,
		    const struct pgp_stamp *);
static int	 cache_list(struct pgp *, struct pa_err *);
static int	 ix_cmp(const void *, const void *);
static int	 norm_id(char *, size_t, const char *);
static int	 expired(gpgme_subkey_t, time_t);
static int	 usable_signer(gpgme_key_t, time_t);
static int	 name_addr(char *, const char *, const char *);
static void	 key_uids(gpgme_key_t, struct pgp_key *);
static int	 copy_text(char *, size_t, const char *);
static void	 stamps_take(const struct pgp *, struct pgp_stamp *);
static int	 listing_fresh(struct pgp *, struct pa_err *);
static int	 export_keys(struct pgp *, struct pa_err *);

/*
 * The trust models.  In each, a key is first judged on its own: revoked
 * (primary key, or the subkey asked about) is REVOKED; expired at `now'
 * (expiry time set and not after now; primary key or the subkey asked
 * about) is EXPIRED; disabled, invalid, or without a signing key or
 * subkey that is neither revoked nor expired at now is UNTRUSTED.
 * A key that passes is TRUSTED when the model's rule holds:
 *
 *  gpg      some user ID that is not revoked has validity full or
 *           ultimate in the home, as gpg.conf's own trust model computes
 *           it (b4: TRUST_FULLY or TRUST_ULTIMATE);
 *  tofu     every user ID that is not revoked has a TOFU policy of good
 *           or auto, or no TOFU record (first use); auto and first use
 *           count as good because b4 ran gpg with --tofu-default-policy
 *           good.  Policies bad, ask (a conflict) and unknown fail it;
 *  keyring  always: being in the keyring is the trust.
 */
static const struct pgp_model pgp_models[] = {
	{ TRUST_GPG, NULL, 0, trusted_gpg },
	{ TRUST_TOFU, "tofu", GPGME_KEYLIST_MODE_WITH_TOFU, trusted_tofu },
	{ TRUST_KEYRING, "always", 0, trusted_keyring },
};

static const struct {
	gpgme_validity_t	 validity;
	int			 trusted;
} pgp_validities[] = {
	{ GPGME_VALIDITY_ULTIMATE, 1 },
	{ GPGME_VALIDITY_FULL, 1 },
	{ GPGME_VALIDITY_MARGINAL, 0 },
	{ GPGME_VALIDITY_NEVER, 0 },
	{ GPGME_VALIDITY_UNDEFINED, 0 },
	{ GPGME_VALIDITY_UNKNOWN, 0 },
};

static const struct {
	gpgme_tofu_policy_t	 policy;
	int			 trusted;
} pgp_tofu_policies[] = {
	{ GPGME_TOFU_POLICY_NONE, 1 },
	{ GPGME_TOFU_POLICY_AUTO, 1 },
	{ GPGME_TOFU_POLICY_GOOD, 1 },
	{ GPGME_TOFU_POLICY_UNKNOWN, 0 },
	{ GPGME_TOFU_POLICY_BAD, 0 },
	{ GPGME_TOFU_POLICY_ASK, 0 },
};

const struct pgp_model *
pgp_model_of(enum trust_model model)
{
	size_t i;

	for (i = 0; i < sizeof(pgp_models) / sizeof(pgp_models[0]); i++)
		if (pgp_models[i].model == model)
			return &pgp_models[i];
	return NULL;
}

int
pgp_home_check(const struct pgp *p, struct pa_err *err)
{
	char path[4096];
	const char *why = NULL;
	struct stat sb;
	size_t i;

	if (stat(p->home, &sb) != 0)
		why = strerror(errno);
	else if (!S_ISDIR(sb.st_mode))
		why = "not a folder";
	else if (access(p->home, R_OK | X_OK) != 0)
		why = strerror(errno);
	if (why != NULL) {
		pa_err_set(err, "GnuPG home %s cannot be used: %s", p->home,
		    why);
		return PA_ERROR;
	}
	for (i = 0; i < PGP_NSTAMPS; i++)
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", p->home,
		    pgp_stamp_files[i]) < sizeof(path) &&
		    stat(path, &sb) == 0 && access(path, R_OK) != 0) {
			pa_err_set(err, "GnuPG keyring %s cannot be read: %s",
			    path, strerror(errno));
			return PA_ERROR;
		}
	return 0;
}

static void
stamps_take(const struct pgp *p, struct pgp_stamp *st)
{
	char path[4096];
	struct stat sb;
	size_t i;

	for (i = 0; i < PGP_NSTAMPS; i++) {
		memset(&st[i], 0, sizeof(st[i]));
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", p->home,
		    pgp_stamp_files[i]) >= sizeof(path) ||
		    stat(path, &sb) != 0)
			continue;
		st[i].exists = 1;
		st[i].dev = sb.st_dev;
		st[i].ino = sb.st_ino;
		st[i].size = sb.st_size;
		st[i].mtime = sb.st_mtim;
	}
}

static int
stamps_same(const struct pgp_stamp *a, const struct pgp_stamp *b)
{
	size_t i;

	for (i = 0; i < PGP_NSTAMPS; i++)
		if (a[i].exists != b[i].exists || a[i].dev != b[i].dev ||
		    a[i].ino != b[i].ino || a[i].size != b[i].size ||
		    a[i].mtime.tv_sec != b[i].mtime.tv_sec ||
		    a[i].mtime.tv_nsec != b[i].mtime.tv_nsec)
			return 0;
	return 1;
}

void
pgp_cache_clear(struct pgp *p)
{
	size_t i;

	for (i = 0; i < p->nkeys; i++)
		gpgme_key_unref(p->keys[i]);
	openpgp_keys_free(p->store);
	p->store = NULL;
	p->nkeys = 0;
	p->nix = 0;
	p->listed = 0;
}

static int
ix_cmp(const void *a, const void *b)
{
	return strcmp(((const struct pgp_ix *)a)->id,
	    ((const struct pgp_ix *)b)->id);
}

/*
 * cache_list - list every key once and index its fingerprints and key
 * IDs.  The stamps are taken before the listing: a change while gpg runs
 * (or gpg's own first write of tofu.db) means one more listing later,
 * never a stale answer.
 */
static int
cache_list(struct pgp *p, struct pa_err *err)
{
	struct pgp_stamp now[PGP_NSTAMPS];
	gpgme_key_t k;
	gpgme_subkey_t s;
	gpgme_error_t e;
	struct pgp_ix *nix;
	size_t nsub = 0, i;
	int rc;

	stamps_take(p, now);
	pgp_cache_clear(p);
	if ((e = gpgme_op_keylist_start(p->lctx, NULL, 0)) != 0) {
		pa_err_set(err, "cannot list the keys of GnuPG home %s: %s",
		    p->home, gpgme_strerror(e));
		return PA_ERROR;
	}
	while ((e = gpgme_op_keylist_next(p->lctx, &k)) == 0) {
		if ((rc = GROW(p->keys, p->nkeys, p->akeys, 64,
		    PGP_KEYS_MAX)) != 0) {
			gpgme_key_unref(k);
			e = gpg_error(rc == PA_ETOOBIG ? GPG_ERR_TOO_LARGE :
			    GPG_ERR_ENOMEM);
			break;
		}
		p->keys[p->nkeys++] = k;
		for (s = k->subkeys; s; s = s->next)
			nsub++;
	}
	gpgme_op_keylist_end(p->lctx);
	if (gpg_err_code(e) != GPG_ERR_EOF) {
		pa_err_set(err, "cannot list the keys of GnuPG home %s: %s",
		    p->home, gpgme_strerror(e));
		pgp_cache_clear(p);
		return gpg_err_code(e) == GPG_ERR_ENOMEM ? PA_ENOMEM : PA_ERROR;
	}
	free(p->ix);
	p->ix = NULL;
	if (nsub && (nix = calloc(nsub * 2, sizeof(*nix))) == NULL) {
		pa_err_set(err, "out of memory listing GnuPG keys");
		pgp_cache_clear(p);
		return PA_ENOMEM;
	} else if (nsub)
		p->ix = nix;
	for (i = 0; i < p->nkeys; i++)
		for (s = p->keys[i]->subkeys; s; s = s->next) {
			if (s->fpr) {
				p->ix[p->nix].id = s->fpr;
				p->ix[p->nix].key = i;
				p->ix[p->nix++].sub = s;
			}
			if (s->keyid) {
				p->ix[p->nix].id = s->keyid;
				p->ix[p->nix].key = i;
				p->ix[p->nix++].sub = s;
			}
		}
	if (p->nix)
		qsort(p->ix, p->nix, sizeof(*p->ix), ix_cmp);
	memcpy(p->stamp, now, sizeof(now));
	p->listed = 1;
	return 0;
}

/*
 * norm_id - a fingerprint (40 or 64 hex digits) or long key ID (16), with
 * an optional 0x, upper-cased into buf; 0 when it is none of these.
 * Short key IDs are refused: they are too easy to forge.
 */
static int
norm_id(char *buf, size_t size, const char *id)
{
	size_t n;

	if (id[0] == '0' && (id[1] == 'x' || id[1] == 'X'))
		id += 2;
	for (n = 0; id[n] && n + 1 < size; n++) {
		if (id[n] >= 'a' && id[n] <= 'f')
			buf[n] = (char)(id[n] - 'a' + 'A');
		else if ((id[n] >= '0' && id[n] <= '9') ||
		    (id[n] >= 'A' && id[n] <= 'F'))
			buf[n] = id[n];
		else
			return 0;
	}
	buf[n] = '\0';
	return id[n] == '\0' && (n == 16 || n == 40 || n == 64);
}

static int
expired(gpgme_subkey_t s, time_t now)
{
	return s->expires > 0 && (time_t)s->expires <= now;
}

/* usable_signer - some signing (sub)key is valid at now */
static int
usable_signer(gpgme_key_t k, time_t now)
{
	gpgme_subkey_t s;

	for (s = k->subkeys; s; s = s->next)
		if (s->can_sign && !s->revoked && !s->invalid &&
		    !s->disabled && !expired(s, now))
			return 1;
	return 0;
}

static int
trusted_gpg(gpgme_key_t k, time_t now)
{
	gpgme_user_id_t u;
	size_t i;

	(void)now;
	for (u = k->uids; u; u = u->next) {
		if (u->revoked || u->invalid)
			continue;
		for (i = 0; i < sizeof(pgp_validities) /
		    sizeof(pgp_validities[0]); i++)
			if (pgp_validities[i].validity == u->validity &&
			    pgp_validities[i].trusted)
				return 1;
	}
	return 0;
}

static int
trusted_tofu(gpgme_key_t k, time_t now)
{
	gpgme_user_id_t u;
	gpgme_tofu_policy_t pol;
	size_t i, nuid = 0;

	(void)now;
	for (u = k->uids; u; u = u->next) {
		if (u->revoked || u->invalid)
			continue;
		nuid++;
		pol = u->tofu ? u->tofu->policy : GPGME_TOFU_POLICY_NONE;
		for (i = 0; i < sizeof(pgp_tofu_policies) /
		    sizeof(pgp_tofu_policies[0]); i++)
			if (pgp_tofu_policies[i].policy == pol)
				break;
		if (i == sizeof(pgp_tofu_policies) /
		    sizeof(pgp_tofu_policies[0]) ||
		    !pgp_tofu_policies[i].trusted)
			return 0;
	}
	return nuid > 0;
}

static int
trusted_keyring(gpgme_key_t k, time_t now)
{
	(void)k;
	(void)now;
	return 1;
}

/* copy_text - s into buf if it fits; 0 (and buf empty) if it does not */
static int
copy_text(char *buf, size_t size, const char *s)
{
	size_t n = strlen(s);

	if (n >= size) {
		buf[0] = '\0';
		return 0;
	}
	memcpy(buf, s, n + 1);
	return 1;
}

/*
 * key_uids - the user IDs that are not revoked, as "Name <addr>" and
 * addr.  A user ID that would not fit whole is left out: a cut address
 * could equal someone else's.
 */
/*
 * name_addr - "Name <addr>" into uid (PGP_UIDLEN), a name too long for it
 * cut at a character and marked "...": the signer is still named
 */
static int
name_addr(char *uid, const char *name, const char *addr)
{
	size_t room, cut;
	int n;

	n = snprintf(uid, PGP_UIDLEN, "%s <%s>", name, addr);
	if (n >= 0 && n < PGP_UIDLEN)
		return n;
	if (strlen(addr) + sizeof("... <>") > PGP_UIDLEN)
		return -1;
	room = PGP_UIDLEN - strlen(addr) - sizeof("... <>");
	for (cut = room; cut > 0 && ((unsigned char)name[cut] & 0xc0) == 0x80;
	    cut--)
		;
	return snprintf(uid, PGP_UIDLEN, "%.*s... <%s>", (int)cut, name, addr);
}

static void
key_uids(gpgme_key_t k, struct pgp_key *out)
{
	gpgme_user_id_t u;
	const char *addr;
	char *uid, *a;
	int n;

	for (u = k->uids; u && out->nuids < PGP_UID_MAX; u = u->next) {
		if (u->revoked || u->invalid)
			continue;
		addr = u->email && u->email[0] ? u->email :
		    u->address ? u->address : "";
		uid = out->uid[out->nuids];
		a = out->addr[out->nuids];
		if (!copy_text(a, PGP_UIDLEN, addr))
			continue;
		if (u->name && u->name[0] && addr[0])
			n = name_addr(uid, u->name, addr);
		else if (addr[0])
			n = snprintf(uid, PGP_UIDLEN, "<%s>", addr);
		else
			n = snprintf(uid, PGP_UIDLEN, "%s", u->uid ? u->uid :
			    "");
		if (n < 0 || n >= PGP_UIDLEN || uid[0] == '\0')
			continue;
		out->nuids++;
	}
}

void
pgp_recheck_every(unsigned ms)
{
	recheck_ms = ms;
}

/* ms_since - milliseconds from a to b */
static long long
ms_since(const struct timespec *a, const struct timespec *b)
{
	return (long long)(b->tv_sec - a->tv_sec) * 1000 +
	    (b->tv_nsec - a->tv_nsec) / 1000000;
}

/*
 * listing_fresh - the listing made again if the keyring changed; the
 * home looked at once every recheck_ms at the most
 */
static int
listing_fresh(struct pgp *p, struct pa_err *err)
{
	struct pgp_stamp cur[PGP_NSTAMPS];
	struct timespec now;
	int rc;

	clock_gettime(CLOCK_MONOTONIC, &now);
	if (p->listed && recheck_ms > 0 &&
	    ms_since(&p->looked, &now) < recheck_ms)
		return 0;
	if ((rc = pgp_home_check(p, err)) != 0)
		return rc;
	stamps_take(p, cur);
	if ((!p->listed || !stamps_same(cur, p->stamp)) &&
	    (rc = cache_list(p, err)) != 0)
		return rc;
	p->looked = now;
	return 0;
}

/*
 * export_keys - every public key of the home, as gpg exports it, into
 * p->store.  Keys librnp cannot use are left out (their signatures are
 * then NOKEY), as openpgp_keys_load() does with a key file.
 */
static int
export_keys(struct pgp *p, struct pa_err *err)
{
	gpgme_data_t data = NULL;
	gpgme_error_t e;
	char *mem;
	size_t n = 0;
	int rc;

	if ((e = gpgme_data_new(&data)) == 0)
		e = gpgme_op_export(p->lctx, NULL, 0, data);
	mem = data ? gpgme_data_release_and_get_mem(data, &n) : NULL;
	if (e != 0) {
		gpgme_free(mem);
		pa_err_set(err, "cannot export the keys of GnuPG home %s: %s",
		    p->home, gpgme_strerror(e));
		return gpg_err_code(e) == GPG_ERR_ENOMEM ? PA_ENOMEM : PA_ERROR;
	}
	rc = n > 0 ? openpgp_keys_load(&p->store, mem, n, err) : PA_EBADDOC;
	gpgme_free(mem);
	if (rc == PA_EBADDOC)
		rc = openpgp_keys_empty(&p->store);
	if (rc == PA_ENOMEM)
		pa_err_set(err, "out of memory reading GnuPG home %s",
		    p->home);
	return rc;
}

int
pgp_keystore(struct pgp *p, struct openpgp_keys **out, struct pa_err *err)
{
	int rc;

	*out = NULL;
	if ((rc = listing_fresh(p, err)) != 0 ||
	    (p->store == NULL && (rc = export_keys(p, err)) != 0))
		return rc;
	*out = p->store;
	return 0;
}

int
pgp_key(struct pgp *p, const char *fpr, time_t now, struct pgp_key *out,
    struct pa_err *err)
{
	const struct pgp_model *pm;
	struct pgp_ix want, *hit = NULL;
	gpgme_key_t k;
	gpgme_subkey_t s;
	char id[PGP_FPR_MAX];
	size_t lo, hi, mid;
	int rc;

	memset(out, 0, sizeof(*out));
	out->state = PGP_KEY_MISSING;
	if ((rc = listing_fresh(p, err)) != 0)
		return rc;
	if (fpr == NULL || !norm_id(id, sizeof(id), fpr) || p->nix == 0)
		return 0;
	want.id = id;
	for (lo = 0, hi = p->nix; lo < hi; ) {
		mid = lo + (hi - lo) / 2;
		if (ix_cmp(&p->ix[mid], &want) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == p->nix || strcmp(p->ix[lo].id, id) != 0)
		return 0;
	hit = &p->ix[lo];
	/* A key ID two keys share says nothing about which one signed. */
	for (mid = lo + 1; mid < p->nix && strcmp(p->ix[mid].id, id) == 0;
	    mid++)
		if (p->ix[mid].key != hit->key)
			return 0;
	k = p->keys[hit->key];
	s = hit->sub;
	snprintf(out->primary, sizeof(out->primary), "%s",
	    k->fpr ? k->fpr : k->subkeys && k->subkeys->fpr ?
	    k->subkeys->fpr : "");
	key_uids(k, out);
	pm = pgp_model_of(p->model);
	if (k->revoked || (k->subkeys && k->subkeys->revoked) || s->revoked)
		out->state = PGP_KEY_REVOKED;
	else if ((k->subkeys && expired(k->subkeys, now)) || expired(s, now))
		out->state = PGP_KEY_EXPIRED;
	else if (k->disabled || k->invalid || !usable_signer(k, now) ||
	    pm == NULL || !pm->trusted(k, now))
		out->state = PGP_KEY_UNTRUSTED;
	else
		out->state = PGP_KEY_TRUSTED;
	return 0;
}
