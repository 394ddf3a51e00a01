/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cmd-db.c - "patchattest db": StateDatabase's schema made or migrated
 * (init), its state said (status), or a node's files brought into it
 * (import, db-import.c).
 */
#include "config.h"
#include "pa-paths.h"

#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "state.h"
#include "base.h"

static const char *db_conf;
static struct db_import_opts db_import_opts;

static const struct cli_opt db_opts[] = {
	{ "config", 'c', NULL, &db_conf, "FILE",
	    "configuration file (default " PA_CONFIG_FILE ")" },
	{ "dry-run", 'n', &db_import_opts.dry_run, NULL, NULL,
	    "import: say what would be imported, write nothing" },
	{ "state-file", 0, NULL, &db_import_opts.state_file, "FILE",
	    "import: the records and habits of FILE (default: StateFile)" },
	{ "pins", 0, NULL, &db_import_opts.pins_file, "FILE",
	    "import: the pins of FILE (default: PatattTOFUPins)" },
	{ NULL, 0, NULL, NULL, NULL, NULL }
};

const struct cli_cmd cli_cmd_db = {
	.name = "db",
	.run = cmd_db,
	.synopsis = "[-c FILE] init | status | import [-n] [--state-file FILE] "
	    "[--pins FILE]",
	.summary = "make, migrate, check or fill the state database",
	.about =
	    "init: make the tables of StateDatabase (PostgreSQL), or migrate\n"
	    "them to this version, and let the user StateDatabaseReader names\n"
	    "read them; run it once, from any node.  status: say whether the\n"
	    "database answers and its schema is this version's.\n"
	    "import: bring this node's files into it: the pins of\n"
	    "PatattTOFUPins, the signing habits and arrival records of\n"
	    "StateFile (those ArrivalRetentionDays keeps); what is there\n"
	    "stays, so it may run again, and on several nodes at once.  A pin\n"
	    "of another key than the database's is said and not imported.\n"
	    "The files are read as the milter may be writing them.  Run as\n"
	    "root, it runs as UserID, with that user's passfile, as the milter\n"
	    "does.\n"
	    "The password is never shown; it may come from libpq's passfile.\n"
	    "Exit status: 0, 1 when the schema is missing or of another\n"
	    "version (status) or some pins conflict (import), 2 on errors\n"
	    "(the database cannot be reached, a file cannot be read).",
	.opts = db_opts,
};

/* usage_ok - one subcommand, and import's options with import only */
static int
usage_ok(int n, char **argv, int *import)
{
	*import = n == 1 && strcmp(argv[1], "import") == 0;
	if (n != 1 || *import)
		return n == 1;
	return (strcmp(argv[1], "init") == 0 ||
	    strcmp(argv[1], "status") == 0) && !db_import_opts.dry_run &&
	    db_import_opts.state_file == NULL &&
	    db_import_opts.pins_file == NULL;
}

int
cmd_db(int argc, char **argv)
{
	struct pa_config cfg;
	struct pa_err err;
	char reader[256];
	int n, rc, version, import, status = CLI_EXIT_ERROR;

	if ((n = cli_parse(&cli_cmd_db, argc, argv)) < 0)
		return n == CLI_PARSE_HELP ? CLI_EXIT_OK : CLI_EXIT_ERROR;
	if (!usage_ok(n, argv, &import)) {
		cli_usage(&cli_cmd_db, cli_stderr);
		return CLI_EXIT_ERROR;
	}
	config_init(&cfg);
	if (cli_load_config(&cfg, db_conf) != 0 ||
	    cli_act_for_milter(&cfg) != 0)
		goto out;
	if (cfg.state_database == NULL) {
		cli_warn("no StateDatabase is configured: the state is in "
		    "files (StateFile, PatattTOFUPins)%s", import ? "; set "
		    "it, to the database the files are to go to" : "");
		goto out;
	}
	if (import) {
		status = db_import(&cfg, &db_import_opts);
		goto out;
	}
	if (strcmp(argv[1], "init") == 0) {
		if ((rc = statedb_init(&cfg, &version, &err)) == 0) {
			if (version == STATEDB_VERSION)
				printf("schema version %d: already made\n",
				    version);
			else
				printf("schema version %d: made (was %d)\n",
				    STATEDB_VERSION, version);
			if (statedb_reader(&cfg, reader, sizeof(reader)))
				printf("%s may read it (StateDatabaseReader)\n",
				    reader);
			status = CLI_EXIT_OK;
		} else
			cli_warn("%s", err.msg);
		goto out;
	}
	rc = statedb_status(&cfg, &version, &err);
	if (rc == 0) {
		printf("schema version %d: ok\n", version);
		status = CLI_EXIT_OK;
	} else {
		cli_warn("%s", err.msg);
		status = rc == PA_ENOTFOUND ? 1 : CLI_EXIT_ERROR;
	}
out:
	config_release(&cfg);
	return status;
}
