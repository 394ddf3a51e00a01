/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cmd-db.c - "patchattest db": StateDatabase's schema made or migrated
 * (init), or its state said (status).
 */
#include "config.h"
#include "pa-paths.h"

#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "state.h"
#include "base.h"

static const char *db_conf;

static const struct cli_opt db_opts[] = {
	{ "config", 'c', NULL, &db_conf, "FILE",
	    "configuration file (default " PA_CONFIG_FILE ")" },
	{ NULL, 0, NULL, NULL, NULL, NULL }
};

const struct cli_cmd cli_cmd_db = {
	.name = "db",
	.run = cmd_db,
	.synopsis = "[-c FILE] init | status",
	.summary = "make, migrate or check the state database",
	.about =
	    "init: make the tables of StateDatabase (PostgreSQL), or migrate\n"
	    "them to this version, and let the user StateDatabaseReader names\n"
	    "read them; run it once, from any node.  status: say whether the\n"
	    "database answers and its schema is this version's.  Run as root,\n"
	    "it runs as UserID, with that user's passfile, as the milter does.\n"
	    "The password is never shown; it may come from libpq's passfile.\n"
	    "Exit status: 0, 1 when the schema is missing or of another\n"
	    "version, 2 on errors (the database cannot be reached).",
	.opts = db_opts,
};

int
cmd_db(int argc, char **argv)
{
	struct pa_config cfg;
	struct pa_err err;
	char reader[256];
	int n, rc, version, status = CLI_EXIT_ERROR;

	if ((n = cli_parse(&cli_cmd_db, argc, argv)) < 0)
		return n == CLI_PARSE_HELP ? CLI_EXIT_OK : CLI_EXIT_ERROR;
	if (n != 1 || (strcmp(argv[1], "init") != 0 &&
	    strcmp(argv[1], "status") != 0)) {
		cli_usage(&cli_cmd_db, cli_stderr);
		return CLI_EXIT_ERROR;
	}
	config_init(&cfg);
	if (cli_load_config(&cfg, db_conf) != 0 ||
	    cli_act_for_milter(&cfg) != 0)
		goto out;
	if (cfg.state_database == NULL) {
		cli_warn("no StateDatabase is configured: the state is in "
		    "files (StateFile, PatattTOFUPins)");
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
