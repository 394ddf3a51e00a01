/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pgp.c - OpenPGP through GPGME: verify (clearsigned or opaque), clearsign,
 * import, and the state of signers' keys from a cached listing of the
 * keyring.
 *
 * A struct pgp holds two GPGME contexts on the same home:
 *
 *  - ctx signs and verifies.  It runs gpg with --trust-model always: a
 *    verification here judges only the cryptography, and must neither
 *    consult nor write the trust database or tofu.db (a write would change
 *    the stamps below and force a new listing for every message).
 *  - lctx lists the keyring for pgp_key(), with the trust model that
 *    gives the facts the configured model needs (pgp-keys.c).
 *
 * GPGME 1.13 and later pass a per-context trust model to gpg (context
 * flag "trust-model"), so no model needs gpg.conf; but GnuPG has no
 * context flag for --tofu-default-policy, and b4 ran with "good" as the
 * default, so the TOFU rule is applied here to the policies gpg lists.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/stat.h>

#include <errno.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gpgme.h>

#include "patchattest.h"
#include "pgp.h"
#include "pgp-int.h"
#include "base.h"

#define PGP_DOC_MAX	(16u << 20)	/* documents and texts to sign */
#define PGP_COMMENT_MAX	200		/* one armor Comment value */
#define PGP_COMMENTS_MAX 16

#define SIG_BEGIN	"-----BEGIN PGP SIGNED MESSAGE-----"
#define ARMOR_BEGIN	"-----BEGIN PGP SIGNATURE-----"

/*
 * A signature's status from GPGME, as this module reports it.  Good,
 * expired-key and revoked-key signatures are all cryptographically good:
 * the key's state at decision time is pgp_key()'s to judge.  A signature
 * past its own expiry time is an error, because nothing about the key
 * would reveal it.
 */
static const struct {
	gpgme_err_code_t	 code;
	enum pgp_sigstatus	 status;
	const char		*detail;
} pgp_sigmap[] = {
	{ GPG_ERR_NO_ERROR, PGP_SIG_GOOD, "" },
	{ GPG_ERR_KEY_EXPIRED, PGP_SIG_GOOD, "the signing key has expired" },
	{ GPG_ERR_CERT_REVOKED, PGP_SIG_GOOD, "the signing key is revoked" },
	{ GPG_ERR_SIG_EXPIRED, PGP_SIG_ERROR, "the signature has expired" },
	{ GPG_ERR_BAD_SIGNATURE, PGP_SIG_BAD, "" },
	{ GPG_ERR_NO_PUBKEY, PGP_SIG_NOKEY, "" },
};

/*
 * Errors of a whole verify operation that say GnuPG itself could not run
 * (missing, too old, its home unreadable, it died, no memory): every
 * document would meet them.  Any other error, one GnuPG gave about what
 * it read, is the document's: a PGP_SIG_ERROR result, so that one odd
 * entry of an archive never stops a run.
 */
static const gpgme_err_code_t pgp_engine_errors[] = {
	GPG_ERR_INV_ENGINE, GPG_ERR_ENGINE_TOO_OLD, GPG_ERR_ENOENT,
	GPG_ERR_EACCES, GPG_ERR_EPERM, GPG_ERR_EPIPE, GPG_ERR_ENOMEM,
	GPG_ERR_ENOSPC, GPG_ERR_EIO, GPG_ERR_SYSTEM_ERROR, GPG_ERR_ETIMEDOUT,
};

/* Signing errors that mean the key wants a passphrase. */
static const gpgme_err_code_t pgp_pass_errors[] = {
	GPG_ERR_NO_PIN_ENTRY, GPG_ERR_NO_PASSPHRASE, GPG_ERR_BAD_PASSPHRASE,
	GPG_ERR_CANCELED, GPG_ERR_FULLY_CANCELED,
};

static int	 in_codes(gpgme_err_code_t, const gpgme_err_code_t *, size_t);
static int	 sig_result(struct pgp *, gpgme_error_t, struct pgp_sig *,
		    struct pa_err *);
static gpgme_ctx_t ctx_new(const char *, const char *, gpgme_keylist_mode_t,
		    struct pa_err *);
