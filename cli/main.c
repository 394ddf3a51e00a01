/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * main.c - patchattest [-V] [-h] COMMAND [ARGS]: dispatch to a
 * subcommand.  What the subcommands share is in options.c (the command
 * line, usage and warnings) and input.c (mail files, the configuration).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "base.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION	"unknown"
#endif

static const struct cli_cmd *cli_find(const char *);
static void	main_usage(FILE *);

/* The subcommands, in the order --help lists them. */
static const struct cli_cmd *const cli_cmds[] = {
	&cli_cmd_hash,
	&cli_cmd_attest,
	&cli_cmd_index,
	&cli_cmd_check,
	&cli_cmd_tofu,
	&cli_cmd_db,
	&cli_cmd_arrived,
	&cli_cmd_stats,
};

#define NCMDS	(sizeof(cli_cmds) / sizeof(cli_cmds[0]))

int
main(int argc, char **argv)
{
	const struct cli_cmd *cmd;
	int i;

	/* librnp's diagnostics are no business of the command's user. */
	if ((cli_stderr = pa_divert_stderr(NULL)) == NULL)
		cli_stderr = stderr;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "--version") == 0 ||
		    strcmp(argv[i], "-V") == 0) {
			printf("%s %s\n", CLI_NAME, PACKAGE_VERSION);
			return CLI_EXIT_OK;
		}
		if (strcmp(argv[i], "--help") == 0 ||
		    strcmp(argv[i], "-h") == 0) {
			main_usage(stdout);
			return CLI_EXIT_OK;
		}
		if (strcmp(argv[i], "--") == 0) {
			i++;
			break;
		}
		cli_warn("unknown option '%s'", argv[i]);
		main_usage(cli_stderr);
		return CLI_EXIT_ERROR;
	}
	if (i >= argc) {
		main_usage(cli_stderr);
		return CLI_EXIT_ERROR;
	}
	if ((cmd = cli_find(argv[i])) == NULL) {
		cli_warn("unknown command '%s'", argv[i]);
		main_usage(cli_stderr);
		return CLI_EXIT_ERROR;
	}
	return cmd->run(argc - i, argv + i);
}

static const struct cli_cmd *
cli_find(const char *name)
{
	size_t i;

	for (i = 0; i < NCMDS; i++)
		if (strcmp(cli_cmds[i]->name, name) == 0)
			return cli_cmds[i];
	return NULL;
}

static void
main_usage(FILE *fp)
{
	size_t i;

	fprintf(fp, "usage: %s [-V | --version] [-h | --help] COMMAND "
	    "[ARGS]\n\nCommands:\n", CLI_NAME);
	for (i = 0; i < NCMDS; i++)
		fprintf(fp, "  %-10s %s\n", cli_cmds[i]->name,
		    cli_cmds[i]->summary);
	fprintf(fp, "\nRun '%s COMMAND --help' for a command's options.\n",
	    CLI_NAME);
}
