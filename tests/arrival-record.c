/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * arrival-record - record mail files as arrived, into the ledger at
 * LEDGER, the way the milter records them (mailfacts_record()), for
 * tests/t-arrived.sh (built for make check, not a test itself).
 *
 *	arrival-record [-sIDENTITY,KEY] [-fFIELD=TEXT]... LEDGER WHEN
 *	    RESULT[,ALGO,SELECTOR,OFFERED] FILE...
 *
 * -s: each mail from IDENTITY, signed by KEY, a trusted key (a signing
 * habit learnt from it), or unsigned when KEY is empty.
 * -f: the record's FIELD (envelope_from, author, subject, list_id, host,
 * dkim) is TEXT, whatever bytes it holds, instead of what the mail gives.
 * WHEN is the arrival time (Unix seconds), RESULT the verdict written;
 * with ALGO, SELECTOR and OFFERED it is patatt's verdict too, and those
 * are the signature's (the columns patchattest stats reads).
 * Exit status 0, 1 on a fault (said on standard error).
 */
#include "config.h"

#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "patchattest.h"
#include "mail.h"
#include "state.h"
#include "verdict.h"

/* The text fields -f sets (each ARRIVAL_TEXT_MAX bytes). */
static const struct {
	const char	*name;
	size_t		 off;
} text_fields[] = {
	{ "envelope_from", offsetof(struct arrival, envelope_from) },
	{ "author", offsetof(struct arrival, author) },
	{ "subject", offsetof(struct arrival, subject) },
	{ "list_id", offsetof(struct arrival, list_id) },
	{ "host", offsetof(struct arrival, host) },
	{ "dkim", offsetof(struct arrival, dkim) },
};

/* set_field - FIELD=TEXT into a: 0, or -1 when FIELD is none of them */
static int
set_field(struct arrival *a, const char *arg)
{
	size_t k, n = strcspn(arg, "=");

	for (k = 0; k < sizeof(text_fields) / sizeof(text_fields[0]); k++)
		if (strlen(text_fields[k].name) == n && arg[n] == '=' &&
		    strncmp(arg, text_fields[k].name, n) == 0) {
			snprintf((char *)a + text_fields[k].off,
			    ARRIVAL_TEXT_MAX, "%s", arg + n + 1);
			return 0;
		}
	return -1;
}

/* verdict - RESULT[,ALGO,SELECTOR,OFFERED] into a */
static void
verdict(struct arrival *a, const char *arg)
{
	char buf[1024], *rest = buf;

	snprintf(buf, sizeof(buf), "%s", arg);
	snprintf(a->result, sizeof(a->result), "%s", strsep(&rest, ","));
	if (rest == NULL)
		return;
	snprintf(a->patatt, sizeof(a->patatt), "%s", a->result);
	snprintf(a->algo, sizeof(a->algo), "%s", strsep(&rest, ","));
	if (rest != NULL)
		snprintf(a->selector, sizeof(a->selector), "%s",
		    strsep(&rest, ","));
	if (rest != NULL)
		snprintf(a->offered, sizeof(a->offered), "%s", rest);
}

/* signed_by - IDENTITY,KEY into a, as a trusted signature's */
static void
signed_by(struct arrival *a, const char *arg)
{
	const char *comma = strchr(arg, ',');

	if (comma == NULL)
		return;
	snprintf(a->identity, sizeof(a->identity), "%.*s",
	    (int)(comma - arg), arg);
	snprintf(a->key, sizeof(a->key), "%s", comma + 1);
	a->signed_trusted = comma[1] != '\0';
}

/* read_record - what m gives of its record into a, as the milter reads it */
static int
read_record(struct mailfacts *f, const struct mailmsg *m, struct arrival *a,
    struct pa_err *err)
{
	(void)mailfacts_read(f, m, 0);
	return mailfacts_record(f, a, err);
}

int
main(int argc, char **argv)
{
	struct ledger *lg;
	struct mailmsg *m;
	struct mailfacts f;
	struct arrival a;
	struct pa_err err;
	struct sbuf sb;
	struct pa_config cf;
	const char *signer = NULL, *fields[8];
	int i, k, nfields = 0, fd, rc = 0;

	for (; argc > 1 && (strncmp(argv[1], "-s", 2) == 0 ||
	    strncmp(argv[1], "-f", 2) == 0); argc--, argv++) {
		if (argv[1][1] == 's')
			signer = argv[1] + 2;
		else if (nfields < 8)
			fields[nfields++] = argv[1] + 2;
	}
	if (argc < 5) {
		fprintf(stderr, "usage: arrival-record [-sIDENTITY,KEY] "
		    "[-fFIELD=TEXT]... LEDGER|-cCONF WHEN "
		    "RESULT[,ALGO,SELECTOR,OFFERED] FILE...\n");
		return 1;
	}
	/* -cFILE: the stores of that configuration (StateDatabase) */
	config_init(&cf);
	if (strncmp(argv[1], "-c", 2) == 0) {
		sbuf_init(&sb, 4096);
		if (config_load(&cf, argv[1] + 2, &sb) != 0) {
			fprintf(stderr, "%s\n", sb.buf ? sb.buf : "config");
			return 1;
		}
		sbuf_release(&sb);
		rc = statedb_ledger_open(&lg, &cf, 1, NULL, &err);
	} else
		rc = ledger_open(&lg, argv[1], 1, 1, 0, 0, &err);
	if (rc != 0 ||
	    mailmsg_new(&m, (size_t)64 << 20) != 0) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	mailfacts_init(&f);
	sbuf_init(&sb, (size_t)64 << 20);
	for (i = 4; i < argc && rc == 0; i++) {
		sbuf_reset(&sb);
		if ((fd = open(argv[i], O_RDONLY)) < 0 ||
		    sbuf_read_fd(&sb, fd) != 0 ||
		    mailmsg_parse(m, sb.buf, sb.len) != 0 ||
		    read_record(&f, m, &a, &err) != 0) {
			fprintf(stderr, "%s: cannot be read\n", argv[i]);
			rc = 1;
		} else {
			a.arrived = (time_t)strtoll(argv[2], NULL, 10);
			verdict(&a, argv[3]);
			if (signer != NULL)
				signed_by(&a, signer);
			for (k = 0; k < nfields && rc == 0; k++)
				if ((rc = set_field(&a, fields[k])) != 0)
					fprintf(stderr, "-f%s: no such field\n",
					    fields[k]);
			if (rc == 0 && (rc = ledger_record(lg, &a, &err)) != 0)
				fprintf(stderr, "%s\n", err.msg);
		}
		if (fd >= 0)
			close(fd);
	}
	if (rc == 0 && ledger_sync(lg, &err) != 0) {
		fprintf(stderr, "%s\n", err.msg);
		rc = 1;
	}
	sbuf_release(&sb);
	mailfacts_release(&f);
	mailmsg_free(m);
	ledger_close(lg);
	config_release(&cf);
	return rc != 0;
}
