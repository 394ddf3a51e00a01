/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cmd-check.c - "patchattest check": the verdict on patch mails, as the
 * milter would give it.
 *
 * A mail is judged as of its arrival here when the arrival records
 * (StateFile, or StateDatabase) hold it: the first copy of its
 * Message-ID whose content is its own (as patchattest arrived matches
 * them), so that a mail of last month gets the verdict the milter gave
 * it, not one of staleness measured against today.  The first, because
 * a copy sent again later (by an attacker replaying it, or a list
 * delivering it twice) brings nothing that had not arrived, signed, by
 * then, and must not turn its verdict stale; nor can a copy sent later
 * make an old signature look fresh, as no record is ever dated before
 * it was written.  A copy with other content under the Message-ID (the
 * attacker's own version) is not this mail and gives no time.  Any
 * other mail is judged as of now, and when that made it stale, the
 * reason says so.
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
static struct ledger *check_records;	/* the arrival records, or NULL */
static const char *check_unrecorded;	/* ... why not, when NULL */

/* What judges the messages, and what reads one as its record does. */
struct check_run {
	struct decider		*dc;
	struct mailmsg		*m;
	struct attindex		*ix;
	struct mailfacts	 facts;		/* of the message: read once,
						   for its record and its
						   verdict */
	struct arrival		 cur;
};

/*
 * struct check_clock - the time a message is judged at: the arrival of
 * the first of the copies recorded with its content (copies of them),
 * or, with none, now (copies 0, why saying why)
 */
struct check_clock {
	const struct arrival	*cur;
	time_t			 at;
	unsigned		 copies;
	const char		*why;
};

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
	    "\"==> NAME <==\" when there are several FILEs or --mbox.  A mail\n"
	    "the StateFile records as arrived (the first copy of its Message-ID\n"
	    "with its content) is judged as of that arrival, and its reason says\n"
	    "so; any other as of now, and its reason says so when it is stale.\n"
	    "FILE \"-\" is standard input; a FILE may be up to 64 MiB, and one\n"
	    "that holds several mails needs --mbox.  Exit status: 0 when every\n"
	    "message passes, 1 otherwise, 2 on errors.",
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
 * records_open - the arrival records of cfg, or none: none kept (no
 * StateFile, or none yet: nothing arrived), or records that cannot be
 * read, said once; then every mail is judged as of now
 */
static void
records_open(const struct pa_config *cfg)
{
	struct pa_err err;
	int rc;

	rc = statedb_ledger_open(&check_records, cfg, 0, NULL, &err);
	if (rc == 0 && check_records != NULL)
		return;
	check_records = NULL;
	check_unrecorded = "no arrival records are kept here";
	if (rc != 0 && rc != PA_ENOTFOUND) {
		cli_warn("%s: mail is judged as of now, not as of its arrival",
		    err.msg);
		check_unrecorded = "the arrival records cannot be read";
	}
}

/* same_content - fn of the ledger's reads: a copy of the mail's own */
static int
same_content(void *arg, const struct arrival *a)
{
	struct check_clock *c = arg;
	unsigned parts;

	if (a->arrived <= 0 ||
	    arrival_compare(c->cur, a, &parts) == ARRIVAL_DIFFERS)
		return 0;
	if (c->copies == 0 || a->arrived < c->at)
		c->at = a->arrived;
	c->copies++;
	return 0;
}

/* clock_of - the time to judge r's message at (name: for a warning) */
static void
clock_of(struct check_run *r, const char *name, struct check_clock *c)
{
	struct mailfacts *f = &r->facts;
	struct pa_err err;
	int rc;

	c->cur = &r->cur;
	c->copies = 0;
	c->why = check_unrecorded;
	if (check_records != NULL) {
		c->why = "it has no Message-ID";
		if (f->id != NULL && f->id_len > 0) {
			c->why = "no copy with this content arrived here";
			if ((rc = mailfacts_record(f, &r->cur, &err)) == 0)
				rc = ledger_by_message_id_bytes(check_records,
				    f->id, f->id_len, same_content, c, &err);
			if (rc != 0 && rc != PA_ENOTFOUND) {
				cli_warn("%s: %s", name, err.msg);
				c->why = "its arrival could not be read";
			}
		}
	}
	if (c->copies == 0)
		c->at = time(NULL);
}

/*
 * clock_said - which clock judged d (c), for the reason: always when it
 * is the arrival's, and when it is now, if the verdict is stale
 */
static void
clock_said(struct sbuf *out, const struct decision *d,
    const struct check_clock *c)
{
	char when[CLI_UTC_MAX];

	if (c->copies == 0 && d->result != VERDICT_STALE)
		return;
	cli_utc(when, c->at, 0);
	if (out->len > 0)
		sbuf_addstr(out, "; ");
	if (c->copies == 0)
		sbuf_addf(out, "as of now, %s: %s", when, c->why);
	else if (c->copies == 1)
		sbuf_addf(out, "as of its arrival here, %s", when);
	else
		sbuf_addf(out, "as of its arrival here, %s (the first of %u "
		    "copies with this content)", when, c->copies);
}

/*
 * check_line - the plain line: name (escaped), verdict, attid, signer,
 * reason (with the clock that judged it, c), and with patatt signatures
 * which scheme gave the verdict and each's result
 */
static void
check_line(const char *name, const struct decision *d,
    const struct check_clock *c)
{
	struct sbuf line, reason, schemes;

	sbuf_init(&line, SBUF_NOMAX);
	sbuf_init(&reason, SBUF_NOMAX);
	sbuf_init(&schemes, SBUF_NOMAX);
	sbuf_addstr(&reason, d->reason);
	clock_said(&reason, d, c);
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
	add_field(&line, reason.buf);
	add_field(&line, schemes.buf);
	printf("%s\n", line.buf);
	sbuf_release(&line);
	sbuf_release(&reason);
	sbuf_release(&schemes);
}

/*
 * check_one - the verdict on one message, printed under name (escaped:
 * a file name may hold a tab or a line end); its CLI_EXIT_*.  With
 * --header, the header is the one the milter added (judged at the same
 * time), with nothing of ours in it.
 */
static int
check_one(struct check_run *r, const char *name, const char *data,
    size_t len)
{
	struct check_clock c;
	struct decision d;
	struct sbuf hdr;
	int rc;

	if ((rc = mailmsg_parse(r->m, data, len)) != 0) {
		cli_warn("%s: %s", name, pa_strerror(rc));
		return CLI_EXIT_ERROR;
	}
	/* Folded, a header has no room for the name: it goes before. */
	if (check_header && check_names)
		printf("==> %s <==\n", name);
	(void)mailfacts_read(&r->facts, r->m, MSGHASH_VARIANTS);
	clock_of(r, name, &c);
	if (decide_begin_read(r->dc, &r->facts, c.at) == PA_ENOPATCH) {
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
	decide_end(r->dc, r->ix, index_fault.msg[0] ? index_fault.msg : NULL,
	    &d);
	if (check_header) {
		sbuf_init(&hdr, 4096);
		header_verdict(&d, &hdr);
		printf("X-Patch-Attested: %s\n", hdr.buf);
		sbuf_release(&hdr);
	} else
		check_line(name, &d, &c);
	if (d.result == VERDICT_TEMPERROR)
		return CLI_EXIT_ERROR;
	return d.result == VERDICT_PASS ? CLI_EXIT_OK : CLI_EXIT_NOTPATCH;
}

/* check_input - every message of one FILE operand; the worst CLI_EXIT_* */
static int
check_input(struct check_run *r, struct cli_input *in, const char *path)
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
		if ((rc = check_one(r, name.buf, msg, len)) > status)
			status = rc;
	}
	sbuf_release(&name);
	return status;
}

