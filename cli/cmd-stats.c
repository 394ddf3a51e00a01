/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cmd-stats.c - "patchattest stats": what the arrival records add up to
 * (arrstats.h), as aligned text for an admin or as one JSON document: per
 * day and List-Id the records by result, the signatures that had no key
 * (with the key file that would be missing), and habitual signers whose
 * mail now comes unsigned.
 */
#include "config.h"
#include "pa-paths.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "stats.h"
#include "base.h"
#include "state.h"
#include "verdict.h"

/* Exit statuses of this command (its manual says them). */
#define STATS_EXIT_CAPPED	1
#define STATS_EXIT_FAULT	2

#define DAY			86400
#define DAYS_MAX		36500
#define TOP_DEFAULT		20

static const char *stats_conf, *stats_since, *stats_days, *stats_top;
static int stats_as_json;

static const struct cli_opt stats_opts[] = {
	{ "config", 'c', NULL, &stats_conf, "FILE",
	    "configuration file (default " PA_CONFIG_FILE ")" },
	{ "since", 0, NULL, &stats_since, "DATE",
	    "only records from DATE (YYYY-MM-DD, UTC) on" },
	{ "days", 0, NULL, &stats_days, "N",
	    "only records of the last N days, today (UTC) included" },
	{ "top", 0, NULL, &stats_top, "N",
	    "at most N identities in each list (default 20, 0: all)" },
	{ "json", 0, &stats_as_json, NULL, NULL, "one JSON document" },
	{ NULL, 0, NULL, NULL, NULL, NULL }
};

const struct cli_cmd cli_cmd_stats = {
	.name = "stats",
	.run = cmd_stats,
	.synopsis = "[-c FILE] [--since DATE | --days N] [--top N] [--json]",
	.summary = "add up the arrival records of the StateFile",
	.about =
	    "Read the arrival records of the StateFile (or StateDatabase)\n"
	    "and print, per day (UTC) and List-Id, the mails by result; the\n"
	    "identities whose patatt signatures had no key (nokey), most\n"
	    "often first, with the key they named or offered and the path\n"
	    "inside a PatattKeyring folder where their key file would go; and\n"
	    "the habitual signers whose mail came unsigned\n"
	    "(unsigned-by-signer), with the key of their habit.  Each table\n"
	    "has a cap; a capped table is said to be.\n"
	    "Exit status: 0, 1 when a table was capped (the report lacks some\n"
	    "records), 2 on errors (no StateFile, a ledger that cannot be read\n"
	    "or is damaged, bad usage).",
	.opts = stats_opts,
};

/* number - s as a whole number in [0, max] into *out: 0, or -1 */
static int
number(const char *s, long max, long *out)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	*out = strtol(s, &end, 10);
	return *end == '\0' && *out <= max ? 0 : -1;
}

/* parse_day - "YYYY-MM-DD" as its first second, UTC: 0, or -1 */
static int
parse_day(const char *s, time_t *out)
{
	struct tm tm, back;
	size_t i;

	for (i = 0; i < 10; i++)
		if (s[i] == '\0' || ((i == 4 || i == 7) ? s[i] != '-' :
		    (s[i] < '0' || s[i] > '9')))
			return -1;
	if (s[10] != '\0')
		return -1;
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = (s[0] - '0') * 1000 + (s[1] - '0') * 100 +
	    (s[2] - '0') * 10 + (s[3] - '0') - 1900;
	tm.tm_mon = (s[5] - '0') * 10 + (s[6] - '0') - 1;
	tm.tm_mday = (s[8] - '0') * 10 + (s[9] - '0');
	back = tm;
	*out = timegm(&tm);
	/* a day that is not one (02-30) comes back as another */
	return tm.tm_mon == back.tm_mon && tm.tm_mday == back.tm_mday ? 0 : -1;
}

/* span - since and until from the options: 0, or -1 after saying why */
static int
span(struct stats_report *r, long *top)
{
	time_t now = time(NULL);
	long days;

	r->since = 0;
	r->until = now + DAY;	/* the milters' clocks may run ahead */
	*top = TOP_DEFAULT;
	if (stats_since != NULL && stats_days != NULL) {
		cli_warn("stats: --since and --days exclude each other");
		return -1;
	}
	if (stats_since != NULL && parse_day(stats_since, &r->since) != 0) {
		cli_warn("stats: --since '%s' is no date YYYY-MM-DD",
		    stats_since);
		return -1;
	}
	if (stats_days != NULL) {
		if (number(stats_days, DAYS_MAX, &days) != 0 || days == 0) {
			cli_warn("stats: --days '%s' is no number of days "
			    "from 1 to %d", stats_days, DAYS_MAX);
			return -1;
		}
		r->since = now - now % DAY - (days - 1) * DAY;
	}
	if (stats_top != NULL && number(stats_top, ARRSTATS_SIGNERS_MAX,
	    top) != 0) {
		cli_warn("stats: --top '%s' is no number from 0 to %d",
		    stats_top, ARRSTATS_SIGNERS_MAX);
		return -1;
	}
	return 0;
}

