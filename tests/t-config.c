/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t-config - the configuration file: defaults, every key, the syntax,
 * each problem as its exact "FILE:LINE: message" line, and the sample
 * configuration made from the key table.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "paconfig.h"
#include "patchattest.h"
#include "sbuf.h"
#include "tap.h"

#define S(s)	s, sizeof(s) - 1

struct good_case {
	const char	*name;
	const char	*in;
	size_t		 len;
	const char	*archive;	/* the Archive value it gives */
};

static const struct good_case good_cases[] = {
	{ "plain", S("Archive /srv/a\n"), "/srv/a" },
	{ "no final newline", S("Archive /srv/a"), "/srv/a" },
	{ "blanks around", S(" \t Archive \t /srv/a b \t\n"), "/srv/a b" },
	{ "CRLF", S("Archive /srv/a\r\n"), "/srv/a" },
	{ "comment after a blank", S("Archive /srv/a # old\n"), "/srv/a" },
	{ "# inside a word", S("Archive /srv/a#1\n"), "/srv/a#1" },
	{ "comment and blank lines",
	    S("# Archive /x\n\n   # y\n\t\nArchive /srv/a\n"), "/srv/a" },
	{ "quotes keep blanks and #", S("Archive \" /srv/a # b \"\n"),
	    " /srv/a # b " },
	{ "quoted escapes", S("Archive \"a\\\"b\\\\c\"  # c\n"), "a\"b\\c" },
	{ "quoted, then a comment", S("Archive \"/srv/a\"\t# c\n"), "/srv/a" },
	{ "quotes inside a word", S("Archive /srv/\"a\"\n"), "/srv/\"a\"" },
	{ "only comments", S("# nothing\n"), NULL },
	{ "empty file", S(""), NULL },
};

struct bad_case {
	const char	*name;
	const char	*in;
	size_t		 len;
	const char	*want;		/* the problems; the file is called F */
};

static const struct bad_case bad_cases[] = {
	{ "unknown key with a hint", S("Archiv /x\n"),
	    "F:1: unknown key \"Archiv\" (did you mean Archive?)\n" },
	{ "hint in any case", S("\ntrustmodle gpg\n"),
	    "F:2: unknown key \"trustmodle\" (did you mean TrustModel?)\n" },
	{ "unknown key, no hint", S("Frobnicate 1\n"),
	    "F:1: unknown key \"Frobnicate\"\n" },
	/* What the file holds reaches a terminal or a log only escaped. */
	{ "control bytes in a key", S("Arch\x01ive\x1b[2J /x\n"),
	    "F:1: unknown key \"Arch\\x01ive\\x1b[2J\"\n" },
	{ "bytes not UTF-8 in a key", S("Socket\xff\xc3 /x\n"),
	    "F:1: unknown key \"Socket\\xff\\xc3\" (did you mean "
	    "Socket?)\n" },
	{ "C1 control and backslash in a key", S("A\xc2\x9b\\b 1\n"),
	    "F:1: unknown key \"A\\xc2\\x9b\\\\b\"\n" },
	{ "UTF-8 in a key as it is", S("Schl\xc3\xbcssel 1\n"),
	    "F:1: unknown key \"Schl\xc3\xbcssel\"\n" },
	{ "control bytes in a value", S("TrustModel \"gpg\x07\r\"\n"),
	    "F:1: TrustModel: \"gpg\\x07\\x0d\" is not one of gpg, tofu, "
	    "keyring\n" },
	{ "missing value", S("Archive\n"), "F:1: Archive: missing value\n" },
	{ "value only a comment", S("\n\nIndexPath   # none\n"),
	    "F:3: IndexPath: missing value\n" },
	{ "empty quoted value", S("GnuPGHome \"\"\n"),
	    "F:1: GnuPGHome: missing value\n" },
	{ "not a number", S("StalenessDays 3x\n"),
	    "F:1: StalenessDays: \"3x\" is not a whole number\n" },
	{ "a sign alone", S("StalenessDays -\n"),
	    "F:1: StalenessDays: \"-\" is not a whole number\n" },
	{ "over the bounds", S("StalenessDays 36501\n"),
	    "F:1: StalenessDays: \"36501\" is out of bounds 0..36500\n" },
	{ "under the bounds", S("StalenessDays -1\n"),
	    "F:1: StalenessDays: \"-1\" is out of bounds 0..36500\n" },
	{ "overflow", S("StalenessDays 99999999999999999999999\n"),
	    "F:1: StalenessDays: \"99999999999999999999999\" is out of "
	    "bounds 0..36500\n" },
	{ "mode not octal", S("UMask 0089\n"),
	    "F:1: UMask: \"0089\" is not an octal mode from 0 to 777\n" },
	{ "mode too big", S("UMask 1777\n"),
	    "F:1: UMask: \"1777\" is not an octal mode from 0 to 777\n" },
	{ "mode with a sign", S("UMask -7\n"),
	    "F:1: UMask: \"-7\" is not an octal mode from 0 to 777\n" },
	{ "bad action", S("OnFail discard\n"),
	    "F:1: OnFail: \"discard\" is not one of accept, reject, "
	    "tempfail, quarantine\n" },
	{ "OnError cannot reject", S("OnError reject\n"),
	    "F:1: OnError: \"reject\" is not one of accept, tempfail\n" },
	{ "bad choice", S("TrustModel pgp\n"),
	    "F:1: TrustModel: \"pgp\" is not one of gpg, tofu, keyring\n" },
	{ "bad archive type", S("ArchiveType git\n"),
	    "F:1: ArchiveType: \"git\" is not one of auto, public-inbox, "
	    "maildir, mbox\n" },
	{ "key given twice", S("UIDMatch strict\n# x\nuidmatch strict\n"),
	    "F:3: UIDMatch given twice (first on line 1)\n" },
	{ "NUL byte", S("Archive /a\0b\n"), "F:1: NUL byte in line\n" },
	{ "unterminated quote", S("Archive \"/a b\n"),
	    "F:1: Archive: unterminated quoted value\n" },
	{ "text after the quote", S("Archive \"/a\"b\n"),
	    "F:1: Archive: text after the closing quote\n" },
	{ "comment glued to the quote", S("Archive \"/a\"#b\n"),
	    "F:1: Archive: text after the closing quote\n" },
	{ "bad escape", S("Archive \"/a\\n\"\n"),
	    "F:1: Archive: bad escape in quoted value (only \\\" and \\\\)\n" },
	{ "backslash at the end", S("Archive \"/a\\"),
	    "F:1: Archive: bad escape in quoted value (only \\\" and \\\\)\n" },
};

