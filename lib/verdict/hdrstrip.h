/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * hdrstrip - the header fields only we may write, found as a message's
 * header arrives, and the deletions that remove them.
 *
 * Every X-Patch-Attested goes, and every Authentication-Results that
 * names our authserv-id (quoted or not): they were forged, or left by an
 * earlier hop, and a rule that trusts ours must not meet theirs.  A name
 * is ours whatever its case and trailing blanks ("X-Patch-Attested "):
 * some MTAs keep those blanks, and a filter that trims them would see our
 * header there.  The MTA deletes by the name as it was sent and the index
 * among the fields of exactly that name, and renumbers after each
 * deletion: so each deletion keeps the spelling, and they are done from
 * the last field to the first.
 *
 * Lifecycle: hdrstrip_init(), hdrstrip_field() per header field,
 * hdrstrip_reset() between messages, hdrstrip_release().  At most
 * HDRSTRIP_MAX fields of those two names are counted (PA_ETOOBIG past
 * them: the message cannot be cleaned).
 */
#ifndef PA_HDRSTRIP_H
#define PA_HDRSTRIP_H

#include <stddef.h>

#define HDRSTRIP_MAX	1000

#define HDR_VERDICT	"X-Patch-Attested"
#define HDR_AUTHRES	"Authentication-Results"

struct hdrstrip_field {
	char		*name;		/* as sent */
	unsigned	 idx;		/* among fields of that name, from 1 */
	int		 doomed;
};

struct hdrstrip {
	struct hdrstrip_field	*f;
	size_t			 n, alloc;
	size_t			 ndoomed;
};

void	hdrstrip_init(struct hdrstrip *);
void	hdrstrip_reset(struct hdrstrip *);
void	hdrstrip_release(struct hdrstrip *);

/*
 * hdrstrip_field - one header field as it arrives; authserv_id may be
 * NULL (no Authentication-Results is ours).  1 when it is to go (the
 * message as delivered will not have it: judge it without), 0 when it
 * stays, PA_ENOMEM, PA_ETOOBIG.
 */
int	hdrstrip_field(struct hdrstrip *, const char *name, const char *value,
	    const char *authserv_id);

/*
 * hdrstrip_deletion - the k-th deletion to ask the MTA for (k from 0 to
 * ndoomed - 1, in that order): the name as sent into *name, its index
 * returned
 */
unsigned hdrstrip_deletion(const struct hdrstrip *, size_t k,
	    const char **name);

/* hdrstrip_is - name, trailing blanks aside and in any case, is want */
int	hdrstrip_is(const char *name, const char *want);

#endif
