/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * db-import.c - "patchattest db import": a node's files (PatattTOFUPins,
 * StateFile) brought into StateDatabase by statedb_import(), and what
 * came of each part said, one line each, after a line for each pin that
 * conflicts with the database's.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "state.h"
#include "base.h"

/* Exit status when some pins were not imported (the manual says it). */
#define IMPORT_EXIT_CONFLICT	1

/* conflict - a pin of the file that the database has another key for */
static void
conflict(void *arg, const struct pin *db, const struct pin *file)
{
	struct sbuf *line = arg;
	char t[2][CLI_UTC_MAX];

	cli_utc(t[0], db->since, CLI_UTC_TIME);
	cli_utc(t[1], file->since, CLI_UTC_TIME);
	sbuf_reset(line);
	sbuf_addstr(line, "pin conflict: ");
	cli_text(line, db->identity);
	sbuf_addstr(line, ": the database pins ");
	cli_text(line, db->key);
	sbuf_addf(line, " (since %s), the file ", t[0]);
	cli_text(line, file->key);
	sbuf_addf(line, " (since %s); the database's is kept", t[1]);
	if (!sbuf_failed(line))
		puts(line->buf);
}

/* report - what came of each part; verb: "imported" or "to import" */
static void
report(const struct statedb_import *im, const struct pa_config *cf,
    const char *verb)
{
	if (im->pins_file == NULL)
		printf("pins: none (PatattTOFUPins is not set)\n");
	else if (im->no_pins_file)
		printf("pins: none (no file %s)\n", im->pins_file);
	else
		printf("pins from %s: %" PRIu64 " read, %" PRIu64 " %s, %"
		    PRIu64 " already there, %" PRIu64 " in conflict\n",
		    im->pins_file, im->pins, im->pins_new, verb,
		    im->pins_there, im->pins_other);
	if (im->state_file == NULL) {
		printf("signing habits, arrival records: none (StateFile is "
		    "off)\n");
		return;
	}
	printf("signing habits from %s: %" PRIu64 " read, %" PRIu64 " %s, %"
	    PRIu64 " merged, %" PRIu64 " already there", im->state_file,
	    im->habits, im->habits_new, verb, im->habits_merged,
	    im->habits_there);
	if (im->habits_damaged > 0)
		printf(", %" PRIu64 " damaged (left out)", im->habits_damaged);
	printf("\narrival records from %s: %" PRIu64 " read, %" PRIu64
	    " %s, %" PRIu64 " already there", im->state_file, im->records,
	    im->imported, verb, im->there);
	if (im->unkept > 0)
		printf(", %" PRIu64 " copies past those the database keeps of "
		    "their Message-ID (left out)", im->unkept);
	if (im->too_old > 0)
		printf(", %" PRIu64 " older than ArrivalRetentionDays (%ld "
		    "days, left out)", im->too_old,
		    (long)cf->arrival_retention_days);
	putchar('\n');
}

int
db_import(const struct pa_config *cf, const struct db_import_opts *o)
{
	struct statedb_import im;
	struct sbuf line;
	struct pa_err err;
	int rc;

	memset(&im, 0, sizeof(im));
	im.state_file = o->state_file != NULL ? o->state_file : cf->state_file;
	im.pins_file = o->pins_file != NULL ? o->pins_file :
	    cf->patatt_tofu_pins;
	im.dry_run = o->dry_run;
	im.conflict = conflict;
	im.arg = &line;
	sbuf_init(&line, 4096);
	err.msg[0] = '\0';
	if (im.dry_run)
		printf("dry run: nothing is written\n");
	rc = statedb_import(cf, &im, &err);
	sbuf_release(&line);
	if (rc == 0 || im.pins + im.habits + im.records > 0)
		report(&im, cf, im.dry_run ? "to import" : "imported");
	if (rc == PA_ENOTFOUND) {
		cli_warn("%s (--state-file names another file)", err.msg);
		return CLI_EXIT_ERROR;
	}
	if (rc != 0) {
		cli_warn("%s%s", err.msg, im.pins + im.habits + im.records >
		    0 ? "; what was imported stays: run the import again to "
		    "go on" : "");
		return CLI_EXIT_ERROR;
	}
	if (im.pins_other > 0) {
		cli_warn("%" PRIu64 " %s of %s %s not imported: the "
		    "database pins another key for the identity (above); to "
		    "take the file's, 'patchattest tofu forget IDENTITY' and "
		    "import again", im.pins_other, im.pins_other == 1 ?
		    "pin" : "pins", im.pins_file, im.pins_other == 1 ? "was" :
		    "were");
		return IMPORT_EXIT_CONFLICT;
	}
	return CLI_EXIT_OK;
}
