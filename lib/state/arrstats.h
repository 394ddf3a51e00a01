/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * arrstats - what the arrival records add up to, for "patchattest stats":
 * per day (UTC) and List-Id, the records by result; the identities whose
 * patatt signatures came out nokey, with the signature's algorithm,
 * selector and the key it named or offered; the identities whose mail
 * came out unsigned-by-signer; the Message-IDs that arrived with
 * differing content (copies that were not the first's: an attack, or a
 * relay that changes mail).  Fed one record at a time (arrstats_add(),
 * a ledger_each() function), so it works over any store.
 *
 * Memory is bounded whatever the records hold: each table has a cap
 * (ARRSTATS_*_MAX), and a record that would need a new row in a full
 * table is not tabulated there but counted in that table's dropped, so
 * that the report can say the table was capped.  The same holds for the
 * distinct result words (a later version's, or damage the codec let by).
 *
 * Lifecycle: arrstats_new() (every table allocated once, here),
 * arrstats_add() per record, arrstats_sort() once before reading the
 * tables, arrstats_free().  arrstats_new() returns 0 or PA_ENOMEM.
 */
#ifndef PA_ARRSTATS_H
#define PA_ARRSTATS_H

#include <stddef.h>
#include <time.h>

#include "patchattest.h"
#include "ledger.h"

#define ARRSTATS_GROUPS_MAX	2048	/* (day, List-Id) rows */
#define ARRSTATS_SIGNERS_MAX	1024	/* identities of each signer table */
#define ARRSTATS_RESULTS_MAX	24	/* distinct result words */

/* One day's records of one List-Id ("" none). */
struct arrstats_group {
	time_t		 day;			/* its first second, UTC */
	char		 list_id[ARRIVAL_TEXT_MAX];
	unsigned long	 total;
	unsigned long	 n[ARRSTATS_RESULTS_MAX];	/* by results[] */
};

/*
 * One identity's records in a signer table.  nokey: one row per key file
 * it would need (identity, algo, selector), key the latest one offered
 * ("" none); unsigned-by-signer: one row per identity, algo, selector and
 * key "" (the caller may look up the habit's key).  The differing copies
 * are kept alike: a row per Message-ID (in identity, its first bytes),
 * count its copies that differed from the first, key the connecting host
 * of the latest of them ("-" not known).
 */
struct arrstats_signer {
	char		 identity[ARRIVAL_TEXT_MAX];
	char		 algo[ARRIVAL_VERDICT_MAX];
	char		 selector[ARRIVAL_SELECTOR_MAX];
	char		 key[ARRIVAL_TEXT_MAX];
	unsigned long	 count;
	time_t		 last;			/* the latest arrival */
};

/* A signer table, with its index (open addressing, slot 0: empty). */
struct arrstats_table {
	struct arrstats_signer	*row;
	size_t			 n;
	unsigned		*slot;		/* row index + 1 */
	unsigned long		 dropped;	/* records of rows not made */
};

struct arrstats {
	unsigned long		 records;
	time_t			 first, last;	/* arrivals; records 0: 0 */
	char			 results[ARRSTATS_RESULTS_MAX]
				    [ARRIVAL_VERDICT_MAX];
	size_t			 nresults;
	unsigned long		 results_dropped;	/* records whose
						   result had no column */
	struct arrstats_group	*group;
	size_t			 ngroups;
	unsigned		*group_slot;
	unsigned long		 groups_dropped;
	struct arrstats_table	 nokey, unsigned_by_signer, differing;
};

int	arrstats_new(struct arrstats **out);
void	arrstats_free(struct arrstats *);
/* arrstats_add - one record (arg: the struct arrstats); returns 0 */
int	arrstats_add(void *arg, const struct arrival *a);
/*
 * arrstats_sort - the groups by day then List-Id, the signers by count
 * (most first) then identity; no more arrstats_add() after it
 */
void	arrstats_sort(struct arrstats *);

#endif
