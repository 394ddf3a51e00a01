/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pg-passfile.c - the passfile libpq reads for the state database: the
 * one of the user the process runs as, whatever HOME says (see pg-int.h).
 *
 * libpq (version 15 on) looks for ~/.pgpass in HOME, and a milter
 * started as root (start-stop-daemon, an init script, cron) keeps root's
 * HOME after it becomes UserID: its password would be looked for in
 * root's home, which it may not read, and every use of the database
 * would fail.  The passfile is therefore named as a connection
 * parameter, from the home the password database gives the process's
 * effective user, unless the string names one (passfile=) or PGPASSFILE
 * does, which libpq honours as ever.  libpq reads it as that user: the
 * milter after it dropped root, and -n and patchattest db, run as root,
 * once they became UserID.  Nothing here is read as root on a path
 * another user may change; stat() and open() only look at the file as
 * libpq will, to say what it made of it.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pg-int.h"

#define PW_BUF		16384	/* a password database entry */

/* named - the value of keyword in opts, or NULL when it is not set */
static const char *
named(const PQconninfoOption *opts, const char *keyword)
{
	const PQconninfoOption *o;

	for (o = opts; o->keyword != NULL; o++)
		if (strcmp(o->keyword, keyword) == 0 && o->val != NULL &&
		    o->val[0] != '\0')
			return o->val;
	return NULL;
}

/* home_passfile - the passfile in the home of the user we run as */
static void
home_passfile(struct pgdb *db)
{
	struct passwd pw, *found = NULL;
	char *buf;

	snprintf(db->as, sizeof(db->as), "uid %lu",
	    (unsigned long)geteuid());
	if ((buf = malloc(PW_BUF)) == NULL)
		return;
	if (getpwuid_r(geteuid(), &pw, buf, PW_BUF, &found) == 0 &&
	    found != NULL) {
		snprintf(db->as, sizeof(db->as), "%s", pw.pw_name);
		if (pw.pw_dir != NULL && pw.pw_dir[0] == '/' &&
		    (size_t)snprintf(db->passfile, sizeof(db->passfile),
		    "%s%s.pgpass", pw.pw_dir, strcmp(pw.pw_dir, "/") == 0 ?
		    "" : "/") < sizeof(db->passfile))
			db->pass_ours = 1;
		else
			db->passfile[0] = '\0';
	}
	free(buf);
}

void
pgdb_passfile(struct pgdb *db, const PQconninfoOption *opts)
{
	const char *given, *env;

	db->pass_given = named(opts, "password") != NULL ||
	    ((env = getenv("PGPASSWORD")) != NULL && env[0] != '\0');
	db->pass_ours = 0;
	db->passfile[0] = '\0';
	home_passfile(db);
	if ((given = named(opts, "passfile")) != NULL ||
	    ((given = getenv("PGPASSFILE")) != NULL && given[0] != '\0')) {
		snprintf(db->passfile, sizeof(db->passfile), "%s", given);
		db->pass_ours = 0;
	}
}

enum pgdb_pass
pgdb_passfile_state(const struct pgdb *db, char *out, size_t size)
{
	const char *p = db->passfile;
	struct stat st;
	int fd;

	out[0] = '\0';
	if (db->pass_given)
		return PGDB_PASS_GIVEN;
	if (p[0] == '\0') {
		snprintf(out, size, "no passfile: %s has no home folder",
		    db->as);
		return PGDB_PASS_NONE;
	}
	if (stat(p, &st) != 0) {
		snprintf(out, size, errno == ENOENT ? "no passfile at %s" :
		    "the passfile %s cannot be looked at (%s)", p,
		    strerror(errno));
		return errno == ENOENT ? PGDB_PASS_MISSING : PGDB_PASS_IGNORED;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(out, size, "the passfile %s is not a plain file, and "
		    "libpq ignores it", p);
		return PGDB_PASS_IGNORED;
	}
	if (st.st_mode & (S_IRWXG | S_IRWXO)) {
		snprintf(out, size, "libpq ignores the passfile %s: its "
		    "group or others may use it (mode %04o; chmod 600 it)", p,
		    (unsigned)(st.st_mode & 07777));
		return PGDB_PASS_IGNORED;
	}
	if ((fd = open(p, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)) <
	    0) {
		snprintf(out, size, "%s may not read the passfile %s (%s): "
		    "make it %s's, mode 0600", db->as, p, strerror(errno),
		    db->as);
		return PGDB_PASS_IGNORED;
	}
	close(fd);
	snprintf(out, size, "%s", p);
	return PGDB_PASS_READ;
}