static const char every_key[] =
    "Archive /srv/lkml\n"
    "ArchiveType public-inbox\n"
    "IndexPath /var/tmp/ix\n"
    "GnuPGHome /etc/patchattest/gnupg\n"
    "TrustModel keyring\n"
    "UIDMatch strict\n"
    "StalenessDays 0\n"
    "MaxClockSkew 60\n"
    "Socket inet:8891@127.0.0.1\n"
    "UMask 0027\n"
    "PidFile /run/pa.pid\n"
    "UserID patchattest:mail\n"
    "Syslog local3\n"
    "LogLevel debug\n"
    "MaximumBodySize 1024\n"
    "AuthservID mx.example.org\n"
    "TrustedAuthservIDs dkim.example.org,rspamd.example.org\n"
    "OnFail reject\n"
    "OnNone tempfail\n"
    "OnUntrusted quarantine\n"
    "OnNoKey reject\n"
    "OnStale tempfail\n"
    "OnUIDMismatch quarantine\n"
    "OnUnsignedBySigner reject\n"
    "OnError tempfail\n"
    "AttestationWait 30\n"
    "LearnFromMail no\n"
    "ArchiveRefresh 0\n"
    "MarkNonPatches yes\n"
    "PatattKeyring /srv/pgpkeys/.keyring\n"
    "PatattTOFU yes\n"
    "StateFile \"\"\n"
    "ArrivalRetentionDays 0\n"
    "StateMaxSize 64\n"
    "SignerHabitMinimum 5\n"
    "patattkeyring \"/etc/patchattest/local keys\"\n"
    "trustedauthservids  mx2.example.org\n";

static const char *
tmpdir(void)
{
	const char *d = getenv("TMPDIR");

	return d && *d ? d : "/tmp";
}

