/* SPDX-License-Identifier: BSD-2-Clause */
#include "config.h"

#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "ascii.h"
#include "hdrfmt.h"
#include "paconfig.h"
#include "patchattest.h"
#include "sbuf.h"

#define CONFIG_NAME_MAX	32	/* longest key name the hints compare */
#define CONFIG_HINT	2	/* largest edit distance worth a hint */
#define CONFIG_SHOW	64	/* bytes of a bad value quoted in a message */
#define CONFIG_WORD_GAPS	" \t,"	/* between the words of a line */

/* CONFIG_CHOICE values are stored through an int pointer. */
_Static_assert(sizeof(enum archive_type) == sizeof(int), "enum size");
_Static_assert(sizeof(enum trust_model) == sizeof(int), "enum size");
_Static_assert(sizeof(enum uid_match) == sizeof(int), "enum size");
_Static_assert(sizeof(enum action) == sizeof(int), "enum size");
_Static_assert(sizeof(enum on_error) == sizeof(int), "enum size");
_Static_assert(sizeof(enum log_level) == sizeof(int), "enum size");
_Static_assert(sizeof(enum syslog_facility) == sizeof(int), "enum size");
_Static_assert(sizeof(enum yes_no) == sizeof(int), "enum size");

/* Word order is the enum order of paconfig.h. */
static const char *const archive_types[] = {
	"auto", "public-inbox", "maildir", "mbox", NULL
};
static const char *const trust_models[] = { "gpg", "tofu", "keyring", NULL };
static const char *const uid_matches[] = { "loose", "strict", NULL };
static const char *const actions[] = {
	"accept", "reject", "tempfail", "quarantine", NULL
};
static const char *const on_errors[] = { "accept", "tempfail", NULL };
static const char *const log_levels[] = {
	"error", "warning", "info", "debug", NULL
};
static const char *const facilities[] = {
	"no", "mail", "daemon", "local0", "local1", "local2", "local3",
	"local4", "local5", "local6", "local7", NULL
};
static const char *const yes_no[] = { "no", "yes", NULL };

#define OFF(field)	offsetof(struct pa_config, field)

