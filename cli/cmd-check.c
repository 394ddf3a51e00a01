/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cmd-check.c - "patchattest check": the verdict on patch mails, as the
 * milter would give it.
 */
#include "config.h"
#include "pa-paths.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "attest.h"
#include "verdict.h"
#include "base.h"
#include "sig.h"
#include "state.h"

static const char *check_conf;
static int check_header;
static int check_mbox;
static int check_names;		/* --header for more than one message */
static struct pa_err index_fault;	/* why the index is not consulted */

static const struct cli_opt check_opts[] = {
	{ "config", 'c', NULL, &check_conf, "FILE",
	    "configuration file (default " PA_CONFIG_FILE ")" },
	{ "header", 0, &check_header, NULL, NULL,
	    "print the X-Patch-Attested header the milter would add" },
	CLI_OPT_MBOX(&check_mbox),
	{ NULL, 0, NULL, NULL, NULL, NULL }
};

const struct cli_cmd cli_cmd_check = {
	.name = "check",
	.run = cmd_check,
	.synopsis = "[-c FILE] [--header] [--mbox] FILE...",
	.summary = "check patch mails against the attestation index",
	.about =
	    "Print one line per message, tab-separated: its name, the verdict,\n"
	    "the attestation ID, the signer, the reason and, for a mail with\n"
	    "patatt signatures, each scheme's result (\"-\" for none).  With\n"
	    "--header, the header the milter would add instead, after a line\n"
	    "\"==> NAME <==\" when there are several FILEs or --mbox.  FILE \"-\"\n"
	    "is standard input; a FILE may be up to 64 MiB, and one that holds\n"
	    "several mails needs --mbox.  Exit status: 0 when every message\n"
	    "passes, 1 otherwise, 2 on errors.",
	.opts = check_opts,
};

/* add_field - a tab and s, escaped (mail and keys wrote it), or "-" */
static void
add_field(struct sbuf *line, const char *s)
{
	sbuf_addch(line, '\t');
	cli_text(line, s);
}

/*
 * check_line - the plain line: name (escaped), verdict, attid, signer,
 * reason, and with patatt signatures which scheme gave the verdict and
 * each's result
 */
static void
check_line(const char *name, const struct decision *d)
{
	struct sbuf line, schemes;

	sbuf_init(&line, SBUF_NOMAX);
	sbuf_init(&schemes, SBUF_NOMAX);
	if (d->has_patatt)
		sbuf_addf(&schemes, "scheme=%s",
		    d->scheme == SCHEME_PATATT ? "patatt" : "v0.1");
	if (d->has_patatt && d->has_patch)
		sbuf_addf(&schemes, " v0.1=%s", verdict_name(d->v01));
	if (d->has_patatt)
		sbuf_addf(&schemes, " patatt=%s", verdict_name(d->patatt));
	sbuf_addf(&line, "%s\t%s", name, verdict_name(d->result));
	add_field(&line, d->attid);
	add_field(&line, d->signer);
	add_field(&line, d->reason);
	add_field(&line, schemes.buf);
	printf("%s\n", line.buf);
	sbuf_release(&line);
	sbuf_release(&schemes);
}

/*
 * check_one - the verdict on one message, printed under name (escaped:
 * a file name may hold a tab or a line end); its CLI_EXIT_*
 */
