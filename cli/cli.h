/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cli.h - the patchattest command: its subcommands (cmd-NAME.c), dispatched
 * by main.c, and the helpers they share (options.c, input.c).
 *
 * Each subcommand is "int cmd_NAME(int argc, char **argv)" with argv[0]
 * the subcommand's name; it returns the exit status.  Subcommands report
 * their own errors on stderr through cli_warn(), once, naming the input;
 * the library below them only returns codes and struct pa_err texts.
 *
 * Exit statuses: CLI_EXIT_OK, CLI_EXIT_NOTPATCH when some input was not
 * what the command expects (not a patch, not attested), CLI_EXIT_ERROR on
 * errors (input that cannot be read, or not as it was asked to be read;
 * bad usage; out of memory).
 */
#ifndef PA_CLI_H
#define PA_CLI_H

#include <stddef.h>
#include <stdio.h>
#include <time.h>

#include "mail.h"
#include "patchattest.h"
#include "base.h"

#define CLI_NAME		"patchattest"

/* The most bytes read from one input (64 MiB, as the manual says). */
#define CLI_MAX_INPUT		(64 * 1024 * 1024)

#define CLI_EXIT_OK		0
#define CLI_EXIT_NOTPATCH	1
#define CLI_EXIT_ERROR		2

/*
 * struct cli_opt - one row of a subcommand's option table, ended by a row
 * with name NULL.  A row either sets *flag to 1 or stores its argument in
 * *value ("--name VALUE", "--name=VALUE", or "-x VALUE" when it has a
 * letter).  The --help text is printed
 * from the same table.
 */
struct cli_opt {
	const char	*name;		/* long name without the "--" */
	char		 letter;	/* short form "-x", or 0 */
	int		*flag;
	const char	**value;
	const char	*argname;	/* placeholder shown in the help */
	const char	*help;		/* one line */
};

/*
 * struct cli_cmd - a subcommand: its name, the synopsis after the name,
 * a one-line summary and, for its --help, a paragraph and its options.
 */
struct cli_cmd {
	const char		*name;
	int			(*run)(int, char **);
	const char		*synopsis;
	const char		*summary;
	const char		*about;
	const struct cli_opt	*opts;
};

/* CLI_OPT_MBOX - the --mbox row of the commands that read mail files */
#define CLI_OPT_MBOX(flag)	{ "mbox", 0, (flag), NULL, NULL, \
	"each FILE is an mbox; its messages are named FILE:N" }

#define CLI_PARSE_HELP		(-2)

/*
 * cli_parse - parse the options of argv[1..argc-1] against cmd->opts.
 * Options and operands may be mixed; "--" ends the options and "-" is an
 * operand.  The operands are moved, in order, to argv[1..n] and n is
 * returned.  "-h"/"--help" prints the help on stdout and returns
 * CLI_PARSE_HELP; a bad option prints the usage on stderr and returns -1.
 */
int	cli_parse(const struct cli_cmd *cmd, int argc, char **argv);

/* cli_usage - the usage lines of cmd, to fp */
void	cli_usage(const struct cli_cmd *cmd, FILE *fp);

/*
 * cli_stderr - the real standard error: the stderr stream itself takes
 * the libraries' chatter away (pa_divert_stderr)
 */
extern FILE	*cli_stderr;

/*
 * cli_utc - t as UTC into out: CLI_UTC_TIME "2020-02-25T05:03:20Z" or
 * CLI_UTC_DAY "2020-02-25"; Unix seconds when it has no such form
 */
#define CLI_UTC_MAX	32
#define CLI_UTC_TIME	0
#define CLI_UTC_DAY	1
void	cli_utc(char out[CLI_UTC_MAX], time_t t, int day);

/*
 * cli_text - s, a stored field (whoever could send mail wrote it), as
 * text for a terminal or a tab-separated column, appended to out: every
 * control byte (tab and line end too, C1 as well) and byte that is not
 * UTF-8 escaped (hdrfmt_escaped()), "-" when s is empty
 */
void	cli_text(struct sbuf *out, const char *s);

