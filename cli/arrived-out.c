/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * arrived-out.c - what "patchattest arrived" prints of one message (see
 * arrived.h): a line of tab-separated columns, and for copies-differ a
 * line more for each copy, indented by a tab; or one JSON object.  Every
 * stored field was written by whoever could send mail: escaped as text
 * (cli_text()), quoted as JSON.
 */
#include "config.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "arrived.h"
#include "cli.h"

static const char *const outcome_names[] = {
	[ARRIVAL_SAME] = "identical",
	[ARRIVAL_SAME_TRAILERS] = "identical-with-trailers",
	[ARRIVAL_DIFFERS] = "differs",
	[ARRIVED_NEVER] = "never-arrived",
	[ARRIVED_COPIES_DIFFER] = "copies-differ",
};

int
arrived_outcome(const struct match *mt)
{
	return mt->counted.differing > 0 || mt->differ_parts != 0 ?
	    ARRIVED_COPIES_DIFFER : mt->o;
}

/* add_list - the lines of s as "a, b" ("-": none) or ["a", "b"] (JSON) */
static void
add_list(struct sbuf *line, const char *s, int json)
{
	struct sbuf item;
	const char *nl;
	int first = 1;

	sbuf_init(&item, ARRIVAL_TRAILERS_MAX);
	sbuf_addstr(line, json ? "[" : *s == '\0' ? "-" : "");
	for (; (nl = strchr(s, '\n')) != NULL; s = nl + 1, first = 0) {
		sbuf_reset(&item);
		sbuf_add(&item, s, (size_t)(nl - s));
		sbuf_addstr(line, first ? "" : ", ");
		if (json)
			hdrfmt_quoted(line, item.buf);
		else
			hdrfmt_escaped(line, item.buf, item.len);
	}
	sbuf_addstr(line, json ? "]" : "");
	sbuf_release(&item);
}

/* parts - the parts of bits, one a line */
static void
parts(struct sbuf *list, unsigned bits)
{
	if (bits & ARRIVAL_PART_I)
		sbuf_addstr(list, "author/subject\n");
	if (bits & ARRIVAL_PART_M)
		sbuf_addstr(list, "commit message\n");
	if (bits & ARRIVAL_PART_P)
		sbuf_addstr(list, "diff\n");
}

/* details - the parts that differ, or the trailers added, one a line */
static void
details(struct sbuf *list, const struct match *mt)
{
	if (mt->o == ARRIVAL_SAME_TRAILERS)
		arrival_added_trailers(list, mt->cur, &mt->best);
	parts(list, mt->parts);
}

/* matches - the copy is the one the message matched */
static int
matches(const struct match *mt, const struct arrival *a)
{
	return mt->o <= ARRIVAL_SAME_TRAILERS && a->copy == mt->best.copy;
}

/* copy_json - one copy as a JSON object */
static void
copy_json(struct sbuf *line, const struct match *mt, const struct arrival *a)
{
	struct sbuf list;
	char t[CLI_UTC_MAX];
	static const struct {
		const char	*name;
		size_t		 off;
	} fields[] = {
		{ "envelope_from", offsetof(struct arrival, envelope_from) },
		{ "host", offsetof(struct arrival, host) },
		{ "queue_id", offsetof(struct arrival, queue_id) },
		{ "list", offsetof(struct arrival, list_id) },
		{ "dkim", offsetof(struct arrival, dkim) },
		{ "verdict", offsetof(struct arrival, result) },
	};
	size_t k;

	cli_utc(t, a->arrived, CLI_UTC_TIME);
	sbuf_addf(line, "{\"copy\": %u, \"arrived\": \"%s\"", a->copy, t);
	for (k = 0; k < sizeof(fields) / sizeof(fields[0]); k++) {
		sbuf_addf(line, ", \"%s\": ", fields[k].name);
		hdrfmt_quoted(line, (const char *)a + fields[k].off);
	}
	sbuf_init(&list, SBUF_NOMAX);
	parts(&list, a->parts);
	sbuf_addstr(line, ", \"differs_from_first\": ");
	add_list(line, list.buf, 1);
	sbuf_addf(line, ", \"matches\": %s}", matches(mt, a) ? "true" :
	    "false");
	sbuf_release(&list);
}

/* copy_text - one copy as an indented line of its own */
static void
copy_text(struct sbuf *line, const struct match *mt, const struct arrival *a)
{
	struct sbuf list;
	char t[CLI_UTC_MAX];

	cli_utc(t, a->arrived, CLI_UTC_TIME);
	sbuf_addf(line, "\n\tcopy %u\t%s\tfrom ", a->copy, t);
	cli_text(line, a->envelope_from);
	sbuf_addstr(line, "\thost ");
	cli_text(line, a->host);
	sbuf_addstr(line, "\tqueue ");
	cli_text(line, a->queue_id);
	sbuf_addstr(line, "\tlist ");
	cli_text(line, a->list_id);
	sbuf_addstr(line, "\tdkim ");
	cli_text(line, a->dkim);
	sbuf_addstr(line, "\tverdict ");
	cli_text(line, a->result);
	sbuf_init(&list, SBUF_NOMAX);
	parts(&list, a->parts);
	sbuf_addstr(line, a->differs ? "\tdiffers from the first: " :
	    "\tthe same as the first");
	if (a->differs)
		add_list(line, list.buf, 0);
	sbuf_release(&list);
	if (matches(mt, a))
		sbuf_addstr(line, "\t<- this message");
}

