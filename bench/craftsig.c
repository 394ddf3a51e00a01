/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * craftsig.c - hostile patatt OpenPGP signatures (see craftsig.h).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bzlib.h>
#include <openssl/evp.h>
#include <zlib.h>

#include "benchutil.h"
#include "craftsig.h"
#include "patattsign.h"

#define ZEROS_CHUNK	((size_t)1 << 20)
#define BOMB_OUT_MAX	((size_t)1 << 20)
#define FITS		4000	/* compressed bytes under the reader's cap */

static void	 field(const struct sbuf *, size_t *, size_t *, size_t *);
static void	 bomb_bzip2(struct sbuf *);
static void	 bomb_zlib(struct sbuf *, int);
static void	 old_signature(const struct sbuf *, size_t, size_t,
		    struct sbuf *);

/*
 * field - where the X-Developer-Signature field starts, where its last
 * b= value starts, and where the field ends (after its last LF)
 */
static void
field(const struct sbuf *m, size_t *start, size_t *b, size_t *end)
{
	const char *p = strstr(m->buf, "\nX-Developer-Signature:"), *q;

	if (p == NULL)
		bench_die("crafting", "no X-Developer-Signature");
	*start = (size_t)(p - m->buf) + 1;
	for (q = p + 1; (q = strchr(q, '\n')) != NULL && (q[1] == ' ' ||
	    q[1] == '\t'); q++)
		;
	*end = q ? (size_t)(q - m->buf) + 1 : m->len;
	for (q = m->buf + *start; (q = strstr(q, "b=")) != NULL &&
	    (size_t)(q - m->buf) < *end; q += 2)
		*b = (size_t)(q - m->buf) + 2;
}

/* bomb_bzip2 - an old-format compressed packet of 1 GiB of zeros */
static void
bomb_bzip2(struct sbuf *out)
{
	static char zeros[ZEROS_CHUNK], buf[BOMB_OUT_MAX];
	bz_stream z;
	size_t k;
	int rc;

	memset(&z, 0, sizeof(z));
	if (BZ2_bzCompressInit(&z, 9, 0, 0) != BZ_OK)
		bench_die("bzip2", strerror(ENOMEM));
	z.next_out = buf;
	z.avail_out = sizeof(buf);
	for (k = 0; k < 1024; k++) {
		z.next_in = zeros;
		z.avail_in = sizeof(zeros);
		while (z.avail_in > 0)
			if (BZ2_bzCompress(&z, BZ_RUN) != BZ_RUN_OK)
				bench_die("bzip2", "cannot compress");
	}
	while ((rc = BZ2_bzCompress(&z, BZ_FINISH)) == BZ_FINISH_OK)
		;
	if (rc != BZ_STREAM_END)
		bench_die("bzip2", "cannot compress");
	sbuf_add(out, "\xa3\x03", 2);
	sbuf_add(out, buf, sizeof(buf) - z.avail_out);
	BZ2_bzCompressEnd(&z);
}

/* bomb_zlib - 3 MiB of zeros deflated (raw, or in a ZLIB stream) */
static void
bomb_zlib(struct sbuf *out, int raw)
{
	static unsigned char zeros[ZEROS_CHUNK], buf[2 * FITS];
	z_stream z;

	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, 9, Z_DEFLATED, raw ? -15 : 15, 9,
	    Z_DEFAULT_STRATEGY) != Z_OK)
		bench_die("zlib", strerror(ENOMEM));
	z.next_out = buf;
	z.avail_out = sizeof(buf);
	while (z.total_in < 3 * ZEROS_CHUNK) {
		z.next_in = zeros;
		z.avail_in = sizeof(zeros);
		if (deflate(&z, Z_NO_FLUSH) != Z_OK)
			bench_die("zlib", "cannot compress");
	}
	if (deflate(&z, Z_FINISH) != Z_STREAM_END ||
	    sizeof(buf) - z.avail_out > FITS)
		bench_die("zlib", "cannot compress into the room");
	sbuf_add(out, raw ? "\xa3\x01" : "\xa3\x02", 2);
	sbuf_add(out, buf, sizeof(buf) - z.avail_out);
	deflateEnd(&z);
}

/* old_signature - the b= value [b, end) of m decoded into out */
static void
old_signature(const struct sbuf *m, size_t b, size_t end, struct sbuf *out)
{
	struct sbuf flat;
	unsigned char *raw;
	int n;

	sbuf_init(&flat, SBUF_NOMAX);
	for (; b < end; b++)
		if (m->buf[b] != ' ' && m->buf[b] != '\t' && m->buf[b] != '\n')
			sbuf_addch(&flat, m->buf[b]);
	if ((raw = malloc(flat.len)) == NULL)
		bench_die("crafting", strerror(ENOMEM));
	if ((n = EVP_DecodeBlock(raw, (unsigned char *)flat.buf,
	    (int)flat.len)) < 0)
		bench_die("crafting", "b= is not Base64");
	n -= flat.len > 0 && flat.buf[flat.len - 1] == '=';
	n -= flat.len > 1 && flat.buf[flat.len - 2] == '=';
	sbuf_add(out, raw, (size_t)n);
	free(raw);
	sbuf_release(&flat);
}

void
craftsig_mail(const struct sbuf *mail, enum craft kind, struct sbuf *out)
{
	struct sbuf sig, b64;
	size_t start, b = 0, end, i;
	unsigned seed = 19;

	field(mail, &start, &b, &end);
	sbuf_init(&sig, SBUF_NOMAX);
	sbuf_init(&b64, SBUF_NOMAX);
	switch (kind) {
	case CRAFT_BZIP2:
		bomb_bzip2(&sig);
		break;
	case CRAFT_ZIP:
	case CRAFT_ZLIB:
		bomb_zlib(&sig, kind == CRAFT_ZIP);
		break;
	case CRAFT_TAG60:
		sbuf_add(&sig, "\xfc\x01\x00", 3);
		old_signature(mail, b, end, &sig);
		break;
	case CRAFT_RANDOM:
		for (i = 0; i < 600; i++) {
			seed = seed * 1103515245 + 12345;
			sbuf_addch(&sig, (int)(seed >> 16) & 0xff);
		}
		break;
	}
	patattsign_b64(&b64, (unsigned char *)sig.buf, sig.len);
	sbuf_reset(out);
	sbuf_add(out, mail->buf, b);
	for (i = 0; i < b64.len; i += 72) {
		if (i > 0)
			sbuf_addstr(out, "\n ");
		sbuf_add(out, b64.buf + i, b64.len - i < 72 ? b64.len - i : 72);
	}
	sbuf_addch(out, '\n');
	sbuf_add(out, mail->buf + end, mail->len - end);
	if (sbuf_failed(out) || sbuf_failed(&sig) || sbuf_failed(&b64))
		bench_die("crafting", strerror(ENOMEM));
	sbuf_release(&sig);
	sbuf_release(&b64);
}

void
craftsig_repeat(const struct sbuf *mail, int n, struct sbuf *out)
{
	size_t start, b = 0, end;

	field(mail, &start, &b, &end);
	sbuf_reset(out);
	sbuf_add(out, mail->buf, start);
	while (n-- > 0)
		sbuf_add(out, mail->buf + start, end - start);
	sbuf_add(out, mail->buf + end, mail->len - end);
	if (sbuf_failed(out))
		bench_die("crafting", strerror(ENOMEM));
}
