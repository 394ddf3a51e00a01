/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * setup.c - the configuration as the milter is about to use it: every
 * problem that would stop it at start-up, or leave it serving nothing but
 * temperror, found before anything starts (at every start, and alone with
 * -n).  Each problem names the file and line of its key, as the parser's
 * own do.
 *
 * What is judged for the user the milter runs as (UserID), not for the one
 * who runs the check: a GnuPG home that only root can read is no use to
 * the milter once it has dropped its privileges, and StateDatabase is
 * reached as that user, with that user's passfile.
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "milter.h"
#include "state.h"

#define MAX_GROUPS	256	/* supplementary groups of the milter's user */

/* Where a key's value came from, for the messages about it. */
struct origin {
	const char		*file;
	const char		*socket_arg;	/* -p, or NULL */
	const char		*pid_arg;	/* -P, or NULL */
	const struct pa_config	*cf;
	const struct runas	*ra;
	struct sbuf		*problems;
	struct sbuf		*notes;		/* what -n says besides */
	int			 check_only;	/* -n: say all that is wrong */
};

/* The setting a problem is about: a key, its value and its line. */
struct setting {
	const char	*key;
	const char	*value;		/* NULL: the message names the key */
	unsigned long	 line;		/* 0: the default */
	char		 from_arg;	/* given with -p or -P: 'p', 'P'; or 0 */
};

/* setting - key with value, on the line of its (first) value */
static struct setting
setting(const struct origin *o, const char *key, const char *value)
{
	struct setting set = { key, value, config_key_line(o->cf, key), 0 };

	if (strcmp(key, "Socket") == 0 && o->socket_arg != NULL)
		set.from_arg = 'p';
	else if (strcmp(key, "PidFile") == 0 && o->pid_arg != NULL)
		set.from_arg = 'P';
	return set;
}

/* problem - one line: "FILE:LINE: Key VALUE: message" */
static void __attribute__((format(printf, 3, 4)))
problem(const struct origin *o, const struct setting *set,
    const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (set->from_arg)
		sbuf_addf(o->problems, "-%c", set->from_arg);
	else if (set->line > 0)
		sbuf_addf(o->problems, "%s:%lu", o->file, set->line);
	else
		sbuf_addstr(o->problems, o->file);
	if (set->value != NULL)
		sbuf_addf(o->problems, ": %s %s%s", set->key, set->value,
		    set->line > 0 || set->from_arg ? "" : " (the default)");
	sbuf_addf(o->problems, ": %s\n", msg);
}

const char *
setup_socket_path(const char *spec)
{
	if (strncmp(spec, "unix:", 5) == 0)
		return spec + 5;
	if (strncmp(spec, "local:", 6) == 0)
		return spec + 6;
	return NULL;
}

/*
 * may - whether the milter's user may read (R_OK), write (W_OK) or enter
 * (X_OK) what st describes, by its mode bits; root may do anything
 */
static int
may(const struct origin *o, const struct stat *st, int how)
{
	gid_t groups[MAX_GROUPS];
	int n = MAX_GROUPS, i, shift;

	if (!o->ra->set)
		return -1;	/* the caller asks access() instead */
	if (o->ra->uid == 0)
		return 1;
	if (st->st_uid == o->ra->uid)
		shift = 6;
	else {
		shift = 0;
		if (getgrouplist(o->ra->name, o->ra->gid, groups, &n) < 0)
			n = 0;
		for (i = 0; i < n; i++)
			if (groups[i] == st->st_gid)
				shift = 3;
		if (st->st_gid == o->ra->gid)
			shift = 3;
	}
	return ((st->st_mode >> shift) & (mode_t)how) == (mode_t)how;
}

/*
 * usable - unless path is there, of the kind wanted (a folder when dir),
 * and the milter's user may use it as how says, a problem about set;
 * what, when not empty, says what path is to the setting
 */
static void
usable(const struct origin *o, const struct setting *set, const char *path,
    int dir, int how, const char *what)
{
	struct stat st;
	int ok;

	if (stat(path, &st) != 0) {
		problem(o, set, "%s%s", what, strerror(errno));
		return;
	}
	if (dir && !S_ISDIR(st.st_mode)) {
		problem(o, set, "%snot a folder", what);
		return;
	}
	if (S_ISDIR(st.st_mode))
		how |= X_OK;	/* a folder is no use unless entered */
	if ((ok = may(o, &st, how)) < 0)
		ok = access(path, how) == 0;
	if (!ok)
		problem(o, set, "%sthe milter's user (%s) may not %s it",
		    what, o->ra->set ? o->ra->name : "the one running this",
		    how & W_OK ? "write to" : "read");
}

