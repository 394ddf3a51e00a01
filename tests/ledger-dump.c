/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ledger-dump - the records of a Message-ID in a state file, read through
 * the ledger, for the shell tests: "ledger-dump FILE MESSAGE-ID" prints
 * each copy's fields as "name<TAB>value" lines, then "trailers" and the
 * trailer lines, copies apart by a blank line.  "ledger-dump FILE -h
 * IDENTITY" prints the identity's signing habit on one line: its key,
 * recent, recent_signed, run, first_signed and last_signed.  FILE may be
 * -cCONF: the ledger that configuration reads (StateDatabase).  Exit 0,
 * 1 when there is no record (habit), 2 on an error.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "patchattest.h"
#include "state.h"

static int
dump(void *arg, const struct arrival *a)
{
	int *n = arg;

	if ((*n)++ > 0)
		putchar('\n');
	printf("message_id\t%s\ncopy\t%u\narrived\t%lld\n"
	    "envelope_from\t%s\nauthor\t%s\nidentity\t%s\nsubject\t%s\n"
	    "list_id\t%s\nhas_patch\t%d\ni\t%s\nm\t%s\np\t%s\n"
	    "m_core\t%s\npatch_id\t%s\n"
	    "result\t%s\nv01\t%s\npatatt\t%s\nkey\t%s\nsigned_trusted\t%d\n"
	    "dkim\t%s\nalgo\t%s\nselector\t%s\noffered\t%s\n",
	    a->message_id, a->copy, (long long)a->arrived, a->envelope_from,
	    a->author, a->identity, a->subject, a->list_id, a->has_patch,
	    a->i, a->m, a->p, a->m_core, a->patch_id, a->result, a->v01,
	    a->patatt, a->key, a->signed_trusted, a->dkim, a->algo,
	    a->selector, a->offered);
	/* one line each, after the fields of one line */
	printf("trailers\n%s", a->trailers);
	return 0;
}

/* open_ledger - FILE, or with -cCONF the ledger CONF reads */
static int
open_ledger(struct ledger **lg, const char *arg, struct pa_config *cf,
    struct pa_err *err)
{
	struct sbuf sb;

	if (strncmp(arg, "-c", 2) != 0)
		return ledger_open(lg, arg, 0, 0, 0, 0, err);
	sbuf_init(&sb, 4096);
	if (config_load(cf, arg + 2, &sb) != 0) {
		pa_err_set(err, "%s", sb.buf ? sb.buf : "config");
		sbuf_release(&sb);
		return PA_ERROR;
	}
	sbuf_release(&sb);
	return statedb_ledger_open(lg, cf, 0, NULL, err);
}

int
main(int argc, char **argv)
{
	struct ledger *lg;
	struct pa_config cf;
	struct habit h;
	struct pa_err err;
	int rc, n = 0;

	if (argc != 3 && (argc != 4 || strcmp(argv[2], "-h") != 0)) {
		fprintf(stderr, "usage: ledger-dump FILE|-cCONF MESSAGE-ID\n"
		    "       ledger-dump FILE|-cCONF -h IDENTITY\n");
		return 2;
	}
	config_init(&cf);
	if (open_ledger(&lg, argv[1], &cf, &err) != 0) {
		fprintf(stderr, "ledger-dump: %s\n", err.msg);
		return 2;
	}
	if (argc == 3)
		rc = ledger_by_message_id(lg, argv[2], dump, &n, &err);
	else if ((rc = ledger_habit(lg, argv[3], &h, &err)) == 0) {
		printf("%s %u %u %u %lld %lld\n", h.key, h.recent,
		    h.recent_signed, h.run, (long long)h.first_signed,
		    (long long)h.last_signed);
		n = 1;
	}
	ledger_close(lg);
	config_release(&cf);
	if (rc != 0 && rc != PA_ENOTFOUND) {
		fprintf(stderr, "ledger-dump: %s\n", err.msg);
		return 2;
	}
	return n > 0 ? 0 : 1;
}
