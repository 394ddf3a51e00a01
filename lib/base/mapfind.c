/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * mapfind.c - a file's mapping, read off /proc/self/maps (see mapfind.h).
 *
 * A line is "START-END PERMS OFFSET MAJOR:MINOR INODE [PATH]", the
 * numbers in hexadecimal but the inode in decimal.  The path is not used:
 * it may be a deleted or renamed file's, and device and inode say which
 * file it is.
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "patchattest.h"
#include "mapfind.h"

/* field - the number at *p in base, and *p past it and one separator */
static unsigned long long
field(const char **p, int base, char sep, int *ok)
{
	unsigned long long v;
	char *end;

	v = strtoull(*p, &end, base);
	if (end == *p || *end != sep)
		*ok = 0;
	*p = *end == sep ? end + 1 : end;
	return v;
}

/* skip_word - *p past the next space-separated word and its space */
static void
skip_word(const char **p)
{
	while (**p != ' ' && **p != '\0')
		(*p)++;
	if (**p == ' ')
		(*p)++;
}

/* drain - the rest of a line longer than the buffer */
static void
drain(FILE *f)
{
	int c;

	while ((c = getc(f)) != EOF && c != '\n')
		;
}

int
mapfind_file(int fd, void **base, size_t *len)
{
	unsigned long long start, end, major_no, minor_no, inode;
	char line[512];
	struct stat st;
	const char *p;
	FILE *f;
	int ok, rc = PA_ENOTFOUND;

	if (fstat(fd, &st) != 0 || (f = fopen("/proc/self/maps", "re")) ==
	    NULL)
		return PA_ERROR;
	while (rc == PA_ENOTFOUND && fgets(line, sizeof(line), f) != NULL) {
		if (strchr(line, '\n') == NULL)
			drain(f);	/* a long path: its fields came first */
		ok = 1;
		p = line;
		start = field(&p, 16, '-', &ok);
		end = field(&p, 16, ' ', &ok);
		skip_word(&p);				/* permissions */
		skip_word(&p);				/* offset */
		major_no = field(&p, 16, ':', &ok);
		minor_no = field(&p, 16, ' ', &ok);
		inode = strtoull(p, NULL, 10);
		if (ok && end > start && inode == (unsigned long long)st.st_ino &&
		    major_no == major(st.st_dev) &&
		    minor_no == minor(st.st_dev)) {
			*base = (void *)(uintptr_t)start;
			*len = (size_t)(end - start);
			rc = 0;
		}
	}
	fclose(f);
	return rc;
}
