/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ledger-race - a writer that commits one arrival record at a time, and a
 * reader that asks the same questions again and again meanwhile, for
 * tests/t-state-group.sh (built for make check, not a test itself).
 *
 *	ledger-race write LEDGER N WHEN
 *	ledger-race read LEDGER N WHEN STOPFILE
 *
 * write: N records, Message-IDs <wI@race.example>, arriving at WHEN + I,
 * each signed by one of 16 identities (their habits change as it goes),
 * each in a commit of its own (ledger_sync() after each).
 * read: until STOPFILE is there (and 20 rounds at least), the records
 * arriving from WHEN to WHEN + N must be N, <mI@race.example> for each I
 * in order, and <mI@race.example> for a few I must be found by
 * Message-ID, once each.  Each round runs in a child process, as
 * patchattest runs such a reader (cli/shelter.c): a round that dies of a
 * signal (LMDB tripping over a page the writer reused) is counted and
 * run again.  It prints the rounds read and those run again; exit status
 * 0, or 1 at the first answer that is not that (said on standard error).
 */
#include "config.h"

#include <sys/types.h>
#include <sys/wait.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "patchattest.h"
#include "state.h"

#define ROUNDS_MIN	20

/* What a walk over the old records saw. */
struct seen {
	long		 n;		/* records, in order so far */
	int		 wrong;
	char		 what[512];
};

static int
in_order(void *arg, const struct arrival *a)
{
	struct seen *s = arg;
	char want[64];

	snprintf(want, sizeof(want), "m%ld@race.example", s->n);
	if (strcmp(a->message_id, want) != 0) {
		snprintf(s->what, sizeof(s->what), "record %ld is <%.200s>, "
		    "not <%s>", s->n, a->message_id, want);
		s->wrong = 1;
		return 1;
	}
	s->n++;
	return 0;
}

static int
count(void *arg, const struct arrival *a)
{
	(void)a;
	++*(long *)arg;
	return 0;
}

static int
write_all(struct ledger *lg, long n, time_t when)
{
	struct arrival a;
	struct pa_err err;
	char id[64];
	long i;

	for (i = 0; i < n; i++) {
		memset(&a, 0, sizeof(a));
		snprintf(id, sizeof(id), "w%ld@race.example", i);
		arrival_set_message_id(&a, id, strlen(id));
		a.arrived = when + i;
		snprintf(a.result, sizeof(a.result), "pass");
		snprintf(a.identity, sizeof(a.identity),
		    "dev%ld@race.example", i % 16);
		snprintf(a.key, sizeof(a.key), "ed25519/race/%ld", i % 16);
		a.signed_trusted = 1;
		if (ledger_record(lg, &a, &err) != 0 ||
		    ledger_sync(lg, &err) != 0) {
			fprintf(stderr, "record %ld: %s\n", i, err.msg);
			return 1;
		}
	}
	return 0;
}

/* one_round - each question once: 0, or 1 after saying what was wrong */
static int
one_round(struct ledger *lg, long n, time_t when)
{
	struct seen s = { 0, 0, "" };
	struct pa_err err;
	char id[64];
	long i, found;
	int rc;

	if ((rc = ledger_each(lg, when, when + n, in_order, &s, &err)) != 0 &&
	    !s.wrong) {
		fprintf(stderr, "each: %s\n", err.msg);
		return 1;
	}
	if (s.wrong || s.n != n) {
		fprintf(stderr, "each: %s\n", s.wrong ? s.what :
		    "too few records");
		return 1;
	}
	for (i = 0; i < n; i += n / 7 + 1) {
		snprintf(id, sizeof(id), "m%ld@race.example", i);
		found = 0;
		if (ledger_by_message_id(lg, id, count, &found, &err) != 0 ||
		    found != 1) {
			fprintf(stderr, "<%s>: %ld found%s%s\n", id, found,
			    found ? "" : ": ", found ? "" : err.msg);
			return 1;
		}
	}
	return 0;
}

/* sheltered_round - one_round() in a child: 0, 1 (wrong), or 2 (tripped) */
static int
sheltered_round(struct ledger *lg, long n, time_t when)
{
	pid_t pid;
	int status;

	fflush(stderr);
	if ((pid = fork()) < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0)
		_exit(one_round(lg, n, when));
	if (waitpid(pid, &status, 0) < 0) {
		perror("waitpid");
		return 1;
	}
	if (WIFSIGNALED(status))
		return 2;
	return WEXITSTATUS(status) == 0 ? 0 : 1;
}

int
main(int argc, char **argv)
{
	struct ledger *lg;
	struct pa_err err;
	long n, rounds = 0, tripped = 0;
	time_t when;
	int writer, rc = 0;

	if (argc < 5 || (strcmp(argv[1], "write") != 0 &&
	    (strcmp(argv[1], "read") != 0 || argc < 6))) {
		fprintf(stderr, "usage: ledger-race write LEDGER N WHEN | "
		    "read LEDGER N WHEN STOPFILE\n");
		return 1;
	}
	writer = strcmp(argv[1], "write") == 0;
	n = strtol(argv[3], NULL, 10);
	when = (time_t)strtoll(argv[4], NULL, 10);
	if (ledger_open(&lg, argv[2], writer, writer, 0, 0, &err) != 0) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	if (writer)
		rc = write_all(lg, n, when);
	else
		while (rc == 0 && (rounds < ROUNDS_MIN ||
		    access(argv[5], F_OK) != 0)) {
			if ((rc = sheltered_round(lg, n, when)) == 2) {
				tripped++;
				rc = 0;
			} else
				rounds++;
		}
	if (!writer)
		printf("%ld rounds, %ld run again\n", rounds, tripped);
	ledger_close(lg);
	return rc;
}
