/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * openpgp-msg.c - a bounded reader of the packets of an OpenPGP signed
 * message (RFC 4880 4.2, 5.6, 11.3), see openpgp-msg.h.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <bzlib.h>
#include <zlib.h>

#include "openpgp-msg.h"

enum {
	TAG_SIG = 2,		/* signature */
	TAG_ONEPASS = 4,	/* one-pass signature */
	TAG_COMPRESSED = 8,
	TAG_LITERAL = 11
};

enum {
	ZIP_NONE, ZIP_DEFLATE, ZIP_ZLIB, ZIP_BZIP2
};

/* The one accepted order of the packets, once uncompressed. */
static const int shape[] = { TAG_ONEPASS, TAG_LITERAL, TAG_SIG };
#define NSHAPE	(sizeof(shape) / sizeof(shape[0]))

/* A reader over [p, end); body points into the input or into join. */
struct pgp_reader {
	const unsigned char	*p, *end;
	int			 tag;
	const unsigned char	*body;
	size_t			 len;
	unsigned char		 join[OPENPGP_MSG_MAX];
};

static int	 next_packet(struct pgp_reader *, char *);
static int	 new_length(struct pgp_reader *, size_t *, int *);
static int	 stream_end(int, size_t, size_t, char *);
static int	 inflate_zlib(const unsigned char *, size_t, int,
		    unsigned char *, size_t *, char *);
static int	 inflate_bzip2(const unsigned char *, size_t,
		    unsigned char *, size_t *, char *);
static int	 unpack(const unsigned char *, size_t, unsigned char *,
		    size_t *, char *);
static int	 check_shape(const unsigned char *, size_t, char *);

/*
 * new_length - a new-format body length at r->p; partial says that more
 * parts follow (RFC 4880 4.2.2).  -1 when the length is cut short.
 */
static int
new_length(struct pgp_reader *r, size_t *n, int *partial)
{
	const unsigned char *p = r->p;
	size_t avail = (size_t)(r->end - p);

	*partial = 0;
	if (avail < 1)
		return -1;
	if (p[0] < 192) {
		*n = p[0];
		r->p += 1;
	} else if (p[0] < 224) {
		if (avail < 2)
			return -1;
		*n = ((size_t)(p[0] - 192) << 8) + p[1] + 192;
		r->p += 2;
	} else if (p[0] == 255) {
		if (avail < 5)
			return -1;
		*n = (size_t)p[1] << 24 | (size_t)p[2] << 16 |
		    (size_t)p[3] << 8 | p[4];
		r->p += 5;
	} else {
		*n = (size_t)1 << (p[0] & 0x1f);
		*partial = 1;
		r->p += 1;
	}
	return 0;
}

/*
 * next_packet - the packet at r->p into r->tag, r->body and r->len, its
 * parts joined when it comes in partial lengths.  0, 1 at the end of the
 * input, -1 (why set) when it is malformed.
 */
static int
next_packet(struct pgp_reader *r, char *why)
{
	size_t n, joined = 0, i;
	int partial, first = 1;
	unsigned c;

	if (r->p == r->end)
		return 1;
	c = *r->p++;
	if (!(c & 0x80)) {
		snprintf(why, OPENPGP_WHY_MAX, "not a binary OpenPGP packet");
		return -1;
	}
	if (!(c & 0x40)) {	/* old format: tag and length type */
		r->tag = (int)(c >> 2) & 0x0f;
		n = (size_t)(r->end - r->p);
		if ((c & 3) != 3) {
			i = (size_t)1 << (c & 3);
			if (n < i)
				goto cut;
			for (n = 0; i > 0; i--)
				n = n << 8 | *r->p++;
		}
		if ((size_t)(r->end - r->p) < n)
			goto cut;
		r->body = r->p;
		r->len = n;
		r->p += n;
		return 0;
	}
	r->tag = (int)(c & 0x3f);
	do {
		if (new_length(r, &n, &partial) != 0 ||
		    (size_t)(r->end - r->p) < n)
			goto cut;
		if (partial && r->tag != TAG_COMPRESSED &&
		    r->tag != TAG_LITERAL) {
			snprintf(why, OPENPGP_WHY_MAX, "a partial length in "
			    "packet %d", r->tag);
			return -1;
		}
		if (first && !partial) {
			r->body = r->p;
			r->len = n;
			r->p += n;
			return 0;
		}
		/* the input is at most as long as join */
		memcpy(r->join + joined, r->p, n);
		joined += n;
		r->p += n;
		first = 0;
	} while (partial);
	r->body = r->join;
	r->len = joined;
	return 0;
cut:
	snprintf(why, OPENPGP_WHY_MAX, "packet %d is cut short", r->tag);
	return -1;
}

/*
 * stream_end - 0 when the compressed stream ended with the input, else
 * PA_EBADDOC and why not: data after it, output past the cap (no room
 * left), or damage
 */
static int
stream_end(int ended, size_t in_left, size_t out_left, char *why)
{
	if (ended && in_left == 0)
		return 0;
	if (ended)
		snprintf(why, OPENPGP_WHY_MAX, "data after the compressed "
		    "stream");
	else if (out_left == 0)
		snprintf(why, OPENPGP_WHY_MAX, "over %d bytes uncompressed",
		    OPENPGP_MSG_MAX);
	else
		snprintf(why, OPENPGP_WHY_MAX, "the compressed data is "
		    "damaged or cut short");
	return PA_EBADDOC;
}

