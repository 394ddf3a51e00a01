/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * input.c - what the subcommands read: FILE operands whole, as one mail
 * or as an mbox of many, each mail hashed; and the configuration file.
 */
#include "config.h"
#include "pa-paths.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "base.h"

static int	too_big(const struct sbuf *, struct pa_err *);
static int	read_fd(struct sbuf *, int, struct pa_err *);
static int	read_file(struct sbuf *, const char *, struct pa_err *);
static int	is_mbox(const char *, size_t);
static int	is_field(const char *, size_t);
static size_t	mail_count(const char *, size_t);
static int	is_blank(const char *, size_t);

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

int
cli_act_for_milter(const struct pa_config *cfg)
{
	struct runas ra;
	struct pa_err err;

	if (getuid() != 0 || cfg->user_id == NULL)
		return 0;
	if (runas_lookup(&ra, cfg->user_id, &err) != 0) {
		cli_warn("UserID %s: %s", cfg->user_id, err.msg);
		return CLI_EXIT_ERROR;
	}
	if (ra.uid != 0 && runas_become(&ra, &err) != 0) {
		cli_warn("%s", err.msg);
		return CLI_EXIT_ERROR;
	}
	return 0;
}