/* check_socket - a spec libmilter can use, in a folder that is there */
static void
check_socket(const struct origin *o, const char *spec)
{
	const char *p = setup_socket_path(spec), *at;
	struct setting set = setting(o, "Socket", spec);
	struct pa_err err;
	char *end, *copy, *dir;
	int shared;
	long port;

	if (p != NULL) {
		if (*p != '/') {
			problem(o, &set, "a local socket needs an absolute "
			    "path");
			return;
		}
		if ((copy = strdup(p)) == NULL)
			return;
		/* made as root, or as UserID where root must not act */
		dir = dirname(copy);
		if (safedir_check(dir, o->ra->set ? o->ra->uid : getuid(),
		    &shared, &err) != 0)
			problem(o, &set, "its folder %s: %s", dir, err.msg);
		free(copy);
		return;
	}
	if (strncmp(spec, "inet:", 5) == 0 || strncmp(spec, "inet6:", 6) == 0) {
		p = strchr(spec, ':') + 1;
		at = strchr(p, '@');
		port = strtol(p, &end, 10);
		if (end > p && *end == (at ? '@' : '\0') && port > 0 &&
		    port < 65536)
			return;
	}
	problem(o, &set, "not local:/path, inet:PORT@HOST or "
	    "inet6:PORT@HOST");
}

/* check_metrics - MetricsListen: an address it may listen on */
static void
check_metrics(const struct origin *o)
{
	struct setting set = setting(o, "MetricsListen",
	    o->cf->metrics_listen);
	struct sockaddr_storage ss;
	struct pa_err err;
	socklen_t len;

	if (o->cf->metrics_listen != NULL &&
	    metrics_address(o->cf->metrics_listen, o->cf->metrics_remote ==
	    CONFIG_YES, &ss, &len, &err) != 0)
		problem(o, &set, "%s", err.msg);
}

/* lookup_user - ra from "user[:group]" */
static void
lookup_user(const struct origin *o, const char *spec, struct runas *ra)
{
	struct setting set = setting(o, "UserID", spec);
	struct pa_err err;

	if (runas_lookup(ra, spec, &err) != 0)
		problem(o, &set, "%s", err.msg);
}

/*
 * check_index - IndexPath, or the folder it is to be made in: written to
 * even by a milter that neither learns nor reads the archive, since LMDB
 * keeps its lock file beside the data
 */
static void
check_index(const struct origin *o, const char *path)
{
	struct setting set = setting(o, "IndexPath", path);
	struct stat st;
	char *copy;

	if (stat(path, &st) == 0) {
		usable(o, &set, path, 1, R_OK | W_OK, "");
		return;
	}
	if ((copy = strdup(path)) == NULL)
		return;
	usable(o, &set, dirname(copy), 1, W_OK,
	    "the folder to make it in: ");
	free(copy);
}

/*
 * check_keyring - a PatattKeyring folder and the kind folders in it that
 * the milter will search: a lookup below one it cannot is a fault
 */
static void
check_keyring(const struct origin *o, const struct setting *set,
    const char *dir)
{
	static const char *const kinds[] = { "openpgp", "ed25519", "openssh",
		"by-hash" };
	char path[4096], what[64];
	struct stat st;
	size_t k;

	usable(o, set, dir, 1, R_OK, "");
	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir,
		    kinds[k]) >= sizeof(path) || lstat(path, &st) != 0)
			continue;	/* none of that kind: nothing to read */
		snprintf(what, sizeof(what), "its %s folder: ", kinds[k]);
		usable(o, set, path, 1, R_OK, what);
	}
}

/*
 * check_journal - the journal of arrival records that StateDatabase
 * keeps beside StateFile (STATEFILE-outbox): when the milter runs as
 * root, in a folder only root may change (its files are made, renamed
 * and set aside there); with -n, damage found in it, or set aside from
 * it and waiting to be looked into, said.  The milter starts with damage
 * all the same: it sends what can be read and sets aside the rest.
 */