/* tmp_write - a new temporary file with data; its name goes into path */
static int
tmp_write(char *path, size_t size, const void *data, size_t len)
{
	int fd, ok;

	snprintf(path, size, "%s/t-config.XXXXXX", tmpdir());
	if ((fd = mkstemp(path)) < 0)
		return -1;
	ok = write(fd, data, len) == (ssize_t)len;
	return close(fd) == 0 && ok ? 0 : -1;
}

/*
 * load - config_load() of data as a file; *text gets the problems with the
 * file's name replaced by F (free it)
 */
static int
load(struct pa_config *cfg, const void *data, size_t len, char **text)
{
	struct sbuf problems, out;
	char path[4096];
	const char *p, *hit;
	int rc;

	if (tmp_write(path, sizeof(path), data, len) != 0) {
		tap_diag("cannot write %s: %s", path, strerror(errno));
		*text = NULL;
		return PA_ERROR;
	}
	sbuf_init(&problems, SBUF_NOMAX);
	sbuf_init(&out, SBUF_NOMAX);
	rc = config_load(cfg, path, &problems);
	unlink(path);
	for (p = problems.buf; (hit = strstr(p, path)) != NULL;
	    p = hit + strlen(path)) {
		sbuf_add(&out, p, (size_t)(hit - p));
		sbuf_addch(&out, 'F');
	}
	sbuf_addstr(&out, p);
	sbuf_release(&problems);
	*text = sbuf_detach(&out, NULL);
	return rc;
}

static int
same_str(const char *a, const char *b)
{
	return a && b ? strcmp(a, b) == 0 : a == b;
}

static int
same_list(const struct config_list *a, const struct config_list *b)
{
	size_t i;

	if (a->n != b->n)
		return 0;
	for (i = 0; i < a->n; i++)
		if (!same_str(a->v[i], b->v[i]))
			return 0;
	return 1;
}

/* same_config - every field equal */
static int
same_config(const struct pa_config *a, const struct pa_config *b)
{
	return same_str(a->archive, b->archive) &&
	    a->archive_type == b->archive_type &&
	    same_str(a->index_path, b->index_path) &&
	    same_str(a->gnupg_home, b->gnupg_home) &&
	    a->trust_model == b->trust_model &&
	    a->uid_match == b->uid_match &&
	    a->staleness_days == b->staleness_days &&
	    a->max_clock_skew == b->max_clock_skew &&
	    same_str(a->socket, b->socket) && a->umask == b->umask &&
	    same_str(a->pid_file, b->pid_file) &&
	    same_str(a->user_id, b->user_id) && a->syslog == b->syslog &&
	    a->log_level == b->log_level && a->max_body == b->max_body &&
	    same_str(a->authserv_id, b->authserv_id) &&
	    same_list(&a->trusted_authserv_ids, &b->trusted_authserv_ids) &&
	    a->on_fail == b->on_fail && a->on_none == b->on_none &&
	    a->on_untrusted == b->on_untrusted &&
	    a->on_nokey == b->on_nokey && a->on_stale == b->on_stale &&
	    a->on_uidmismatch == b->on_uidmismatch &&
	    a->on_unsigned_by_signer == b->on_unsigned_by_signer &&
	    a->on_error == b->on_error &&
	    a->attestation_wait == b->attestation_wait &&
	    a->learn_from_mail == b->learn_from_mail &&
	    a->archive_refresh == b->archive_refresh &&
	    a->mark_non_patches == b->mark_non_patches &&
	    same_list(&a->patatt_keyrings, &b->patatt_keyrings) &&
	    a->patatt_tofu == b->patatt_tofu &&
	    same_str(a->state_file, b->state_file) &&
	    a->arrival_retention_days == b->arrival_retention_days &&
	    a->state_max_size == b->state_max_size &&
	    a->signer_habit_minimum == b->signer_habit_minimum;
}

