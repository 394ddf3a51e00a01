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

#include "cli.h"
#include "attest.h"
#include "base.h"
#include "state.h"

/* Exit statuses of this command (its manual says them). */
#define ARRIVED_EXIT_DIFFERS	1
#define ARRIVED_EXIT_NEVER	2
#define ARRIVED_EXIT_FAULT	3

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
	    "differs (naming the parts: author/subject, commit message, diff) or\n"
	    "never-arrived.  When several copies arrived, the line names the one\n"
	    "matched and says whether the copies differ.  Exit status: 0 all\n"
	    "identical, 1 some differ, 2 some never arrived and none differ, 3 on\n"
	    "errors (a message or the StateFile cannot be read).",
	.opts = arrived_opts,
};

/* The outcomes: arrival_compare()'s, then one more. */
#define NEVER	(ARRIVAL_DIFFERS + 1)

static const char *const outcome_names[] = {
	[ARRIVAL_SAME] = "identical",
	[ARRIVAL_SAME_TRAILERS] = "identical-with-trailers",
	[ARRIVAL_DIFFERS] = "differs",
	[NEVER] = "never-arrived",
};

/*
 * struct match - the records of one key (the copies of a Message-ID, or
 * the mails of a patch-id) set beside the input cur, one at a time as
 * the ledger reads them: the one most like cur, and whether they differ
 * among themselves (a second copy with other content)
 */
struct match {
	const struct arrival	*cur;
	int			 o;		/* the best outcome so far */
	unsigned		 parts;
	struct arrival		 best;
	size_t			 which;		/* best's place, from 1 */
	struct arrival		 first;
	size_t			 total;
	int			 copies_differ;
};

struct arrived_run {
	struct ledger		*lg;
	struct mailmsg		*m;
	struct msghash		 h;
	struct patchfacts	 pf;
	struct arrival		 cur;
	struct match		 mt;
	struct cli_input	 in;
};

static int
collect(void *arg, const struct arrival *a)
{
	struct match *mt = arg;
	unsigned parts;
	int o;

	if (++mt->total == 1)
		mt->first = *a;
	else if (arrival_compare(&mt->first, a, &parts) != ARRIVAL_SAME)
		mt->copies_differ = 1;
	o = (int)arrival_compare(mt->cur, a, &parts);
	if (o < mt->o) {
		mt->o = o;
		mt->parts = parts;
		mt->best = *a;
		mt->which = mt->total;
	}
	return 0;
}

/* add_list - the lines of s as "a, b" ("-": none) or ["a", "b"] (JSON) */
static void
add_list(struct sbuf *line, const char *s)
{
	struct sbuf item;
	const char *nl;
	int first = 1;

	sbuf_init(&item, ARRIVAL_TRAILERS_MAX);
	sbuf_addstr(line, arrived_json ? "[" : *s == '\0' ? "-" : "");
	for (; (nl = strchr(s, '\n')) != NULL; s = nl + 1, first = 0) {
		sbuf_reset(&item);
		sbuf_add(&item, s, (size_t)(nl - s));
		sbuf_addstr(line, first ? "" : ", ");
		if (arrived_json)
			hdrfmt_quoted(line, item.buf);
		else
			hdrfmt_escaped(line, item.buf, item.len);
	}
	sbuf_addstr(line, arrived_json ? "]" : "");
	sbuf_release(&item);
}

/* details - the parts that differ, or the trailers added, one a line */
static void
details(struct sbuf *list, const struct match *mt)
{
	if (mt->o == ARRIVAL_SAME_TRAILERS)
		arrival_added_trailers(list, mt->cur, &mt->best);
	if (mt->parts & ARRIVAL_PART_I)
		sbuf_addstr(list, "author/subject\n");
	if (mt->parts & ARRIVAL_PART_M)
		sbuf_addstr(list, "commit message\n");
	if (mt->parts & ARRIVAL_PART_P)
		sbuf_addstr(list, "diff\n");
}

/* found_json - what a JSON line says of the record matched */
static void
found_json(struct sbuf *line, const struct match *mt, const char *by,
    const char *list)
{
	const struct arrival *old = &mt->best;
	char t[CLI_UTC_MAX];

	cli_utc(t, old->arrived, CLI_UTC_TIME);
	sbuf_addf(line, ", \"found_by\": \"%s\", \"arrived\": \"%s\", "
	    "\"verdict\": ", by, t);
	hdrfmt_quoted(line, old->result);
	sbuf_addstr(line, ", \"list\": ");
	hdrfmt_quoted(line, old->list_id);
	sbuf_addf(line, ", \"copies\": %zu, \"copy\": %zu, "
	    "\"copies_differ\": %s, \"%s\": ", mt->total, mt->which,
	    mt->copies_differ ? "true" : "false",
	    mt->o == ARRIVAL_DIFFERS ? "parts" : "added_trailers");
	add_list(line, list);
}

