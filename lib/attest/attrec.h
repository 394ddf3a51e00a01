/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * attrec - the stored form of an index's document record (attindex.c),
 * and the forms of earlier schemas, read only to upgrade them.
 */
#ifndef PA_ATTREC_H
#define PA_ATTREC_H

#include <stddef.h>

#include "attindex.h"
#include "base.h"

#define TRIPLE_LEN	96	/* i|m|p */

/*
 * attrec_encode - the record of document d (its docid included, and
 * covered by the checksum) and its n triples, onto sb
 */
int	attrec_encode(struct sbuf *sb, const struct att_docinfo *d,
	    const struct att_triple *t, size_t n);

/*
 * attrec_decode - a record into d (when not NULL, docid included), its
 * document's ID into *docid (pointing into p) and its triples into *t, *n
 * (when t is not NULL).  Returns 0, or -1 when it is damaged: malformed,
 * of another version, or its checksum does not match.
 */
int	attrec_decode(const unsigned char *p, size_t len,
	    struct att_docinfo *d, const unsigned char **docid,
	    const unsigned char **t, size_t *n);

/*
 * attrec_decode_old - a record of schema 1 (no checksum), 2 (a checksum
 * over docid, its key, and its bytes) or 3 (its ID inside, docid not
 * read), likewise; -1 when it is none of them or is damaged
 */
int	attrec_decode_old(const unsigned char *p, size_t len,
	    const unsigned char *docid, struct att_docinfo *d,
	    const unsigned char **t, size_t *n);

#endif