const struct config_key config_keys[] = {
	{ "Archive", CONFIG_PATH, NULL, 0, 0, NULL, OFF(archive),
	    "Signed attestations: a public-inbox mirror folder, a Maildir or "
	    "an mbox." },
	{ "ArchiveType", CONFIG_CHOICE, "auto", 0, 0, archive_types,
	    OFF(archive_type),
	    "What kind of archive Archive is; auto looks at the path." },
	{ "IndexPath", CONFIG_PATH, "/var/lib/patchattest/index", 0, 0, NULL,
	    OFF(index_path),
	    "Where patchattest index keeps the attestations found in Archive." },
	{ "GnuPGHome", CONFIG_PATH, NULL, 0, 0, NULL, OFF(gnupg_home),
	    "GnuPG home with the signers' public keys; unset: GnuPG's own "
	    "default." },
	{ "TrustModel", CONFIG_CHOICE, "gpg", 0, 0, trust_models,
	    OFF(trust_model),
	    "Trusted keys: gpg (valid ones), tofu (trust on first use), "
	    "keyring (all)." },
	{ "UIDMatch", CONFIG_CHOICE, "loose", 0, 0, uid_matches, OFF(uid_match),
	    "loose: any trusted signer; strict: a user ID has the author's "
	    "address." },
	{ "StalenessDays", CONFIG_INT, "30", 0, 36500, NULL,
	    OFF(staleness_days),
	    "Days an attestation may be older than the mail's arrival; 0: no "
	    "limit." },
	{ "MaxClockSkew", CONFIG_INT, "300", 0, 86400, NULL,
	    OFF(max_clock_skew),
	    "Seconds a signing time may lie after the mail's arrival (a "
	    "signer's clock ahead); later is stale; 0: no limit." },

	{ "Socket", CONFIG_TEXT, "inet:8891@127.0.0.1", 0, 0, NULL, OFF(socket),
	    "Where the milter listens: local:/path, inet:port@host or "
	    "inet6:port@host; TCP on the loopback reaches a chrooted MTA." },
	{ "UMask", CONFIG_MODE, "007", 0, 0777, NULL, OFF(umask),
	    "The milter's file mode mask (octal): it sets the mode of a "
	    "local socket." },
	{ "PidFile", CONFIG_PATH, NULL, 0, 0, NULL, OFF(pid_file),
	    "File the milter writes its process ID to, in a folder only root "
	    "or its user may write; removed at exit." },
	{ "UserID", CONFIG_TEXT, NULL, 0, 0, NULL, OFF(user_id),
	    "user or user:group the milter runs as once its socket is open; "
	    "needed when started as root (UserID root to stay root)." },
	{ "Syslog", CONFIG_CHOICE, "mail", 0, 0, facilities, OFF(syslog),
	    "Syslog facility of the milter's log, or no." },
	{ "LogLevel", CONFIG_CHOICE, "info", 0, 0, log_levels, OFF(log_level),
	    "Least important log lines kept: info has one line a patch." },
	{ "Timeout", CONFIG_INT, "120", 5, 3600, NULL, OFF(timeout),
	    "Seconds the milter waits for the MTA's next word before it drops "
	    "the connection." },
	{ "MaximumConnections", CONFIG_INT, "256", 1, 65536, NULL,
	    OFF(max_connections),
	    "Connections judged at once; one more is handled as a fault "
	    "(OnError)." },
	{ "IdleConnectionGrace", CONFIG_INT, "10", 1, 3600, NULL,
	    OFF(idle_grace),
	    "Seconds a connection may wait for its MTA and keep its place "
	    "when MaximumConnections are all held." },
	{ "MetricsListen", CONFIG_TEXT, NULL, 0, 0, NULL, OFF(metrics_listen),
	    "Where GET /metrics is served, e.g. 127.0.0.1:9108 or "
	    "[::1]:9108; unset: off." },
	{ "MetricsRemote", CONFIG_CHOICE, "no", 0, 0, yes_no,
	    OFF(metrics_remote),
	    "yes lets MetricsListen be an address other than loopback." },
	{ "MaximumBodySize", CONFIG_INT, "16777216", 1024, 1073741824, NULL,
	    OFF(max_body),
	    "Bytes of a message the milter reads; larger mail passes, "
	    "marked temperror." },
	{ "AuthservID", CONFIG_TEXT, NULL, 0, 0, NULL, OFF(authserv_id),
	    "This host's name in Authentication-Results; unset: none added." },
	{ "TrustedAuthservIDs", CONFIG_WORDS, NULL, 0, 0, NULL,
	    OFF(trusted_authserv_ids),
	    "authserv-ids of the MTA's DKIM verifiers whose topmost "
	    "Authentication-Results are read; unset: none." },
	{ "OnFail", CONFIG_CHOICE, "accept", 0, 0, actions, OFF(on_fail),
	    "What to do with a patch whose attestation it contradicts." },
	{ "OnNone", CONFIG_CHOICE, "accept", 0, 0, actions, OFF(on_none),
	    "What to do with a patch that has no attestation." },
	{ "OnUntrusted", CONFIG_CHOICE, "accept", 0, 0, actions,
	    OFF(on_untrusted),
	    "What to do with a patch attested by a key that is not trusted." },
	{ "OnNoKey", CONFIG_CHOICE, "accept", 0, 0, actions, OFF(on_nokey),
	    "What to do with a patch attested by a key not in the keyring." },
	{ "OnStale", CONFIG_CHOICE, "accept", 0, 0, actions, OFF(on_stale),
	    "What to do with a patch attested longer ago than StalenessDays." },
	{ "OnUIDMismatch", CONFIG_CHOICE, "accept", 0, 0, actions,
	    OFF(on_uidmismatch),
	    "What to do with a patch whose signer is not its author "
	    "(strict)." },
	{ "OnUnsignedBySigner", CONFIG_CHOICE, "accept", 0, 0, actions,
	    OFF(on_unsigned_by_signer),
	    "What to do with a patch not signed the way its sender habitually "
	    "signs (StateFile)." },
	{ "OnError", CONFIG_CHOICE, "accept", 0, 0, on_errors, OFF(on_error),
	    "When the index or keyring is unusable: pass the mail, or "
	    "tempfail." },
	{ "AttestationWait", CONFIG_INT, "0", 0, 10080, NULL,
	    OFF(attestation_wait),
	    "Minutes to tempfail an unattested patch dated this recently; "
	    "0: off." },
	{ "LearnFromMail", CONFIG_CHOICE, "yes", 0, 0, yes_no,
	    OFF(learn_from_mail),
	    "Index attestation documents that arrive by mail." },
	{ "LearnMaxDocuments", CONFIG_INT, "8", 1, 1000, NULL,
	    OFF(learn_max_documents),
	    "Attestation documents of one mail verified and learnt at most; "
	    "the rest are not." },
	{ "ArchiveRefresh", CONFIG_INT, "300", 0, 86400, NULL,
	    OFF(archive_refresh),
	    "Seconds between the milter's reads of Archive; 0: never." },
	{ "MarkNonPatches", CONFIG_CHOICE, "no", 0, 0, yes_no,
	    OFF(mark_non_patches),
	    "Add \"X-Patch-Attested: nopatch\" to mail that is no patch." },

	{ "PatattKeyring", CONFIG_PATHS, NULL, 0, 0, NULL,
	    OFF(patatt_keyrings),
	    "patatt keyring folder (openpgp/, ed25519/, openssh/ by domain "
	    "and user), searched in order." },
	{ "PatattTOFU", CONFIG_CHOICE, "no", 0, 0, yes_no, OFF(patatt_tofu),
	    "Trust a key a patch offers in X-Developer-Key on first use, "
	    "then only that key." },
	{ "PatattTOFUPins", CONFIG_PATH, "/var/lib/patchattest/pins.mdb", 0,
	    0, NULL, OFF(patatt_tofu_pins),
	    "File of the keys trusted on first use (made when missing), "
	    "apart from the index." },

	{ "StateFile", CONFIG_PATH, "/var/lib/patchattest/state.mdb",
	    CONFIG_MAY_BE_OFF, 0, NULL, OFF(state_file),
	    "File of what arrived and who habitually signs (made when "
	    "missing), apart from the index." },
	{ "ArrivalRetentionDays", CONFIG_INT, "400", 0, 36500, NULL,
	    OFF(arrival_retention_days),
	    "Days an arrival record is kept in StateFile; 0: for ever." },
	{ "StateMaxSize", CONFIG_INT, "4096", 1, 65536, NULL,
	    OFF(state_max_size),
	    "MiB of StateFile in use at most; beyond, the oldest arrival "
	    "records are removed first." },
	{ "StateDatabase", CONFIG_TEXT, NULL, 0, 0, NULL,
	    OFF(state_database),
	    "PostgreSQL connection string or URI for the pins and arrival "
	    "records of several nodes; unset: the files." },
	{ "StateDatabaseConnectTimeout", CONFIG_INT, "500", 50, 60000, NULL,
	    OFF(state_database_connect_ms),
	    "Milliseconds to connect to StateDatabase before giving up." },
	{ "StateDatabaseTimeout", CONFIG_INT, "300", 20, 60000, NULL,
	    OFF(state_database_timeout_ms),
	    "Milliseconds a read of StateDatabase may take before the mail "
	    "is judged without it." },
	{ "StateDatabaseReader", CONFIG_TEXT, NULL, 0, 0, NULL,
	    OFF(state_database_reader),
	    "Connection string of a read-only role for patchattest arrived, "
	    "stats, check and tofu list, with the passfile of whoever runs "
	    "them; patchattest db init grants its user SELECT." },
	{ "SignerHabitMinimum", CONFIG_INT, "3", 1, 32, NULL,
	    OFF(signer_habit_minimum),
	    "Of an identity's recent patches, how many signed with a trusted "
	    "key make signing its habit." },
};

