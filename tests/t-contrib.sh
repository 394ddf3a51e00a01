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
#   keyring   the keyring timer's pull script, run against a local bare
#             repository, fast-forwards and names old..new and the key
#             files changed, refuses history that does not continue the
#             clone's and leaves it as it was, checks the new tip's
#             signature when asked, and without a clone says that there
#             is nothing to pull and succeeds
#   init      the Debian package's init script starts the milter (once),
#             reports it, reloads it (not with a bad configuration), stops
#             it and removes /run/patchattest, also with the program
#             removed, and leaves a milter started by hand alone
#   agree     the README's Postfix lines, contrib/postfix/main.cf, the
#             manual's POSTFIX section and the Debian package's Socket
#             name the same milter; the quick start's packages are those
#             contrib/quickstart.sh installs
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
filter_line='Xpatchattest, S=inet:8891@127.0.0.1, F=T, T=C:10s;S:30s;R:2m;E:5m'
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
	units="patchattest-milter.service patchattest-index.service
	    patchattest-index.timer patchattest-keyring.service
	    patchattest-keyring.timer"
	for u in $units; do
		sed -e "s|/usr/sbin/patchattest-milter|$PATCHATTEST_MILTER|g" \
		    -e "s|/usr/bin/patchattest |$PATCHATTEST |g" \
		    -e "s|/usr/libexec/patchattest/|$contrib/|g" \
		    "$contrib/systemd/$u" >"$T/units/$u"
	done
	(cd "$T/units" && systemd-analyze verify --man=no \
	    $(printf './%s ' $units)) >"$T/verify.out" 2>&1
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
	has "$contrib/systemd/patchattest-keyring.service" "User=patchattest" \
	    "systemd: the keyring is pulled as the milter's user"
	has "$contrib/systemd/patchattest-keyring.service" \
	    "ExecStart=/usr/libexec/patchattest/patchattest-keyring-pull /var/lib/patchattest/pgpkeys" \
	    "systemd: the keyring service pulls the README's clone"
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

# --- keyring -------------------------------------------------------------
# patchattest-keyring.service's script against a clone of a local bare
# repository laid out as pgpkeys.git is, with the service's argument
# replaced by the clone's path.
pull=$contrib/patchattest-keyring-pull
if ! command -v git >/dev/null 2>&1 || ! command -v gpg >/dev/null 2>&1; then
	skip "keyring" "git or gpg is not installed"