static void
test_defaults(void)
{
	struct pa_config c;

	tap_check_int(config_init(&c), 0, "defaults: config_init succeeds");
	tap_check(c.archive == NULL, "defaults: no Archive");
	tap_check_int(c.archive_type, ARCHIVE_AUTO, "defaults: ArchiveType");
	tap_check_str(c.index_path, "/var/lib/patchattest/index",
	    "defaults: IndexPath");
	tap_check(c.gnupg_home == NULL, "defaults: GnuPGHome is GnuPG's own");
	tap_check_int(c.trust_model, TRUST_GPG, "defaults: TrustModel");
	tap_check_int(c.uid_match, UID_LOOSE, "defaults: UIDMatch");
	tap_check_int(c.staleness_days, 30, "defaults: StalenessDays");
	tap_check_int(c.max_clock_skew, 300, "defaults: MaxClockSkew");
	tap_check(c.trusted_authserv_ids.n == 0,
	    "defaults: no TrustedAuthservIDs");
	tap_check_str(c.socket, "inet:8891@127.0.0.1", "defaults: Socket");
	tap_check_int(c.umask, 07, "defaults: UMask");
	tap_check(c.pid_file == NULL && c.user_id == NULL &&
	    c.authserv_id == NULL, "defaults: no PidFile, UserID, AuthservID");
	tap_check(c.syslog == SYSLOG_MAIL && c.log_level == LOG_LEVEL_INFO,
	    "defaults: Syslog mail, LogLevel info");
	tap_check_int(c.max_body, 16 << 20, "defaults: MaximumBodySize");
	tap_check(c.on_fail == ACTION_ACCEPT && c.on_none == ACTION_ACCEPT &&
	    c.on_untrusted == ACTION_ACCEPT && c.on_nokey == ACTION_ACCEPT &&
	    c.on_stale == ACTION_ACCEPT && c.on_uidmismatch == ACTION_ACCEPT &&
	    c.on_unsigned_by_signer == ACTION_ACCEPT &&
	    c.on_error == ONERROR_ACCEPT, "defaults: every action accept");
	tap_check(c.attestation_wait == 0 && c.learn_from_mail == CONFIG_YES &&
	    c.archive_refresh == 300 && c.mark_non_patches == CONFIG_NO,
	    "defaults: no wait, learn, refresh 300, no nopatch header");
	tap_check(c.patatt_keyrings.n == 0 && c.patatt_tofu == CONFIG_NO,
	    "defaults: no patatt keyring, no TOFU");
	tap_check_str(c.state_file, "/var/lib/patchattest/state.mdb",
	    "defaults: StateFile");
	tap_check(c.arrival_retention_days == 400 &&
	    c.state_max_size == 4096 && c.signer_habit_minimum == 3,
	    "defaults: ArrivalRetentionDays 400, StateMaxSize 4096, "
	    "SignerHabitMinimum 3");
	config_release(&c);
	tap_check(c.index_path == NULL && c.patatt_keyrings.n == 0 &&
	    c.patatt_keyrings.v == NULL, "release clears the strings");
	config_release(&c);
}

