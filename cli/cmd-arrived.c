/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cmd-arrived.c - "patchattest arrived": is this what arrived here?  Each
 * message (a b4 am mbox, mail files, a Maildir's files) is looked up in
 * the ledger by Message-ID, else by patch-id, and set beside what
 * arrived.
 */
#include "config.h"
#include "pa-paths.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "arrived.h"
#include "cli.h"
#include "attest.h"
#include "base.h"
#include "state.h"
#include "verdict.h"

/* Exit statuses of this command (its manual says them). */
#define ARRIVED_EXIT_DIFFERS	1
#define ARRIVED_EXIT_NEVER	2
#define ARRIVED_EXIT_FAULT	3
#define ARRIVED_EXIT_COPIES	4

static const char *arrived_conf;
static int arrived_json;
static int arrived_mbox;

static const struct cli_opt arrived_opts[] = {
	{ "config", 'c', NULL, &arrived_conf, "FILE",
	    "configuration file (default " PA_CONFIG_FILE ")" },
	{ "json", 0, &arrived_json, NULL, NULL,
	    "one JSON object per line, per message" },
	CLI_OPT_MBOX(&arrived_mbox),
	{ NULL, 0, NULL, NULL, NULL, NULL }
};

const struct cli_cmd cli_cmd_arrived = {
	.name = "arrived",
	.run = cmd_arrived,
	.synopsis = "[-c FILE] [--json] [--mbox] FILE|MAILDIR...",
	.summary = "say whether patch mails are what arrived here",
	.about =
	    "Read each message (a mail file, with --mbox each mail of an mbox,\n"
	    "each mail of a Maildir folder), look it up in the StateFile by\n"
	    "Message-ID, else by patch-id, and print one line: its name, then\n"
	    "identical (with when it arrived, its verdict and list),\n"
	    "identical-with-trailers (only trailers were added: they are named),\n"
	    "differs (naming the parts: author/subject, commit message, diff),\n"
	    "never-arrived, or copies-differ: the copies of its Message-ID that\n"
	    "arrived are not one mail (someone sent their own version, or a relay\n"
	    "changed it), whichever this message matches; a line more for each\n"
	    "copy then says where it came from and which one this message is.\n"
	    "Exit status: 0 all identical, 1 some differ, 2 some never arrived\n"
	    "and none differ, 4 the copies of some differ, 3 on errors (a message\n"
	    "or the StateFile cannot be read).",
	.opts = arrived_opts,
};

struct arrived_run {
	struct ledger		*lg;
	struct mailmsg		*m;
	struct mailfacts	 facts;
	struct arrival		 cur;
	struct match		 mt;
	struct cli_input	 in;
};

/*
 * collect - fn of the ledger's reads: a record set beside the message,
 * and for a Message-ID kept among its copies and set beside the first
 */
static int
collect(void *arg, const struct arrival *a)
{
	struct match *mt = arg;
	unsigned parts;
	int o;

	if (strcmp(mt->by, "message-id") == 0) {
		if (mt->ncopies > 0 && arrival_compare(a, &mt->copy[0],
		    &parts) != ARRIVAL_SAME)
			mt->differ_parts |= parts ? parts : ARRIVAL_PART_M;
		if (mt->ncopies < ARRIVED_COPIES_MAX)
			mt->copy[mt->ncopies++] = *a;
	}
	mt->total++;
	o = (int)arrival_compare(mt->cur, a, &parts);
	if (o < mt->o) {
		mt->o = o;
		mt->parts = parts;
		mt->best = *a;
	}
	return 0;
}

/*
 * lookup - the records of cur's Message-ID (and what the store counted of
 * its copies), else its patch-id, into mt
 */
static int
lookup(struct arrived_run *r, struct match *mt, struct pa_err *err)
{
	const struct arrival *cur = mt->cur;
	const char *id = r->facts.id;
	size_t len = r->facts.id_len;
	int rc = PA_ENOTFOUND;

	mt->by = "message-id";
	if (id != NULL && len > 0 &&
	    (rc = ledger_by_message_id_bytes(r->lg, id, len, collect, mt,
	    err)) == 0 && (rc = ledger_copies(r->lg, id, len, &mt->counted,
	    err)) == PA_ENOTFOUND)
		rc = 0;		/* only queued, none written yet */
	if (rc == 0 && mt->counted.arrived < mt->total)
		mt->counted.arrived = mt->counted.kept = (unsigned)mt->total;
	if (rc == PA_ENOTFOUND && cur->patch_id[0]) {
		mt->by = "patch-id";
		rc = ledger_by_patch_id(r->lg, cur->patch_id, collect, mt,
		    err);
	}
	return rc == PA_ENOTFOUND ? 0 : rc;
}

/* arrived_one - one message: its exit status */
static int
arrived_one(struct arrived_run *r, const char *name, const char *data,
    size_t len)
{
	struct arrival *cur = &r->cur;
	struct match *mt = &r->mt;
	struct pa_err err;
	int rc;

	/* what the mail gives of its record, read as the milter reads it */
	if ((rc = mailmsg_parse(r->m, data, len)) == 0) {
		(void)mailfacts_read(&r->facts, r->m, 0);
		rc = mailfacts_record(&r->facts, cur, &err);
	}
	if (rc != 0) {
		cli_warn("%s: %s", name, pa_strerror(rc));
		return ARRIVED_EXIT_FAULT;
	}
	mt->cur = cur;
	mt->o = ARRIVED_NEVER;
	mt->parts = mt->differ_parts = 0;
	mt->total = mt->ncopies = 0;
	memset(&mt->counted, 0, sizeof(mt->counted));
	if (lookup(r, mt, &err) != 0) {
		cli_warn("%s: %s", name, err.msg);
		return ARRIVED_EXIT_FAULT;
	}
	arrived_report(name, mt, arrived_json);
	switch (arrived_outcome(mt)) {
	case ARRIVED_COPIES_DIFFER:
		return ARRIVED_EXIT_COPIES;
	case ARRIVAL_DIFFERS:
		return ARRIVED_EXIT_DIFFERS;
	case ARRIVED_NEVER:
		return ARRIVED_EXIT_NEVER;
	default:
		return CLI_EXIT_OK;
	}
}

/*
 * worse - the status of two: a fault, then copies that differ, then a
 * message that differs, then one that never arrived
 */
static int
worse(int a, int b)
{
	static const int rank[] = { 0, 2, 1, 4, 3 };

	return rank[b] > rank[a] ? b : a;
}


/* arrived_file - the message(s) of the file (or mbox) at path */
static int
arrived_file(struct arrived_run *r, const char *path)
{
	const char *msg;
	size_t len;
	int status;

	if (cli_input_open(&r->in, path) != 0)
		return ARRIVED_EXIT_FAULT;
	status = CLI_EXIT_OK;
	while (cli_input_next(&r->in, &msg, &len))
		status = worse(status, arrived_one(r, r->in.name.buf, msg,
		    len));
	return status;
}

/* arrived_maildir - each message of the Maildir at path (cur/, new/) */
static int
arrived_maildir(struct arrived_run *r, const char *path)
{
	struct archive *ar;
	struct archive_entry e;
	struct pa_err err;
	struct sbuf name;
	int rc, status = CLI_EXIT_OK;

	if (archive_open(&ar, path, ARCHIVE_MAILDIR, NULL, 0, &err) != 0) {
		cli_warn("%s: %s", path, err.msg);
		return ARRIVED_EXIT_FAULT;
	}
	sbuf_init(&name, SBUF_NOMAX);
	while ((rc = archive_next(ar, &e, &err)) == 1) {
		sbuf_reset(&name);
		sbuf_addf(&name, "%s/%s", path, e.where);
		if (e.op == ARCHIVE_ADD)
			status = worse(status, arrived_one(r, name.buf,
			    e.data, e.len));
		else if (e.op == ARCHIVE_SKIP) {
			cli_warn("%s: %s", name.buf, e.why);
			status = ARRIVED_EXIT_FAULT;
		}
	}
	if (rc != 0) {
		cli_warn("%s: %s", path, err.msg);
		status = ARRIVED_EXIT_FAULT;
	}
	sbuf_release(&name);
	archive_close(ar);
	return status;
}

/* arrived_input - a FILE operand: a Maildir when it is a folder */
static int
arrived_input(struct arrived_run *r, const char *path)
{
	struct stat st;

	if (strcmp(path, "-") != 0 && stat(path, &st) == 0 &&
	    S_ISDIR(st.st_mode))
		return arrived_maildir(r, path);
	return arrived_file(r, path);
}

int
cmd_arrived(int argc, char **argv)
{
	static struct arrived_run r;
	struct pa_config cfg;
	struct pa_err err;
	int i, n, sheltered, status = ARRIVED_EXIT_FAULT;

	if ((n = cli_parse(&cli_cmd_arrived, argc, argv)) < 0)
		return n == CLI_PARSE_HELP ? CLI_EXIT_OK : ARRIVED_EXIT_FAULT;
	if (n == 0) {
		cli_warn("arrived: no FILE given");
		cli_usage(&cli_cmd_arrived, cli_stderr);
		return ARRIVED_EXIT_FAULT;
	}
	config_init(&cfg);
	cli_input_init(&r.in, arrived_mbox);
	mailfacts_init(&r.facts);
	if (cli_load_config(&cfg, arrived_conf) != 0)
		goto out;
	if (cfg.state_file == NULL && cfg.state_database == NULL) {
		cli_warn("no StateFile is configured: nothing is recorded");
		goto out;
	}
	if (statedb_ledger_open(&r.lg, &cfg, 0, NULL, &err) != 0) {
		cli_warn("%s", err.msg);
		goto out;
	}
	if ((sheltered = cli_shelter(ledger_reads_unlocked(r.lg),
	    cfg.state_file, ARRIVED_EXIT_FAULT)) >= 0) {
		status = sheltered;
		goto out;
	}
	if (mailmsg_new(&r.m, CLI_MAX_INPUT) != 0) {
		cli_warn("%s", pa_strerror(PA_ENOMEM));
		goto out;
	}
	status = CLI_EXIT_OK;
	for (i = 1; i <= n; i++)
		status = worse(status, arrived_input(&r, argv[i]));
out:
	mailmsg_free(r.m);
	ledger_close(r.lg);
	mailfacts_release(&r.facts);
	cli_input_release(&r.in);
	config_release(&cfg);
	return status;
}
