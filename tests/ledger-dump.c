/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ledger-dump - the records of a Message-ID in a state file, read through
 * the ledger, for the shell tests: "ledger-dump FILE MESSAGE-ID" prints
 * each copy's fields as "name<TAB>value" lines, then "trailers" and the
 * trailer lines, copies apart by a blank line.  Exit 0, 1 when there is
 * no record, 2 on an error.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

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

int
main(int argc, char **argv)
{
	struct ledger *lg;
	struct pa_err err;
	int rc, n = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: ledger-dump FILE MESSAGE-ID\n");
		return 2;
	}
	if (ledger_open(&lg, argv[1], 0, 0, 0, 0, &err) != 0) {
		fprintf(stderr, "ledger-dump: %s\n", err.msg);
		return 2;
	}
	rc = ledger_by_message_id(lg, argv[2], dump, &n, &err);
	ledger_close(lg);
	if (rc != 0 && rc != PA_ENOTFOUND) {
		fprintf(stderr, "ledger-dump: %s\n", err.msg);
		return 2;
	}
	return n > 0 ? 0 : 1;
}
