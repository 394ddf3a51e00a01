/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * replay-record - a corpus folder's mail decided and recorded as the
 * milter decides and records it (bench/replay.h), into SCRATCH/state.mdb,
 * for tests/t-stats.sh (built for make check, not a test itself).
 *
 *	replay-record CORPUS SCRATCH HABIT_MINIMUM
 *
 * Prints each judged message's file, result and patatt verdict, one a
 * line.  Exit status 0, 1 on a fault (said on standard error).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "patchattest.h"
#include "replay.h"

int
main(int argc, char **argv)
{
	struct replay r;
	struct decision d;
	struct arrival a;
	struct habit h;
	struct pa_err err;
	size_t k;
	int rc;

	if (argc != 4) {
		fprintf(stderr, "usage: replay-record CORPUS SCRATCH "
		    "HABIT_MINIMUM\n");
		return 1;
	}
	if ((rc = pa_global_init(&err)) != 0 ||
	    (rc = replay_open(&r, argv[1], argv[2], strtol(argv[3], NULL, 10),
	    &err)) != 0) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	for (k = 0; k < r.nfiles && rc == 0; k++) {
		rc = replay_one(&r, k, &d, &a, &h, &err);
		if (rc == 0)
			printf("%s\t%s\t%s\n", r.files[k], a.result, a.patatt);
		else if (rc == PA_ENOPATCH)
			rc = 0;
		else
			fprintf(stderr, "%s: %s\n", r.files[k], err.msg);
	}
	replay_close(&r);
	return rc != 0;
}
