/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cmd-hash.c - "patchattest hash": the attestation hashes of patch mails,
 * as attest-patches printed them (YAML blocks) or as tab-separated rows.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "base.h"

struct hash_run {
	int		 tsv;
	int		 variants;
	int		 mbox;
	struct mailmsg	*msg;		/* reused for every message */
	struct msghash	 hash;		/* likewise */
	struct cli_input in;		/* the current FILE and message name */
	struct sbuf	 row;		/* the name, escaped for --tsv */
	int		 status;	/* worst CLI_EXIT_* so far */
};

static struct hash_run run;

static const struct cli_opt hash_opts[] = {
	{ "tsv", 0, &run.tsv, NULL, NULL,
	    "one tab-separated row per message: name, attid, i, m, p" },
	{ "variants", 0, &run.variants, NULL, NULL,
	    "also print the hashes other tool and git versions computed" },
	CLI_OPT_MBOX(&run.mbox),
	{ NULL, 0, NULL, NULL, NULL, NULL }
};

const struct cli_cmd cli_cmd_hash = {
	.name = "hash",
	.run = cmd_hash,
	.synopsis = "[--tsv] [--variants] [--mbox] FILE...",
	.summary = "print the attestation hashes of patch mails",
	.about =
	    "Print the patch attestation hashes (attestation ID, i, m, p) of\n"
	    "each message that carries a patch, as attest-patches' YAML\n"
	    "blocks.  FILE \"-\" is standard input; a FILE may be up to 64 MiB,\n"
	    "and one that holds several mails needs --mbox.  Messages without\n"
	    "a patch are named on stderr and skipped.  Exit status: 0 when\n"
	    "every message was a patch, 1 when some were not, 2 on errors.",
	.opts = hash_opts,
};

static void	hash_status(int);
static void	hash_entry(const struct msghash_entry *);
static void	hash_message(const char *, size_t);
static void	hash_input(const char *);

/* hash_status - remember the worst outcome */
static void
hash_status(int status)
{
	if (status > run.status)
		run.status = status;
}

/* hash_entry - print one (i, m, p), labelled with --variants */
static void
hash_entry(const struct msghash_entry *e)
{
	char i[DIGEST_HEXLEN + 1], m[DIGEST_HEXLEN + 1], p[DIGEST_HEXLEN + 1];
	char buf[MSGHASH_ORIGIN_NAME_MAX];
	const char *origin = NULL;

	if (run.variants)
		origin = msghash_origin_name(e->origin, buf, sizeof(buf));
	digest_hex(i, e->i);
	digest_hex(m, e->m);
	digest_hex(p, e->p);
	if (run.tsv) {
		/* A file name may hold a tab or a line end: escaped. */
		sbuf_reset(&run.row);
		hdrfmt_escaped(&run.row, run.in.name.buf, run.in.name.len);
		printf("%s\t%s\t%s\t%s\t%s", run.row.buf, e->attid, i, m, p);
		if (origin != NULL)
			printf("\t%s", origin);
		putchar('\n');
		return;
	}
	if (origin != NULL && e->origin != 0)
		printf("# variant: %s\n", origin);
	printf("%s:\n  i: %s\n  m: %s\n  p: %s\n", e->attid, i, m, p);
}

/* hash_message - hash and print one message named run.name */
static void
hash_message(const char *data, size_t len)
{
	struct msghash *h = &run.hash;
	struct pa_err err;
	size_t k;
	int rc;

	switch ((rc = cli_hash(h, run.msg, data, len,
	    run.variants ? MSGHASH_VARIANTS : 0, &err))) {
	case 0:
		break;
	case PA_ENOMEM:
	case PA_ETOOBIG:
	case PA_ERROR:
		/* Our failure, not a property of the message. */
		cli_warn("%s: %s", run.in.name.buf, err.msg);
		hash_status(CLI_EXIT_ERROR);
		return;
	default:
		/* No patch, PA_EMAILINFO and the like: no attestation. */
		cli_warn("%s: %s", run.in.name.buf, err.msg);
		hash_status(CLI_EXIT_NOTPATCH);
		return;
	}
	for (k = 0; k < (run.variants ? h->n : 1); k++)
		hash_entry(&h->entry[k]);
}

/* hash_input - every message of one FILE operand */
static void
hash_input(const char *path)
{
	const char *msg;
	size_t len;
	int rc;

	if ((rc = cli_input_open(&run.in, path)) != 0) {
		hash_status(rc);
		return;
	}
	while (cli_input_next(&run.in, &msg, &len))
		hash_message(msg, len);
}

int
cmd_hash(int argc, char **argv)
{
	int i, n;

	if ((n = cli_parse(&cli_cmd_hash, argc, argv)) < 0)
		return n == CLI_PARSE_HELP ? CLI_EXIT_OK : CLI_EXIT_ERROR;
	if (n == 0) {
		cli_warn("hash: no FILE given");
		cli_usage(&cli_cmd_hash, cli_stderr);
		return CLI_EXIT_ERROR;
	}
	cli_input_init(&run.in, run.mbox);
	msghash_init(&run.hash);
	sbuf_init(&run.row, SBUF_NOMAX);
	if (mailmsg_new(&run.msg, CLI_MAX_INPUT) != 0) {
		cli_warn("%s", pa_strerror(PA_ENOMEM));
		return CLI_EXIT_ERROR;
	}
	for (i = 1; i <= n; i++)
		hash_input(argv[i]);
	msghash_release(&run.hash);
	sbuf_release(&run.row);
	mailmsg_free(run.msg);
	cli_input_release(&run.in);
	if (fflush(stdout) == EOF || ferror(stdout)) {
		cli_warn("standard output: %s", strerror(errno));
		return CLI_EXIT_ERROR;
	}
	return run.status;
}