static void
test_keys(void)
{
	struct pa_config c;
	char *text, line[128];
	size_t i, j;

	config_init(&c);
	tap_check_int(load(&c, S(every_key), &text), 0, "every key: loads");
	tap_check_str(text, "", "every key: no problems");
	free(text);
	tap_check_str(c.archive, "/srv/lkml", "every key: Archive");
	tap_check_int(c.archive_type, ARCHIVE_PUBLICINBOX,
	    "every key: ArchiveType");
	tap_check_str(c.index_path, "/var/tmp/ix", "every key: IndexPath");
	tap_check_str(c.gnupg_home, "/etc/patchattest/gnupg",
	    "every key: GnuPGHome");
	tap_check_int(c.trust_model, TRUST_KEYRING, "every key: TrustModel");
	tap_check_int(c.uid_match, UID_STRICT, "every key: UIDMatch");
	tap_check_int(c.staleness_days, 0, "every key: StalenessDays");
	tap_check_int(c.max_clock_skew, 60, "every key: MaxClockSkew");
	tap_check(c.trusted_authserv_ids.n == 3 &&
	    strcmp(c.trusted_authserv_ids.v[0], "dkim.example.org") == 0 &&
	    strcmp(c.trusted_authserv_ids.v[1], "rspamd.example.org") == 0 &&
	    strcmp(c.trusted_authserv_ids.v[2], "mx2.example.org") == 0,
	    "every key: TrustedAuthservIDs, two on a line and one more line");
	tap_check_str(c.socket, "inet:8891@127.0.0.1", "every key: Socket");
	tap_check_int(c.umask, 027, "every key: UMask, octal");
	tap_check_str(c.pid_file, "/run/pa.pid", "every key: PidFile");
	tap_check_str(c.user_id, "patchattest:mail", "every key: UserID");
	tap_check_int(c.syslog, SYSLOG_LOCAL0 + 3, "every key: Syslog");
	tap_check_int(c.log_level, LOG_LEVEL_DEBUG, "every key: LogLevel");
	tap_check_int(c.max_body, 1024, "every key: MaximumBodySize");
	tap_check_str(c.authserv_id, "mx.example.org", "every key: AuthservID");
	tap_check(c.on_fail == ACTION_REJECT && c.on_none == ACTION_TEMPFAIL &&
	    c.on_untrusted == ACTION_QUARANTINE && c.on_nokey == ACTION_REJECT &&
	    c.on_stale == ACTION_TEMPFAIL &&
	    c.on_uidmismatch == ACTION_QUARANTINE &&
	    c.on_unsigned_by_signer == ACTION_REJECT &&
	    c.on_error == ONERROR_TEMPFAIL, "every key: the actions");
	tap_check(c.attestation_wait == 30 && c.learn_from_mail == CONFIG_NO &&
	    c.archive_refresh == 0 && c.mark_non_patches == CONFIG_YES,
	    "every key: AttestationWait, LearnFromMail, ArchiveRefresh, "
	    "MarkNonPatches");
	tap_check(c.patatt_keyrings.n == 2, "every key: PatattKeyring twice");
	tap_check_str(c.patatt_keyrings.n > 0 ? c.patatt_keyrings.v[0] : "",
	    "/srv/pgpkeys/.keyring", "every key: PatattKeyring, first");
	tap_check_str(c.patatt_keyrings.n > 1 ? c.patatt_keyrings.v[1] : "",
	    "/etc/patchattest/local keys",
	    "every key: PatattKeyring, second (quoted, in order)");
	tap_check_int(c.patatt_tofu, CONFIG_YES, "every key: PatattTOFU");
	tap_check(c.state_file == NULL, "every key: StateFile \"\" is off");
	tap_check(c.arrival_retention_days == 0 &&
	    c.state_max_size == 64 && c.signer_habit_minimum == 5,
	    "every key: ArrivalRetentionDays, StateMaxSize, "
	    "SignerHabitMinimum");

	/* Only a key that may be off takes "", and only quoted. */
	load(&c, S("StateFile\n"), &text);
	tap_check(strstr(text, "StateFile: missing value") != NULL,
	    "StateFile without a value: missing");
	free(text);
	load(&c, S("IndexPath \"\"\n"), &text);
	tap_check(strstr(text, "IndexPath: missing value") != NULL,
	    "IndexPath \"\": missing, it cannot be off");
	free(text);

	tap_check_int(load(&c, S("aRcHiVeTyPe MBOX\nTRUSTMODEL Tofu\n"
	    "stalenessdays +36500\n"), &text), 0, "keys and words in any case");
	free(text);
	tap_check(c.archive_type == ARCHIVE_MBOX && c.trust_model == TRUST_TOFU &&
	    c.staleness_days == 36500, "any case: the values");
	tap_check(c.archive == NULL && c.uid_match == UID_LOOSE,
	    "a reload starts again from the defaults");

	/* Each word of each choice is the enum value of its position. */
	for (i = 0; i < config_nkeys; i++) {
		if (config_keys[i].type != CONFIG_CHOICE)
			continue;
		for (j = 0; config_keys[i].choices[j] != NULL; j++) {
			snprintf(line, sizeof(line), "%s %s\n",
			    config_keys[i].name, config_keys[i].choices[j]);
			load(&c, line, strlen(line), &text);
			free(text);
			tap_check_int(*(int *)(void *)((char *)&c +
			    config_keys[i].offset), (long long)j, "%s %s",
			    config_keys[i].name, config_keys[i].choices[j]);
			tap_check_str(config_choice_name(config_keys[i].name,
			    (int)j), config_keys[i].choices[j],
			    "config_choice_name(%s, %zu)", config_keys[i].name, j);
		}
	}
	tap_check(config_choice_name("trustmodel", TRUST_TOFU) != NULL,
	    "config_choice_name ignores case");
	tap_check(config_choice_name("UIDMatch", 2) == NULL &&
	    config_choice_name("UIDMatch", -1) == NULL,
	    "config_choice_name: no such word");
	tap_check(config_choice_name("IndexPath", 0) == NULL &&
	    config_choice_name("Nope", 0) == NULL,
	    "config_choice_name: not a choice key");
	config_release(&c);
}