/* found_text - what a text line says of the record matched */
static void
found_text(struct sbuf *line, const struct match *mt, const char *by,
    const char *list)
{
	const struct arrival *old = &mt->best;
	char t[CLI_UTC_MAX];

	cli_utc(t, old->arrived, CLI_UTC_TIME);
	sbuf_addstr(line, mt->o == ARRIVAL_SAME_TRAILERS ? "\tadded: " : "\t");
	add_list(line, list);
	sbuf_addf(line, "\tarrived %s, verdict ", t);
	cli_text(line, old->result);
	sbuf_addstr(line, ", via ");
	cli_text(line, old->list_id);
	sbuf_addf(line, ", by %s", by);
	if (mt->total > 1)
		sbuf_addf(line, "; %zu copies arrived, %s copy %zu%s",
		    mt->total, mt->o == ARRIVAL_DIFFERS ? "nearest is" :
		    "matches", mt->which, mt->copies_differ ?
		    ", the copies differ" : "");
}

/* report - the line of one message */
static void
report(const char *name, const struct match *mt, const char *by)
{
	struct sbuf line, list;

	sbuf_init(&line, SBUF_NOMAX);
	sbuf_init(&list, SBUF_NOMAX);
	if (arrived_json) {
		sbuf_addstr(&line, "{\"name\": ");
		hdrfmt_quoted(&line, name);
		sbuf_addstr(&line, ", \"message_id\": ");
		hdrfmt_quoted(&line, mt->cur->message_id);
		sbuf_addf(&line, ", \"result\": \"%s\"",
		    outcome_names[mt->o]);
	} else {
		hdrfmt_escaped(&line, name, strlen(name));
		sbuf_addf(&line, "\t%s", outcome_names[mt->o]);
	}
	if (mt->o != NEVER) {
		details(&list, mt);
		if (arrived_json)
			found_json(&line, mt, by, list.buf);
		else
			found_text(&line, mt, by, list.buf);
	}
	if (arrived_json)
		sbuf_addch(&line, '}');
	puts(line.buf);
	sbuf_release(&line);
	sbuf_release(&list);
}

/* lookup - the records of cur's Message-ID, else its patch-id, into mt */
static int
lookup(struct arrived_run *r, struct match *mt, const char **by,
    struct pa_err *err)
{
	const struct arrival *cur = mt->cur;
	const char *id;
	size_t len;
	int rc = PA_ENOTFOUND;

	*by = "message-id";
	if ((id = arrival_message_id(r->m, &len)) != NULL)
		rc = ledger_by_message_id_bytes(r->lg, id, len, collect, mt,
		    err);
	if (rc == PA_ENOTFOUND && cur->patch_id[0]) {
		*by = "patch-id";
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
	const char *by;
	int rc;

	if ((rc = mailmsg_parse(r->m, data, len)) != 0 ||
	    (rc = arrival_from_mail(cur, r->m, &r->h, &r->pf, &err)) != 0) {
		cli_warn("%s: %s", name, pa_strerror(rc));
		return ARRIVED_EXIT_FAULT;
	}
	memset(mt, 0, sizeof(*mt));
	mt->cur = cur;
	mt->o = NEVER;
	if (lookup(r, mt, &by, &err) != 0) {
		cli_warn("%s: %s", name, err.msg);
		return ARRIVED_EXIT_FAULT;
	}
	report(name, mt, by);
	if (mt->o == ARRIVAL_DIFFERS)
		return ARRIVED_EXIT_DIFFERS;
	return mt->o == NEVER ? ARRIVED_EXIT_NEVER : CLI_EXIT_OK;
}

/* worse - the status of two: a fault, then differs, then never arrived */
static int
worse(int a, int b)
{
	static const int rank[] = { 0, 2, 1, 3 };

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
	int i, n, status = ARRIVED_EXIT_FAULT;

	if ((n = cli_parse(&cli_cmd_arrived, argc, argv)) < 0)
		return n == CLI_PARSE_HELP ? CLI_EXIT_OK : ARRIVED_EXIT_FAULT;
	if (n == 0) {
		cli_warn("arrived: no FILE given");
		cli_usage(&cli_cmd_arrived, cli_stderr);
		return ARRIVED_EXIT_FAULT;
	}
	config_init(&cfg);
	cli_input_init(&r.in, arrived_mbox);
	msghash_init(&r.h);
	patchfacts_init(&r.pf);
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
	patchfacts_release(&r.pf);
	msghash_release(&r.h);
	cli_input_release(&r.in);
	config_release(&cfg);
	return status;
}
