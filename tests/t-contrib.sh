#!/bin/sh
# t-contrib.sh - the MTA and service snippets in contrib/ are read by the
# tools that will read them:
#
#   sendmail  a sendmail.cf built with m4 from a minimal .mc that includes
#             contrib/sendmail/patchattest.mc carries the filter and lists
#             it in InputMailFilters (Sendmail's own cf macros, from
#             sendmail-cf; without them a stub of INPUT_MAIL_FILTER checks
#             the snippet's m4 alone, and says so)
#   postfix   postconf reads contrib/postfix/main.cf without a warning and
#             finds the four settings
#   systemd   systemd-analyze verify accepts the units in contrib/systemd
#             (with the built programs in place of /usr/sbin, /usr/bin)
#
# Each part is skipped, with the reason, when its tool is missing.
# Environment: srcdir, PATCHATTEST, PATCHATTEST_MILTER (make check sets
# them).  PATCHATTEST_KEEP=1 keeps the work directory.

: "${srcdir:=.}"
src=$(cd "$srcdir" && pwd) || exit 1
contrib=$src/contrib

. "$srcdir/tests/tap.sh"
T=$(mktemp -d "${TMPDIR:-/tmp}/t-contrib.XXXXXX") || exit 1
trap workdir_release 0
trap 'exit 1' HUP INT TERM


# has FILE LINE DESCRIPTION: FILE holds LINE, exactly, as a whole line
has() {
	grep -qxF -- "$2" "$1"
	ok $? "$3"
}

# --- sendmail ------------------------------------------------------------
filter_line='Xpatchattest, S=local:/run/patchattest/patchattest.sock, F=T, T=C:10s;S:30s;R:2m;E:5m'
cfdir=
for d in /usr/share/sendmail/cf /usr/share/sendmail-cf /usr/lib/mail; do
	if [ -f "$d/m4/cf.m4" ]; then
		cfdir=$d
		break
	fi
done
if ! command -v m4 >/dev/null 2>&1; then
	skip "sendmail" "m4 is not installed"
else
	# The smallest .mc that makes a whole sendmail.cf.
	cat >"$T/test.mc" <<'EOF'