static int	 comments_fit(const char *const *, struct pa_err *);
static int	 choose_signer(struct pgp *, const char *, struct pa_err *);
static int	 add_comments(struct sbuf *, const char *, size_t,
		    const char *const *, struct pa_err *);

static int
in_codes(gpgme_err_code_t code, const gpgme_err_code_t *codes, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (codes[i] == code)
			return 1;
	return 0;
}

int
pgp_global_init(struct pa_err *err)
{
	gpgme_engine_info_t info;
	gpgme_error_t e;
	const char *loc;

	if (gpgme_check_version("1.13.0") == NULL) {
		pa_err_set(err, "GPGME %s is too old (1.13 or later is needed)",
		    gpgme_check_version(NULL));
		return PA_ERROR;
	}
	/* gpg's messages in the process's language; nothing parses them. */
	if ((loc = setlocale(LC_CTYPE, NULL)) != NULL)
		gpgme_set_locale(NULL, LC_CTYPE, loc);
#ifdef LC_MESSAGES
	if ((loc = setlocale(LC_MESSAGES, NULL)) != NULL)
		gpgme_set_locale(NULL, LC_MESSAGES, loc);
#endif
	if ((e = gpgme_engine_check_version(GPGME_PROTOCOL_OpenPGP)) != 0) {
		const char *path = "gpg";

		if (gpgme_get_engine_info(&info) == 0)
			for (; info; info = info->next)
				if (info->protocol == GPGME_PROTOCOL_OpenPGP &&
				    info->file_name)
					path = info->file_name;
		pa_err_set(err, "GnuPG (%s) cannot be used: %s; install gnupg "
		    "2.2 or later", path, gpgme_strerror(e));
		return PA_ERROR;
	}
	return 0;
}

/* ctx_new - an OpenPGP context on home, offline, local keys only */
static gpgme_ctx_t
ctx_new(const char *home, const char *gpg_model, gpgme_keylist_mode_t extra,
    struct pa_err *err)
{
	gpgme_ctx_t ctx;
	gpgme_error_t e;

	if ((e = gpgme_new(&ctx)) != 0) {
		pa_err_set(err, "cannot start GPGME: %s", gpgme_strerror(e));
		return NULL;
	}
	if ((e = gpgme_set_protocol(ctx, GPGME_PROTOCOL_OpenPGP)) != 0 ||
	    (e = gpgme_ctx_set_engine_info(ctx, GPGME_PROTOCOL_OpenPGP, NULL,
	    home)) != 0 ||
	    (e = gpgme_set_keylist_mode(ctx, GPGME_KEYLIST_MODE_LOCAL |
	    extra)) != 0 ||
	    (e = gpgme_set_pinentry_mode(ctx,
	    GPGME_PINENTRY_MODE_ERROR)) != 0 ||
	    (e = gpgme_set_ctx_flag(ctx, "auto-key-retrieve", "0")) != 0 ||
	    (gpg_model && (e = gpgme_set_ctx_flag(ctx, "trust-model",
	    gpg_model)) != 0)) {
		pa_err_set(err, "cannot set up GPGME for GnuPG home %s: %s",
		    home ? home : "(default)", gpgme_strerror(e));
		gpgme_release(ctx);
		return NULL;
	}
	gpgme_set_armor(ctx, 1);
	gpgme_set_offline(ctx, 1);
	return ctx;
}

int
pgp_new(struct pgp **out, const char *home, enum trust_model model,
    struct pa_err *err)
{
	const struct pgp_model *pm;
	struct stat st;
	struct pgp *p;
	const char *dir;
	int rc = PA_ERROR;

