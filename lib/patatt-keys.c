/*
 * patatt-keys.c - patatt keyring directories and key files (patatt.md 4).
 *
 * A key for algorithm A, identity local@domain and selector S is the file
 * A/<domain>/<local>/<S> (parts lower-cased and URL-quoted as Python's
 * quote_plus does), else by-hash/XX/<rest of the hex SHA-256 of that
 * path> (patatt-keycache.c reads them).  Unlike patatt, a part that is empty, "." or ".." names no file:
 * quote_plus leaves dots alone, and "..@.." would leave the keyring.
 * Identities are lower-cased in ASCII only (Python lowers all of Unicode).
 *
 * Files: ed25519, the Base64 of the 32-byte key; openssh, one
 * authorized_keys line whose first two fields are used; openpgp, a key
 * export (armored or binary), of which only the fingerprints are read
 * here: GnuPG checks the signature with the keys of its own home.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <openssl/evp.h>

#include "patchattest.h"
#include "codec.h"
#include "digest.h"
#include "patatt-int.h"
#include "sbuf.h"

#define ARMOR_KEY	"-----BEGIN PGP PUBLIC KEY BLOCK-----"
#define PKT_PUBKEY	6
#define PKT_PUBSUBKEY	14

static int	 quote_part(char *, size_t, size_t *, const char *, size_t);
static int	 add_fpr(struct sbuf *, const unsigned char *, size_t);
static int	 packets(const unsigned char *, size_t, struct sbuf *);
static int	 blank(const char *, size_t);
static int	 dearmor(const char *, size_t, struct sbuf *);

/*
 * quote_part - lower-case quote_plus() of s[0..len) appended at out[*n];
 * -2 for a part that is empty, "." or "..", -1 when out is too small.
 */
static int
quote_part(char *out, size_t size, size_t *n, const char *s, size_t len)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t i;
	int c;

	if (len == 0 || (len == 1 && s[0] == '.') ||
	    (len == 2 && s[0] == '.' && s[1] == '.'))
		return -2;
	for (i = 0; i < len; i++) {
		c = (unsigned char)s[i];
		if (c >= 'A' && c <= 'Z')
			c += 32;
		if (*n + 4 > size)
			return -1;
		if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		    c == '_' || c == '.' || c == '-' || c == '~')
			out[(*n)++] = (char)c;
		else if (c == ' ')
			out[(*n)++] = '+';
		else {
			out[(*n)++] = '%';
			out[(*n)++] = hex[c >> 4];
			out[(*n)++] = hex[c & 15];
		}
	}
	return 0;
}

int
patatt_key_path(char *out, size_t size, const char *algo,
    const char *identity, const char *selector)
{
	const char *at = strchr(identity, '@');
	size_t n = 0;
	int rc;

	if (at == NULL)
		return -1;
	if ((rc = quote_part(out, size, &n, algo, strlen(algo))) != 0)
		return rc;
	out[n++] = '/';
	/* domain: everything after the first "@" */
	if ((rc = quote_part(out, size, &n, at + 1, strlen(at + 1))) != 0)
		return rc;
	out[n++] = '/';
	if ((rc = quote_part(out, size, &n, identity,
	    (size_t)(at - identity))) != 0)
		return rc;
	out[n++] = '/';
	if ((rc = quote_part(out, size, &n, selector, strlen(selector))) != 0)
		return rc;
	out[n] = '\0';
	return 0;
}

int
patatt_key_byhash(char *out, size_t size, const char *path)
{
	unsigned char h[DIGEST_LEN];
	char hex[DIGEST_HEXLEN + 1];
	int rc;

	if ((rc = digest_sha256(h, path, strlen(path))) != 0)
		return rc;
	digest_hex(hex, h);
	if ((size_t)snprintf(out, size, "by-hash/%.2s/%s", hex, hex + 2) >=
	    size)
		return PA_ETOOBIG;
	return 0;
}

