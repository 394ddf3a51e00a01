/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cmd-attest.c - "patchattest attest": sign the attestation hashes of
 * patch mails with GnuPG and print the mail that carries the document,
 * as the original tool sent it to the signatures list.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "attest.h"
#include "mail.h"
#include "base.h"
#include "sig.h"

#define ATTEST_MAX_PATCHES	10000

static const char *attest_key;
static const char *attest_conf;
static const char *attest_from;
static int attest_mbox;

/* What the FILEs gave so far. */
struct attest_run {
	struct msghash_entry	 entries[ATTEST_MAX_PATCHES];
	size_t			 n;
	struct mailmsg		*msg;		/* reused for every message */
	struct msghash		 hash;		/* likewise */
	struct cli_input	 in;
	struct sbuf		 cover;		/* a cover letter's Subject */
	int			 status;	/* CLI_EXIT_ERROR once failed */
};

static struct attest_run run;

static const struct cli_opt attest_opts[] = {
	{ "key", 'u', NULL, &attest_key, "KEY",
	    "sign with this key (default: GnuPG's default key)" },
	{ "config", 'c', NULL, &attest_conf, "FILE",
	    "take GnuPGHome from this configuration file" },
	{ "from", 0, NULL, &attest_from, "ADDR",
	    "From address of the mail (default <devnull@kernel.org>)" },
	CLI_OPT_MBOX(&attest_mbox),
	{ NULL, 0, NULL, NULL, NULL, NULL }
};

const struct cli_cmd cli_cmd_attest = {
	.name = "attest",
	.run = cmd_attest,
	.synopsis = "[-u KEY] [-c FILE] [--from ADDR] [--mbox] FILE...",
	.summary = "sign the attestation of patch mails",
	.about =
	    "Compute the attestation hashes of each patch mail, clearsign them\n"
	    "with GnuPG as an attestation document of format 0.1, and print the\n"
	    "mail that carries it to the signatures list.  A cover letter among\n"
	    "the files gives the mail its subject.  A FILE that holds several\n"
	    "mails needs --mbox.  Exit status: 0 when a document was made, 1\n"
	    "when no FILE was a patch, 2 on errors.",
	.opts = attest_opts,
};

/* cover_subject - the Subject of a cover letter ("[PATCH 0/N] ..."), or 0 */
static int
cover_subject(const struct mailmsg *m, struct sbuf *subject)
{
	struct sbuf work;
	const char *v;
	size_t len;
	int rc;

	if ((v = mailmsg_get(m, "Subject", &len)) == NULL)
		return 0;
	sbuf_init(&work, len + 1);
	rc = mailident_collapse(&work, v, len);
	if (rc == 0 && strstr(work.buf, " 0/") != NULL) {
		sbuf_reset(subject);
		sbuf_add(subject, work.buf[0] == ' ' ? work.buf + 1 : work.buf,
		    work.len - (work.buf[0] == ' '));
	}
	sbuf_release(&work);
	return subject->len > 0;
}