else
	export GIT_CONFIG_NOSYSTEM=1 HOME="$T/home" GNUPGHOME="$T/gnupg-git"
	mkdir -p "$HOME" && mkdir -m 700 "$GNUPGHOME"
	git config --global user.name "Keyring Maintainer"
	git config --global user.email keys@example.org
	git config --global init.defaultBranch master
	up=$T/upstream
	# commit_keys MESSAGE [GIT-COMMIT-OPTION...]: commit what $up/work
	# holds and push it to the bare repository
	commit_keys() {
		_m=$1
		shift
		git -C "$up/work" add -A &&
		git -C "$up/work" commit -q "$@" -m "$_m" &&
		git -C "$up/work" push -q -f origin HEAD:master 2>/dev/null
	}
	kr=$up/work/.keyring/openpgp/example.org
	git init -q --bare "$up/bare.git" &&
	git clone -q "$up/bare.git" "$up/work" 2>/dev/null &&
	mkdir -p "$kr/alice" && echo alice-1 >"$kr/alice/default" &&
	echo readme >"$up/work/README" && commit_keys "alice" &&
	git clone -q "$up/bare.git" "$T/clone" &&
	mkdir -p "$kr/bob" && echo bob-1 >"$kr/bob/default" &&
	echo alice-2 >"$kr/alice/default" && echo readme-2 >"$up/work/README" &&
	commit_keys "bob, and alice's new subkey"
	setup $? "keyring: a bare repository with two commits and a clone of the first" /dev/null
	old=$(git -C "$T/clone" rev-parse HEAD)
	new=$(git -C "$up/work" rev-parse HEAD)

	"$pull" "$T/clone" >"$T/pull1.out" 2>&1
	ok $? "keyring: the pull exits 0"
	expect "keyring: it fast-forwards to the new commit" "$new" \
	    "$(git -C "$T/clone" rev-parse HEAD)"
	expect "keyring: it logs old..new and the key files changed" \
	    "patchattest-keyring-pull: $T/clone: $old..$new, key files changed: 2" \
	    "$(cat "$T/pull1.out")"
	"$pull" "$T/clone" >"$T/pull2.out" 2>&1
	ok $? "keyring: a pull with nothing new exits 0"
	expect "keyring: it says that the clone is up to date" \
	    "patchattest-keyring-pull: $T/clone: up to date at $new" \
	    "$(cat "$T/pull2.out")"

	# Upstream history rewritten: the last commit replaced.
	git -C "$up/work" reset -q --hard HEAD~1 &&
	echo mallory >"$kr/alice/default" && commit_keys "alice, rewritten"
	setup $? "keyring: upstream history rewritten" /dev/null
	"$pull" "$T/clone" >"$T/pull3.out" 2>&1
	expect "keyring: a pull that is no fast-forward exits 1" 1 $?
	expect "keyring: the clone stays at its commit" "$new" \
	    "$(git -C "$T/clone" rev-parse HEAD)"
	expect "keyring: and its files as they were" "alice-2" \
	    "$(cat "$T/clone/.keyring/openpgp/example.org/alice/default")"
	expect "keyring: the clone has no changes" "" \
	    "$(git -C "$T/clone" status --porcelain)"
	grep -qxF "patchattest-keyring-pull: $T/clone: pull refused or failed; left at $new" \
	    "$T/pull3.out"
	ok $? "keyring: it says so, and where the clone stays"
	diag "$T/pull3.out"

	# --verify-signatures: a tip signed by a key of GNUPGHOME is taken,
	# an unsigned one is not.
	git -C "$T/clone" reset -q --hard "$old"
	git -C "$up/work" reset -q --hard "$old"
	gpg --batch --quiet --passphrase '' --quick-gen-key \
	    "Keyring Maintainer <keys@example.org>" ed25519 sign never \
	    2>"$T/gpg.err"
	setup $? "keyring: a signing key for the keyring's commits" "$T/gpg.err"
	echo carol-1 >"$kr/alice/default" && commit_keys "signed" -S
	setup $? "keyring: a signed commit upstream" /dev/null
	signed=$(git -C "$up/work" rev-parse HEAD)
	"$pull" --verify-signatures "$T/clone" >"$T/pull4.out" 2>&1
	ok $? "keyring: --verify-signatures takes a signed tip"
	expect "keyring: the clone is at the signed commit" "$signed" \
	    "$(git -C "$T/clone" rev-parse HEAD)"
	diag "$T/pull4.out"
	echo dave-1 >"$kr/alice/default" && commit_keys "unsigned"
	"$pull" --verify-signatures "$T/clone" >"$T/pull5.out" 2>&1
	expect "keyring: --verify-signatures refuses an unsigned tip" 1 $?
	expect "keyring: the clone stays at the signed commit" "$signed" \
	    "$(git -C "$T/clone" rev-parse HEAD)"
	gpgconf --kill all 2>/dev/null

	"$pull" "$T/none" >"$T/pull6.out" 2>&1
	ok $? "keyring: without a clone the service exits 0"
	expect "keyring: and says that there is nothing to pull" \
	    "patchattest-keyring-pull: no keyring at $T/none; nothing to pull" \
	    "$(cat "$T/pull6.out")"
fi

# --- init ----------------------------------------------------------------
# The Debian package's init script, word for word but for its paths (the
# built milter, a configuration on a free port, /run/patchattest in the
# work directory).  As root the milter becomes nobody, as the package's
# becomes patchattest: it cannot remove its PidFile from root's folder.
if ! command -v start-stop-daemon >/dev/null 2>&1 ||
    [ ! -f /lib/lsb/init-functions ]; then
	skip "init" "start-stop-daemon or /lib/lsb/init-functions is missing"
elif [ ! -x "${PATCHATTEST_MILTER:-}" ]; then
	skip "init" "PATCHATTEST_MILTER names no program"
