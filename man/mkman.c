/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * mkman - a manual page from its template: @VERSION@ and @SYSCONFDIR@
 * replaced, and a line "@KEYS@" replaced by the configuration keys as the
 * parser's table describes them, so that patchattest.conf(5) cannot drift
 * from the parser.
 *
 * usage: mkman VERSION SYSCONFDIR < TEMPLATE > PAGE
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "base.h"

#define LINE_MAX_LEN	4096

static void
put_line(const char *line, const char *version, const char *sysconfdir)
{
	static const char *const names[] = { "@VERSION@", "@SYSCONFDIR@" };
	const char *values[] = { version, sysconfdir };
	const char *p = line, *hit, *first;
	size_t k, which = 0;

	for (;;) {
		first = NULL;
		for (k = 0; k < 2; k++)
			if ((hit = strstr(p, names[k])) != NULL &&
			    (first == NULL || hit < first)) {
				first = hit;
				which = k;
			}
		if (first == NULL)
			break;
		fwrite(p, 1, (size_t)(first - p), stdout);
		fputs(values[which], stdout);
		p = first + strlen(names[which]);
	}
	fputs(p, stdout);
}

int
main(int argc, char **argv)
{
	char line[LINE_MAX_LEN];

	if (argc != 3) {
		fputs("usage: mkman VERSION SYSCONFDIR < TEMPLATE > PAGE\n",
		    stderr);
		return 2;
	}
	while (fgets(line, sizeof(line), stdin) != NULL) {
		if (strcmp(line, "@KEYS@\n") == 0) {
			if (config_write_man(stdout) != 0)
				return 1;
		} else
			put_line(line, argv[1], argv[2]);
	}
	return ferror(stdin) || fflush(stdout) != 0 || ferror(stdout) ? 1 : 0;
}
