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
#include <time.h>

#include "cli.h"
#include "base.h"
#include "state.h"

/* Exit statuses of this command (its manual says them). */
#define ARRIVED_EXIT_DIFFERS	1
#define ARRIVED_EXIT_NEVER	2
#define ARRIVED_EXIT_FAULT	3

/* The copies of one Message-ID looked at; more are counted. */
#define COPIES_MAX		8

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
	.synopsis = "[-c FILE] [--json] [--mbox] FILE...",
	.summary = "say whether patch mails are what arrived here",
	.about =
	    "Look each message up in the StateFile by Message-ID, else by\n"
	    "patch-id, and print one line: its name, then identical (with when\n"
	    "it arrived, its verdict and list), identical-with-trailers (only\n"
	    "trailers were added: they are named), differs (naming the parts:\n"
	    "author/subject, commit message, diff) or never-arrived.  Exit\n"
	    "status: 0 all identical, 1 some differ, 2 some never arrived and\n"
	    "none differ, 3 on errors (the StateFile cannot be read).",
	.opts = arrived_opts,
};

enum outcome { SAME, SAME_TRAILERS, DIFFERS, NEVER };

static const char *const outcome_names[] = {
	[SAME] = "identical",
	[SAME_TRAILERS] = "identical-with-trailers",
	[DIFFERS] = "differs",
	[NEVER] = "never-arrived",
};

/* The parts that differ (a bit each) and their words. */
#define PART_I	1
#define PART_M	2
#define PART_P	4

struct copies {
	struct arrival	 a[COPIES_MAX];
	size_t		 n;	/* kept */
	size_t		 total;
};

static int
collect(void *arg, const struct arrival *a)
{
	struct copies *c = arg;

	if (c->n < COPIES_MAX)
		c->a[c->n++] = *a;
	c->total++;
	return 0;
}

/* has_line - whether the lines of set hold line (len bytes) */
static int
has_line(const char *set, const char *line, size_t len)
{
	const char *s = set, *nl;

	for (; (nl = strchr(s, '\n')) != NULL; s = nl + 1)
		if ((size_t)(nl - s) == len && memcmp(s, line, len) == 0)
			return 1;
	return 0;
}

/* subset - whether every line of a is among b's */
static int
subset(const char *a, const char *b)
{
	const char *nl;

	for (; (nl = strchr(a, '\n')) != NULL; a = nl + 1)
		if (!has_line(b, a, (size_t)(nl - a)))
			return 0;
	return 1;
}

/* compare - the input cur set beside the copy that arrived; *parts */
static enum outcome
compare(const struct arrival *cur, const struct arrival *old, unsigned *parts)
{
	*parts = 0;
	if (!cur->has_patch || !old->has_patch) {
		if (cur->has_patch != old->has_patch ||
		    strcmp(cur->subject, old->subject) != 0)
			*parts = PART_I;
		return *parts ? DIFFERS : SAME;
	}
	if (strcmp(cur->i, old->i) != 0)
		*parts |= PART_I;
	if (strcmp(cur->p, old->p) != 0)
		*parts |= PART_P;
	if (strcmp(cur->m, old->m) != 0 && (old->m_core[0] == '\0' ||
	    strcmp(cur->m_core, old->m_core) != 0 ||
	    !subset(old->trailers, cur->trailers)))
		*parts |= PART_M;
	if (*parts)
		return DIFFERS;
	return strcmp(cur->m, old->m) != 0 ? SAME_TRAILERS : SAME;
}

/* added - the trailers of cur that old had not, into out, one a line */
static void
added(struct sbuf *out, const struct arrival *cur, const struct arrival *old)
{
	const char *s = cur->trailers, *nl;

	for (; (nl = strchr(s, '\n')) != NULL; s = nl + 1)
		if (!has_line(old->trailers, s, (size_t)(nl - s)))
			sbuf_add(out, s, (size_t)(nl - s + 1));
}