else
	I=$T/init
	mkdir -p "$I/bin" "$I/run" "$I/state"
	cp "$PATCHATTEST_MILTER" "$I/bin/patchattest-milter"
	port=$(free_port)
	{
		echo "Socket inet:$port@127.0.0.1"
		echo "Syslog no"
		echo "IndexPath $I/state/index"
		echo "StateFile $I/state/state.mdb"
	} >"$I/pa.conf"
	if [ "$(id -u)" -eq 0 ]; then
		chmod 755 "$T" && chown nobody "$I/state" &&
		    echo "UserID nobody" >>"$I/pa.conf"
		setup $? "init: a folder for the user nobody" /dev/null
	fi
	# init_script NAME DAEMON: the script as $I/NAME, running DAEMON
	init_script() {
		sed -e "s|^DAEMON=.*|DAEMON=$2|" \
		    -e "s|^CONF=.*|CONF=$I/pa.conf|" \
		    -e "s|^RUNDIR=.*|RUNDIR=$I/run/patchattest|" \
		    "$contrib/debian/patchattest.patchattest-milter.init" \
		    >"$I/$1" && chmod +x "$I/$1"
	}
	init_script init "$PATCHATTEST_MILTER"
	S=$I/init
	pidf=$I/run/patchattest/patchattest-milter.pid

	"$S" status >"$I/out" 2>&1
	expect "init: status, stopped: exit 3" 3 $?
	"$S" start >"$I/out" 2>&1
	st=$?
	ok $st "init: start exits 0"
	[ $st -eq 0 ] || diag "$I/out"
	pid=$(cat "$pidf" 2>/dev/null)
	[ -n "$pid" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = patchattest-mil ]
	ok $? "init: the PidFile names the running milter ($pid)"
	wait_port 127.0.0.1 "$port" 10
	ok $? "init: it listens on its socket"
	"$S" status >"$I/out" 2>&1
	ok $? "init: status, running: exit 0"
	grep -q "patchattest-milter is running (process $pid)" "$I/out"
	ok $? "init: status names the process"
	"$S" start >"$I/out" 2>&1
	ok $? "init: start again exits 0"
	expect "init: and starts no second milter" "$pid" "$(cat "$pidf")"
	echo "NoSuchKey yes" >>"$I/pa.conf"
	"$S" reload >"$I/out" 2>&1
	expect "init: reload with a bad configuration exits 1" 1 $?
	grep -q "NoSuchKey" "$I/out"
	ok $? "init: and says what is wrong"
	sed -i '/^NoSuchKey /d' "$I/pa.conf"
	kill -0 "$pid" 2>/dev/null
	ok $? "init: the milter runs on"
	"$S" reload >"$I/out" 2>&1
	ok $? "init: reload exits 0"
	"$S" stop >"$I/out" 2>&1
	ok $? "init: stop exits 0"
	! kill -0 "$pid" 2>/dev/null
	ok $? "init: the milter is gone"
	port_free "$port"
	ok $? "init: and its socket with it"
	[ ! -e "$I/run/patchattest" ]
	ok $? "init: /run/patchattest is removed with the PidFile"
	"$S" stop >"$I/out" 2>&1
	ok $? "init: stop, stopped: exit 0"

	# A package removed without its prerm stopping the milter: the
	# program is gone, stop still stops it; start says it is not there.
	init_script gone "$I/bin/patchattest-milter"
	"$I/gone" start >"$I/out" 2>&1
	setup $? "init: start a copy of the milter" "$I/out"
	pid=$(cat "$pidf")
	rm "$I/bin/patchattest-milter"
	"$I/gone" stop >"$I/out" 2>&1
	ok $? "init: stop, the program removed: exit 0"
	! kill -0 "$pid" 2>/dev/null && port_free "$port"
	ok $? "init: the milter of a removed program is stopped"
	"$I/gone" start >"$I/out" 2>&1
	ok $? "init: start, the program removed: exit 0"
	grep -q "is not installed" "$I/out" && [ ! -e "$pidf" ]
	ok $? "init: it says so and starts nothing"

	# A milter started by hand, with a PidFile of its own, is not the
	# script's.
	mkdir -m 755 "$I/hand"
	"$PATCHATTEST_MILTER" -c "$I/pa.conf" -P "$I/hand/m.pid" >"$I/out" 2>&1
	setup $? "init: a milter started by hand" "$I/out"
	wait_port 127.0.0.1 "$port" 10
	pid=$(cat "$I/hand/m.pid")
	"$S" stop >"$I/out" 2>&1
	kill -0 "$pid" 2>/dev/null
	ok $? "init: stop leaves a milter started by hand running"
	milter_stop "$pid"
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
# The quick start's sentence "... those of these packages that are
# missing: `a`, `b` ... and `z`." and quickstart.sh's packages="a b ... z"
readme_pkgs=$(awk '/^Both install with/ { on = 1 }
    on { t = t " " $0 } on && /\(apt may/ { exit }
    END { sub(/.*that are missing: */, "", t); sub(/\. \(apt may.*/, "", t)
	print t }' "$src/README.md" | grep -o '`[^`]*`' | tr -d '`' | sort)
qs_pkgs=$(sed -n 's/^packages="\(.*\)"$/\1/p' "$contrib/quickstart.sh" |
    tr ' ' '\n' | sort)
[ -n "$qs_pkgs" ]
ok $? "agree: contrib/quickstart.sh names its packages"
expect "agree: the quick start names the packages quickstart.sh installs" \
    "$(echo $qs_pkgs)" "$(echo $readme_pkgs)"

tap_end
