/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * main.c - patchattest [-V] [-h] COMMAND [ARGS]: dispatch to a
 * subcommand, and the helpers the subcommands share (option parsing from a
 * table, reading an input file whole and walking its messages, warnings).
 */
#include "config.h"
#include "pa-paths.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "base.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION	"unknown"
#endif


static const struct cli_cmd *cli_find(const char *);
static const struct cli_opt *cli_find_opt(const struct cli_opt *,
		    const char *, size_t);
static void	cli_help(const struct cli_cmd *);
static void	main_usage(FILE *);
static int	too_big(const struct sbuf *, struct pa_err *);
static int	read_fd(struct sbuf *, int, struct pa_err *);
static int	read_file(struct sbuf *, const char *, struct pa_err *);
static int	is_mbox(const char *, size_t);
static int	is_field(const char *, size_t);
static size_t	mail_count(const char *, size_t);
static int	is_blank(const char *, size_t);

/* The subcommands, in the order --help lists them. */
static const struct cli_cmd *const cli_cmds[] = {
	&cli_cmd_hash,
	&cli_cmd_attest,
	&cli_cmd_index,
	&cli_cmd_check,
};

#define NCMDS	(sizeof(cli_cmds) / sizeof(cli_cmds[0]))

FILE	*cli_stderr;

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

/* too_big - PA_ETOOBIG, err naming the limit as the manual gives it */
static int
too_big(const struct sbuf *sb, struct pa_err *err)
{
	snprintf(err->msg, sizeof(err->msg),
	    "larger than the input limit of %zu MiB", sb->max >> 20);
	return PA_ETOOBIG;
}

/* read_fd - the rest of fd appended to sb, failing past sb->max bytes */
static int
read_fd(struct sbuf *sb, int fd, struct pa_err *err)
{
	int rc;

	if ((rc = sbuf_read_fd(sb, fd)) == PA_ETOOBIG)
		too_big(sb, err);
	else if (rc == PA_ERROR)
		snprintf(err->msg, sizeof(err->msg), "%s", strerror(errno));
	else if (rc != 0)
		snprintf(err->msg, sizeof(err->msg), "%s", pa_strerror(rc));
	return rc;
}

/*
 * read_file - the whole of path ("-": standard input) into sb, replacing
 * its contents; at most sb->max bytes, a whole number of MiB (the message
 * names it so).  Returns 0, PA_ETOOBIG when the input is larger,
 * PA_ENOMEM, or PA_ERROR; on failure err holds the reason (not the path).
 */
static int
read_file(struct sbuf *sb, const char *path, struct pa_err *err)
{
	struct stat st;
	int fd, rc;

	sbuf_reset(sb);
	if (strcmp(path, "-") == 0)
		return read_fd(sb, STDIN_FILENO, err);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		snprintf(err->msg, sizeof(err->msg), "%s", strerror(errno));
		return PA_ERROR;
	}
	/* Refuse a regular file over the cap before reading any of it. */
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    (unsigned long long)st.st_size > sb->max)
		rc = too_big(sb, err);
	else
		rc = read_fd(sb, fd, err);
	close(fd);
	return rc;
}

/* is_mbox - does data start as an mbox does, with a "From " line? */
static int
is_mbox(const char *data, size_t len)
{
	return len >= 5 && memcmp(data, "From ", 5) == 0;
}

/* is_field - does the text start with a header field's "Name:"? */
static int
is_field(const char *s, size_t len)
{
	size_t k;

	for (k = 0; k < len && s[k] > ' ' && s[k] < 0x7f && s[k] != ':'; k++)
		;
	return k > 0 && k < len && s[k] == ':';
}

/*
 * mail_count - how many mails data holds: 1 unless it starts as an mbox
 * does, then its messages that open with a header field (a commit message
 * may have a line of its own starting with "From ", which git format-patch
 * writes unescaped)
 */
static size_t
mail_count(const char *data, size_t len)
{
	struct mbox mb;
	const char *msg;
	size_t n = 0, mlen;

	if (!is_mbox(data, len))
		return 1;
	mbox_init(&mb, data, len);
	while (mbox_next(&mb, &msg, &mlen))
		n += is_field(msg, mlen);
	return n;
}

