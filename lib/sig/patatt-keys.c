/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * patatt-keys.c - where patatt keeps a key, and what its files hold
 * (patatt.md 4).
 *
 * A key for algorithm A, identity local@domain and selector S is the file
 * A/<domain>/<local>/<S> (parts lower-cased and URL-quoted as Python's
 * quote_plus does), else by-hash/XX/<rest of the hex SHA-256 of that
 * path> (patatt-keyring.c finds and reads them).  Unlike patatt, a part
 * that is empty, "." or ".." names no file: quote_plus leaves dots alone,
 * and "..@.." would leave the keyring.
 * Identities are lower-cased in ASCII only (Python lowers all of Unicode).
 *
 * Files: ed25519, the Base64 of the 32-byte key; openssh, one
 * authorized_keys line whose first two fields are used; openpgp, a key
 * export (armored or binary), which librnp reads (openpgp.c).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "patchattest.h"
#include "base.h"
#include "patatt-int.h"

static int	 quote_part(char *, size_t, size_t *, const char *, size_t);

/*
 * quote_part - lower-case quote_plus() of s[0..len) appended at out[*n];
 * -2 for a part that is empty, "." or "..", -1 when out is too small.
 */
static int
quote_part(char *out, size_t size, size_t *n, const char *s, size_t len)
{
	unsigned char c;
	size_t i;

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
			/* "%XY", its NUL within the room checked above */
			out[(*n)++] = '%';
			codec_hex(out + *n, &c, 1, 1);
			*n += 2;
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
patatt_identity_canon(char *out, size_t size, const char *identity)
{
	size_t i, len = strlen(identity);

	if (len >= size || strchr(identity, '@') == NULL)
		return PA_ENOTFOUND;
	for (i = 0; i < len; i++)
		if ((unsigned char)identity[i] <= ' ' ||
		    (unsigned char)identity[i] >= 0x7f)
			return PA_ENOTFOUND;
	ascii_lower_copy(out, identity, len);
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