int
cmd_check(int argc, char **argv)
{
	static struct check_run r;
	struct pa_config cfg;
	struct pins *pins = NULL;
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
	mailfacts_init(&r.facts);
	check_names = n > 1 || check_mbox;
	if (cli_load_config(&cfg, check_conf) != 0) {
		status = CLI_EXIT_ERROR;
		goto out;
	}
	/* A maintainer outside the milter's group still gets patatt's. */
	rc = attindex_open(&r.ix, cfg.index_path, 0, &index_fault);
	if (rc != 0 && (rc != PA_ENOTFOUND || cfg.archive != NULL))
		cli_warn("%s: 2020 attestations are not consulted, patatt "
		    "signatures are", index_fault.msg);
	else
		index_fault.msg[0] = '\0';
	if (pa_global_init(&err) != 0 ||
	    decider_new(&r.dc, &cfg, NULL, &err) != 0) {
		cli_warn("%s", err.msg);
		status = CLI_EXIT_ERROR;
		goto out;
	}
	/* Read only: a check pins nothing. */
	if (cfg.patatt_tofu == CONFIG_YES && statedb_pins_open(&pins, &cfg,
	    0, 0, NULL, &err) != 0)
		cli_warn("%s: keys only offered are temperror", err.msg);
	decider_use_pins(r.dc, pins, 0);
	records_open(&cfg);
	if (check_records != NULL && (rc = cli_shelter(
	    ledger_reads_unlocked(check_records), cfg.state_file,
	    CLI_EXIT_ERROR)) >= 0) {
		status = rc;
		goto out;
	}
	if (mailmsg_new(&r.m, CLI_MAX_INPUT) != 0) {
		cli_warn("%s", pa_strerror(PA_ENOMEM));
		status = CLI_EXIT_ERROR;
		goto out;
	}
	for (i = 1; i <= n; i++)
		if ((rc = check_input(&r, &in, argv[i])) > status)
			status = rc;
out:
	mailmsg_free(r.m);
	decider_free(r.dc);
	pins_close(pins);
	ledger_close(check_records);
	attindex_close(r.ix);
	mailfacts_release(&r.facts);
	cli_input_release(&in);
	config_release(&cfg);
	return status;
}
