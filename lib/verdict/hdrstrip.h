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
 * header there.  The MTA deletes by the name as it was sent (in any case)
 * and the index among the fields of that name, and renumbers after each
 * deletion: so each deletion keeps the blanks of the spelling, and they
 * are done from the last field to the first.
 *
 * Lifecycle: hdrstrip_init(), hdrstrip_field() per header field,
 * hdrstrip_reset() between messages, hdrstrip_release().  A field of
 * those names costs one byte (its spelling and whether it goes), so any
 * number the MTA can send is counted; past HDRSTRIP_MAX fields or
 * HDRSTRIP_SPELLINGS spellings, PA_ETOOBIG: the message cannot be
 * cleaned, and must not be delivered.
 */
#ifndef PA_HDRSTRIP_H
#define PA_HDRSTRIP_H

#include <stddef.h>

#define HDRSTRIP_MAX		((size_t)1 << 24)	/* fields counted */
#define HDRSTRIP_SPELLINGS	16	/* names as sent, blanks and all */

#define HDR_VERDICT	"X-Patch-Attested"
#define HDR_AUTHRES	"Authentication-Results"

struct hdrstrip {
	char		*spelling[HDRSTRIP_SPELLINGS];	/* as first sent */
	size_t		 nspelling;
	unsigned char	*f;		/* per field: spelling | HDRSTRIP_GO */
	size_t		 n, alloc;
	size_t		 ndoomed;
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
 * hdrstrip_each - the deletions to ask the MTA for, in the order to ask:
 * del(arg, name as sent, index among the fields of that name from 1) for
 * each, from the last field to the first; stops at, and returns, the
 * first non-zero del returns
 */
int	hdrstrip_each(const struct hdrstrip *,
	    int (*del)(void *arg, const char *name, int idx), void *arg);

/* hdrstrip_is - name, trailing blanks aside and in any case, is want */
int	hdrstrip_is(const char *name, const char *want);

#endif