/* copies_json - what the store counted, and each copy kept */
static void
copies_json(struct sbuf *line, const struct match *mt)
{
	struct sbuf list;
	size_t k;

	sbuf_init(&list, SBUF_NOMAX);
	parts(&list, mt->differ_parts);
	sbuf_addf(line, ", \"copies_arrived\": %u, \"copies_kept\": %u, "
	    "\"copies_differing\": %u, \"copies_differ_in\": ",
	    mt->counted.arrived, mt->counted.kept, mt->counted.differing);
	add_list(line, list.buf, 1);
	sbuf_addstr(line, ", \"copy_list\": [");
	for (k = 0; k < mt->ncopies; k++) {
		sbuf_addstr(line, k ? ", " : "");
		copy_json(line, mt, &mt->copy[k]);
	}
	sbuf_addch(line, ']');
	sbuf_release(&list);
}

/* found_json - what a JSON line says of the record matched */
static void
found_json(struct sbuf *line, const struct match *mt, const char *list)
{
	const struct arrival *old = &mt->best;
	char t[CLI_UTC_MAX];

	cli_utc(t, old->arrived, CLI_UTC_TIME);
	sbuf_addf(line, ", \"found_by\": \"%s\", \"arrived\": \"%s\", "
	    "\"verdict\": ", mt->by, t);
	hdrfmt_quoted(line, old->result);
	sbuf_addstr(line, ", \"list\": ");
	hdrfmt_quoted(line, old->list_id);
	sbuf_addf(line, ", \"match\": \"%s\", \"copies\": %zu, \"copy\": %u, "
	    "\"copies_differ\": %s, \"%s\": ", outcome_names[mt->o],
	    mt->total, old->copy, arrived_outcome(mt) ==
	    ARRIVED_COPIES_DIFFER ? "true" : "false", mt->o ==
	    ARRIVAL_DIFFERS ? "parts" : "added_trailers");
	add_list(line, list, 1);
}

/* found_text - what a text line says of the record matched */
static void
found_text(struct sbuf *line, const struct match *mt, const char *list)
{
	const struct arrival *old = &mt->best;
	char t[CLI_UTC_MAX];

	cli_utc(t, old->arrived, CLI_UTC_TIME);
	sbuf_addstr(line, mt->o == ARRIVAL_SAME_TRAILERS ? "\tadded: " : "\t");
	add_list(line, list, 0);
	sbuf_addf(line, "\tarrived %s, verdict ", t);
	cli_text(line, old->result);
	sbuf_addstr(line, ", via ");
	cli_text(line, old->list_id);
	sbuf_addf(line, ", by %s", mt->by);
	if (mt->total > 1)
		sbuf_addf(line, "; %zu copies arrived, %s copy %u", mt->total,
		    mt->o == ARRIVAL_DIFFERS ? "nearest is" : "matches",
		    old->copy);
}

/* differ_text - the copies-differ line and each copy's */
static void
differ_text(struct sbuf *line, const struct match *mt)
{
	struct sbuf list;
	size_t k;

	sbuf_init(&list, SBUF_NOMAX);
	parts(&list, mt->differ_parts);
	sbuf_addch(line, '\t');
	add_list(line, list.buf, 0);
	sbuf_addf(line, "\t%u copies arrived, %u kept, %u differ from the "
	    "first; ", mt->counted.arrived, mt->counted.kept,
	    mt->counted.differing);
	if (mt->o <= ARRIVAL_SAME_TRAILERS)
		sbuf_addf(line, "this message is copy %u%s", mt->best.copy,
		    mt->o == ARRIVAL_SAME_TRAILERS ? " with trailers added" :
		    "");
	else if (mt->o == ARRIVAL_DIFFERS)
		sbuf_addf(line, "this message is none of them (nearest: copy "
		    "%u)", mt->best.copy);
	for (k = 0; k < mt->ncopies; k++)
		copy_text(line, mt, &mt->copy[k]);
	sbuf_release(&list);
}

void
arrived_report(const char *name, const struct match *mt, int json)
{
	int outcome = arrived_outcome(mt);
	struct sbuf line, list;

	sbuf_init(&line, SBUF_NOMAX);
	sbuf_init(&list, SBUF_NOMAX);
	if (json) {
		sbuf_addstr(&line, "{\"name\": ");
		hdrfmt_quoted(&line, name);
		sbuf_addstr(&line, ", \"message_id\": ");
		hdrfmt_quoted(&line, mt->cur->message_id);
		sbuf_addf(&line, ", \"result\": \"%s\"",
		    outcome_names[outcome]);
	} else {
		hdrfmt_escaped(&line, name, strlen(name));
		sbuf_addf(&line, "\t%s", outcome_names[outcome]);
	}
	if (mt->o != ARRIVED_NEVER)
		details(&list, mt);
	if (json && mt->o != ARRIVED_NEVER)
		found_json(&line, mt, list.buf);
	if (json && outcome == ARRIVED_COPIES_DIFFER)
		copies_json(&line, mt);
	if (!json && outcome == ARRIVED_COPIES_DIFFER)
		differ_text(&line, mt);
	else if (!json && mt->o != ARRIVED_NEVER)
		found_text(&line, mt, list.buf);
	if (json)
		sbuf_addch(&line, '}');
	puts(line.buf);
	sbuf_release(&line);
	sbuf_release(&list);
}