	*out = NULL;
	if ((pm = pgp_model_of(model)) == NULL) {
		pa_err_set(err, "unknown trust model %d", (int)model);
		return PA_ECONFIG;
	}
	if (home && stat(home, &st) != 0) {
		pa_err_set(err, "GnuPG home %s: %s", home, strerror(errno));
		return PA_ERROR;
	}
	if (home && !S_ISDIR(st.st_mode)) {
		pa_err_set(err, "GnuPG home %s: not a directory", home);
		return PA_ERROR;
	}
	if ((p = calloc(1, sizeof(*p))) == NULL) {
		pa_err_set(err, "out of memory");
		return PA_ENOMEM;
	}
	p->model = model;
	dir = home ? home : gpgme_get_dirinfo("homedir");
	if (dir == NULL) {
		pa_err_set(err, "cannot find GnuPG's home directory (gpgconf)");
		goto fail;
	}
	if ((p->home = strdup(dir)) == NULL) {
		pa_err_set(err, "out of memory");
		rc = PA_ENOMEM;
		goto fail;
	}
	if ((p->ctx = ctx_new(home, "always", 0, err)) == NULL ||
	    (p->lctx = ctx_new(home, pm->gpg_model, pm->extra, err)) == NULL)
		goto fail;
	*out = p;
	return 0;
fail:
	pgp_free(p);
	return rc;
}

void
pgp_free(struct pgp *p)
{
	if (p == NULL)
		return;
	pgp_cache_clear(p);
	free(p->keys);
	free(p->ix);
	if (p->ctx)
		gpgme_release(p->ctx);
	if (p->lctx)
		gpgme_release(p->lctx);
	free(p->home);
	free(p);
}

/*
 * sig_result - sig from the result of one verify operation (e is what
 * gpgme_op_verify() returned).  Returns 0 with sig filled in, or
 * PA_ERROR when GnuPG did not run (err says why).
 */
static int
sig_result(struct pgp *p, gpgme_error_t e, struct pgp_sig *sig,
    struct pa_err *err)
{
	gpgme_verify_result_t res;
	gpgme_signature_t s;
	gpgme_err_code_t code;
	size_t i;

	res = gpgme_op_verify_result(p->ctx);
	for (s = res ? res->signatures : NULL; s; s = s->next)
		sig->nsigs++;
	if (e != 0 && sig->nsigs == 0) {
		code = gpg_err_code(e);
		if (in_codes(code, pgp_engine_errors,
		    sizeof(pgp_engine_errors) / sizeof(pgp_engine_errors[0]))) {
			pa_err_set(err, "GnuPG could not verify a document (home "
			    "%s): %s", p->home, gpgme_strerror(e));
			return PA_ERROR;
		}
		snprintf(sig->detail, sizeof(sig->detail), "GnuPG: %s",
		    gpgme_strerror(e));
		return 0;
	}
	if (sig->nsigs != 1) {
		snprintf(sig->detail, sizeof(sig->detail), "%u signatures",
		    sig->nsigs);
		return 0;
	}
	s = res->signatures;
	code = gpg_err_code(s->status);
	snprintf(sig->fpr, sizeof(sig->fpr), "%s", s->fpr ? s->fpr : "");
	sig->when = (time_t)s->timestamp;
	for (i = 0; i < sizeof(pgp_sigmap) / sizeof(pgp_sigmap[0]); i++)
		if (pgp_sigmap[i].code == code)
			break;
	if (i == sizeof(pgp_sigmap) / sizeof(pgp_sigmap[0]))
		snprintf(sig->detail, sizeof(sig->detail), "GnuPG: %s",
		    gpgme_strerror(s->status));
	else {
		sig->status = pgp_sigmap[i].status;
		sig->key_expired = code == GPG_ERR_KEY_EXPIRED;
		sig->key_revoked = code == GPG_ERR_CERT_REVOKED;
		snprintf(sig->detail, sizeof(sig->detail), "%s",
		    pgp_sigmap[i].detail);
	}
	if (sig->status == PGP_SIG_GOOD && s->wrong_key_usage) {
		sig->status = PGP_SIG_ERROR;
		sig->key_expired = sig->key_revoked = 0;
		snprintf(sig->detail, sizeof(sig->detail),
		    "made with a key not meant for signing");
	}
	return 0;
}

int
pgp_verify(struct pgp *p, const char *doc, size_t len, struct pgp_sig *sig,
    struct sbuf *plaintext, struct pa_err *err)
{
	gpgme_data_t in = NULL, out = NULL;
	gpgme_error_t e;
	char *mem = NULL;
	size_t n = 0;
	int rc = 0;