int
patatt_key_ed25519(const char *s, size_t len, unsigned char pub[32])
{
	struct sbuf flat, raw;
	size_t i;
	int ok;

	sbuf_init(&flat, len);
	sbuf_init(&raw, len);
	for (i = 0; i < len; i++)
		if (s[i] != ' ' && (s[i] < '\t' || s[i] > '\r'))
			sbuf_addch(&flat, s[i]);
	ok = sbuf_failed(&flat) == 0 &&
	    codec_b64_strict(&raw, flat.buf, flat.len) == 0 && raw.len == 32;
	if (ok)
		memcpy(pub, raw.buf, 32);
	sbuf_release(&flat);
	sbuf_release(&raw);
	return ok ? 0 : -1;
}

int
patatt_key_openssh(const char *s, size_t len, struct sbuf *blob)
{
	const char *end = s + len, *type, *key;
	size_t tlen, klen;

	sbuf_reset(blob);
	/* The first two whitespace-separated fields, as str.split() */
	while (s < end && (*s == ' ' || (*s >= '\t' && *s <= '\r')))
		s++;
	for (type = s; s < end && *s != ' ' && (*s < '\t' || *s > '\r'); s++)
		;
	tlen = (size_t)(s - type);
	while (s < end && (*s == ' ' || (*s >= '\t' && *s <= '\r')))
		s++;
	for (key = s; s < end && *s != ' ' && (*s < '\t' || *s > '\r'); s++)
		;
	klen = (size_t)(s - key);
	if (tlen == 0 || klen == 0 || codec_b64_strict(blob, key, klen) != 0)
		return -1;
	/* The blob starts with string(type), as ssh-keygen requires. */
	if (blob->len < 4 + tlen || blob->buf[0] || blob->buf[1] ||
	    (unsigned char)blob->buf[2] != (tlen >> 8 & 255) ||
	    (unsigned char)blob->buf[3] != (tlen & 255) ||
	    memcmp(blob->buf + 4, type, tlen) != 0)
		return -1;
	return 0;
}

/* add_fpr - the fingerprint of one public key packet body */
static int
add_fpr(struct sbuf *fprs, const unsigned char *body, size_t len)
{
	unsigned char pre[5], h[EVP_MAX_MD_SIZE];
	char hex[2 * EVP_MAX_MD_SIZE + 1];
	unsigned hlen = 0, i;
	EVP_MD_CTX *ctx;
	size_t plen;
	const EVP_MD *md;
	int ok;

	if (len < 1)
		return 0;
	if (body[0] == 4 && len <= 0xffff) {
		/* RFC 4880 12.2: SHA-1 of 0x99, two-octet length, body */
		md = EVP_sha1();
		pre[0] = 0x99;
		pre[1] = (unsigned char)(len >> 8);
		pre[2] = (unsigned char)len;
		plen = 3;
	} else if (body[0] == 5 || body[0] == 6) {
		/* v5 draft and RFC 9580: SHA-256 of 0x9a / 0x9b, 4-octet */
		md = EVP_sha256();
		pre[0] = body[0] == 5 ? 0x9a : 0x9b;
		pre[1] = (unsigned char)(len >> 24);
		pre[2] = (unsigned char)(len >> 16);
		pre[3] = (unsigned char)(len >> 8);
		pre[4] = (unsigned char)len;
		plen = 5;
	} else
		return 0;	/* v3 keys: GnuPG 2.2 verifies nothing with them */
	if ((ctx = EVP_MD_CTX_new()) == NULL)
		return PA_ENOMEM;
	ok = EVP_DigestInit_ex(ctx, md, NULL) == 1 &&
	    EVP_DigestUpdate(ctx, pre, plen) == 1 &&
	    EVP_DigestUpdate(ctx, body, len) == 1 &&
	    EVP_DigestFinal_ex(ctx, h, &hlen) == 1;
	EVP_MD_CTX_free(ctx);
	if (!ok)
		return PA_ENOMEM;
	for (i = 0; i < hlen; i++)
		snprintf(hex + 2 * i, 3, "%02X", h[i]);
	return sbuf_add(fprs, hex, 2 * (size_t)hlen + 1);
}

