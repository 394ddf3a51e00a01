/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t-mapguard - a file cut short under its memory map: a read of a lost
 * page in a watched region gives zeros and raises the region's flag
 * instead of killing the process; so does any read of this thread while
 * it catches (mapguard_catch: a mapping made before its place is known);
 * a region no longer watched faults as ever (checked in a child, which
 * must not live through the read: it dies of SIGBUS, or the handler that
 * was there before ours, a sanitizer's, ends it).  And mapfind finds the
 * mapping by its file alone, as the index's watch does for LMDB's map.
 */
#include "config.h"

#include <sys/mman.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "patchattest.h"
#include "mapguard.h"
#include "mapfind.h"
#include "tap.h"

#define PAGES	16

int
main(void)
{
	struct mapguard_region *r;
	struct pa_err err;
	atomic_int fault = 0;
	const char *tmp = getenv("TMPDIR");
	char path[256], other[256];
	long page = sysconf(_SC_PAGESIZE);
	unsigned char *map, *buf;
	void *found;
	size_t found_len;
	volatile unsigned char got;
	pid_t pid;
	int fd, fd2, st;

	snprintf(path, sizeof(path), "%s/t-mapguard.XXXXXX",
	    tmp && tmp[0] ? tmp : "/tmp");
	if (page <= 0 || (fd = mkstemp(path)) < 0)
		tap_skip_all("cannot make a scratch file");
	unlink(path);
	buf = malloc((size_t)page * PAGES);
	memset(buf, 0xa5, (size_t)page * PAGES);
	if (buf == NULL || write(fd, buf, (size_t)page * PAGES) !=
	    (ssize_t)(page * PAGES))
		tap_skip_all("cannot write the scratch file");
	map = mmap(NULL, (size_t)page * PAGES, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		tap_skip_all("cannot map the scratch file");

	tap_check(mapfind_file(fd, &found, &found_len) == 0 &&
	    found == map && found_len == (size_t)page * PAGES,
	    "mapfind: the mapping of the file, found by its descriptor");
	snprintf(other, sizeof(other), "%s/t-mapguard.XXXXXX",
	    tmp && tmp[0] ? tmp : "/tmp");
	if ((fd2 = mkstemp(other)) < 0)
		tap_skip_all("cannot make a scratch file");
	unlink(other);
	tap_check_int(mapfind_file(fd2, &found, &found_len), PA_ENOTFOUND,
	    "mapfind: a file not mapped is not found");
	close(fd2);
	tap_check_int(mapguard_init(&err), 0, "the handler is installed");
	tap_check_int(mapguard_add(&r, map, (size_t)page * PAGES, &fault), 0,
	    "the mapping is watched");
	tap_check_int(map[(size_t)page * (PAGES - 1)], 0xa5,
	    "the last page reads as written");
	if (ftruncate(fd, page * 2) != 0)
		tap_skip_all("cannot cut the file");
	tap_check_int(map[page], 0xa5, "a page still in the file reads on");
	tap_check_int(atomic_load(&fault), 0, "  and raises no flag");
	got = map[(size_t)page * (PAGES - 1) + 7];
	tap_check_int(got, 0, "a page cut off reads as zeros");
	tap_check_int(atomic_load(&fault), 1, "  and raises the flag");
	got = map[(size_t)page * (PAGES - 2)];
	tap_check_int(got, 0, "another one too");

	mapguard_remove(r);
	atomic_store(&fault, 0);
	mapguard_catch(&fault);
	got = map[(size_t)page * (PAGES - 4)];
	mapguard_catch(NULL);
	tap_check(got == 0 && atomic_load(&fault) == 1, "not watched, but "
	    "caught in this thread: zeros, and the flag");
	fflush(stdout);
	if ((pid = fork()) == 0) {
		got = map[(size_t)page * (PAGES - 3)];
		_exit(got == 0 ? 3 : 4);
	}
	tap_check(pid > 0 && waitpid(pid, &st, 0) == pid && (WIFSIGNALED(st) ?
	    WTERMSIG(st) == SIGBUS : WEXITSTATUS(st) != 3 &&
	    WEXITSTATUS(st) != 4), "no longer watched: the fault is not ours "
	    "to mend");
	munmap(map, (size_t)page * PAGES);
	close(fd);
	free(buf);
	return tap_done();
}
