/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * attdoc - attestation documents of format 0.1: finding them in mail,
 * reading the signed YAML, and making new ones.
 *
 * A document is a clearsigned text whose signature armor carries the
 * comments "att-fmt-ver: 0.1" and "att-hash: sha256", and whose signed
 * text is a YAML mapping of attestation IDs to {i, m, p}:
 *
 *     2a02abe0-215cf3f1-2acb5798:
 *       i: 2a02abe0...
 *       m: 215cf3f1...
 *       p: 2acb5798...
 *
 * attdoc_parse() reads only the signed text (as GnuPG returned it), with
 * libyaml, strictly: a label must equal the prefixes of its hashes, hex is
 * lower case, keys are exactly i, m, p; no aliases, anchors or tags; the
 * text, the number of blocks and every scalar are capped, so a hostile
 * document costs bounded time and memory.
 *
 * struct attdoc is caller storage: attdoc_init(), attdoc_parse() any
 * number of times, attdoc_release().
 */
#ifndef PA_ATTDOC_H
#define PA_ATTDOC_H

#include <stddef.h>

#include "patchattest.h"
#include "base.h"

#define ATTDOC_MAX_BYTES	(16u << 20)	/* signed text */
#define ATTDOC_MAX_BLOCKS	100000
#define ATTDOC_FMT_VERSION	"0.1"
#define ATTDOC_SHOW_MAX		40	/* input quoted in errors, at most */

struct att_triple {
	unsigned char	i[32];
	unsigned char	m[32];
	unsigned char	p[32];
};

struct attdoc {
	struct att_triple	*t;
	size_t			 n;
	size_t			 alloc;
};

void	attdoc_init(struct attdoc *);
void	attdoc_release(struct attdoc *);

/*
 * attdoc_next_span - the next clearsigned block in text at or after *pos:
 * "-----BEGIN PGP SIGNED MESSAGE-----" to "-----END PGP SIGNATURE-----"
 * and its line end, both markers at a line start (trailing blanks and CR
 * allowed).  A BEGIN line seen again before an END means the first block
 * was cut short; the span starts at the later one.  Returns 1 with the
 * block at [*start, *start + *len) and *pos after it, 0 when there is
 * none (*pos is then textlen).
 */
int	attdoc_next_span(const char *text, size_t textlen, size_t *pos,
	    size_t *start, size_t *len);

/*
 * attdoc_check_armor - the block's armor says format 0.1 with sha256.
 * Only the armor headers of the signature count (from its BEGIN line to
 * the blank line); names compare in any case, values exactly.  Returns
 * 0, PA_ENOTFOUND when it has no att-fmt-ver comment (not an attestation
 * document at all), PA_EBADDOC for another version or hash, a missing
 * att-hash or a repeated comment (err says which).
 */
int	attdoc_check_armor(const char *block, size_t len, struct pa_err *);

/*
 * attdoc_parse - the triples of a signed text, in document order, each
 * once (a document is a set; one label with two different triples is
 * refused).  Returns 0 with d->n >= 1, PA_EBADDOC with err saying why
 * (naming the line where it can; d->n is then 0), or PA_ENOMEM.
 */
int	attdoc_parse(struct attdoc *, const char *text, size_t len,
	    struct pa_err *);

/*
 * attdoc_payload - the YAML text for n entries, as the original tool:
 * four lines per entry, joined by LF, no LF at the end.  Appends to out;
 * returns 0, PA_ENOTFOUND when n is 0, or out's failure.
 */
int	attdoc_payload(struct sbuf *out, const struct msghash_entry *e,
	    size_t n);

/*
 * attdoc_subject - the subject of the mail that carries a document:
 * "[PSIGN v4 X/6] ..." from a cover letter's subject, else "Patch
 * attestation" (cover NULL, or a subject without an n/N counter whose n
 * is 0).  Appends to out; returns out's failure.
 */
int	attdoc_subject(struct sbuf *out, const char *cover_subject);
/*
 * attdoc_is_cover - subject (NUL-terminated, as it is in the mail) is a
 * cover letter's: the last n/N counter of its leading bracketed prefixes
 * has n 0 (a reply's "Re: [PATCH 0/3]" is not)
 */
int	attdoc_is_cover(const char *subject);

/*
 * attdoc_mail - the message that carries a clearsigned document, with the
 * headers the original tool wrote (From, To, Subject, Message-Id).  from
 * NULL is <devnull@kernel.org>, a bare address gets angle brackets;
 * subject NULL is "Patch attestation" (folded, or RFC 2047-encoded when
 * not ASCII); msgid NULL leaves Message-Id out.  Control characters in
 * the fields become spaces.  Appends to out; returns out's failure.
 */
int	attdoc_mail(struct sbuf *out, const char *from, const char *subject,
	    const char *msgid, const char *clearsigned, size_t len);

#endif
