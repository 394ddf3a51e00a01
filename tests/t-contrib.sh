#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
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
#   index     the index timer's service command, run against the Debian
#             package's configuration (no Archive), succeeds
#   agree     the README's Postfix lines, contrib/postfix/main.cf, the
#             manual's POSTFIX section and the Debian package's Socket
#             name the same milter
#
# Each part is skipped, with the reason, when its tool is missing.
# Environment: srcdir, PATCHATTEST, PATCHATTEST_MILTER (make check sets
# them).  PATCHATTEST_KEEP=1 keeps the work directory.

: "${srcdir:=.}"
src=$(cd "$srcdir" && pwd) || exit 1
contrib=$src/contrib

. "$srcdir/tests/tap.sh"
. "$srcdir/tests/postfix-lib.sh"
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

# --- index ---------------------------------------------------------------
# The timer starts patchattest-index.service every 15 minutes.  Its
# ExecStart, word for word but for the installed paths, against the
# configuration the Debian package installs (no Archive in it; IndexPath
# moved into the work directory), with the unit's UMask: it must succeed,
# the first time and every time after.
svc=$contrib/systemd/patchattest-index.service
if [ ! -x "${PATCHATTEST:-}" ]; then
	skip "index" "PATCHATTEST names no program"
else
	mkdir -m 750 "$T/state"
	deb_conf_packaged |
	    sed "s|^# IndexPath .*|IndexPath $T/state/index|" >"$T/noarchive.conf"
	grep -q -i '^Archive[[:space:]]' "$T/noarchive.conf"
	expect "index: the package's configuration names no Archive" 1 $?
	has "$T/noarchive.conf" "IndexPath $T/state/index" \
	    "index: IndexPath moved into the work directory"
	cmd=$(sed -n 's/^ExecStart=//p' "$svc")
	run=$(printf '%s\n' "$cmd" |
	    sed -e "s|^/usr/bin/patchattest |$PATCHATTEST |" \
	    -e "s| /etc/patchattest/patchattest.conf\$| $T/noarchive.conf|")
	expect "index: ExecStart runs patchattest index on /etc's configuration" \
	    "$PATCHATTEST index -c $T/noarchive.conf" "$run"
	umask_unit=$(sed -n 's/^UMask=//p' "$svc")
	for i in 1 2; do
		# $run unquoted: the unit's words, as systemd splits them.
		(umask "${umask_unit:-0022}" && exec $run) >"$T/index$i.out" 2>&1
		st=$?
		ok $st "index: run $i of the service without Archive exits 0"
		[ $st -eq 0 ] || diag "$T/index$i.out"
	done
	grep -q '^no Archive configured' "$T/index1.out"
	ok $? "index: it says that no Archive is configured"
	[ -d "$T/state/index" ]
	ok $? "index: the index is there for what the milter learns"
fi

# --- agree ---------------------------------------------------------------
# One default from end to end: the Debian package's Socket (libmilter's
# inet:PORT@HOST) is what the README, contrib/postfix/main.cf and the
# manual tell Postfix (inet:HOST:PORT), and the local-socket alternative
# is the same in the README and main.cf.
readme_postfix >"$T/readme.cf"
grep -q '^smtpd_milters = ' "$T/readme.cf"
ok $? "agree: the README gives Postfix's milter settings"
while IFS= read -r line; do
	has "$contrib/postfix/main.cf" "$line" \
	    "agree: contrib/postfix/main.cf has the README's \"$line\""
done <"$T/readme.cf"
sock=$(deb_conf_packaged | sed -n 's/^Socket //p')
case $sock in
inet:*@*)
	port=${sock#inet:}
	pf_sock=inet:${sock#*@}:${port%@*} ;;
*)	pf_sock=unix:${sock#*:} ;;
esac
expect "agree: the Debian package's Socket is the README's milter" \
    "smtpd_milters = $pf_sock" "$(grep '^smtpd_milters = ' "$T/readme.cf")"
has "$src/man/patchattest-milter.8.in" "smtpd_milters = $pf_sock" \
    "agree: patchattest-milter(8) gives Postfix the same socket"
alt=$(sed -n 's/^#\(smtpd_milters = unix:.*\)/\1/p' "$contrib/postfix/main.cf")
has "$src/README.md" "    $alt" \
    "agree: the README's local socket is main.cf's ($alt)"
has "$src/man/patchattest-milter.8.in" "$alt" \
    "agree: so is the manual's"

tap_end