static void
test_syntax(void)
{
	struct pa_config c;
	char *text, *big;
	size_t i;
	int rc;

	config_init(&c);
	for (i = 0; i < sizeof(good_cases) / sizeof(good_cases[0]); i++) {
		rc = load(&c, good_cases[i].in, good_cases[i].len, &text);
		tap_check(rc == 0 && same_str(text, ""), "syntax: %s: loads",
		    good_cases[i].name);
		if (rc != 0)
			tap_diag("%s", text ? text : "");
		free(text);
		tap_check_str(c.archive, good_cases[i].archive, "syntax: %s",
		    good_cases[i].name);
	}

	/* CONFIG_LINE_MAX bytes are fine, one more is not. */
	if ((big = malloc(CONFIG_LINE_MAX + 16)) == NULL)
		tap_skip_all("out of memory");
	memcpy(big, "Archive /", 9);
	memset(big + 9, 'a', CONFIG_LINE_MAX - 9);
	big[CONFIG_LINE_MAX] = '\n';
	tap_check_int(load(&c, big, CONFIG_LINE_MAX + 1, &text), 0,
	    "a line of %d bytes", CONFIG_LINE_MAX);
	free(text);
	tap_check_int(c.archive ? (long long)strlen(c.archive) : -1,
	    CONFIG_LINE_MAX - 8, "all of it is the value");
	big[0] = '\n';
	memcpy(big + 1, "Archive /", 9);
	memset(big + 10, 'a', CONFIG_LINE_MAX - 8);
	big[CONFIG_LINE_MAX + 2] = '\n';
	tap_check_int(load(&c, big, CONFIG_LINE_MAX + 3, &text), PA_ECONFIG,
	    "a line of %d bytes", CONFIG_LINE_MAX + 1);
	tap_check_str(text, "F:2: line longer than 4096 bytes\n",
	    "the long line reported");
	free(text);
	free(big);
	config_release(&c);
}