/* cli_warn - "patchattest: " fmt "\n" on standard error */
void	cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * cli_shelter - when unlocked (ledger_reads_unlocked()), the rest of the
 * command in a child process (shelter.c), run again when LMDB trips
 * over a page the milter reused while it read: -1 in the child, which
 * goes on; in the parent, the exit status to return once the child's
 * output is passed on (fault when it could not be had).  Not unlocked:
 * -1, nothing done.  what names the file in a message.
 */
int	cli_shelter(int unlocked, const char *what, int fault);

/*
 * struct cli_input - the messages of FILE operands, one FILE at a time:
 * the file as one message named FILE, or, read as an mbox, each of its
 * messages named FILE:N.
 *
 * cli_input_init() once (mbox: read every FILE as an mbox), then for each
 * FILE cli_input_open() and cli_input_next() until it returns 0, and
 * cli_input_release() at the end.  The messages point into in->file and
 * stay valid until the next cli_input_open().
 */
struct cli_input {
	int		 mbox;
	struct sbuf	 file;		/* the FILE, whole */
	struct sbuf	 name;		/* the current message's name */
	const char	*path;
	struct mbox	 mb;
	size_t		 n;		/* messages handed out of this FILE */
};

void	cli_input_init(struct cli_input *in, int mbox);
void	cli_input_release(struct cli_input *in);

/*
 * cli_input_open - read path ("-": standard input).  CLI_EXIT_OK, or
 * CLI_EXIT_ERROR after saying why on stderr: unreadable, over
 * CLI_MAX_INPUT, with mbox not an mbox (empty, or no "From " line at the
 * start), without it an mbox of several mails (read whole, it would give
 * one false result).
 */
int	cli_input_open(struct cli_input *in, const char *path);

/* cli_input_next - 1 with the next message in *msg, *len, in->name; or 0 */
int	cli_input_next(struct cli_input *in, const char **msg, size_t *len);

/* The subcommands; each lives in cmd-NAME.c with its struct cli_cmd. */
extern const struct cli_cmd cli_cmd_arrived;
extern const struct cli_cmd cli_cmd_attest;
extern const struct cli_cmd cli_cmd_check;
extern const struct cli_cmd cli_cmd_hash;
extern const struct cli_cmd cli_cmd_index;
extern const struct cli_cmd cli_cmd_stats;
extern const struct cli_cmd cli_cmd_tofu;
extern const struct cli_cmd cli_cmd_db;

int	cmd_arrived(int argc, char **argv);
int	cmd_attest(int argc, char **argv);
int	cmd_check(int argc, char **argv);
int	cmd_hash(int argc, char **argv);
int	cmd_index(int argc, char **argv);
int	cmd_stats(int argc, char **argv);
int	cmd_tofu(int argc, char **argv);
int	cmd_db(int argc, char **argv);

/*
 * db_import - "patchattest db import" (db-import.c): cf's files, or
 * those o names, brought into its StateDatabase, and what came of it on
 * standard output.  Returns the exit status: CLI_EXIT_OK, 1 when some
 * pins conflict with the database's, CLI_EXIT_ERROR after saying why.
 */
struct db_import_opts {
	int		 dry_run;
	const char	*state_file, *pins_file;	/* NULL: cf's */
};

int	db_import(const struct pa_config *cf, const struct db_import_opts *o);

/*
 * cli_hash - data parsed as one mail into m, its hashes into h
 * (msghash_compute() with flags).  Returns 0 or its PA_E* code with err
 * saying why; a mail of nothing but blanks is PA_ENOPATCH ("no patch", the
 * words check uses), not git mailinfo's "empty patch".
 */
int	cli_hash(struct msghash *h, struct mailmsg *m, const char *data,
	    size_t len, unsigned flags, struct pa_err *err);

/*
 * cli_load_config - the configuration file path (NULL: the default one)
 * into cfg; problems are reported on stderr.  Returns 0 or
 * CLI_EXIT_ERROR.
 */
struct pa_config;
int	cli_load_config(struct pa_config *cfg, const char *path);
/*
 * cli_act_for_milter - run as root, a command that acts for the milter
 * (patchattest db) becomes UserID for good, as the milter does once its
 * socket is open, so that it reaches the database as the milter does
 * (with that user's passfile, read as that user).  Returns 0 or
 * CLI_EXIT_ERROR, said on stderr.
 */
int	cli_act_for_milter(const struct pa_config *cfg);

#endif
