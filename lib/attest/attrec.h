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

/* attrec_encode - the record of document d and its n triples, onto sb */
int	attrec_encode(struct sbuf *sb, const struct att_docinfo *d,
	    const struct att_triple *t, size_t n);

/*
 * attrec_decode - a record into d (when not NULL, docid untouched) and its
 * triples into *t, *n (when t not NULL).  Returns 0 or -1 when damaged.
 */
int	attrec_decode(const unsigned char *p, size_t len,
	    struct att_docinfo *d, const unsigned char **t, size_t *n);

#endif
