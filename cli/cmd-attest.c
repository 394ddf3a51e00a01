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
#include "attdoc.h"
#include "mailident.h"
#include "mailmsg.h"
#include "paconfig.h"
#include "pgp.h"

#define ATTEST_MAX_PATCHES	10000

static const char *attest_key;
static const char *attest_conf;
static const char *attest_from;

static const struct cli_opt attest_opts[] = {
	{ "key", 'u', NULL, &attest_key, "KEY",
	    "sign with this key (default: GnuPG's default key)" },
	{ "config", 'c', NULL, &attest_conf, "FILE",
	    "take GnuPGHome from this configuration file" },
	{ "from", 0, NULL, &attest_from, "ADDR",
	    "From address of the mail (default <devnull@kernel.org>)" },
	{ NULL, 0, NULL, NULL, NULL, NULL }
};

const struct cli_cmd cli_cmd_attest = {
	.name = "attest",
	.run = cmd_attest,
	.synopsis = "[-u KEY] [-c FILE] [--from ADDR] FILE...",
	.summary = "sign the attestation of patch mails",
	.about =
	    "Compute the attestation hashes of each patch mail, clearsign them\n"
	    "with GnuPG as an attestation document of format 0.1, and print the\n"
	    "mail that carries it to the signatures list.  A cover letter among\n"
	    "the files gives the mail its subject.  Exit status: 0 when a\n"
	    "document was made, 1 when no FILE was a patch, 2 on errors.",
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
	    (pgp = pgp_new(home, TRUST_GPG, &err)) == NULL) {
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

int
cmd_attest(int argc, char **argv)
{
	static struct msghash_entry entries[ATTEST_MAX_PATCHES];
	struct pa_config cfg;
	struct mailmsg *m;
	struct msghash h;
	struct cli_input in;
	struct sbuf cover;
	struct pa_err err;
	size_t n = 0;
	int i, nargs, rc, status = CLI_EXIT_OK;

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
	cli_input_init(&in, 0);
	sbuf_init(&cover, 4096);
	m = mailmsg_new(CLI_MAX_INPUT);
	msghash_init(&h);
	for (i = 1; i <= nargs && m != NULL; i++) {
		/* One mail per FILE: an mbox of a series is refused. */
		if (cli_input_open(&in, argv[i]) != 0) {
			status = CLI_EXIT_ERROR;
			continue;
		}
		rc = cli_hash(&h, m, in.file.buf, in.file.len, 0, &err);
		if (rc == 0 && n < ATTEST_MAX_PATCHES)
			entries[n++] = h.entry[0];
		else if (rc == 0) {
			cli_warn("%s: more than %d patches in one document",
			    argv[i], ATTEST_MAX_PATCHES);
			status = CLI_EXIT_ERROR;
		} else if (!cover_subject(m, &cover))
			cli_warn("%s: %s", argv[i], err.msg);
	}
	if (m == NULL)
		cli_warn("%s", pa_strerror(PA_ENOMEM));
	else if (status == CLI_EXIT_OK && n == 0) {
		cli_warn("attest: no patch to attest");
		status = CLI_EXIT_NOTPATCH;
	} else if (status == CLI_EXIT_OK)
		status = sign_and_print(entries, n, cover.len ? cover.buf : NULL,
		    cfg.gnupg_home);
	msghash_release(&h);
	mailmsg_free(m);
	cli_input_release(&in);
	sbuf_release(&cover);
	config_release(&cfg);
	return m == NULL ? CLI_EXIT_ERROR : status;
}