	memset(sig, 0, sizeof(*sig));
	sig->status = PGP_SIG_ERROR;
	sbuf_reset(plaintext);
	if ((rc = pgp_home_check(p, err)) != 0)
		return rc;
	if (len > PGP_DOC_MAX) {
		pa_err_set(err, "signed document of %zu bytes is over the limit "
		    "of %u", len, PGP_DOC_MAX);
		return PA_ETOOBIG;
	}
	/* One clearsigned document, nothing in front that gpg would skip. */
	if (textline_word(doc, len, 0, SIG_BEGIN) == NULL) {
		snprintf(sig->detail, sizeof(sig->detail),
		    "not a clearsigned document");
		return 0;
	}
	if ((e = gpgme_data_new_from_mem(&in, doc, len, 0)) != 0 ||
	    (e = gpgme_data_new(&out)) != 0) {
		pa_err_set(err, "GPGME: %s", gpgme_strerror(e));
		rc = PA_ENOMEM;
		goto out;
	}
	e = gpgme_op_verify(p->ctx, in, NULL, out);
	if ((rc = sig_result(p, e, sig, err)) != 0)
		goto out;
	/*
	 * gpg ends the text with a line end; the one before the armor line
	 * is not part of the signed text (RFC 4880, 7.1), so drop it.
	 */
	mem = gpgme_data_release_and_get_mem(out, &n);
	out = NULL;
	if (n > 0 && mem[n - 1] == '\n')
		n -= n > 1 && mem[n - 2] == '\r' ? 2 : 1;
	if (mem && (rc = sbuf_add(plaintext, mem, n)) != 0)
		pa_err_set(err, "the signed text of %zu bytes does not fit: %s", n,
		    pa_strerror(rc));
out:
	if (mem)
		gpgme_free(mem);
	gpgme_data_release(in);
	gpgme_data_release(out);
	return rc;
}

int
pgp_import(struct pgp *p, const void *keys, size_t len, unsigned *nkeys,
    struct pa_err *err)
{
	gpgme_import_result_t res;
	gpgme_data_t in = NULL;
	gpgme_error_t e;

	*nkeys = 0;
	if (len > PGP_DOC_MAX) {
		pa_err_set(err, "key data of %zu bytes is over the limit of %u",
		    len, PGP_DOC_MAX);
		return PA_ETOOBIG;
	}
	if ((e = gpgme_data_new_from_mem(&in, keys, len, 0)) != 0) {
		pa_err_set(err, "GPGME: %s", gpgme_strerror(e));
		return PA_ENOMEM;
	}
	e = gpgme_op_import(p->ctx, in);
	gpgme_data_release(in);
	res = e == 0 ? gpgme_op_import_result(p->ctx) : NULL;
	if (e != 0 || res == NULL) {
		pa_err_set(err, "GnuPG could not import keys (home %s): %s",
		    p->home, gpgme_strerror(e));
		return PA_ERROR;
	}
	*nkeys = (unsigned)(res->imported + res->unchanged);
	if (*nkeys == 0) {
		pa_err_set(err, "no key imported (%d considered, %d not "
		    "imported)", res->considered, res->not_imported);
		return PA_ERROR;
	}
	return 0;
}

/* comments_fit - armor comments are few, short and free of control bytes */
static int
comments_fit(const char *const *comments, struct pa_err *err)
{
	const char *const *c;
	const char *q;
	size_t nc = 0;

	for (c = comments; c && *c; c++, nc++) {
		for (q = *c; *q; q++)
			if ((unsigned char)*q < 0x20 || *q == 0x7f)
				break;
		if (*q || q - *c > PGP_COMMENT_MAX || nc >= PGP_COMMENTS_MAX) {
			pa_err_set(err, "armor comment %zu is too long, or has "
			    "control characters", nc + 1);
			return PA_ERROR;
		}
	}
	return 0;
}