/* columns - the result columns in the order of the verdicts, then others */
static void
columns(struct stats_report *r)
{
	const struct arrstats *s = r->s;
	unsigned char used[ARRSTATS_RESULTS_MAX] = { 0 };
	size_t i, n = 0;
	int v;

	for (v = VERDICT_PASS; v <= VERDICT_TEMPERROR; v++)
		for (i = 0; i < s->nresults; i++)
			if (!used[i] && strcmp(s->results[i],
			    verdict_name((enum verdict)v)) == 0) {
				used[i] = 1;
				r->order[n++] = i;
			}
	for (i = 0; i < s->nresults; i++)
		if (!used[i])
			r->order[n++] = i;
}

/* habits - the key of each shown unsigned-by-signer identity's habit */
static int
habits(struct stats_report *r, struct ledger *lg, struct pa_err *err)
{
	struct habit h;
	size_t i;
	int rc;

	if (r->nuns == 0)
		return 0;
	if ((r->habit = calloc(r->nuns, sizeof(*r->habit))) == NULL) {
		pa_err_set(err, "%s", pa_strerror(PA_ENOMEM));
		return PA_ENOMEM;
	}
	for (i = 0; i < r->nuns; i++) {
		rc = ledger_habit(lg, r->s->unsigned_by_signer.row[i].identity,
		    &h, err);
		if (rc == 0)
			memcpy(r->habit[i], h.key, sizeof(r->habit[i]));
		else if (rc != PA_ENOTFOUND)
			return rc;
	}
	return 0;
}

/* gather - the records of [since, until) summed into r: 0 or an error */
static int
gather(struct stats_report *r, struct ledger *lg, long top, struct pa_err *err)
{
	int rc;

	if ((rc = ledger_each(lg, r->since, r->until, arrstats_add, r->s,
	    err)) != 0)
		return rc;
	arrstats_sort(r->s);
	columns(r);
	r->nkey = r->s->nokey.n;
	r->nuns = r->s->unsigned_by_signer.n;
	r->ndiff = r->s->differing.n;
	if (top > 0 && r->nkey > (size_t)top)
		r->nkey = (size_t)top;
	if (top > 0 && r->nuns > (size_t)top)
		r->nuns = (size_t)top;
	if (top > 0 && r->ndiff > (size_t)top)
		r->ndiff = (size_t)top;
	return habits(r, lg, err);
}

/* capped - whether some records are missing from a table */
static int
capped(const struct arrstats *s)
{
	return s->groups_dropped || s->results_dropped ||
	    s->nokey.dropped || s->unsigned_by_signer.dropped ||
	    s->differing.dropped;
}

int
cmd_stats(int argc, char **argv)
{
	struct stats_report r;
	struct pa_config cfg;
	struct ledger *lg = NULL;
	struct pa_err err;
	long top;
	int n, sheltered, status = STATS_EXIT_FAULT;

	memset(&r, 0, sizeof(r));
	if ((n = cli_parse(&cli_cmd_stats, argc, argv)) < 0)
		return n == CLI_PARSE_HELP ? CLI_EXIT_OK : STATS_EXIT_FAULT;
	if (n > 0) {
		cli_warn("stats: '%s': no operand is taken", argv[1]);
		cli_usage(&cli_cmd_stats, cli_stderr);
		return STATS_EXIT_FAULT;
	}
	if (span(&r, &top) != 0)
		return STATS_EXIT_FAULT;
	config_init(&cfg);
	if (cli_load_config(&cfg, stats_conf) != 0)
		goto out;
	if (cfg.state_file == NULL && cfg.state_database == NULL) {
		cli_warn("no StateFile is configured: nothing is recorded");
		goto out;
	}
	/* the connection string may hold a password: not printed */
	r.path = cfg.state_database != NULL ? "StateDatabase" : cfg.state_file;
	if (arrstats_new(&r.s) != 0) {
		cli_warn("%s", pa_strerror(PA_ENOMEM));
		goto out;
	}
	if (statedb_ledger_open(&lg, &cfg, 0, NULL, &err) != 0) {
		cli_warn("%s", err.msg);
		goto out;
	}
	if ((sheltered = cli_shelter(ledger_reads_unlocked(lg), r.path,
	    STATS_EXIT_FAULT)) >= 0) {
		status = sheltered;
		goto out;
	}
	if (gather(&r, lg, top, &err) != 0) {
		cli_warn("%s", err.msg);
		goto out;
	}
	if ((stats_as_json ? stats_json(&r) : stats_text(&r)) != 0)
		goto out;
	status = capped(r.s) ? STATS_EXIT_CAPPED : CLI_EXIT_OK;
out:
	ledger_close(lg);
	free(r.habit);
	arrstats_free(r.s);
	config_release(&cfg);
	return status;
}
