/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pins - the keys trusted on first use (PatattTOFU): for each patatt
 * identity, the first key that signed a patch for it, and when.
 *
 * An identity is kept in its canonical form (patatt_identity_canon()), so
 * CAROL@Example.ORG and carol@example.org are one.  The first use is
 * decided in one step: pins_first_use() reads and, when there is no pin,
 * writes it in the same write transaction, so of two messages racing
 * with different keys exactly one makes the pin and the other sees it.
 * The store is a file of its own, apart from the attestation index,
 * which may be deleted and rebuilt: pins are made only by mail.
 *
 * Lifecycle: pins_open() once per process (the handle is shared by every
 * thread), pins_close() after the last use.  Functions return 0, a named
 * outcome (PA_ENOTFOUND), or PA_ERROR / PA_ENOMEM with err saying why.
 * The interface names no LMDB type: the store may be another one.
 */
#ifndef PA_PINS_H
#define PA_PINS_H

#include <stddef.h>
#include <time.h>

#include "patchattest.h"
#include "base.h"

#define PIN_IDENTITY_MAX	256	/* canonical identity, NUL included */
#define PIN_KEY_MAX		256	/* key, NUL included */

enum pin_seen {
	PIN_NEW,		/* no pin: this key is pinned now */
	PIN_SAME,		/* the key pinned */
	PIN_OTHER		/* another key is pinned */
};

struct pin {
	char	 identity[PIN_IDENTITY_MAX];
	char	 key[PIN_KEY_MAX];
	time_t	 since;
};

struct pins;

/*
 * pins_open - the store at path into *out.  create: made when it is not
 * there (else PA_ENOTFOUND); writable: open for pins_first_use() and
 * pins_forget().  A file that is there but empty or not a pin store is
 * damage (PA_ERROR), never a fresh start.
 */
int	pins_open(struct pins **out, const char *path, int create,
	    int writable, struct pa_err *);
void	pins_close(struct pins *);
/*
 * pins_check - whether the file at path is a pin store that opens, read
 * without taking LMDB's lock and so without making its lock file (for a
 * check run as another user than the one that will open it): 0,
 * PA_ENOTFOUND when it is not there, PA_ERROR (err says why)
 */
int	pins_check(const char *path, struct pa_err *);

/*
 * pins_first_use - identity's key against its pin, the pin made with key
 * and now when there is none, atomically: *seen, and the pinned key in
 * *pinned for PIN_OTHER.  PA_ENOTFOUND: the identity has no canonical
 * form (it is never pinned).
 */
int	pins_first_use(struct pins *, const char *identity, const char *key,
	    time_t now, enum pin_seen *seen, struct pin *pinned,
	    struct pa_err *);
/* pins_get - identity's pin into *out: 0, PA_ENOTFOUND */
int	pins_get(struct pins *, const char *identity, struct pin *out,
	    struct pa_err *);
/* pins_forget - identity's pin removed: 0, PA_ENOTFOUND */
int	pins_forget(struct pins *, const char *identity, struct pa_err *);
/*
 * pins_each - fn on every pin in identity order until it returns non-zero
 * (which pins_each returns)
 */
int	pins_each(struct pins *, int (*fn)(void *, const struct pin *),
	    void *arg, struct pa_err *);

#endif