/* inflate_zlib - RFC 1951 (raw) or 1950 data into out, at most *outlen */
static int
inflate_zlib(const unsigned char *in, size_t len, int raw,
    unsigned char *out, size_t *outlen, char *why)
{
	z_stream z;
	int rc;

	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, raw ? -15 : 15) != Z_OK)
		return PA_ENOMEM;
	z.next_in = (unsigned char *)(uintptr_t)in;
	z.avail_in = (uInt)len;
	z.next_out = out;
	z.avail_out = (uInt)*outlen;
	rc = inflate(&z, Z_FINISH);
	*outlen -= z.avail_out;
	inflateEnd(&z);
	if (rc == Z_MEM_ERROR)
		return PA_ENOMEM;
	return stream_end(rc == Z_STREAM_END, z.avail_in, z.avail_out, why);
}

/* inflate_bzip2 - BZip2 data into out, at most *outlen */
static int
inflate_bzip2(const unsigned char *in, size_t len, unsigned char *out,
    size_t *outlen, char *why)
{
	bz_stream z;
	int rc;

	memset(&z, 0, sizeof(z));
	if (BZ2_bzDecompressInit(&z, 0, 0) != BZ_OK)
		return PA_ENOMEM;
	z.next_in = (char *)(uintptr_t)in;
	z.avail_in = (unsigned)len;
	z.next_out = (char *)out;
	z.avail_out = (unsigned)*outlen;
	/* it returns as soon as out is full or the input is used up */
	while ((rc = BZ2_bzDecompress(&z)) == BZ_OK && z.avail_out > 0 &&
	    z.avail_in > 0)
		;
	*outlen -= z.avail_out;
	BZ2_bzDecompressEnd(&z);
	if (rc == BZ_MEM_ERROR)
		return PA_ENOMEM;
	return stream_end(rc == BZ_STREAM_END, z.avail_in,
	    rc == BZ_OK ? z.avail_out : 1, why);
}

/*
 * unpack - the body of a compressed packet (algorithm, data) into
 * out; one byte of room more than OPENPGP_MSG_MAX tells a message at the
 * cap from a longer one
 */
static int
unpack(const unsigned char *body, size_t len, unsigned char *out,
    size_t *outlen, char *why)
{
	*outlen = OPENPGP_MSG_MAX + 1;
	if (len < 1) {
		snprintf(why, OPENPGP_WHY_MAX, "an empty compressed packet");
		return PA_EBADDOC;
	}
	switch (body[0]) {
	case ZIP_NONE:		/* len is at most OPENPGP_MSG_MAX */
		memcpy(out, body + 1, len - 1);
		*outlen = len - 1;
		return 0;
	case ZIP_DEFLATE:
	case ZIP_ZLIB:
		return inflate_zlib(body + 1, len - 1, body[0] == ZIP_DEFLATE,
		    out, outlen, why);
	case ZIP_BZIP2:
		return inflate_bzip2(body + 1, len - 1, out, outlen, why);
	default:
		snprintf(why, OPENPGP_WHY_MAX, "compression algorithm %u",
		    body[0]);
		return PA_EBADDOC;
	}
}

/* check_shape - the packets are a one-pass signed literal, nothing more */
static int
check_shape(const unsigned char *p, size_t len, char *why)
{
	struct pgp_reader r;
	size_t k;
	int rc;

	r.p = p;
	r.end = p + len;
	for (k = 0; (rc = next_packet(&r, why)) == 0; k++)
		if (k == NSHAPE || r.tag != shape[k]) {
			snprintf(why, OPENPGP_WHY_MAX, "%s packet %d",
			    r.tag == TAG_COMPRESSED ? "a nested compressed" :
			    "an unexpected", r.tag);
			return PA_EBADDOC;
		}
	if (rc < 0)
		return PA_EBADDOC;
	if (k < NSHAPE) {
		snprintf(why, OPENPGP_WHY_MAX, "no %s packet",
		    k == 0 ? "one-pass signature" : k == 1 ? "literal data" :
		    "signature");
		return PA_EBADDOC;
	}
	return 0;
}

int
openpgp_msg_flat(const void *msg, size_t len,
    unsigned char out[OPENPGP_MSG_MAX], size_t *outlen,
    char why[OPENPGP_WHY_MAX])
{
	unsigned char wide[OPENPGP_MSG_MAX + 1];
	struct pgp_reader r;
	int rc;

	*outlen = 0;
	why[0] = '\0';
	if (len > OPENPGP_MSG_MAX) {
		snprintf(why, OPENPGP_WHY_MAX, "over %d bytes",
		    OPENPGP_MSG_MAX);
		return PA_EBADDOC;
	}
	r.p = msg;
	r.end = r.p + len;
	if ((rc = next_packet(&r, why)) != 0) {
		if (rc > 0)
			snprintf(why, OPENPGP_WHY_MAX, "empty");
		return PA_EBADDOC;
	}
	if (r.tag != TAG_COMPRESSED) {
		memcpy(out, msg, len);
		*outlen = len;
	} else {
		if (r.p != r.end) {
			snprintf(why, OPENPGP_WHY_MAX, "packets after the "
			    "compressed one");
			return PA_EBADDOC;
		}
		if ((rc = unpack(r.body, r.len, wide, outlen, why)) != 0)
			return rc;
		if (*outlen > OPENPGP_MSG_MAX) {
			snprintf(why, OPENPGP_WHY_MAX, "over %d bytes "
			    "uncompressed", OPENPGP_MSG_MAX);
			return PA_EBADDOC;
		}
		memcpy(out, wide, *outlen);
	}
	return check_shape(out, *outlen, why);
}