#define NKEYS	(sizeof(config_keys) / sizeof(config_keys[0]))

const size_t config_nkeys = NKEYS;

_Static_assert(NKEYS <= CONFIG_KEYS_MAX, "CONFIG_KEYS_MAX is too small");

/* What the sample configuration shows for a key without a default. */
static const char config_words_doc[] = "Names are separated by spaces or "
    "commas; several lines add up.";

static const char *const config_placeholder[] = {
	[CONFIG_PATH] = "PATH",
	[CONFIG_TEXT] = "TEXT",
	[CONFIG_INT] = "NUMBER",
	[CONFIG_MODE] = "MODE",
	[CONFIG_CHOICE] = "WORD",
	[CONFIG_PATHS] = "PATH",
	[CONFIG_WORDS] = "NAME...",
};

/* The file being read: where problems go and what to prefix them with. */
struct config_file {
	const char	*path;
	unsigned long	 lineno;	/* 0: about the whole file */
	struct sbuf	*problems;
	int		 nproblems;
	int		 nomem;
};

enum { LINE_OK, LINE_NUL, LINE_LONG };

static struct sbuf *config_problem(struct config_file *);
static void	config_show(struct sbuf *, const char *);
static struct sbuf *config_bad_value(struct config_file *,
		    const struct config_key *, const char *);