static int
sign_and_print(struct msghash_entry *e, size_t n, const char *cover,
    const char *home)
{
	static const char *const comments[] = {
		"att-fmt-ver: " ATTDOC_FMT_VERSION, "att-hash: sha256", NULL
	};
	struct sbuf payload, signed_doc, subject, mail, from;
	struct pa_err err;
	struct pgp *pgp;
	char msgid[128];
	int rc = CLI_EXIT_ERROR;

	sbuf_init(&payload, SBUF_NOMAX);
	sbuf_init(&signed_doc, SBUF_NOMAX);
	sbuf_init(&subject, 4096);
	sbuf_init(&mail, SBUF_NOMAX);
	sbuf_init(&from, 1024);
	if (pa_global_init(&err) != 0 ||
	    pgp_new(&pgp, home, TRUST_GPG, &err) != 0) {
		cli_warn("%s", err.msg);
		goto out;
	}
	snprintf(msgid, sizeof(msgid), "<%lld.%ld.patchattest@kernel.org>",
	    (long long)time(NULL), (long)getpid());
	if (attest_from && attest_from[0] != '<' && !strchr(attest_from, '<'))
		sbuf_addf(&from, "<%s>", attest_from);
	else
		sbuf_addstr(&from, attest_from ? attest_from :
		    "<devnull@kernel.org>");
	if (attdoc_payload(&payload, e, n) != 0 ||
	    pgp_clearsign(pgp, attest_key, payload.buf, payload.len, comments,
	    &signed_doc, &err) != 0 ||
	    attdoc_subject(&subject, cover) != 0 ||
	    attdoc_mail(&mail, from.buf, subject.buf, msgid, signed_doc.buf,
	    signed_doc.len) != 0) {
		cli_warn("attest: %s", err.msg[0] ? err.msg :
		    pa_strerror(PA_ENOMEM));
		pgp_free(pgp);
		goto out;
	}
	pgp_free(pgp);
	fwrite(mail.buf, 1, mail.len, stdout);
	rc = CLI_EXIT_OK;
out:
	sbuf_release(&payload);
	sbuf_release(&signed_doc);
	sbuf_release(&subject);
	sbuf_release(&mail);
	sbuf_release(&from);
	return rc;
}

/* attest_message - the hashes of one message, or its Subject for a cover */
static void
attest_message(const char *data, size_t len)
{
	const char *name = run.in.name.buf;
	struct pa_err err;
	int rc;

	rc = cli_hash(&run.hash, run.msg, data, len, 0, &err);
	if (rc == 0 && run.n < ATTEST_MAX_PATCHES)
		run.entries[run.n++] = run.hash.entry[0];
	else if (rc == 0) {
		cli_warn("%s: more than %d patches in one document", name,
		    ATTEST_MAX_PATCHES);
		run.status = CLI_EXIT_ERROR;
	} else if (!cover_subject(run.msg, &run.cover))
		cli_warn("%s: %s", name, err.msg);
}

/* attest_input - every message of one FILE operand */
static void
attest_input(const char *path)
{
	const char *msg;
	size_t len;

	if (cli_input_open(&run.in, path) != 0) {
		run.status = CLI_EXIT_ERROR;
		return;
	}
	while (cli_input_next(&run.in, &msg, &len))
		attest_message(msg, len);
}

int
cmd_attest(int argc, char **argv)
{
	struct pa_config cfg;
	int i, nargs;

	if ((nargs = cli_parse(&cli_cmd_attest, argc, argv)) < 0)
		return nargs == CLI_PARSE_HELP ? CLI_EXIT_OK : CLI_EXIT_ERROR;
	if (nargs == 0) {
		cli_warn("attest: no FILE given");
		cli_usage(&cli_cmd_attest, cli_stderr);
		return CLI_EXIT_ERROR;
	}
	config_init(&cfg);
	if (attest_conf && cli_load_config(&cfg, attest_conf) != 0)
		return CLI_EXIT_ERROR;
	cli_input_init(&run.in, attest_mbox);
	sbuf_init(&run.cover, 4096);
	(void)mailmsg_new(&run.msg, CLI_MAX_INPUT);	/* NULL: below */
	msghash_init(&run.hash);
	for (i = 1; i <= nargs && run.msg != NULL; i++)
		attest_input(argv[i]);
	if (run.msg == NULL) {
		cli_warn("%s", pa_strerror(PA_ENOMEM));
		run.status = CLI_EXIT_ERROR;
	} else if (run.status == CLI_EXIT_OK && run.n == 0) {
		cli_warn("attest: no patch to attest");
		run.status = CLI_EXIT_NOTPATCH;
	} else if (run.status == CLI_EXIT_OK)
		run.status = sign_and_print(run.entries, run.n,
		    run.cover.len ? run.cover.buf : NULL, cfg.gnupg_home);
	msghash_release(&run.hash);
	mailmsg_free(run.msg);
	cli_input_release(&run.in);
	sbuf_release(&run.cover);
	config_release(&cfg);
	return run.status;
}