static void
when(char out[32], time_t t)
{
	struct tm tm;

	if (gmtime_r(&t, &tm) == NULL ||
	    strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(out, 32, "%lld", (long long)t);
}

/* add_list - the lines of s as "a, b" (text) or ["a", "b"] (JSON) */
static void
add_list(struct sbuf *line, const char *s)
{
	struct sbuf item;
	const char *nl;
	int first = 1;

	sbuf_init(&item, ARRIVAL_TRAILERS_MAX);
	sbuf_addstr(line, arrived_json ? "[" : "");
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

/* report - the line of one message */
static void
report(const char *name, const struct arrival *cur, enum outcome o,
    const struct arrival *old, unsigned parts, const struct copies *c,
    const char *by)
{
	struct sbuf line, list;
	char t[32];

	sbuf_init(&line, SBUF_NOMAX);
	sbuf_init(&list, SBUF_NOMAX);
	if (parts & PART_I)
		sbuf_addstr(&list, "author/subject\n");
	if (parts & PART_M)
		sbuf_addstr(&list, "commit message\n");
	if (parts & PART_P)
		sbuf_addstr(&list, "diff\n");
	if (o == SAME_TRAILERS)
		added(&list, cur, old);
	if (arrived_json) {
		sbuf_addstr(&line, "{\"name\": ");
		hdrfmt_quoted(&line, name);
		sbuf_addstr(&line, ", \"message_id\": ");
		hdrfmt_quoted(&line, cur->message_id);
		sbuf_addf(&line, ", \"result\": \"%s\"", outcome_names[o]);
	} else {
		hdrfmt_escaped(&line, name, strlen(name));
		sbuf_addf(&line, "\t%s", outcome_names[o]);
	}
	if (old != NULL) {
		when(t, old->arrived);
		if (arrived_json) {
			sbuf_addf(&line, ", \"found_by\": \"%s\", \"arrived\": "
			    "\"%s\", \"verdict\": ", by, t);
			hdrfmt_quoted(&line, old->result);
			sbuf_addstr(&line, ", \"list\": ");
			hdrfmt_quoted(&line, old->list_id);
			sbuf_addf(&line, ", \"copies\": %zu, \"%s\": ",
			    c->total, o == DIFFERS ? "parts" : "added_trailers");
			add_list(&line, list.buf);
			sbuf_addch(&line, '}');
		} else {
			sbuf_addf(&line, "\t%s%s", o == DIFFERS ? "" :
			    o == SAME ? "" : "added: ", "");
			add_list(&line, list.buf);
			sbuf_addf(&line, "\tarrived %s, verdict %s, via %s, "
			    "by %s", t, old->result[0] ? old->result : "-",
			    old->list_id[0] ? old->list_id : "-", by);
			if (c->total > 1)
				sbuf_addf(&line, ", %zu copies arrived",
				    c->total);
		}
	} else if (arrived_json)
		sbuf_addch(&line, '}');
	puts(line.buf);
	sbuf_release(&line);
	sbuf_release(&list);
}

/* best - the copy most like cur: its outcome, *which, *parts */
static enum outcome
best(const struct arrival *cur, const struct copies *c, size_t *which,
    unsigned *parts)
{
	enum outcome o, top = NEVER;
	unsigned p;
	size_t k;

	for (k = 0; k < c->n; k++) {
		o = compare(cur, &c->a[k], &p);
		if (o < top) {
			top = o;
			*which = k;
			*parts = p;
		}
	}
	return top;
}

/* arrived_one - one message: its exit status */
static int
arrived_one(struct ledger *lg, struct mailmsg *m, struct msghash *h,
    struct patchfacts *pf, struct copies *c, const char *name,
    const char *data, size_t len)
{
	struct arrival cur;
	struct pa_err err;
	const char *by = "message-id";
	size_t which = 0;
	unsigned parts = 0;
	enum outcome o;
	int rc;

	if ((rc = mailmsg_parse(m, data, len)) != 0 ||
	    (rc = arrival_from_mail(&cur, m, h, pf, &err)) != 0) {
		cli_warn("%s: %s", name, pa_strerror(rc));
		return ARRIVED_EXIT_FAULT;
	}
	c->n = c->total = 0;
	rc = PA_ENOTFOUND;
	if (cur.message_id[0])
		rc = ledger_by_message_id(lg, cur.message_id, collect, c, &err);
	if (rc == PA_ENOTFOUND && cur.patch_id[0]) {
		by = "patch-id";
		rc = ledger_by_patch_id(lg, cur.patch_id, collect, c, &err);
	}
	if (rc != 0 && rc != PA_ENOTFOUND) {
		cli_warn("%s: %s", name, err.msg);
		return ARRIVED_EXIT_FAULT;
	}
	o = c->n == 0 ? NEVER : best(&cur, c, &which, &parts);
	report(name, &cur, o, o == NEVER ? NULL : &c->a[which], parts, c, by);
	if (o == DIFFERS)
		return ARRIVED_EXIT_DIFFERS;
	return o == NEVER ? ARRIVED_EXIT_NEVER : CLI_EXIT_OK;
}

/* worse - the status of two: a fault, then differs, then never arrived */
static int
worse(int a, int b)
{
	static const int rank[] = { 0, 2, 1, 3 };

	return rank[b] > rank[a] ? b : a;
}

struct arrived_run {
	struct ledger		*lg;
	struct mailmsg		*m;
	struct msghash		 h;
	struct patchfacts	 pf;
	struct copies		 c;
	struct cli_input	 in;
};

static int
arrived_input(struct arrived_run *r, const char *path)
{
	const char *msg;
	size_t len;
	int status;

	if (cli_input_open(&r->in, path) != 0)
		return ARRIVED_EXIT_FAULT;
	status = CLI_EXIT_OK;
	while (cli_input_next(&r->in, &msg, &len))
		status = worse(status, arrived_one(r->lg, r->m, &r->h, &r->pf,
		    &r->c, r->in.name.buf, msg, len));
	return status;
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
	if (cfg.state_file[0] == '\0') {
		cli_warn("no StateFile is configured: nothing is recorded");
		goto out;
	}
	if (ledger_open(&r.lg, cfg.state_file, 0, 0, 0, &err) != 0) {
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
