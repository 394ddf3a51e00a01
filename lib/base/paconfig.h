/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * paconfig - the configuration file shared by patchattest and
 * patchattest-milter: "Key value" lines, "#" comments, keys in any case.
 * (Not "config.h": that name belongs to autoconf's generated header.)
 *
 * Every key is one row of config_keys[]: name, type, default, bounds or
 * choices, a one-line description.  The parser, the sample configuration
 * and the manual page are all made from that table.
 *
 * File syntax: one "Key value" per line; "#" at the start of a line or
 * after white space starts a comment; blank lines are ignored.  The value
 * is the rest of the line without surrounding white space, or a string in
 * double quotes (keeping spaces and "#"; \" and \\ are the escapes).  A
 * key is given once, except a CONFIG_PATHS or CONFIG_WORDS key, whose
 * lines add up.
 * Lines are at most CONFIG_LINE_MAX bytes; the file is a regular file of
 * at most CONFIG_FILE_MAX bytes (a device, a FIFO or a folder is refused).
 *
 * Lifecycle: config_init() fills in the defaults; config_load() reads a
 * file over them; config_release() frees the strings.  The struct owns
 * its strings.  A struct pa_config is read-only once loaded and may be
 * shared by threads.
 *
 * config_init() returns 0, or PA_ENOMEM with the string fields it could
 * not fill left NULL (config_release() is still safe).  config_load()
 * returns 0, or PA_ECONFIG with every problem found, one "FILE:LINE:
 * message" line each, appended to problems; PA_ENOMEM when memory ran
 * out.  On failure the struct keeps its previous values: the file is read
 * into a fresh struct that replaces the old one only on success.
 */
#ifndef PA_PACONFIG_H
#define PA_PACONFIG_H

#include <stddef.h>
#include <stdio.h>

#include "sbuf.h"

#define CONFIG_LINE_MAX	4096	/* bytes in a line, newline excluded */
#define CONFIG_FILE_MAX	(1 << 20)	/* bytes in a file: a regular one */

enum archive_type {
	ARCHIVE_AUTO,		/* decided by what is at the path */
	ARCHIVE_PUBLICINBOX,	/* public-inbox v1 or v2 git mirror */
	ARCHIVE_MAILDIR,
	ARCHIVE_MBOX
};

enum trust_model {
	TRUST_GPG,		/* key validity in the GnuPG home: full, ultimate */
	TRUST_TOFU,		/* GnuPG's trust on first use */
	TRUST_KEYRING		/* every usable key in the keyring is trusted */
};

enum uid_match {
	UID_LOOSE,		/* any trusted signer will do */
	UID_STRICT		/* a signer user ID carries the author's address */
};

/* What the milter does with a message, by verdict. */
enum action {
	ACTION_ACCEPT,		/* deliver, with the header */
	ACTION_REJECT,		/* 5.7.1 */
	ACTION_TEMPFAIL,	/* 4.7.1: the sender tries again later */
	ACTION_QUARANTINE	/* deliver into the MTA's hold queue */
};

/* What the milter does when it cannot decide. */
enum on_error {
	ONERROR_ACCEPT,
	ONERROR_TEMPFAIL
};

enum log_level {
	LOG_LEVEL_ERROR,
	LOG_LEVEL_WARNING,
	LOG_LEVEL_INFO,
	LOG_LEVEL_DEBUG
};

/* Syslog facilities by name; SYSLOG_NONE logs nowhere but stderr. */
enum syslog_facility {
	SYSLOG_NONE,
	SYSLOG_MAIL,
	SYSLOG_DAEMON,
	SYSLOG_LOCAL0,		/* ... to SYSLOG_LOCAL0 + 7 */
	SYSLOG_LOCAL7 = SYSLOG_LOCAL0 + 7
};

enum yes_no {
	CONFIG_NO,
	CONFIG_YES
};

/* A CONFIG_PATH row's min: Key "" sets it to NULL (off). */
#define CONFIG_MAY_BE_OFF	1

#define CONFIG_KEYS_MAX	64	/* rows of config_keys[], with room */

/* A key given on several lines, each adding values, in order. */
struct config_list {
	char		**v;		/* n strings, owned by the struct */
	unsigned long	 *line;		/* the line each was given on */
	size_t		  n;
};

struct pa_config {
	/* The archive, the index and the keys (patchattest and the milter) */
	char			*archive;	/* path, or NULL */
	enum archive_type	 archive_type;
	char			*index_path;
	char			*gnupg_home;	/* NULL: GnuPG's default */
	enum trust_model	 trust_model;
	enum uid_match		 uid_match;
	long			 staleness_days;	/* 0: no limit */
	long			 max_clock_skew;	/* seconds, 0: no limit */

	/* The milter's daemon */
	char			*socket;
	long			 umask;
	char			*pid_file;	/* NULL: none */
	char			*user_id;	/* "user[:group]", or NULL */
	enum syslog_facility	 syslog;
	enum log_level		 log_level;
	long			 timeout;	/* seconds the MTA may be silent */
	long			 max_connections;
	long			 idle_grace;	/* seconds a waiting connection
						   keeps its place */
	char			*metrics_listen;	/* NULL: off */
	enum yes_no		 metrics_remote;	/* any address */

	/* The milter's work */
	long			 max_body;	/* bytes */
	char			*authserv_id;	/* NULL: no A-R header */
	struct config_list	 trusted_authserv_ids;	/* the verifiers' */
	enum action		 on_fail, on_none, on_untrusted, on_nokey,
				 on_stale, on_uidmismatch,
				 on_unsigned_by_signer;
	enum on_error		 on_error;
	long			 attestation_wait;	/* minutes, 0: off */
	enum yes_no		 learn_from_mail;
	long			 learn_max_documents;	/* per mail */
	long			 archive_refresh;	/* seconds, 0: never */
	enum yes_no		 mark_non_patches;

	/* patatt's signatures in the mail (X-Developer-Signature) */
	struct config_list	 patatt_keyrings;	/* folders, in order */
	enum yes_no		 patatt_tofu;
	char			*patatt_tofu_pins;	/* the pins' file */

	/* What mail leaves behind: arrivals and signing habits */
	char			*state_file;	/* NULL: off */
	long			 arrival_retention_days;	/* 0: kept */
	long			 state_max_size;	/* MiB */
	long			 signer_habit_minimum;

	/* Pins and arrival records shared by several nodes (PostgreSQL) */
	char			*state_database;	/* NULL: the files */
	long			 state_database_connect_ms;
	long			 state_database_timeout_ms;
	char			*state_database_reader;	/* NULL: as above */

	/* The line of the file each key of config_keys[] was set on; 0: its
	   default.  For messages about a value (config_key_line()). */
	unsigned long		 key_line[CONFIG_KEYS_MAX];
};

enum config_type {
	CONFIG_PATH,		/* char *, owned by the struct */
	CONFIG_TEXT,		/* likewise, a word or name */
	CONFIG_INT,		/* long, within min..max */
	CONFIG_MODE,		/* long, octal, within min..max */
	CONFIG_CHOICE,		/* an enum: the index of the word in choices */
	CONFIG_PATHS,		/* struct config_list of paths: the key may
				   be given several times */
	CONFIG_WORDS		/* struct config_list of words: several on
				   a line (white space or commas between)
				   or on several lines add up */
};

struct config_key {
	const char		*name;
	enum config_type	 type;
	const char		*def;		/* default as written in a file */
	long			 min, max;	/* CONFIG_INT, _MODE bounds;
						   CONFIG_PATH: min may be
						   CONFIG_MAY_BE_OFF */
	const char *const	*choices;	/* CONFIG_CHOICE words, NULL-ended */
	size_t			 offset;	/* into struct pa_config */
	const char		*doc;		/* one line for the manual */
};

extern const struct config_key config_keys[];
extern const size_t config_nkeys;

int	config_init(struct pa_config *);
void	config_release(struct pa_config *);
int	config_load(struct pa_config *, const char *path, struct sbuf *problems);

/*
 * config_load_partial - likewise, but the lines that are good are kept
 * even when others have problems, so that a check can go on to judge
 * their values; PA_ECONFIG still says there were problems.
 */
int	config_load_partial(struct pa_config *, const char *path,
	    struct sbuf *problems);

/*
 * config_key_line - the line of the loaded file that set key (any case;
 * the first of a key given several times); 0 for a default or no such key
 */
unsigned long config_key_line(const struct pa_config *, const char *key);

/*
 * config_choice_name - the word for a CONFIG_CHOICE value of key name (any
 * case); NULL when there is no such key or word
 */
const char *config_choice_name(const char *key, int value);

/* config_write_sample - a commented file with every key at its default */
int	config_write_sample(FILE *);

/*
 * config_write_man - every key as a roff tagged paragraph (.TP), for the
 * KEYS section of patchattest.conf(5)
 */
int	config_write_man(FILE *);

#endif
