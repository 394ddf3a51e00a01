/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * craftsig - hostile patatt OpenPGP signatures for bench-patatt: a mail
 * signed by patattsign with its b= replaced by a compression bomb, an
 * unknown packet in front of the real signature or random bytes, or its
 * signature field repeated.  Everything before b= is kept, so only the
 * signature is wrong.  Each function dies on a failure (bench_die).
 */
#ifndef PA_CRAFTSIG_H
#define PA_CRAFTSIG_H

#include <stddef.h>

#include "base.h"

enum craft {
	CRAFT_BZIP2,		/* BZip2 of 1 GiB of zeros */
	CRAFT_ZIP,		/* raw deflate of 3 MiB of zeros */
	CRAFT_ZLIB,		/* the same in a ZLIB stream */
	CRAFT_TAG60,		/* packet tag 60, then the real message */
	CRAFT_RANDOM		/* 600 random bytes */
};

/* craftsig_mail - mail (signed by patattsign) with b= made as kind says */
void	craftsig_mail(const struct sbuf *mail, enum craft kind,
	    struct sbuf *out);
/* craftsig_repeat - mail with its signature field n times */
void	craftsig_repeat(const struct sbuf *mail, int n, struct sbuf *out);

#endif
