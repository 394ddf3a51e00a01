/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pin-race - one side of a race for first pins, for tests/t-pg.sh (built
 * for make check, not a test itself):
 *
 *	pin-race CONF GO KEY IDENTITY...
 *
 * opens the pins CONF names (StateDatabase), waits until the file GO
 * exists (so that two of it start at once), then pins KEY for each
 * IDENTITY as the milter does on first use, and reads each pin back.
 * One line per identity: IDENTITY, what the first use saw (new, same or
 * other), and the key read back.  Exit status 0, 1 on a fault.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "patchattest.h"
#include "state.h"

static const char *const seen_names[] = {
	[PIN_NEW] = "new", [PIN_SAME] = "same", [PIN_OTHER] = "other"
};

int
main(int argc, char **argv)
{
	struct pa_config cf;
	struct pins *pins;
	struct pin pin, back;
	struct pa_err err;
	struct sbuf sb;
	struct timespec tick = { 0, 1000000 };
	enum pin_seen seen[64];
	int i, rc = 0;

	if (argc < 5 || argc - 4 > 64) {
		fprintf(stderr, "usage: pin-race CONF GO KEY IDENTITY...\n");
		return 1;
	}
	config_init(&cf);
	sbuf_init(&sb, 4096);
	if (config_load(&cf, argv[1], &sb) != 0) {
		fprintf(stderr, "%s\n", sb.buf ? sb.buf : "config");
		return 1;
	}
	sbuf_release(&sb);
	if (statedb_pins_open(&pins, &cf, 1, 1, NULL, &err) != 0) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	while (access(argv[2], F_OK) != 0)
		nanosleep(&tick, NULL);
	for (i = 4; i < argc && rc == 0; i++)
		rc = pins_first_use(pins, argv[i], argv[3], time(NULL),
		    &seen[i - 4], &pin, &err);
	for (i = 4; i < argc && rc == 0; i++)
		if ((rc = pins_get(pins, argv[i], &back, &err)) == 0)
			printf("%s %s %s\n", argv[i], seen_names[seen[i - 4]],
			    back.key);
	if (rc != 0)
		fprintf(stderr, "%s\n", err.msg);
	pins_close(pins);
	config_release(&cf);
	return rc != 0;
}
