/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * authres - reading an Authentication-Results field (RFC 8601) that a
 * verifier in front of us wrote: its authserv-id and, for each result,
 * the method, the result and the property header.d (the DKIM signing
 * domain).  Comments and folding white space may come anywhere the RFC
 * allows CFWS; values may be tokens or quoted-strings.
 *
 * Nothing is allocated: the caller owns struct authres.  Every part has a
 * fixed cap; results past AUTHRES_RESULTS are read and counted, not kept.
 * Keywords (method, result) are kept in lower case, as is header.d.
 *
 * authres_parse() returns 0, PA_ETOOBIG when a part it keeps is longer
 * than its cap, or PA_ERROR when the field does not follow the grammar:
 * either way the field says nothing and is to be ignored whole.
 */
#ifndef PA_AUTHRES_H
#define PA_AUTHRES_H

#include <stddef.h>

#define AUTHRES_ID_MAX		256	/* an authserv-id, NUL included */
#define AUTHRES_WORD_MAX	64	/* a method or result, likewise */
#define AUTHRES_DOMAIN_MAX	256	/* header.d, likewise */
#define AUTHRES_RESULTS		16	/* results kept of one field */

struct authres_result {
	char	 method[AUTHRES_WORD_MAX];	/* "dkim", no "/version" */
	char	 result[AUTHRES_WORD_MAX];	/* "pass", "fail", ... */
	char	 header_d[AUTHRES_DOMAIN_MAX];	/* header.d, or "" */
};

struct authres {
	char			 id[AUTHRES_ID_MAX];	/* the authserv-id */
	size_t			 n;		/* results kept */
	size_t			 dropped;	/* results past the cap */
	struct authres_result	 r[AUTHRES_RESULTS];
};

/* authres_parse - one field's value (after the colon, folds included) */
int	authres_parse(struct authres *out, const char *value, size_t len);

/*
 * authres_id - only the authserv-id of a field's value, into id (size
 * bytes): 0, or PA_ERROR when there is none or it does not fit.  Unlike
 * authres_parse(), the rest of the field may be anything.
 */
int	authres_id(char *id, size_t size, const char *value, size_t len);

#endif