static void
test_problems(void)
{
	struct pa_config c, before;
	struct sbuf problems;
	char *text, path[4096], want[4200], *big;
	size_t i, n;
	int rc;

	config_init(&c);
	for (i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		rc = load(&c, bad_cases[i].in, bad_cases[i].len, &text);
		tap_check_int(rc, PA_ECONFIG, "%s: PA_ECONFIG",
		    bad_cases[i].name);
		tap_check_str(text, bad_cases[i].want, "%s: the message",
		    bad_cases[i].name);
		free(text);
	}

	/* Every problem of a file, in order, whatever comes between. */
	n = CONFIG_LINE_MAX + 512;
	if ((big = malloc(n)) == NULL)
		tap_skip_all("out of memory");
	memset(big, 'x', CONFIG_LINE_MAX + 1);
	big[CONFIG_LINE_MAX + 1] = '\0';
	snprintf(big + CONFIG_LINE_MAX + 1, n - CONFIG_LINE_MAX - 1,
	    "\nStalenessDays x\nArchive /ok\nStalenessDays 5\n"
	    "GnuPGHom /g\n\nTrustModel\nArchive /again\n");
	rc = load(&c, big, strlen(big), &text);
	tap_check_int(rc, PA_ECONFIG, "several problems: PA_ECONFIG");
	tap_check_str(text, "F:1: line longer than 4096 bytes\n"
	    "F:2: StalenessDays: \"x\" is not a whole number\n"
	    "F:4: StalenessDays given twice (first on line 2)\n"
	    "F:5: unknown key \"GnuPGHom\" (did you mean GnuPGHome?)\n"
	    "F:7: TrustModel: missing value\n"
	    "F:8: Archive given twice (first on line 3)\n",
	    "several problems: all of them, in order");
	free(text);
	free(big);

	/* A failed load leaves the struct as it was. */
	load(&c, S(every_key), &text);
	free(text);
	before = c;
	rc = load(&c, S("ArchiveType mbox\nIndexPath /elsewhere\n"
	    "StalenessDays 12\nUIDMatch sometimes\n"), &text);
	free(text);
	tap_check_int(rc, PA_ECONFIG, "a bad file is refused");
	tap_check(memcmp(&c, &before, sizeof(c)) == 0,
	    "the struct is unchanged, pointers too");
	tap_check_str(c.index_path, "/var/tmp/ix", "its strings are intact");

	/* Problems are appended to what the buffer holds. */
	sbuf_init(&problems, SBUF_NOMAX);
	sbuf_addstr(&problems, "earlier\n");
	snprintf(path, sizeof(path), "%s/t-config.XXXXXX", tmpdir());
	if ((rc = mkstemp(path)) >= 0) {
		close(rc);
		unlink(path);
	}
	rc = config_load(&c, path, &problems);
	tap_check_int(rc, PA_ECONFIG, "a missing file: PA_ECONFIG");
	snprintf(want, sizeof(want), "earlier\n%s: cannot open: %s\n", path,
	    strerror(ENOENT));
	tap_check_str(problems.buf, want, "a missing file: one line, appended");
	sbuf_reset(&problems);
	rc = config_load(&c, tmpdir(), &problems);
	tap_check_int(rc, PA_ECONFIG, "a folder: PA_ECONFIG");
	snprintf(want, sizeof(want), "%s: not a regular file\n", tmpdir());
	tap_check_str(problems.buf, want, "a folder: one line");
	/* What would never end, or block, is refused before it is read. */
	sbuf_reset(&problems);
	rc = config_load(&c, "/dev/zero", &problems);
	tap_check(rc == PA_ECONFIG && strcmp(problems.buf, "/dev/zero: not a "
	    "regular file\n") == 0, "/dev/zero: %s", problems.buf);
	snprintf(path, sizeof(path), "%s/t-config-fifo.XXXXXX", tmpdir());
	if (mkdtemp(path) != NULL) {
		strcat(path, "/fifo");
		if (mkfifo(path, 0600) == 0) {
			sbuf_reset(&problems);
			rc = config_load(&c, path, &problems);
			tap_check(rc == PA_ECONFIG && strstr(problems.buf,
			    "not a regular file"), "a FIFO nobody writes: "
			    "refused, not waited for");
			unlink(path);
		}
		*strrchr(path, '/') = '\0';
		rmdir(path);
	}
	if ((big = calloc(1, CONFIG_FILE_MAX + 2)) != NULL) {
		memset(big, '#', CONFIG_FILE_MAX + 1);
		rc = load(&c, big, CONFIG_FILE_MAX + 1, &text);
		tap_check(rc == PA_ECONFIG && strcmp(text, "F: larger than 1048576 "
		    "bytes\n") == 0, "a file over %d bytes: %s",
		    CONFIG_FILE_MAX, text);
		free(text);
		free(big);
	}
	tap_check(same_config(&c, &before), "still unchanged");
	sbuf_release(&problems);
	config_release(&c);
}

static void
test_sample(void)
{
	struct pa_config c, def;
	struct sbuf line;
	char path[4096], *text;
	size_t i, len;
	FILE *fp;
	int fd, rc;

	for (i = 0; i < config_nkeys; i++)
		tap_check(config_keys[i].doc && config_keys[i].doc[0] &&
		    strchr(config_keys[i].doc, '\n') == NULL,
		    "%s has a one-line doc", config_keys[i].name);

	snprintf(path, sizeof(path), "%s/t-config.XXXXXX", tmpdir());
	if ((fd = mkstemp(path)) < 0 || (fp = fdopen(fd, "w")) == NULL)
		tap_skip_all("cannot write %s: %s", path, strerror(errno));
	rc = config_write_sample(fp);
	tap_check_int(fclose(fp) == 0 ? rc : -1, 0, "sample: written");
	text = tap_read_file(path, &len);
	tap_check(text != NULL, "sample: read back");

	sbuf_init(&line, SBUF_NOMAX);
	for (i = 0; text && i < config_nkeys; i++) {
		sbuf_reset(&line);
		sbuf_addf(&line, "\n# %s\n", config_keys[i].doc);
		tap_check(strstr(text, line.buf) != NULL, "sample: %s doc",
		    config_keys[i].name);
		sbuf_reset(&line);
		if (config_keys[i].def)
			sbuf_addf(&line, "\n# %s %s\n", config_keys[i].name,
			    config_keys[i].def);
		else
			sbuf_addf(&line, "\n#%s ", config_keys[i].name);
		tap_check(strstr(text, line.buf) != NULL, "sample: %s line",
		    config_keys[i].name);
	}
	sbuf_release(&line);
	free(text);

	/* Loaded over every key set otherwise, it gives the defaults. */
	config_init(&c);
	config_init(&def);
	load(&c, S(every_key), &text);
	free(text);
	sbuf_init(&line, SBUF_NOMAX);
	rc = config_load(&c, path, &line);
	tap_check_int(rc, 0, "sample: loads");
	tap_check_str(line.buf, "", "sample: no problems");
	tap_check(same_config(&c, &def), "sample: every field at its default");
	sbuf_release(&line);
	unlink(path);
	config_release(&c);
	config_release(&def);
}