void
cli_input_init(struct cli_input *in, int mbox)
{
	in->mbox = mbox;
	sbuf_init(&in->file, CLI_MAX_INPUT);
	sbuf_init(&in->name, SBUF_NOMAX);
	in->path = NULL;
	in->n = 0;
}

void
cli_input_release(struct cli_input *in)
{
	sbuf_release(&in->file);
	sbuf_release(&in->name);
}

int
cli_input_open(struct cli_input *in, const char *path)
{
	struct pa_err err;
	size_t n;

	in->path = path;
	in->n = 0;
	if (read_file(&in->file, path, &err) != 0) {
		cli_warn("%s: %s", path, err.msg);
		return CLI_EXIT_ERROR;
	}
	if (in->mbox && in->file.len == 0) {
		cli_warn("%s: not an mbox: the file is empty", path);
		return CLI_EXIT_ERROR;
	}
	if (in->mbox && !is_mbox(in->file.buf, in->file.len)) {
		/* Python's mailbox would skip to a "From " line in the body. */
		cli_warn("%s: not an mbox: it does not begin with a \"From \" "
		    "line", path);
		return CLI_EXIT_ERROR;
	}
	if (in->mbox) {
		mbox_init(&in->mb, in->file.buf, in->file.len);
		return CLI_EXIT_OK;
	}
	/* Read as one message, an mbox of several would give a false result. */
	if ((n = mail_count(in->file.buf, in->file.len)) > 1) {
		cli_warn("%s: an mbox of %zu messages: give --mbox to read "
		    "each of them", path, n);
		return CLI_EXIT_ERROR;
	}
	return CLI_EXIT_OK;
}

int
cli_input_next(struct cli_input *in, const char **msg, size_t *len)
{
	sbuf_reset(&in->name);
	if (in->mbox) {
		if (!mbox_next(&in->mb, msg, len))
			return 0;
		sbuf_addf(&in->name, "%s:%zu", in->path, ++in->n);
		return 1;
	}
	if (in->n++ > 0)
		return 0;
	*msg = in->file.buf;
	*len = in->file.len;
	sbuf_addstr(&in->name, in->path);
	return 1;
}

/* is_blank - nothing but the blanks git mailinfo skips before a mail */
static int
is_blank(const char *s, size_t len)
{
	size_t k;

	for (k = 0; k < len; k++)
		if (s[k] != ' ' && s[k] != '\t' && s[k] != '\n' && s[k] != '\r')
			return 0;
	return 1;
}

int
cli_hash(struct msghash *h, struct mailmsg *m, const char *data, size_t len,
    unsigned flags, struct pa_err *err)
{
	int rc;

	err->msg[0] = '\0';
	if ((rc = mailmsg_parse(m, data, len)) == 0)
		rc = msghash_compute(h, m, flags, err);
	/* git mailinfo calls it an empty patch; check says no patch. */
	if (rc == PA_EMAILINFO && is_blank(data, len)) {
		rc = PA_ENOPATCH;
		err->msg[0] = '\0';
	}
	if (rc != 0 && err->msg[0] == '\0')
		snprintf(err->msg, sizeof(err->msg), "%s", pa_strerror(rc));
	return rc;
}

int
cli_load_config(struct pa_config *cfg, const char *path)
{
	struct sbuf problems;
	struct stat st;
	int rc;

	/* Without -c, a missing default file means the built-in defaults. */
	if (path == NULL) {
		if (stat(PA_CONFIG_FILE, &st) != 0)
			return 0;
		path = PA_CONFIG_FILE;
	}
	sbuf_init(&problems, 1 << 16);
	if ((rc = config_load(cfg, path, &problems)) != 0)
		fputs(problems.len ? problems.buf : "configuration error\n",
		    cli_stderr);
	sbuf_release(&problems);
	return rc == 0 ? 0 : CLI_EXIT_ERROR;
}