/* choose_signer - sign with the secret key `key', or GnuPG's default */
static int
choose_signer(struct pgp *p, const char *key, struct pa_err *err)
{
	gpgme_key_t k = NULL;
	gpgme_error_t e;

	gpgme_signers_clear(p->ctx);
	if (key == NULL)
		return 0;
	if ((e = gpgme_get_key(p->ctx, key, &k, 1)) != 0) {
		pa_err_set(err, "no secret key %s in GnuPG home %s%s%s", key,
		    p->home, gpg_err_code(e) == GPG_ERR_EOF ? "" : ": ",
		    gpg_err_code(e) == GPG_ERR_EOF ? "" : gpgme_strerror(e));
		return PA_ERROR;
	}
	e = gpgme_signers_add(p->ctx, k);
	gpgme_key_unref(k);
	if (e != 0) {
		pa_err_set(err, "cannot sign with key %s: %s", key,
		    gpgme_strerror(e));
		return PA_ERROR;
	}
	return 0;
}

/*
 * add_comments - GnuPG's clearsigned text into out, with the comments as
 * armor headers right after the armor line, where they are not signed
 */
static int
add_comments(struct sbuf *out, const char *mem, size_t n,
    const char *const *comments, struct pa_err *err)
{
	const char *const *c;
	const char *armor = NULL, *q;
	size_t off;
	int rc;

	for (off = 0; mem && off < n; ) {
		if ((armor = textline_word(mem, n, off, ARMOR_BEGIN)) != NULL)
			break;
		if ((q = memchr(mem + off, '\n', n - off)) == NULL)
			break;
		off = (size_t)(q - mem) + 1;
	}
	if (armor == NULL) {
		pa_err_set(err, "GnuPG's clearsigned output has no signature "
		    "armor");
		return PA_ERROR;
	}
	sbuf_add(out, mem, (size_t)(armor - mem));
	for (c = comments; c && *c; c++)
		sbuf_addf(out, "Comment: %s%s", *c,
		    armor - mem >= 2 && armor[-2] == '\r' ? "\r\n" : "\n");
	sbuf_add(out, armor, n - (size_t)(armor - mem));
	if ((rc = sbuf_failed(out)) != 0)
		pa_err_set(err, "the signed document does not fit: %s",
		    pa_strerror(rc));
	return rc;
}

int
pgp_clearsign(struct pgp *p, const char *key, const char *text, size_t len,
    const char *const *comments, struct sbuf *out, struct pa_err *err)
{
	gpgme_data_t in = NULL, sigd = NULL;
	gpgme_sign_result_t res;
	gpgme_error_t e;
	char *mem = NULL;
	size_t n = 0;
	int rc = PA_ERROR;

	sbuf_reset(out);
	if (len > PGP_DOC_MAX) {
		pa_err_set(err, "text to sign of %zu bytes is over the limit of %u",
		    len, PGP_DOC_MAX);
		return PA_ETOOBIG;
	}
	if (comments_fit(comments, err) != 0 ||
	    choose_signer(p, key, err) != 0)
		goto out;
	if ((e = gpgme_data_new_from_mem(&in, text, len, 0)) != 0 ||
	    (e = gpgme_data_new(&sigd)) != 0) {
		pa_err_set(err, "GPGME: %s", gpgme_strerror(e));
		goto out;
	}
	e = gpgme_op_sign(p->ctx, in, sigd, GPGME_SIG_MODE_CLEAR);
	res = gpgme_op_sign_result(p->ctx);
	if (e == 0 && (res == NULL || res->signatures == NULL ||
	    res->invalid_signers))
		e = res && res->invalid_signers ? res->invalid_signers->reason :
		    gpg_error(GPG_ERR_GENERAL);
	if (e != 0) {
		if (in_codes(gpg_err_code(e), pgp_pass_errors,
		    sizeof(pgp_pass_errors) / sizeof(pgp_pass_errors[0])))
			pa_err_set(err, "the signing key %s needs a passphrase; "
			    "only keys without one can be used", key ? key :
			    "(default)");
		else
			pa_err_set(err, "GnuPG could not sign (home %s, key "
			    "%s): %s", p->home, key ? key : "(default)",
			    gpgme_strerror(e));
		goto out;
	}
	mem = gpgme_data_release_and_get_mem(sigd, &n);
	sigd = NULL;
	rc = add_comments(out, mem, n, comments, err);
out:
	if (mem)
		gpgme_free(mem);
	gpgme_data_release(in);
	gpgme_data_release(sigd);
	gpgme_signers_clear(p->ctx);
	return rc;
}

