/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * stats.h - "patchattest stats" (cmd-stats.c): the report it prints, as
 * aligned text or one JSON document (stats-out.c).
 */
#ifndef PA_CLI_STATS_H
#define PA_CLI_STATS_H

#include <stddef.h>
#include <time.h>

#include "state.h"

/*
 * struct stats_report - the sums (s, sorted), the order of their result
 * columns, how many rows of each identity table are shown, and for each
 * shown unsigned-by-signer row the key of its identity's habit ("" not
 * known); all owned by cmd_stats()
 */
struct stats_report {
	struct arrstats	*s;
	size_t		 order[ARRSTATS_RESULTS_MAX];	/* into s->results */
	size_t		 nkey, nuns, ndiff;
	char		(*habit)[ARRIVAL_TEXT_MAX];
	time_t		 since, until;
	const char	*path;			/* the StateFile */
};

/* stats_text, stats_json - the report on standard output: 0, or -1 */
int	stats_text(const struct stats_report *);
int	stats_json(const struct stats_report *);

/* stats_key_file - where a nokey row's key file would go, or "" */
void	stats_key_file(char out[ARRIVAL_TEXT_MAX],
	    const struct arrstats_signer *);

#endif
