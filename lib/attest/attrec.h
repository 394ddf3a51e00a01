/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * attrec - the stored form of an index's document record (attindex.c).
 */
#ifndef PA_ATTREC_H
#define PA_ATTREC_H

#include <stddef.h>

#include "attindex.h"
#include "base.h"

#define TRIPLE_LEN	96	/* i|m|p */

/*
 * attrec_encode - the record of document d (d->docid included in its
 * checksum) and its n triples, onto sb
 */
int	attrec_encode(struct sbuf *sb, const struct att_docinfo *d,
	    const struct att_triple *t, size_t n);

/*
 * attrec_decode - the record of document docid into d (when not NULL,
 * d->docid untouched) and its triples into *t, *n (when t not NULL).
 * Returns 0, or -1 when it is damaged: malformed, or its checksum does
 * not match (also when it is stored under another document's ID).
 */
int	attrec_decode(const unsigned char *p, size_t len,
	    const unsigned char docid[32], struct att_docinfo *d,
	    const unsigned char **t, size_t *n);

/*
 * attrec_upgrade - a record of the first version (no checksum), of
 * document docid, in the current form onto sb; PA_ERROR when it is not
 * one or is malformed
 */
int	attrec_upgrade(struct sbuf *sb, const unsigned char docid[32],
	    const unsigned char *p, size_t len);

#endif