static FILE	*config_open(const char *, struct config_file *);
static int	config_isspace(int);
static char	*config_skipspace(char *);
static const struct config_key *config_find(const char *);
static size_t	config_distance(const char *, const char *);
static int	config_number(const char *, long *);
static int	config_unquote(char *, const struct config_key *,
		    struct config_file *);
static void	config_set(struct pa_config *, const struct config_key *,
		    const char *, struct config_file *);
static void	config_line(struct pa_config *, char *, struct config_file *);
static void	config_list_add(struct config_list *, const char *, size_t,
		    struct config_file *);
static int	config_is_list(enum config_type);
static int	config_getline(FILE *, char *, size_t, int *);

/* config_problem - count a problem and start its "PATH:LINE: " line */
static struct sbuf *
config_problem(struct config_file *cf)
{
	cf->nproblems++;
	if (cf->lineno)
		sbuf_addf(cf->problems, "%s:%lu: ", cf->path, cf->lineno);
	else
		sbuf_addf(cf->problems, "%s: ", cf->path);
	return cf->problems;
}

/*
 * config_show - "TEXT", text from the file cut to CONFIG_SHOW bytes and
 * escaped: the file may hold any bytes, the message goes to a terminal
 * or a log
 */
static void
config_show(struct sbuf *sb, const char *text)
{
	sbuf_addch(sb, '"');
	hdrfmt_escaped(sb, text, strnlen(text, CONFIG_SHOW));
	sbuf_addch(sb, '"');
}

/* config_bad_value - start a problem line: KEY: "VALUE" */
static struct sbuf *
config_bad_value(struct config_file *cf, const struct config_key *k,
    const char *value)
{
	struct sbuf *sb = config_problem(cf);

	sbuf_addf(sb, "%s: ", k->name);
	config_show(sb, value);
	return sb;
}