divert(-1)
divert(0)dnl
OSTYPE(`linux')dnl
include(`patchattest.mc')dnl
MAILER(`local')dnl
MAILER(`smtp')dnl
EOF
	if [ -n "$cfdir" ]; then
		how="Sendmail's cf macros"
		m4 -I "$contrib/sendmail" "$cfdir/m4/cf.m4" "$T/test.mc" \
		    >"$T/test.cf" 2>"$T/m4.err"
	else
		how="a stub of INPUT_MAIL_FILTER: sendmail-cf is not installed"
		echo "# sendmail-cf is not installed: the snippet is checked" \
		    "against a stub of INPUT_MAIL_FILTER only"
		# What cf/m4/cfhead.m4 and proto.m4 make of the macro, in short.
		cat >"$T/stub.m4" <<'EOF'
divert(-1)
define(`OSTYPE', `')
define(`MAILER', `')
define(`INPUT_MAIL_FILTER', `define(`_FILTERS_', `$1')divert(1)X`'$1, $2
divert(0)')
m4wrap(`O InputMailFilters=_FILTERS_
undivert(1)')
EOF
		m4 -I "$contrib/sendmail" "$T/stub.m4" "$T/test.mc" \
		    >"$T/test.cf" 2>"$T/m4.err"
	fi
	st=$?
	[ $st -eq 0 ] && [ ! -s "$T/m4.err" ]
	ok $? "sendmail: m4 builds a .cf from a .mc with the snippet ($how)"
	diag "$T/m4.err"
	has "$T/test.cf" "$filter_line" \
	    "sendmail: the filter line: socket, F=T, timeouts"
	has "$T/test.cf" "O InputMailFilters=patchattest" \
	    "sendmail: the filter is listed in InputMailFilters"
	# Every line of the snippet but the macro call is a dnl comment:
	# alone, with the macro made empty, it prints nothing at all.
	cat >"$T/alone.mc" <<'EOF'
define(`INPUT_MAIL_FILTER', `')dnl
include(`patchattest.mc')dnl
EOF
	m4 -I "$contrib/sendmail" "$T/alone.mc" >"$T/alone.out" 2>&1
	[ $? -eq 0 ] && [ ! -s "$T/alone.out" ]
	ok $? "sendmail: the snippet's comments leave nothing in the .cf"
	diag "$T/alone.out"
fi

# --- postfix -------------------------------------------------------------
if ! command -v postconf >/dev/null 2>&1; then
	skip "postfix" "postconf is not installed (postfix)"
else
	mkdir "$T/postfix"
	cp "$contrib/postfix/main.cf" "$T/postfix/main.cf"
	: >"$T/postfix/master.cf"
	postconf -c "$T/postfix" -n >"$T/postconf.out" 2>"$T/postconf.err"
	[ $? -eq 0 ] && [ ! -s "$T/postconf.err" ]
	ok $? "postfix: postconf reads the snippet without a warning"
	diag "$T/postconf.err"
	has "$T/postconf.out" "smtpd_milters = inet:127.0.0.1:8891" \
	    "postfix: smtpd_milters"
	has "$T/postconf.out" 'non_smtpd_milters = $smtpd_milters' \
	    "postfix: non_smtpd_milters follows smtpd_milters"
	has "$T/postconf.out" "milter_default_action = tempfail" \
	    "postfix: milter_default_action = tempfail"
	has "$T/postconf.out" "milter_protocol = 6" "postfix: milter_protocol"
	# The commented local-socket alternative is valid too.
	sed 's/^#smtpd_milters = unix:/smtpd_milters = unix:/' \
	    "$contrib/postfix/main.cf" | grep -v '^smtpd_milters = inet:' \
	    >"$T/postfix/main.cf"
	postconf -c "$T/postfix" -h smtpd_milters >"$T/postconf.out" 2>&1
	has "$T/postconf.out" "unix:patchattest/patchattest.sock" \
	    "postfix: the local-socket alternative, relative to the queue"
fi

# --- systemd -------------------------------------------------------------
if ! command -v systemd-analyze >/dev/null 2>&1; then
	skip "systemd" "systemd-analyze is not installed (systemd)"
elif [ ! -x "${PATCHATTEST:-}" ] || [ ! -x "${PATCHATTEST_MILTER:-}" ]; then
	skip "systemd" "PATCHATTEST or PATCHATTEST_MILTER names no program"
else
	# verify insists that ExecStart's program exists: the built ones
	# stand in for the installed paths.
	mkdir "$T/units"
	for u in patchattest-milter.service patchattest-index.service \
	    patchattest-index.timer; do
		sed -e "s|/usr/sbin/patchattest-milter|$PATCHATTEST_MILTER|g" \
		    -e "s|/usr/bin/patchattest |$PATCHATTEST |g" \
		    "$contrib/systemd/$u" >"$T/units/$u"
	done
	(cd "$T/units" && systemd-analyze verify --man=no \
	    ./patchattest-milter.service ./patchattest-index.service \
	    ./patchattest-index.timer) >"$T/verify.out" 2>&1
	ok $? "systemd: systemd-analyze verify accepts the units"
	diag "$T/verify.out"
	m=$contrib/systemd/patchattest-milter.service
	has "$m" "ExecStart=/usr/sbin/patchattest-milter -f -c /etc/patchattest/patchattest.conf" \
	    "systemd: the milter runs in the foreground with /etc's configuration"
	has "$m" "Type=simple" "systemd: the milter is Type=simple"
	has "$m" 'ExecReload=/bin/kill -HUP $MAINPID' \
	    "systemd: reload sends SIGHUP"
	has "$contrib/systemd/patchattest-index.service" "Type=oneshot" \
	    "systemd: indexing is a oneshot"
	has "$contrib/systemd/patchattest-index.timer" "Persistent=true" \
	    "systemd: the timer makes up missed runs"
fi

tap_end