/*
 * test_shipped - conf/patchattest.conf is exactly the sample the key table
 * makes, so the shipped file cannot drift from the parser.
 */
static void
test_shipped(void)
{
	char path[4096], *shipped, *made = NULL;
	size_t shippedlen, madelen = 0;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/conf/patchattest.conf", tap_srcdir());
	shipped = tap_read_file(path, &shippedlen);
	fp = open_memstream(&made, &madelen);
	if (!tap_check(shipped != NULL && fp != NULL, "read %s", path)) {
		if (fp)
			fclose(fp);
		free(made);
		free(shipped);
		return;
	}
	config_write_sample(fp);
	fclose(fp);
	tap_check_mem(shipped, shippedlen, made, madelen,
	    "conf/patchattest.conf is the sample made from the key table");
	free(made);
	free(shipped);
}

/*
 * test_man - patchattest.conf(5) as built lists every key of the table,
 * with its default, in the words config_write_man() gives it.
 */
static void
test_man(void)
{
	const char *top = getenv("top_builddir");
	char path[4096], line[256], *page, *made = NULL;
	size_t pagelen, madelen = 0, i;
	FILE *fp;

	if (top == NULL) {
		tap_skip("top_builddir is not set: no built manual page");
		return;
	}
	snprintf(path, sizeof(path), "%s/man/patchattest.conf.5", top);
	page = tap_read_file(path, &pagelen);
	fp = open_memstream(&made, &madelen);
	if (!tap_check(page != NULL && fp != NULL, "read %s", path)) {
		if (fp)
			fclose(fp);
		free(made);
		free(page);
		return;
	}
	config_write_man(fp);
	fclose(fp);
	tap_check(strstr(page, made) != NULL,
	    "patchattest.conf(5) has the keys as the table describes them");
	for (i = 0; i < config_nkeys; i++) {
		snprintf(line, sizeof(line), "\n.B %s \\fI",
		    config_keys[i].name);
		tap_check(strstr(page, line) != NULL, "patchattest.conf(5): %s",
		    config_keys[i].name);
	}
	free(made);
	free(page);
}

/*
 * test_partial - a check (patchattest-milter -n) reads on past problems
 * and keeps the good lines, to judge their values too.
 */
static void
test_partial(void)
{
	struct pa_config c;
	struct sbuf problems;
	char path[4096];
	static const char text[] = "Socket inet:8891@127.0.0.1\n"
	    "Frobnicate 1\nUserID mail\nUMask 9\n";

	config_init(&c);
	if (tmp_write(path, sizeof(path), text, sizeof(text) - 1) != 0) {
		tap_check(0, "partial: cannot write %s", path);
		return;
	}
	sbuf_init(&problems, SBUF_NOMAX);
	tap_check_int(config_load_partial(&c, path, &problems), PA_ECONFIG,
	    "partial: problems are still PA_ECONFIG");
	tap_check(strstr(problems.buf, ":2: unknown key") != NULL &&
	    strstr(problems.buf, ":4: UMask") != NULL,
	    "partial: both problems listed");
	tap_check_str(c.socket, "inet:8891@127.0.0.1", "partial: Socket kept");
	tap_check_str(c.user_id, "mail", "partial: UserID kept");
	tap_check_int(c.umask, 07, "partial: the bad UMask is the default");
	unlink(path);
	sbuf_release(&problems);
	config_release(&c);
}

int
main(void)
{
	test_shipped();
	test_defaults();
	test_keys();
	test_syntax();
	test_problems();
	test_sample();
	test_partial();
	test_man();
	return tap_done();
}
