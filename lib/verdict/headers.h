/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * headers - the header fields the milter adds, written in one place:
 * X-Patch-Attested (the verdict, for procmail, sieve and mail clients)
 * and Authentication-Results (RFC 8601), each folded before column 78
 * with LF and a tab, as libmilter wants it.
 */
#ifndef PA_HEADERS_H
#define PA_HEADERS_H

#include <stddef.h>

#include "base.h"
#include "decide.h"

#define HEADER_AR_METHOD	"x-patch-attest"	/* the 2020 scheme */
#define HEADER_AR_PATATT	"x-patatt"		/* patatt's */

/*
 * header_verdict - the X-Patch-Attested value of d, appended to out:
 * "RESULT; [scheme=SCHEME; ][dkim=DOMAIN; ]attid=..." and the rest, dkim=
 * when the author's domain vouches (d->dkim_domain); returns out's failure
 */
int	header_verdict(const struct decision *d, struct sbuf *out);

/*
 * header_authres - the Authentication-Results value for d, claimed by
 * authserv_id: "ID; x-patch-attest=RESULT reason=... policy.attid=ID"
 * when the mail has a patch, then, when it has patatt signatures,
 * "; x-patatt=RESULT reason=... header.i=IDENTITY header.a=ALGORITHM";
 * the first of them ends in "policy.dkim-domain=DOMAIN" when the author's
 * domain vouches (d->dkim_domain); folded.  Appends to out; returns out's
 * failure.
 */
int	header_authres(struct sbuf *out, const char *authserv_id,
	    const struct decision *d);

/*
 * header_authres_ours - 1 when an Authentication-Results value (as it
 * arrived, maybe folded) names authserv_id as its authserv-id, as a token
 * or a quoted-string: such a header is forged or stale and must go.
 */
int	header_authres_ours(const char *value, size_t len,
	    const char *authserv_id);

#endif