static void
check_journal(const struct origin *o, const struct pa_config *cf)
{
	struct setting set = setting(o, "StateFile", cf->state_file);
	struct pa_err err;
	char *copy;
	int shared;

	if (cf->state_file == NULL)
		return;
	if ((o->ra->set ? o->ra->uid : getuid()) == 0 &&
	    cf->state_file[0] == '/' &&
	    (copy = strdup(cf->state_file)) != NULL) {
		if (safedir_check(dirname(copy), 0, &shared, &err) != 0)
			problem(o, &set, "its folder, where root keeps the "
			    "journal of arrival records: %s", err.msg);
		free(copy);
	}
	if (o->check_only && statedb_journal_check(cf, &err) != 0)
		problem(o, &set, "%s", err.msg);
}

/* write_all - len bytes of p to fd, or as many as it takes */
static void
write_all(int fd, const void *p, size_t len)
{
	const char *c = p;
	ssize_t n;

	while (len > 0)
		if ((n = write(fd, c, len)) > 0) {
			c += n;
			len -= (size_t)n;
		} else if (n == 0 || errno != EINTR)
			return;
}

/* read_all - up to len bytes from fd into p, until its end: how many */
static size_t
read_all(int fd, void *p, size_t len)
{
	size_t got = 0;
	ssize_t n;

	while (got < len)
		if ((n = read(fd, (char *)p + got, len - got)) > 0)
			got += (size_t)n;
		else if (n == 0 || errno != EINTR)
			break;
	return got;
}

/*
 * look_as_user - statedb_look() as the milter's user will see the
 * database: when we are root and UserID is another user, in a child that
 * becomes that user first, so that libpq reads the passfile the milter
 * will read, as the milter will, and root opens nothing in that user's
 * home; the child hands what it saw back through a pipe.  Else here.
 */
static void
look_as_user(const struct origin *o, const struct pa_config *cf,
    struct statedb_seen *seen)
{
	struct pa_err err;
	size_t got = 0;
	pid_t pid = -1;
	int fds[2], saved;

	if (getuid() != 0 || !o->ra->set || o->ra->uid == 0) {
		statedb_look(cf, seen);
		return;
	}
	if (pipe(fds) != 0)
		fds[0] = fds[1] = -1;
	else if ((pid = fork()) == 0) {
		close(fds[0]);
		if (runas_become(o->ra, &err) == 0)
			statedb_look(cf, seen);
		else {
			memset(seen, 0, sizeof(*seen));
			seen->rc = PA_ERROR;
			seen->err = err;
		}
		write_all(fds[1], seen, sizeof(*seen));
		_exit(0);
	}
	saved = errno;
	if (pid > 0) {
		close(fds[1]);
		got = read_all(fds[0], seen, sizeof(*seen));
		close(fds[0]);
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
	} else if (fds[0] >= 0) {
		close(fds[0]);
		close(fds[1]);
	}
	if (got != sizeof(*seen)) {
		memset(seen, 0, sizeof(*seen));
		seen->rc = PA_ERROR;
		pa_err_set(&seen->err, "cannot look at it as %s: %s",
		    o->ra->name, pid < 0 ? strerror(saved) :
		    "the process that looked ended without an answer");
	}
}

/*
 * check_database - StateDatabase reached as the milter's user will reach
 * it, with the schema this program reads (the value is not repeated: it
 * may hold a password); how it was reached, for -n to say.  A database
 * that cannot be reached, or a passfile libpq ignores, stops only -n: a
 * node that starts while it is away must still pass mail, as it does
 * when the database goes away later (the log says so at the first
 * message that needs it).
 */
static void
check_database(const struct origin *o, const struct pa_config *cf)
{
	struct setting set = setting(o, "StateDatabase", "(not shown)");
	struct statedb_seen seen;

	look_as_user(o, cf, &seen);
	if (seen.passfile.msg[0] != '\0' && o->check_only)
		problem(o, &set, "%s", seen.passfile.msg);
	if (seen.rc != 0 && (seen.rc != PA_ERROR || o->check_only))
		problem(o, &set, "%s", seen.err.msg);
	else if (seen.rc == 0 && o->notes != NULL)
		sbuf_addf(o->notes, "StateDatabase: schema version %d, reached "
		    "%s\n", seen.version, seen.how);
	check_journal(o, cf);
}

