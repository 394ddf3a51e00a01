/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cmd-tofu.c - "patchattest tofu": the keys PatattTOFU trusts on first
 * use, listed, and forgotten so that an identity's next patch pins again.
 */
#include "config.h"
#include "pa-paths.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "state.h"
#include "base.h"

static const char *tofu_conf;
static int tofu_json;

static const struct cli_opt tofu_opts[] = {
	{ "config", 'c', NULL, &tofu_conf, "FILE",
	    "configuration file (default " PA_CONFIG_FILE ")" },
	{ "json", 0, &tofu_json, NULL, NULL,
	    "list: one JSON object per line" },
	{ NULL, 0, NULL, NULL, NULL, NULL }
};

const struct cli_cmd cli_cmd_tofu = {
	.name = "tofu",
	.run = cmd_tofu,
	.synopsis = "[-c FILE] [--json] list | forget IDENTITY...",
	.summary = "list or forget the keys trusted on first use",
	.about =
	    "list: one line per identity pinned by PatattTOFU, tab-separated:\n"
	    "the identity, the key, and when it was pinned (UTC); with --json,\n"
	    "one object per line.  forget: remove the pins of the IDENTITYs\n"
	    "(in any case), so that the next patch signed for each pins its\n"
	    "key again.  The pins are the file PatattTOFUPins names.  Exit\n"
	    "status: 0, 1 when an IDENTITY had no pin, 2 on errors.",
	.opts = tofu_opts,
};

/* show - one pin on standard output */
static int
show(void *arg, const struct pin *p)
{
	struct sbuf *line = arg;
	struct tm tm;
	char when[32];

	if (gmtime_r(&p->since, &tm) == NULL ||
	    strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(when, sizeof(when), "%lld", (long long)p->since);
	sbuf_reset(line);
	if (tofu_json) {
		sbuf_addstr(line, "{\"identity\": ");
		hdrfmt_quoted(line, p->identity);
		sbuf_addstr(line, ", \"key\": ");
		hdrfmt_quoted(line, p->key);
		sbuf_addf(line, ", \"since\": \"%s\"}", when);
	} else {
		hdrfmt_escaped(line, p->identity, strlen(p->identity));
		sbuf_addch(line, '\t');
		hdrfmt_escaped(line, p->key, strlen(p->key));
		sbuf_addf(line, "\t%s", when);
	}
	if (sbuf_failed(line))
		return PA_ENOMEM;
	puts(line->buf);
	return 0;
}

/* forget - the pins of argv[2..argc), CLI_EXIT_* */
static int
forget(struct pins *pins, int argc, char **argv)
{
	struct pa_err err;
	int i, rc, status = CLI_EXIT_OK;

	for (i = 2; i < argc; i++) {
		if ((rc = pins_forget(pins, argv[i], &err)) == 0)
			continue;
		cli_warn("%s", err.msg);
		if (rc != PA_ENOTFOUND)
			return CLI_EXIT_ERROR;
		status = CLI_EXIT_NOTPATCH;
	}
	return status;
}

int
cmd_tofu(int argc, char **argv)
{
	struct pa_config cfg;
	struct pins *pins = NULL;
	struct sbuf line;
	struct pa_err err;
	int n, list, status = CLI_EXIT_ERROR;

	if ((n = cli_parse(&cli_cmd_tofu, argc, argv)) < 0)
		return n == CLI_PARSE_HELP ? CLI_EXIT_OK : CLI_EXIT_ERROR;
	list = n == 1 && strcmp(argv[1], "list") == 0;
	if (!list && (n < 2 || strcmp(argv[1], "forget") != 0)) {
		cli_usage(&cli_cmd_tofu, cli_stderr);
		return CLI_EXIT_ERROR;
	}
	config_init(&cfg);
	sbuf_init(&line, 4096);
	err.msg[0] = '\0';
	if (cli_load_config(&cfg, tofu_conf) != 0)
		goto out;
	if (statedb_pins_open(&pins, &cfg, 0, !list, NULL, &err) != 0) {
		cli_warn("%s", err.msg);
		goto out;
	}
	if (!list)
		status = forget(pins, n + 1, argv);
	else if (pins_each(pins, show, &line, &err) != 0)
		cli_warn("%s", err.msg[0] ? err.msg : pa_strerror(PA_ENOMEM));
	else
		status = CLI_EXIT_OK;
out:
	pins_close(pins);
	sbuf_release(&line);
	config_release(&cfg);
	return status;
}
