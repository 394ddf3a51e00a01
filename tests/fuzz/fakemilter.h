/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fakemilter - libmilter's side of the milter's callbacks, for driving
 * them without an MTA: the smfi_* calls they make are recorded (or made
 * to fail), and fake_start() sets up the milter's state as its main()
 * would, on a configuration of its own in a scratch folder.
 *
 * Used by fuzz-callbacks (random sequences of callbacks) and torture
 * (every allocation of a message's way through the milter made to fail
 * in turn).  One context at a time, one thread.
 */
#ifndef PA_FAKEMILTER_H
#define PA_FAKEMILTER_H

#include <libmilter/mfapi.h>

struct smfi_str {
	void		*priv;
	int		 refuse;	/* smfi_* changes fail */
	int		 stripped;	/* header fields deleted */
	int		 inserted;	/* X-Patch-Attested headers added */
	int		 replied;	/* smfi_setreply() was called */
};

/*
 * fake_start - the milter's state on a configuration in dir (made if
 * missing): no Archive, an index in dir, an empty GnuPG home there,
 * PatattKeyring keyring (NULL: none), the extra lines of conf; 0, or -1
 * with a message on stderr
 */
int	fake_start(const char *dir, const char *keyring, const char *conf);

/* fake_reset - a context before a new connection */
void	fake_reset(SMFICTX *);

#endif