/*
 * check_store - a store of key's (PatattTOFUPins' pins, StateFile's
 * ledger) that check() opens, the milter's user may read and write, or a
 * folder it may make one in; LMDB keeps a lock file beside the data
 * (PATH-lock), which the folder must let it make if missing
 */
static void
check_store(const struct origin *o, const char *key, const char *path,
    int (*check)(const char *, struct pa_err *))
{
	struct setting set = setting(o, key, path);
	struct pa_err err;
	char lock[PATH_MAX], *copy;

	if ((size_t)snprintf(lock, sizeof(lock), "%s-lock", path) >=
	    sizeof(lock)) {
		problem(o, &set, "the path is too long");
		return;
	}
	if ((copy = strdup(path)) != NULL &&
	    (access(path, F_OK) != 0 || access(lock, F_OK) != 0))
		usable(o, &set, dirname(copy), 1, W_OK,
		    "the folder to make it in: ");
	free(copy);
	if (access(lock, F_OK) == 0)
		usable(o, &set, lock, 0, R_OK | W_OK, "its lock file: ");
	if (access(path, F_OK) != 0)
		return;
	usable(o, &set, path, 0, R_OK | W_OK, "");
	if (check(path, &err) != 0)
		problem(o, &set, "%s", err.msg);
}

/* check_paths - what the milter's user must find, read and write */
static void
check_paths(const struct origin *o)
{
	const struct pa_config *cf = o->cf;
	const struct config_list *keyrings = &cf->patatt_keyrings;
	struct setting set;
	struct pa_err err;
	size_t i;

	set = setting(o, "PidFile", NULL);
	if (cf->pid_file != NULL && pidfile_check(cf->pid_file, o->ra->set ?
	    o->ra->uid : getuid(), &err) != 0)
		problem(o, &set, "%s", err.msg);
	set = setting(o, "Archive", cf->archive);
	if (cf->archive != NULL)
		usable(o, &set, cf->archive, 0, R_OK, "");
	check_index(o, cf->index_path);
	if (cf->state_database != NULL)
		check_database(o, cf);
	else if (cf->patatt_tofu == CONFIG_YES)
		check_store(o, "PatattTOFUPins", cf->patatt_tofu_pins,
		    pins_check);
	if (cf->state_file != NULL && cf->state_database == NULL)
		check_store(o, "StateFile", cf->state_file, ledger_check);
	set = setting(o, "GnuPGHome", cf->gnupg_home);
	if (cf->gnupg_home != NULL)
		usable(o, &set, cf->gnupg_home, 1, R_OK, "");
	for (i = 0; i < keyrings->n; i++) {
		set = setting(o, "PatattKeyring", keyrings->v[i]);
		set.line = keyrings->line[i];
		check_keyring(o, &set, keyrings->v[i]);
	}
}

int
setup_load(const char *file, const char *socket_arg, const char *pid_arg,
    int check_only, struct pa_config *cf, struct runas *ra,
    struct sbuf *problems, struct sbuf *notes)
{
	struct origin o = { file, socket_arg, pid_arg, cf, ra, problems,
	    notes, check_only };
	char *sock, *pid;

	if (config_init(cf) != 0)
		return -1;
	if (config_load_partial(cf, file, problems) == PA_ENOMEM)
		return -1;
	if (socket_arg != NULL) {
		if ((sock = strdup(socket_arg)) == NULL)
			return -1;
		free(cf->socket);
		cf->socket = sock;
	}
	if (pid_arg != NULL) {
		if ((pid = strdup(pid_arg)) == NULL)
			return -1;
		free(cf->pid_file);
		cf->pid_file = pid;
	}
	if (cf->user_id != NULL)
		lookup_user(&o, cf->user_id, ra);
	else if (getuid() == 0)
		problem(&o, &(struct setting){ "UserID", NULL, 0, 0 },
		    "UserID is not set and the milter would run as root: "
		    "name the user it runs as once its socket is open "
		    "(UserID patchattest), or say UserID root");
	check_socket(&o, cf->socket);
	check_metrics(&o);
	check_paths(&o);
	return problems->len > 0 ? -1 : 0;
}
