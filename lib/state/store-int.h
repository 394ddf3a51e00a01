/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * store-int - what a store of pins or of arrival records provides behind
 * pins.h and ledger.h: a table of operations, chosen when the store is
 * opened (the LMDB files, pins.c and ledger*.c; PostgreSQL, pg*.c).
 *
 * A store's own struct begins with struct pins or struct ledger, whose
 * ops point at its table; the public functions (store.c) call through
 * it.  Each operation keeps the contract that pins.h or ledger.h gives
 * the public function of its name.
 */
#ifndef PA_STORE_INT_H
#define PA_STORE_INT_H

#include "ledger.h"
#include "lookup.h"
#include "pins.h"

struct habit_state;

struct pins_ops {
	int	(*first_use)(struct pins *, const char *, const char *, time_t,
		    enum pin_seen *, struct pin *, struct pa_err *);
	int	(*get)(struct pins *, const char *, struct pin *,
		    struct pa_err *);
	int	(*forget)(struct pins *, const char *, struct pa_err *);
	int	(*each)(struct pins *, int (*)(void *, const struct pin *),
		    void *, struct pa_err *);
	/*
	 * lookup - state_lookup() in one read: the pins asked and, when
	 * the ledger is given (the same database's), its part too; NULL:
	 * a read of each pin through get, and the ledger's lookup
	 */
	void	(*lookup)(struct pins *, struct ledger *,
		    const struct state_ask *, struct state_lookup *);
	void	(*close)(struct pins *);
};

struct pins {
	const struct pins_ops	*ops;
};

struct ledger_ops {
	int	(*record)(struct ledger *, const struct arrival *,
		    struct pa_err *);
	int	(*sync)(struct ledger *, struct pa_err *);
	size_t	(*pending)(struct ledger *);
	int	(*by_message_id)(struct ledger *, const char *, size_t,
		    int (*)(void *, const struct arrival *), void *,
		    struct pa_err *);
	int	(*by_patch_id)(struct ledger *, const char *,
		    int (*)(void *, const struct arrival *), void *,
		    struct pa_err *);
	int	(*each)(struct ledger *, time_t, time_t,
		    int (*)(void *, const struct arrival *), void *,
		    struct pa_err *);
	int	(*habit)(struct ledger *, const char *, struct habit *,
		    struct pa_err *);
	/* lookup - the ledger's part of state_lookup() (the habit and the
	   copies asked) in one read */
	void	(*lookup)(struct ledger *, const struct state_ask *,
		    struct state_lookup *);
	int	(*copies)(struct ledger *, const char *, size_t,
		    struct ledger_copies *, struct pa_err *);
	void	(*watch)(struct ledger *,
		    void (*)(void *, const struct ledger_copy_event *),
		    void *);
	/* NULL: the store keeps no file */
	int	(*size)(struct ledger *, struct ledger_size *);
	/* NULL: the store does not list its habits (a database) */
	int	(*habits)(struct ledger *, const char *,
		    int (*)(void *, const char *, const struct habit_state *),
		    void *, struct pa_err *);
	void	(*close)(struct ledger *);
	/* NULL: reads always take the store's locks */
	int	(*unlocked)(const struct ledger *);
	int	 local;		/* reads cost no round trip to another host */
};

struct ledger {
	const struct ledger_ops	*ops;
};

/*
 * ledger_habit_states - fn on each signing habit of identity after after
 * ("": from the first), in identity order, as the store keeps it
 * (ledger-codec.h; NULL when it is damaged), until fn returns non-zero
 * (which it returns): 0, PA_ENOTFOUND when the store does not list its
 * habits, or an error.  The habits moving from a file to a database
 * (statedb_import()) are read so.
 */
int	ledger_habit_states(struct ledger *, const char *after,
	    int (*fn)(void *, const char *, const struct habit_state *),
	    void *arg, struct pa_err *);

#endif
