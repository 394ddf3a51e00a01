/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cmd-index.c - "patchattest index": build or update the attestation
 * index from the configured signatures archive.
 */
#include "config.h"
#include "pa-paths.h"

#include <stdio.h>
#include <unistd.h>

#include "cli.h"
#include "attest.h"
#include "base.h"
#include "sig.h"

static const char *index_conf;

static const struct cli_opt index_opts[] = {
	{ "config", 'c', NULL, &index_conf, "FILE",
	    "configuration file (default " PA_CONFIG_FILE ")" },
	{ NULL, 0, NULL, NULL, NULL, NULL }
};

const struct cli_cmd cli_cmd_index = {
	.name = "index",
	.run = cmd_index,
	.synopsis = "[-c FILE]",
	.summary = "build or update the attestation index from the archive",
	.about =
	    "Read the signatures archive from where the last run stopped,\n"
	    "verify every new attestation document with GnuPG and store what\n"
	    "it attests in the index.  Without an Archive, make the index if\n"
	    "it is not there (it keeps documents learnt from mail and keys\n"
	    "first seen) and leave it as it is.  Safe to run while the milter\n"
	    "reads the index.  Exit status: 0 on success, 2 on errors.",
	.opts = index_opts,
};

struct index_view {
	int	tty;		/* progress on a terminal */
	int	shown;		/* a progress line is on screen */
};

static void
index_warn(void *arg, const char *where, const char *what)
{
	struct index_view *v = arg;

	if (v->shown) {
		fputc('\n', cli_stderr);
		v->shown = 0;
	}
	cli_warn("%s: %s", where, what);
}

static void
index_progress(void *arg, const struct indexer_stats *st)
{
	struct index_view *v = arg;

	if (!v->tty)
		return;
	fprintf(cli_stderr, "\r[%-20.*s] %zu entries, %zu documents, %zu "
	    "attestations", (int)(st->entries / 256 % 21),
	    "####################", st->entries, st->documents,
	    st->attestations);
	v->shown = 1;
}

int
cmd_index(int argc, char **argv)
{
	struct index_view view = { isatty(STDERR_FILENO), 0 };
	struct indexer_hooks hooks = { index_warn, index_progress, NULL, &view };
	struct indexer_stats st = { 0 };
	struct pa_config cfg;
	struct attindex *ix = NULL;
	struct pgp *pgp = NULL;
	struct pa_err err = { "" };
	struct sbuf summary;
	int n, rc = CLI_EXIT_ERROR;

	if ((n = cli_parse(&cli_cmd_index, argc, argv)) < 0)
		return n == CLI_PARSE_HELP ? CLI_EXIT_OK : CLI_EXIT_ERROR;
	if (n != 0) {
		cli_warn("index: unexpected operand '%s' (the archive and "
		    "the index come from the configuration)", argv[1]);
		cli_usage(&cli_cmd_index, cli_stderr);
		return CLI_EXIT_ERROR;
	}
	config_init(&cfg);
	if (cli_load_config(&cfg, index_conf) != 0)
		goto out;
	if (attindex_open(&ix, cfg.index_path, 1, &err) != 0) {
		cli_warn("%s", err.msg);
		goto out;
	}
	if (err.msg[0])
		cli_warn("%s", err.msg);	/* upgraded from an earlier schema */
	if (cfg.archive == NULL) {
		printf("no Archive configured: the index at %s is ready for "
		    "what the milter learns from mail\n", cfg.index_path);
		rc = CLI_EXIT_OK;
		goto out;
	}
	if (pa_global_init(&err) != 0 ||
	    pgp_new(&pgp, cfg.gnupg_home, cfg.trust_model, &err) != 0) {
		cli_warn("%s", err.msg);
		goto out;
	}
	err.msg[0] = '\0';
	if (indexer_archive(&cfg, ix, pgp, &st, &hooks, &err) != 0) {
		if (view.shown)
			fputc('\n', cli_stderr);
		cli_warn("%s: %s", cfg.archive ? cfg.archive : "index",
		    err.msg);
		goto out;
	}
	if (view.shown)
		fputc('\n', cli_stderr);
	sbuf_init(&summary, SBUF_NOMAX);
	indexer_summary(&summary, &st);
	printf("%s\n", summary.len ? summary.buf : "out of memory");
	sbuf_release(&summary);
	rc = CLI_EXIT_OK;
out:
	pgp_free(pgp);
	attindex_close(ix);
	config_release(&cfg);
	return rc;
}
