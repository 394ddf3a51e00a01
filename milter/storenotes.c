/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * storenotes.c - what the state stores have to say, logged once and
 * counted: the state database gone away and back, damage found in its
 * journal, the StateFile filling up.
 */
#include "config.h"

#include <stdatomic.h>
#include <stdint.h>

#include "milter.h"
#include "state.h"

/* StateFile's use, in percent of StateMaxSize, said in the log on the
   way past SIZE_WARN, and again on the way back under SIZE_CALM */
#define SIZE_WARN	80
#define SIZE_CALM	75

static atomic_ullong	 journal_damage, journal_lost, journal_aside;
static atomic_int	 ledger_full;	/* over SIZE_WARN, said */

/* db_notice - the state database gone away or back, logged once each */
static void
db_notice(void *arg, int up, const char *why)
{
	(void)arg;
	if (up)
		mlog(LOG_LEVEL_INFO, "the state database is back (%s)", why);
	else
		mlog(LOG_LEVEL_ERROR, "%s: signer memory and first-use pins "
		    "cannot be read, and arrival records wait in the journal, "
		    "until it is back", why);
}

/*
 * db_damaged - damage found in the journal of the arrival records: what
 * could be read is sent, the rest is set aside beside it; logged, and
 * counted for the metrics
 */
static void
db_damaged(void *arg, const char *why, uint64_t lost, uint64_t set_aside)
{
	(void)arg;
	mlog(LOG_LEVEL_ERROR, "%s", why);
	atomic_fetch_add(&journal_damage, 1);
	atomic_fetch_add(&journal_lost, lost);
	atomic_fetch_add(&journal_aside, set_aside);
}

const struct statedb_notice storenotes = { db_notice, NULL, db_damaged };

void
storenotes_journal(unsigned long long *damage, unsigned long long *lost,
    unsigned long long *set_aside)
{
	*damage = atomic_load(&journal_damage);
	*lost = atomic_load(&journal_lost);
	*set_aside = atomic_load(&journal_aside);
}

void
storenotes_size(struct ledger *lg, const char *path)
{
	struct ledger_size sz;
	int was;

	if (lg == NULL || ledger_size(lg, &sz) != 0 || sz.max == 0)
		return;
	was = atomic_load(&ledger_full);
	if (!was && sz.used >= sz.max / 100 * SIZE_WARN &&
	    atomic_compare_exchange_strong(&ledger_full, &was, 1))
		mlog(LOG_LEVEL_WARNING, "StateFile %s: %llu of %llu bytes in "
		    "use (StateMaxSize), over %d%%: from 100%%, the oldest "
		    "arrival records are removed to make room for new ones",
		    path, (unsigned long long)sz.used,
		    (unsigned long long)sz.max, SIZE_WARN);
	else if (was && sz.used < sz.max / 100 * SIZE_CALM &&
	    atomic_compare_exchange_strong(&ledger_full, &was, 0))
		mlog(LOG_LEVEL_INFO, "StateFile %s: %llu of %llu bytes in use "
		    "(StateMaxSize), under %d%% again", path,
		    (unsigned long long)sz.used, (unsigned long long)sz.max,
		    SIZE_CALM);
}
