/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * mime - walking the MIME structure of a message, the way Python's email
 * package (which the attestation tools used) sees it.
 *
 * mime_walk() calls visit() for every leaf part in order, multipart
 * containers and message/rfc822 wrappers being descended into, at most
 * MIME_MAX_DEPTH levels deep (deeper structure is seen as one leaf).
 * Boundary lines are "--boundary" alone on their line, optionally followed
 * by "--" and blanks.  A non-zero return from visit() stops the walk and
 * is returned.  Nothing is copied: parts point into the given text.
 */
#ifndef PA_MIME_H
#define PA_MIME_H

#include <stddef.h>

#include "base.h"

#define MIME_MAX_DEPTH	16
#define MIME_TYPE_MAX	96

struct mime_part {
	const char	*hdr;		/* header block, LF line ends */
	size_t		 hdrlen;
	const char	*body;		/* the part's body, still encoded */
	size_t		 bodylen;
	char		 type[MIME_TYPE_MAX];	/* lower case "type/subtype" */
	unsigned	 depth;
};

int	mime_walk(const char *hdr, size_t hdrlen, const char *body,
	    size_t bodylen, int (*visit)(const struct mime_part *, void *),
	    void *arg);

/*
 * mime_header - the value of the first field called name in a header
 * block, its length in *vlen; NULL (and 0) when there is none
 */
const char	*mime_header(const char *hdr, size_t hdrlen, const char *name,
		    size_t *vlen);

/*
 * mime_param - the value of parameter name in a Content-Type style value,
 * unquoted, into out (replacing its contents).  Returns 1 when present.
 */
int	mime_param(const char *value, size_t len, const char *name,
	    struct sbuf *out);

/* mime_type - "type/subtype" lower-cased, or "text/plain" when invalid */
void	mime_type(const char *value, size_t len, char out[MIME_TYPE_MAX]);

#endif