static int
check_one(struct decider *dc, struct mailmsg *m, struct attindex *ix,
    const char *name, const char *data, size_t len)
{
	struct decision d;
	struct sbuf hdr;
	int rc;

	if ((rc = mailmsg_parse(m, data, len)) != 0) {
		cli_warn("%s: %s", name, pa_strerror(rc));
		return CLI_EXIT_ERROR;
	}
	/* Folded, a header has no room for the name: it goes before. */
	if (check_header && check_names)
		printf("==> %s <==\n", name);
	if (decide_begin(dc, m, time(NULL)) == PA_ENOPATCH) {
		if (check_header)
			printf("%s: no patch and no signature, no header\n",
			    name);
		else
			printf("%s\t-\t-\t-\tno patch, no signature\t-\n",
			    name);
		return CLI_EXIT_NOTPATCH;
	}
	/*
	 * Without an index nor an Archive, only signatures are judged; an
	 * index that cannot be opened makes what it would judge temperror.
	 */
	decide_end(dc, ix, index_fault.msg[0] ? index_fault.msg : NULL, &d);
	if (check_header) {
		sbuf_init(&hdr, 4096);
		header_verdict(&d, &hdr);
		printf("X-Patch-Attested: %s\n", hdr.buf);
		sbuf_release(&hdr);
	} else
		check_line(name, &d);
	if (d.result == VERDICT_TEMPERROR)
		return CLI_EXIT_ERROR;
	return d.result == VERDICT_PASS ? CLI_EXIT_OK : CLI_EXIT_NOTPATCH;
}

/* check_input - every message of one FILE operand; the worst CLI_EXIT_* */
static int
check_input(struct decider *dc, struct mailmsg *m, struct attindex *ix,
    struct cli_input *in, const char *path)
{
	struct sbuf name;
	const char *msg;
	size_t len;
	int rc, status;

	if ((status = cli_input_open(in, path)) != 0)
		return status;
	sbuf_init(&name, SBUF_NOMAX);
	while (cli_input_next(in, &msg, &len)) {
		sbuf_reset(&name);
		hdrfmt_escaped(&name, in->name.buf, in->name.len);
		if ((rc = check_one(dc, m, ix, name.buf, msg, len)) > status)
			status = rc;
	}
	sbuf_release(&name);
	return status;
}

int
cmd_check(int argc, char **argv)
{
	struct pa_config cfg;
	struct attindex *ix = NULL;
	struct pins *pins = NULL;
	struct decider *dc = NULL;
	struct mailmsg *m = NULL;
	struct cli_input in;
	struct pa_err err;
	int i, n, rc, status = CLI_EXIT_OK;

	if ((n = cli_parse(&cli_cmd_check, argc, argv)) < 0)
		return n == CLI_PARSE_HELP ? CLI_EXIT_OK : CLI_EXIT_ERROR;
	if (n == 0) {
		cli_warn("check: no FILE given");
		cli_usage(&cli_cmd_check, cli_stderr);
		return CLI_EXIT_ERROR;
	}
	config_init(&cfg);
	cli_input_init(&in, check_mbox);
	check_names = n > 1 || check_mbox;
	if (cli_load_config(&cfg, check_conf) != 0) {
		status = CLI_EXIT_ERROR;
		goto out;
	}
	/* A maintainer outside the milter's group still gets patatt's. */
	rc = attindex_open(&ix, cfg.index_path, 0, &index_fault);
	if (rc != 0 && (rc != PA_ENOTFOUND || cfg.archive != NULL))
		cli_warn("%s: 2020 attestations are not consulted, patatt "
		    "signatures are", index_fault.msg);
	else
		index_fault.msg[0] = '\0';
	if (pa_global_init(&err) != 0 ||
	    decider_new(&dc, &cfg, NULL, &err) != 0) {
		cli_warn("%s", err.msg);
		status = CLI_EXIT_ERROR;
		goto out;
	}
	/* Read only: a check pins nothing. */
	if (cfg.patatt_tofu == CONFIG_YES && statedb_pins_open(&pins, &cfg,
	    0, 0, NULL, &err) != 0)
		cli_warn("%s: keys only offered are temperror", err.msg);
	decider_use_pins(dc, pins, 0);
	if (mailmsg_new(&m, CLI_MAX_INPUT) != 0) {
		cli_warn("%s", pa_strerror(PA_ENOMEM));
		status = CLI_EXIT_ERROR;
		goto out;
	}
	for (i = 1; i <= n; i++)
		if ((rc = check_input(dc, m, ix, &in, argv[i])) > status)
			status = rc;
out:
	mailmsg_free(m);
	decider_free(dc);
	pins_close(pins);
	attindex_close(ix);
	cli_input_release(&in);
	config_release(&cfg);
	return status;
}