/* packets - walk OpenPGP packets, fingerprinting (sub)keys */
static int
packets(const unsigned char *p, size_t len, struct sbuf *fprs)
{
	size_t pos = 0, n, hl;
	unsigned tag, ctb;
	int rc;

	while (pos < len) {
		ctb = p[pos];
		if (!(ctb & 0x80))
			break;
		if (ctb & 0x40) {
			tag = ctb & 0x3f;
			if (pos + 1 >= len)
				break;
			if (p[pos + 1] < 192) {
				n = p[pos + 1];
				hl = 2;
			} else if (p[pos + 1] < 224 && pos + 2 < len) {
				n = ((size_t)(p[pos + 1] - 192) << 8) +
				    p[pos + 2] + 192;
				hl = 3;
			} else if (p[pos + 1] == 255 && pos + 5 < len) {
				n = (size_t)p[pos + 2] << 24 |
				    (size_t)p[pos + 3] << 16 |
				    (size_t)p[pos + 4] << 8 | p[pos + 5];
				hl = 6;
			} else
				break;	/* partial lengths: not in key data */
		} else {
			tag = ctb >> 2 & 15;
			hl = (size_t)1 << (ctb & 3);
			if ((ctb & 3) == 3) {
				hl = 1;
				n = len - pos - 1;
			} else if (pos + hl >= len)
				break;
			else
				for (n = 0, ctb = 1; ctb <= hl; ctb++)
					n = n << 8 | p[pos + ctb];
			hl++;
		}
		if (n > len - pos - hl)
			break;
		if ((tag == PKT_PUBKEY || tag == PKT_PUBSUBKEY) &&
		    (rc = add_fpr(fprs, p + pos + hl, n)) != 0)
			return rc;
		pos += hl + n;
	}
	return 0;
}

/* blank - the line s[0..n) has only blanks */
static int
blank(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t')
			return 0;
	return 1;
}

/*
 * dearmor - every public key block decoded into out: after the BEGIN
 * line, armor headers ("Key: value") up to a blank line, then Base64
 * lines up to the checksum ("=") or END line.
 */
static int
dearmor(const char *s, size_t len, struct sbuf *out)
{
	const char *end = s + len, *p, *nl, *line;
	size_t n;
	int body;

	p = memmem(s, len, ARMOR_KEY, sizeof(ARMOR_KEY) - 1);
	while (p != NULL) {
		nl = memchr(p, '\n', (size_t)(end - p));
		body = 0;
		for (line = nl ? nl + 1 : end; line < end; line = nl + 1) {
			if ((nl = memchr(line, '\n', (size_t)(end - line))) ==
			    NULL)
				nl = end;
			n = (size_t)(nl - line);
			if (n > 0 && line[n - 1] == '\r')
				n--;
			if (!body && (blank(line, n) ||
			    memchr(line, ':', n) == NULL))
				body = 1;
			else if (!body)
				continue;
			if (n > 0 && (line[0] == '=' || line[0] == '-'))
				break;
			if (codec_b64(out, line, n) != 0)
				return sbuf_failed(out);
			if (nl == end)
				break;
		}
		if (line >= end)
			break;
		p = memmem(line, (size_t)(end - line), ARMOR_KEY,
		    sizeof(ARMOR_KEY) - 1);
	}
	return sbuf_failed(out);
}

int
patatt_key_openpgp(const char *s, size_t len, struct sbuf *fprs)
{
	struct sbuf bin;
	int rc;

	sbuf_reset(fprs);
	sbuf_init(&bin, len);
	if (len > 0 && ((unsigned char)s[0] & 0x80))
		rc = packets((const unsigned char *)s, len, fprs);
	else if ((rc = dearmor(s, len, &bin)) == 0)
		rc = packets((const unsigned char *)bin.buf, bin.len, fprs);
	sbuf_release(&bin);
	if (rc != 0)
		return rc;
	return fprs->len > 0 ? 0 : -1;
}

int
patatt_fpr_in(const struct sbuf *fprs, const char *fpr)
{
	const char *p, *end = fprs->buf + fprs->len;
	size_t n = strlen(fpr), plen;

	if (n == 0)
		return 0;
	for (p = fprs->buf; p < end; p += plen + 1) {
		plen = strlen(p);
		/* a key ID is the low 64 bits of a v4 fingerprint */
		if ((plen == n || (n == 16 && plen == 40)) &&
		    strcasecmp(p + plen - n, fpr) == 0)
			return 1;
	}
	return 0;
}
