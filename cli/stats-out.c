/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * stats-out.c - the report of "patchattest stats" (stats.h): tables of
 * aligned columns for an admin, or one JSON document.  Text from mail
 * (List-Ids, identities, keys, the results' names) is escaped on the way
 * out, so that it cannot move the columns or command a terminal.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "stats.h"
#include "base.h"
#include "sig.h"

#define TABLE_COLS	(3 + ARRSTATS_RESULTS_MAX)

/* A text table: its titles, which are numbers (right-aligned), its cells. */
struct table {
	const char	*title[TABLE_COLS];
	int		 right[TABLE_COLS];
	size_t		 ncols, nrows;
	void		(*cell)(const struct stats_report *, size_t row,
			    size_t col, struct sbuf *);
};

void
stats_key_file(char out[ARRIVAL_TEXT_MAX], const struct arrstats_signer *k)
{
	if (patatt_key_file(out, ARRIVAL_TEXT_MAX, k->algo, k->identity,
	    k->selector) != 0)
		out[0] = '\0';
}

/* width - the columns s takes on a terminal: its UTF-8 characters */
static size_t
width(const char *s)
{
	size_t n = 0;

	for (; *s != '\0'; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/*
 * table_cell - row 0: the title of column col, escaped (a result's name
 * is a stored field); else the cell of row - 1
 */
static void
table_cell(const struct table *t, const struct stats_report *r, size_t row,
    size_t col, struct sbuf *out)
{
	sbuf_reset(out);
	if (row == 0)
		cli_text(out, t->title[col]);
	else
		t->cell(r, row - 1, col, out);
}

/* table_print - t, each column as wide as its widest cell */
static void
table_print(const struct table *t, const struct stats_report *r)
{
	size_t w[TABLE_COLS], row, col, pad;
	struct sbuf cell, line;

	sbuf_init(&cell, SBUF_NOMAX);
	sbuf_init(&line, SBUF_NOMAX);
	for (col = 0; col < t->ncols; col++) {
		w[col] = 0;
		for (row = 0; row <= t->nrows; row++) {
			table_cell(t, r, row, col, &cell);
			if (width(cell.buf) > w[col])
				w[col] = width(cell.buf);
		}
	}
	for (row = 0; row <= t->nrows; row++) {
		sbuf_reset(&line);
		for (col = 0; col < t->ncols; col++) {
			table_cell(t, r, row, col, &cell);
			pad = w[col] - width(cell.buf);
			sbuf_addf(&line, "%s%*s%s%*s", col ? "  " : "",
			    t->right[col] ? (int)pad : 0, "", cell.buf,
			    t->right[col] || col + 1 == t->ncols ? 0 :
			    (int)pad, "");
		}
		puts(line.buf);
	}
	sbuf_release(&cell);
	sbuf_release(&line);
}

static void
group_cell(const struct stats_report *r, size_t row, size_t col,
    struct sbuf *out)
{
	const struct arrstats_group *g = &r->s->group[row];
	char t[CLI_UTC_MAX];

	if (col == 0) {
		cli_utc(t, g->day, CLI_UTC_DAY);
		sbuf_addstr(out, t);
	} else if (col == 1)
		cli_text(out, g->list_id);
	else if (col == 2)
		sbuf_addf(out, "%lu", g->total);
	else
		sbuf_addf(out, "%lu", g->n[r->order[col - 3]]);
}

/* signer_cell - the columns both identity tables begin with */
static void
signer_cell(const struct arrstats_signer *k, size_t col, struct sbuf *out)
{
	char t[CLI_UTC_MAX];

	if (col == 0)
		sbuf_addf(out, "%lu", k->count);
	else if (col == 1) {
		cli_utc(t, k->last, CLI_UTC_TIME);
		sbuf_addstr(out, t);
	} else
		cli_text(out, k->identity);
}

static void
nokey_cell(const struct stats_report *r, size_t row, size_t col,
    struct sbuf *out)
{
	const struct arrstats_signer *k = &r->s->nokey.row[row];
	char path[ARRIVAL_TEXT_MAX];

	if (col < 3)
		signer_cell(k, col, out);
	else if (col == 3) {
		stats_key_file(path, k);
		cli_text(out, path);
	} else
		cli_text(out, k->key);
}

static void
unsigned_cell(const struct stats_report *r, size_t row, size_t col,
    struct sbuf *out)
{
	if (col < 3)
		signer_cell(&r->s->unsigned_by_signer.row[row], col, out);
	else
		cli_text(out, r->habit[row]);
}

static void
differing_cell(const struct stats_report *r, size_t row, size_t col,
    struct sbuf *out)
{
	const struct arrstats_signer *k = &r->s->differing.row[row];

	if (col < 3)
		signer_cell(k, col, out);
	else
		cli_text(out, k->key);
}

/*
 * shown - "(none)", or the table, and how many rows it leaves out (rows:
 * what a row is, for the cap)
 */
static void
shown(const struct table *t, const struct stats_report *r, size_t all,
    unsigned long dropped, const char *rows)
{
	if (all == 0 && dropped == 0)
		puts("(none)");
	else
		table_print(t, r);
	if (all > t->nrows)
		printf("... and %zu more (--top)\n", all - t->nrows);
	if (dropped > 0)
		printf("Capped: %lu records are not counted here (more than "
		    "%d %s).\n", dropped, ARRSTATS_SIGNERS_MAX, rows);
}

/* heading - the StateFile and the span of the records */
static void
heading(const struct stats_report *r)
{
	const struct arrstats *s = r->s;
	char a[CLI_UTC_MAX], b[CLI_UTC_MAX];
	struct sbuf path;

	sbuf_init(&path, SBUF_NOMAX);
	hdrfmt_escaped(&path, r->path, strlen(r->path));
	printf("Arrival records in %s", path.buf);
	sbuf_release(&path);
	if (r->since > 0) {
		cli_utc(a, r->since, CLI_UTC_TIME);
		printf(" since %s", a);
	}
	cli_utc(a, s->first, CLI_UTC_TIME);
	cli_utc(b, s->last, CLI_UTC_TIME);
	if (s->records == 0)
		printf(": none\n");
	else
		printf(": %lu, arrived from %s to %s\n", s->records, a, b);
}

int
stats_text(const struct stats_report *r)
{
	const struct arrstats *s = r->s;
	struct table t = { { "DAY", "LIST-ID", "MAILS" }, { 0, 0, 1 },
	    3 + s->nresults, s->ngroups, group_cell };
	size_t i;

	heading(r);
	for (i = 0; i < s->nresults; i++) {
		t.title[3 + i] = s->results[r->order[i]];
		t.right[3 + i] = 1;
	}
	printf("\nMails by day (UTC) and List-Id, by result:\n");
	shown(&t, r, s->ngroups, 0, "");
	if (s->groups_dropped > 0)
		printf("Capped: %lu records are not counted here (more than "
		    "%d days and List-Ids).\n", s->groups_dropped,
		    ARRSTATS_GROUPS_MAX);
	if (s->results_dropped > 0)
		printf("Capped: %lu records have a result beyond the first "
		    "%d kinds, not in a column.\n", s->results_dropped,
		    ARRSTATS_RESULTS_MAX);
	printf("\nSignatures without a key (nokey), most often first; the "
	    "key file goes at\nKEYRING PATH inside a PatattKeyring folder:\n");
	t = (struct table){ { "MAILS", "LAST", "IDENTITY", "KEYRING PATH",
	    "KEY OFFERED" }, { 1, 0, 0, 0, 0 }, 5, r->nkey, nokey_cell };
	shown(&t, r, s->nokey.n, s->nokey.dropped, "identities");
	printf("\nHabitual signers whose mail came unsigned "
	    "(unsigned-by-signer):\n");
	t = (struct table){ { "MAILS", "LAST", "IDENTITY", "HABIT KEY" },
	    { 1, 0, 0, 0 }, 4, r->nuns, unsigned_cell };
	shown(&t, r, s->unsigned_by_signer.n, s->unsigned_by_signer.dropped,
	    "identities");
	printf("\nMessage-IDs that arrived with differing content (an attack, "
	    "or a relay that\nchanges mail; patchattest arrived lists the "
	    "copies), the copies that differed:\n");
	t = (struct table){ { "COPIES", "LAST", "MESSAGE-ID", "LAST HOST" },
	    { 1, 0, 0, 0 }, 4, r->ndiff, differing_cell };
	shown(&t, r, s->differing.n, s->differing.dropped, "Message-IDs");
	return fflush(stdout) == 0 ? 0 : -1;
}

/* json_time - "name": "UTC time", or null when t is 0 and none */
static void
json_time(struct sbuf *o, const char *name, time_t t, int none)
{
	char s[CLI_UTC_MAX];

	cli_utc(s, t, CLI_UTC_TIME);
	sbuf_addf(o, "\"%s\": ", name);
	if (none)
		sbuf_addstr(o, "null");
	else
		sbuf_addf(o, "\"%s\"", s);
}

/* json_str - "name": "s", escaped */
static void
json_str(struct sbuf *o, const char *name, const char *s)
{
	sbuf_addf(o, "\"%s\": ", name);
	hdrfmt_quoted(o, s);
}

static void
json_groups(struct sbuf *o, const struct stats_report *r)
{
	const struct arrstats *s = r->s;
	char day[CLI_UTC_MAX];
	size_t i, k;

	sbuf_addstr(o, ",\n  \"days\": [");
	for (i = 0; i < s->ngroups; i++) {
		cli_utc(day, s->group[i].day, CLI_UTC_DAY);
		sbuf_addf(o, "%s\n    {\"day\": \"%s\", ", i ? "," : "", day);
		json_str(o, "list_id", s->group[i].list_id);
		sbuf_addf(o, ", \"mails\": %lu, \"results\": {",
		    s->group[i].total);
		for (k = 0; k < s->nresults; k++) {
			sbuf_addstr(o, k ? ", " : "");
			hdrfmt_quoted(o, s->results[r->order[k]]);
			sbuf_addf(o, ": %lu", s->group[i].n[r->order[k]]);
		}
		sbuf_addstr(o, "}}");
	}
	sbuf_addstr(o, "\n  ]");
}

/* json_signer - the members both identity lists begin with */
static void
json_signer(struct sbuf *o, const struct arrstats_signer *k)
{
	json_str(o, "identity", k->identity);
	sbuf_addf(o, ", \"mails\": %lu, ", k->count);
	json_time(o, "last", k->last, 0);
}

static void
json_signers(struct sbuf *o, const struct stats_report *r)
{
	const struct arrstats *s = r->s;
	char path[ARRIVAL_TEXT_MAX];
	size_t i;

	sbuf_addstr(o, ",\n  \"nokey\": [");
	for (i = 0; i < r->nkey; i++) {
		sbuf_addstr(o, i ? ",\n    {" : "\n    {");
		json_signer(o, &s->nokey.row[i]);
		sbuf_addstr(o, ", ");
		json_str(o, "algo", s->nokey.row[i].algo);
		sbuf_addstr(o, ", ");
		json_str(o, "selector", s->nokey.row[i].selector);
		sbuf_addstr(o, ", ");
		json_str(o, "key_offered", s->nokey.row[i].key);
		stats_key_file(path, &s->nokey.row[i]);
		sbuf_addstr(o, ", ");
		json_str(o, "keyring_path", path);
		sbuf_addch(o, '}');
	}
	sbuf_addf(o, "\n  ],\n  \"nokey_identities\": %zu,\n"
	    "  \"unsigned_by_signer\": [", s->nokey.n);
	for (i = 0; i < r->nuns; i++) {
		sbuf_addstr(o, i ? ",\n    {" : "\n    {");
		json_signer(o, &s->unsigned_by_signer.row[i]);
		sbuf_addstr(o, ", ");
		json_str(o, "habit_key", r->habit[i]);
		sbuf_addch(o, '}');
	}
	sbuf_addf(o, "\n  ],\n  \"unsigned_by_signer_identities\": %zu,\n"
	    "  \"differing_copies\": [", s->unsigned_by_signer.n);
	for (i = 0; i < r->ndiff; i++) {
		sbuf_addstr(o, i ? ",\n    {" : "\n    {");
		json_str(o, "message_id", s->differing.row[i].identity);
		sbuf_addf(o, ", \"copies\": %lu, ", s->differing.row[i].count);
		json_time(o, "last", s->differing.row[i].last, 0);
		sbuf_addstr(o, ", ");
		json_str(o, "last_host", s->differing.row[i].key);
		sbuf_addch(o, '}');
	}
	sbuf_addf(o, "\n  ],\n  \"differing_message_ids\": %zu",
	    s->differing.n);
}

int
stats_json(const struct stats_report *r)
{
	const struct arrstats *s = r->s;
	struct sbuf o;
	int rc;

	sbuf_init(&o, SBUF_NOMAX);
	sbuf_addstr(&o, "{\n  ");
	json_str(&o, "state_file", r->path);
	sbuf_addstr(&o, ",\n  ");
	json_time(&o, "since", r->since, r->since == 0);
	sbuf_addf(&o, ",\n  \"mails\": %lu,\n  ", s->records);
	json_time(&o, "first", s->first, s->records == 0);
	sbuf_addstr(&o, ",\n  ");
	json_time(&o, "last", s->last, s->records == 0);
	sbuf_addf(&o, ",\n  \"capped\": {\"days\": %lu, \"results\": %lu, "
	    "\"nokey\": %lu, \"unsigned_by_signer\": %lu, "
	    "\"differing_copies\": %lu}", s->groups_dropped,
	    s->results_dropped, s->nokey.dropped,
	    s->unsigned_by_signer.dropped, s->differing.dropped);
	json_groups(&o, r);
	json_signers(&o, r);
	sbuf_addstr(&o, "\n}\n");
	if ((rc = sbuf_failed(&o)) == 0)
		fputs(o.buf, stdout);
	sbuf_release(&o);
	return rc == 0 && fflush(stdout) == 0 ? 0 : -1;
}
