/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * divert.c - what the libraries under libpatchattest write to standard
 * error, taken away from the program's own standard error.
 *
 * Debian builds librnp with its diagnostics always on: it prints a line to
 * stderr for things as ordinary as a key file with text before its armor,
 * and some lines carry bytes from the key or signature it was given.  In a
 * daemon under systemd each such line would be a journal entry of its
 * own, forged text included.  glibc lets a program point the stderr
 * stream elsewhere; the libraries write through that stream, so a stream
 * of our own hands their output over line by line, and the program keeps
 * a stream on the real standard error for its own messages.  Sanitizers
 * and anything else writing to descriptor 2 itself are not affected.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "patchattest.h"

#define LINE_MAX_BYTES	512	/* longer lines are handed over in pieces */

static void	(*line_sink)(const char *, size_t);
static char	 line[LINE_MAX_BYTES];
static size_t	 line_len;

/* hand_over - the line gathered so far, to the sink */
static void
hand_over(void)
{
	while (line_len > 0 && (line[line_len - 1] == '\n' ||
	    line[line_len - 1] == '\r'))
		line_len--;
	if (line_len > 0 && line_sink != NULL)
		line_sink(line, line_len);
	line_len = 0;
}

/* divert_write - the stream's writes (glibc's stream lock is held) */
static ssize_t
divert_write(void *cookie, const char *buf, size_t size)
{
	size_t i;

	(void)cookie;
	for (i = 0; i < size; i++) {
		line[line_len++] = buf[i];
		if (buf[i] == '\n' || line_len == sizeof(line))
			hand_over();
	}
	return (ssize_t)size;
}

FILE *
pa_divert_stderr(void (*sink)(const char *, size_t))
{
	cookie_io_functions_t io = { .write = divert_write };
	FILE *own, *diverted;
	int fd;

	if ((fd = dup(STDERR_FILENO)) < 0)
		return NULL;
	if ((own = fdopen(fd, "w")) == NULL) {
		close(fd);
		return NULL;
	}
	if ((diverted = fopencookie(NULL, "w", io)) == NULL) {
		fclose(own);
		return NULL;
	}
	setvbuf(own, NULL, _IOLBF, 0);
	setvbuf(diverted, NULL, _IOLBF, 0);
	line_sink = sink;
	fflush(stderr);
	stderr = diverted;
	return own;
}