static int
config_isspace(int c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static char *
config_skipspace(char *s)
{
	while (config_isspace((unsigned char)*s))
		s++;
	return s;
}

static const struct config_key *
config_find(const char *name)
{
	size_t i;

	for (i = 0; i < NKEYS; i++)
		if (strcasecmp(name, config_keys[i].name) == 0)
			return &config_keys[i];
	return NULL;
}

/* config_distance - Levenshtein distance ignoring case, capped past a hint */
static size_t
config_distance(const char *a, const char *b)
{
	size_t row[CONFIG_NAME_MAX + 1], la, lb, i, j, diag, up, best;

	la = strlen(a);
	lb = strlen(b);
	if (lb > CONFIG_NAME_MAX || (la > lb ? la - lb : lb - la) > CONFIG_HINT)
		return CONFIG_HINT + 1;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		diag = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			up = row[j];
			best = diag + (ascii_lower(a[i - 1]) !=
			    ascii_lower(b[j - 1]));
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

/* config_number - a whole decimal: 0, -1 when not a number, 1 when too big */
static int
config_number(const char *s, long *np)
{
	char *end;

	/* strtol() alone would take leading blanks and an empty number. */
	if (!isdigit((unsigned char)s[*s == '-' || *s == '+']))
		return -1;
	errno = 0;
	*np = strtol(s, &end, 10);
	if (*end != '\0')
		return -1;
	return errno == ERANGE ? 1 : 0;
}

/*
 * config_unquote - turn the value text s into the value, in place: a
 * double-quoted string loses its quotes and escapes, other text its
 * comment and trailing white space.  0, or -1 after reporting why not.
 */
static int
config_unquote(char *s, const struct config_key *k, struct config_file *cf)
{
	char *r, *w, *end;

	if (*s != '"') {
		for (r = s; *r != '\0'; r++)
			if (*r == '#' && (r == s || config_isspace((unsigned char)r[-1])))
				break;
		while (r > s && config_isspace((unsigned char)r[-1]))
			r--;
		*r = '\0';
		return 0;
	}
	for (r = s + 1, w = s; *r != '"'; *w++ = *r++) {
		if (*r == '\0') {
			sbuf_addf(config_problem(cf),
			    "%s: unterminated quoted value\n", k->name);
			return -1;
		}
		if (*r == '\\' && *++r != '"' && *r != '\\') {
			sbuf_addf(config_problem(cf), "%s: bad escape in "
			    "quoted value (only \\\" and \\\\)\n", k->name);
			return -1;
		}
	}
	*w = '\0';
	end = config_skipspace(++r);
	if (*end != '\0' && (*end != '#' || end == r)) {
		sbuf_addf(config_problem(cf),
		    "%s: text after the closing quote\n", k->name);
		return -1;
	}
	return 0;
}

/* config_is_list - keys of this type may be given on several lines */
static int
config_is_list(enum config_type type)
{
	return type == CONFIG_PATHS || type == CONFIG_WORDS;
}

/* config_list_add - len bytes of value as one more value of list */
static void
config_list_add(struct config_list *list, const char *value, size_t len,
    struct config_file *cf)
{
	unsigned long *lines;
	char **grown;

	if ((lines = realloc(list->line, (list->n + 1) *
	    sizeof(*list->line))) != NULL)
		list->line = lines;
	if (lines == NULL || (grown = realloc(list->v, (list->n + 1) *
	    sizeof(*list->v))) == NULL) {
		cf->nomem = 1;
		return;
	}
	list->v = grown;
	if ((grown[list->n] = strndup(value, len)) == NULL) {
		cf->nomem = 1;
		return;
	}
	list->line[list->n++] = cf->lineno;
}

/* config_set - store value (non-empty) in key k's field; problems go to cf */
static void
config_set(struct pa_config *cfg, const struct config_key *k,
    const char *value, struct config_file *cf)
{
	char *field = (char *)cfg + k->offset, *p;
	struct sbuf *sb;
	long n;
	size_t i;

	switch (k->type) {
	case CONFIG_PATHS:
		config_list_add((struct config_list *)(void *)field, value,
		    strlen(value), cf);
		return;
	case CONFIG_WORDS:
		for (p = (char *)value; *p != '\0'; p += n) {
			p += strspn(p, CONFIG_WORD_GAPS);
			if ((n = (long)strcspn(p, CONFIG_WORD_GAPS)) > 0)
				config_list_add((struct config_list *)(void *)
				    field, p, (size_t)n, cf);
		}
		return;
	case CONFIG_PATH:
	case CONFIG_TEXT:
		if ((p = strdup(value)) == NULL) {
			cf->nomem = 1;
			return;
		}
		free(*(char **)(void *)field);
		*(char **)(void *)field = p;
		return;
	case CONFIG_INT:
		switch (config_number(value, &n)) {
		case 0:
			if (n >= k->min && n <= k->max) {
				*(long *)(void *)field = n;
				return;
			}
			/* FALLTHROUGH */
		case 1:
			sbuf_addf(config_bad_value(cf, k, value),
			    " is out of bounds %ld..%ld\n", k->min, k->max);
			break;
		default:
			sbuf_addstr(config_bad_value(cf, k, value),
			    " is not a whole number\n");
			break;
		}
		return;
	case CONFIG_MODE:
		n = strtol(value, &p, 8);
		if (value[strspn(value, "01234567")] == '\0' && *p == '\0' &&
		    n >= k->min && n <= k->max) {
			*(long *)(void *)field = n;
			return;
		}
		sbuf_addf(config_bad_value(cf, k, value), " is not an octal "
		    "mode from %lo to %lo\n", (unsigned long)k->min,
		    (unsigned long)k->max);
		return;
	case CONFIG_CHOICE:
		for (i = 0; k->choices[i] != NULL; i++)
			if (strcasecmp(value, k->choices[i]) == 0) {
				*(int *)(void *)field = (int)i;
				return;
			}
		sb = config_bad_value(cf, k, value);
		sbuf_addstr(sb, " is not one of ");
		for (i = 0; k->choices[i] != NULL; i++)
			sbuf_addf(sb, "%s%s", i ? ", " : "", k->choices[i]);
		sbuf_addch(sb, '\n');
		break;
	}
}

/* config_line - one line of a file */
static void
config_line(struct pa_config *cfg, char *line, struct config_file *cf)
{
	unsigned long *seen = cfg->key_line;
	const struct config_key *k, *hint = NULL;
	struct sbuf *sb;
	char *name, *value, *p;
	size_t i, d, best = CONFIG_HINT + 1;
	int quoted;

	name = config_skipspace(line);
	if (*name == '\0' || *name == '#')
		return;
	for (p = name; *p != '\0' && !config_isspace((unsigned char)*p); p++)
		;
	value = config_skipspace(p);
	*p = '\0';
	if ((k = config_find(name)) == NULL) {
		for (i = 0; i < NKEYS; i++)
			if ((d = config_distance(name, config_keys[i].name)) <
			    best) {
				best = d;
				hint = &config_keys[i];
			}
		sb = config_problem(cf);
		sbuf_addstr(sb, "unknown key ");
		config_show(sb, name);
		sbuf_addf(sb, "%s%s%s\n", hint ? " (did you mean " : "",
		    hint ? hint->name : "", hint ? "?)" : "");
		return;
	}
	i = (size_t)(k - config_keys);
	if (seen[i] && !config_is_list(k->type)) {
		sbuf_addf(config_problem(cf), "%s given twice (first on line "
		    "%lu)\n", k->name, seen[i]);
		return;
	}
	if (seen[i] == 0)
		seen[i] = cf->lineno;
	quoted = *value == '"';
	if (config_unquote(value, k, cf) != 0)
		return;
	if (*value == '\0' && quoted && k->type == CONFIG_PATH &&
	    k->min == CONFIG_MAY_BE_OFF) {
		free(*(char **)(void *)((char *)cfg + k->offset));
		*(char **)(void *)((char *)cfg + k->offset) = NULL;
	} else if (*value == '\0')
		sbuf_addf(config_problem(cf), "%s: missing value\n", k->name);
	else
		config_set(cfg, k, value, cf);
}

/*
 * config_getline - the next line into buf without its newline; 0 at the
 * end of the file.  *bad is LINE_NUL or LINE_LONG for a line not to use.
 */
static int
config_getline(FILE *fp, char *buf, size_t size, int *bad)
{
	size_t len = 0;
	int c;

	*bad = LINE_OK;
	while ((c = getc(fp)) != EOF && c != '\n') {
		if (c == '\0' && *bad == LINE_OK)
			*bad = LINE_NUL;
		else if (len == size - 1 && *bad == LINE_OK)
			*bad = LINE_LONG;
		else if (len < size - 1)
			buf[len++] = (char)c;
	}
	buf[len] = '\0';
	return c != EOF || len > 0 || *bad != LINE_OK;
}

/*
 * config_open - path as a stream, when it is a regular file of at most
 * CONFIG_FILE_MAX bytes (a device or a FIFO would never end, or block)
 */
static FILE *
config_open(const char *path, struct config_file *cf)
{
	struct stat st;
	FILE *fp;
	int fd;

	if ((fd = open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)) <
	    0) {
		sbuf_addf(config_problem(cf), "cannot open: %s\n",
		    strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		sbuf_addstr(config_problem(cf), "not a regular file\n");
		close(fd);
		return NULL;
	}
	if (st.st_size > CONFIG_FILE_MAX) {
		sbuf_addf(config_problem(cf), "larger than %d bytes\n",
		    CONFIG_FILE_MAX);
		close(fd);
		return NULL;
	}
	if ((fp = fdopen(fd, "r")) == NULL) {
		sbuf_addf(config_problem(cf), "cannot read: %s\n",
		    strerror(errno));
		close(fd);
	}
	return fp;
}

/* config_init - the defaults, each read as the line "Key default" */
int
config_init(struct pa_config *cfg)
{
	static const struct pa_config zero;
	struct config_file cf = { "(default)", 0, NULL, 0, 0 };
	struct sbuf discard;
	char line[CONFIG_LINE_MAX + 1];
	size_t i;

	*cfg = zero;
	sbuf_init(&discard, 1024);
	cf.problems = &discard;
	for (i = 0; i < NKEYS; i++)
		if (config_keys[i].def != NULL) {
			snprintf(line, sizeof(line), "%s %s",
			    config_keys[i].name, config_keys[i].def);
			config_line(cfg, line, &cf);
		}
	sbuf_release(&discard);
	return cf.nomem ? PA_ENOMEM : cf.nproblems ? PA_ECONFIG : 0;
}

void
config_release(struct pa_config *cfg)
{
	struct config_list *list;
	char **p;
	size_t i, j;

	for (i = 0; i < NKEYS; i++) {
		p = (char **)(void *)((char *)cfg + config_keys[i].offset);
		list = (struct config_list *)(void *)p;
		if (config_keys[i].type == CONFIG_PATH ||
		    config_keys[i].type == CONFIG_TEXT) {
			free(*p);
			*p = NULL;
		} else if (config_is_list(config_keys[i].type)) {
			for (j = 0; j < list->n; j++)
				free(list->v[j]);
			free(list->v);
			free(list->line);
			list->v = NULL;
			list->line = NULL;
			list->n = 0;
		}
	}
}

/*
 * load - read path into a fresh struct; it replaces cfg on success, and
 * also with problems when partial is set.
 */
static int
load(struct pa_config *cfg, const char *path, struct sbuf *problems,
    int partial)
{
	struct pa_config fresh;
	struct config_file cf = { path, 0, problems, 0, 0 };
	char line[CONFIG_LINE_MAX + 1];
	FILE *fp;
	int bad, rc, e;

	if ((rc = config_init(&fresh)) != 0) {
		config_release(&fresh);
		return rc;
	}
	if ((fp = config_open(path, &cf)) == NULL) {
		config_release(&fresh);
		return PA_ECONFIG;
	}
	while (!cf.nomem && config_getline(fp, line, sizeof(line), &bad)) {
		if (ftello(fp) > CONFIG_FILE_MAX) {
			cf.lineno = 0;
			sbuf_addf(config_problem(&cf), "larger than %d bytes\n",
			    CONFIG_FILE_MAX);
			break;
		}
		cf.lineno++;
		if (bad == LINE_NUL)
			sbuf_addstr(config_problem(&cf), "NUL byte in line\n");
		else if (bad == LINE_LONG)
			sbuf_addf(config_problem(&cf), "line longer than %d "
			    "bytes\n", CONFIG_LINE_MAX);
		else
			config_line(&fresh, line, &cf);
	}
	if (ferror(fp)) {
		e = errno;
		cf.lineno = 0;
		sbuf_addf(config_problem(&cf), "cannot read: %s\n",
		    strerror(e));
	}
	fclose(fp);
	if (cf.nomem || (cf.nproblems && !partial)) {
		config_release(&fresh);
		return cf.nomem ? PA_ENOMEM : PA_ECONFIG;
	}
	config_release(cfg);
	*cfg = fresh;
	return cf.nproblems ? PA_ECONFIG : 0;
}

int
config_load(struct pa_config *cfg, const char *path, struct sbuf *problems)
{
	return load(cfg, path, problems, 0);
}

int
config_load_partial(struct pa_config *cfg, const char *path,
    struct sbuf *problems)
{
	return load(cfg, path, problems, 1);
}

unsigned long
config_key_line(const struct pa_config *cfg, const char *key)
{
	const struct config_key *k = config_find(key);

	return k != NULL ? cfg->key_line[k - config_keys] : 0;
}

const char *
config_choice_name(const char *key, int value)
{
	const struct config_key *k;
	int i;

	if ((k = config_find(key)) == NULL || k->type != CONFIG_CHOICE)
		return NULL;
	for (i = 0; k->choices[i] != NULL && i != value; i++)
		;
	return k->choices[i];	/* NULL past the last word */
}

int
config_write_sample(FILE *fp)
{
	const struct config_key *k;
	size_t j;

	fputs("# patchattest.conf - settings of patchattest and "
	    "patchattest-milter.\n"
	    "# Made from the key table of lib/base/paconfig.c.  One \"Key value\" "
	    "a line, keys\n"
	    "# in any case; \"#\" starts a comment; double quotes keep spaces "
	    "and \"#\".\n"
	    "# \"# Key value\" shows a default; \"#Key VALUE\" needs a value "
	    "to be used.\n", fp);
	for (k = config_keys; k < config_keys + NKEYS; k++) {
		fprintf(fp, "\n# %s\n", k->doc);
		if (k->type == CONFIG_INT)
			fprintf(fp, "# From %ld to %ld.\n", k->min, k->max);
		if (k->type == CONFIG_MODE)
			fprintf(fp, "# Octal, from %03lo to %03lo.\n",
			    (unsigned long)k->min, (unsigned long)k->max);
		if (k->type == CONFIG_PATHS)
			fprintf(fp, "# Give it on several lines for several "
			    "values.\n");
		if (k->type == CONFIG_WORDS)
			fprintf(fp, "# %s\n", config_words_doc);
		if (k->type == CONFIG_PATH && k->min == CONFIG_MAY_BE_OFF)
			fprintf(fp, "# %s \"\" turns it off.\n", k->name);
		if (k->type == CONFIG_CHOICE) {
			fputs("# One of:", fp);
			for (j = 0; k->choices[j] != NULL; j++)
				fprintf(fp, " %s", k->choices[j]);
			fputs(".\n", fp);
		}
		if (k->def)
			fprintf(fp, "# %s %s\n", k->name, k->def);
		else
			fprintf(fp, "#%s %s\n", k->name,
			    config_placeholder[k->type]);
	}
	return ferror(fp) ? PA_ERROR : 0;
}

/* man_text - s for roff: backslashes as \e, hyphens as \- */
static void
man_text(FILE *fp, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\e", fp);
		else if (*s == '-')
			fputs("\\-", fp);
		else
			fputc(*s, fp);
		/* A line may not start with a control character. */
		if (*s == '\n' && (s[1] == '.' || s[1] == '\''))
			fputs("\\&", fp);
	}
}

int
config_write_man(FILE *fp)
{
	const struct config_key *k;
	size_t j;

	for (k = config_keys; k < config_keys + NKEYS; k++) {
		fputs(".TP\n.B ", fp);
		man_text(fp, k->name);
		fputs(" \\fI", fp);
		man_text(fp, config_placeholder[k->type]);
		fputs("\\fR\n", fp);
		man_text(fp, k->doc);
		fputc('\n', fp);
		if (k->type == CONFIG_INT)
			fprintf(fp, "From %ld to %ld.\n", k->min, k->max);
		if (k->type == CONFIG_MODE)
			fprintf(fp, "Octal, from %03lo to %03lo.\n",
			    (unsigned long)k->min, (unsigned long)k->max);
		if (k->type == CONFIG_PATHS)
			fputs("Give it on several lines for several values.\n",
			    fp);
		if (k->type == CONFIG_WORDS)
			fprintf(fp, "%s\n", config_words_doc);
		if (k->type == CONFIG_PATH && k->min == CONFIG_MAY_BE_OFF)
			fputs("\\fB\"\"\\fR turns it off.\n", fp);
		if (k->type == CONFIG_CHOICE) {
			fputs("One of", fp);
			for (j = 0; k->choices[j] != NULL; j++) {
				fputs(j ? ", \\fB" : " \\fB", fp);
				man_text(fp, k->choices[j]);
				fputs("\\fR", fp);
			}
			fputs(".\n", fp);
		}
		if (k->def) {
			fputs("Default: \\fB", fp);
			man_text(fp, k->def);
			fputs("\\fR.\n", fp);
		} else
			fputs("No default.\n", fp);
	}
	return ferror(fp) ? PA_ERROR : 0;
}
