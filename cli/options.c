/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * options.c - the command line of a subcommand: options parsed from its
 * table, its usage and --help, and warnings on the real standard error.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const struct cli_opt *cli_find_opt(const struct cli_opt *,
		    const char *, size_t);
static void	cli_help(const struct cli_cmd *);

FILE	*cli_stderr;

void
cli_warn(const char *fmt, ...)
{
	va_list ap;

	fputs(CLI_NAME ": ", cli_stderr);
	va_start(ap, fmt);
	vfprintf(cli_stderr, fmt, ap);
	va_end(ap);
	fputc('\n', cli_stderr);
}

void
cli_usage(const struct cli_cmd *cmd, FILE *fp)
{
	fprintf(fp, "usage: %s %s %s\n", CLI_NAME, cmd->name, cmd->synopsis);
}

/* cli_help - the --help text of cmd, from its option table */
static void
cli_help(const struct cli_cmd *cmd)
{
	const struct cli_opt *o;
	char left[64];

	cli_usage(cmd, stdout);
	printf("\n%s\n\nOptions:\n", cmd->about);
	for (o = cmd->opts; o->name != NULL; o++) {
		char letter[8] = "";

		if (o->letter)
			snprintf(letter, sizeof(letter), "-%c, ", o->letter);
		if (o->value != NULL)
			snprintf(left, sizeof(left), "%s--%s=%s", letter,
			    o->name, o->argname);
		else
			snprintf(left, sizeof(left), "%s--%s", letter, o->name);
		printf("  %-22s %s\n", left, o->help);
	}
	printf("  %-22s %s\n", "-h, --help", "show this help");
}

static const struct cli_opt *
cli_find_opt(const struct cli_opt *opts, const char *name, size_t len)
{
	const struct cli_opt *o;

	for (o = opts; o->name != NULL; o++)
		if (strlen(o->name) == len && memcmp(o->name, name, len) == 0)
			return o;
	return NULL;
}

int
cli_parse(const struct cli_cmd *cmd, int argc, char **argv)
{
	const struct cli_opt *o;
	const char *arg, *eq;
	size_t len;
	int i, n, opts_done;

	n = 0;
	opts_done = 0;
	for (i = 1; i < argc; i++) {
		arg = argv[i];
		if (opts_done || arg[0] != '-' || arg[1] == '\0') {
			argv[++n] = argv[i];
			continue;
		}
		if (strcmp(arg, "--") == 0) {
			opts_done = 1;
			continue;
		}
		if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
			cli_help(cmd);
			return CLI_PARSE_HELP;
		}
		o = NULL;
		eq = NULL;
		if (arg[1] == '-') {
			eq = strchr(arg + 2, '=');
			len = eq ? (size_t)(eq - (arg + 2)) : strlen(arg + 2);
			o = cli_find_opt(cmd->opts, arg + 2, len);
		} else if (arg[2] == '\0') {
			for (o = cmd->opts; o->name != NULL; o++)
				if (o->letter == arg[1])
					break;
			if (o->name == NULL)
				o = NULL;
		}
		if (o == NULL) {
			cli_warn("%s: unknown option '%s'", cmd->name, arg);
			cli_usage(cmd, cli_stderr);
			return -1;
		}
		if (o->flag != NULL) {
			if (eq != NULL) {
				cli_warn("%s: option '--%s' takes no value",
				    cmd->name, o->name);
				cli_usage(cmd, cli_stderr);
				return -1;
			}
			*o->flag = 1;
		} else if (eq != NULL)
			*o->value = eq + 1;
		else if (i + 1 < argc)
			*o->value = argv[++i];
		else {
			cli_warn("%s: option '--%s' needs a value", cmd->name,
			    o->name);
			cli_usage(cmd, cli_stderr);
			return -1;
		}
	}
	return n;
}

void
cli_text(struct sbuf *out, const char *s)
{
	if (*s == '\0')
		sbuf_addch(out, '-');
	else
		hdrfmt_escaped(out, s, strlen(s));
}

void
cli_utc(char out[CLI_UTC_MAX], time_t t, int day)
{
	struct tm tm;

	if (gmtime_r(&t, &tm) == NULL || strftime(out, CLI_UTC_MAX,
	    day ? "%Y-%m-%d" : "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(out, CLI_UTC_MAX, "%lld", (long long)t);
}
