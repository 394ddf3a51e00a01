#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# t-debian.sh - the Debian package, built from this tree and installed
# as an admin without systemd installs it, in copies of this machine
# that nothing outlives: an overlay of / whose changes are thrown away,
# with its own mounts, loopback network and processes (unshare), so that
# this machine's packages, users, ports and processes stay as they were.
#
#   build      contrib/debian/build.sh (without the package's make check)
#              builds it, with the hardening flags of debian/rules,
#              without a warning
#   sysvinit   no policy-rc.d, as on a machine that boots with sysvinit:
#              installed, started with "service patchattest-milter
#              start", a second milter started by hand; apt-get remove
#              stops the first (its socket closes, /run/patchattest
#              goes), leaves the second and names it; purge leaves the
#              user patchattest, without postfix in its group, and
#              nothing in /etc or /var/lib
#   container  policy-rc.d saying no, as in Docker's images: apt-get
#              remove may not stop the milter, says so and how; stopped
#              so, purge removes /run/patchattest
#   readme     the README's commands, word for word: the package
#              installed, Postfix without a main.cf given one, its log
#              (maillog_file), the milter started and wired in; a patch
#              sent with curl arrives with X-Patch-Attested and Postfix
#              logs it; then the milter taken out, stopped and purged:
#              mail flows without it and nothing of it runs or is left
#
# Needs root, unshare and overlay mounts of /, ip and ss (iproute2),
# dpkg-dev, debhelper and the build dependencies, postfix and curl; each
# part skips, with the reason, without what it needs.  PATCHATTEST_DEB
# names a package built already (the build part is then skipped).  Inside
# the package's own build (debian/ at the top of the tree) it skips.
# PATCHATTEST_KEEP=1 keeps the work directory.

: "${srcdir:=.}"
src=$(cd "$srcdir" && pwd) || exit 1
. "$srcdir/tests/tap.sh"
workdir_make t-debian

# why_not: why the sandboxes cannot run here, or nothing
why_not() {
	if [ -d "$src/debian" ]; then
		echo "inside the package's own build"
	elif [ "$(id -u)" -ne 0 ]; then
		echo "not root"
	elif dpkg-query -W -f '${Status}' patchattest 2>/dev/null |
	    grep -q 'ok installed'; then
		echo "patchattest is installed on this machine"
	elif ! command -v unshare >/dev/null 2>&1 ||
	    ! command -v ip >/dev/null 2>&1 || ! command -v ss >/dev/null 2>&1
	then
		echo "unshare, ip or ss is missing (util-linux, iproute2)"
	elif ! mkdir -p "$T/probe/u" "$T/probe/w" "$T/probe/m" ||
	    ! unshare --mount --net --pid --fork sh -c 'mount -t overlay \
	    overlay -o "lowerdir=/,upperdir=$1/u,workdir=$1/w" "$1/m" &&
	    [ -d "$1/m/usr/bin" ]' sh "$T/probe" 2>"$T/probe.err"; then
		echo "no overlay of / in a namespace of its own here:" \
		    "$(head -n 1 "$T/probe.err")"
	fi
}
why=$(why_not)
if [ -n "$why" ]; then
	skip "the Debian package installed in a copy of this machine" "$why"
	tap_end
	exit $?
fi

# --- build ---------------------------------------------------------------
deb=${PATCHATTEST_DEB:-}
if [ -n "$deb" ]; then
	skip "build" "PATCHATTEST_DEB names a package built already"
elif [ "$(git -C "$src" rev-parse --show-toplevel 2>/dev/null)" != "$src" ]
then
	skip "build" "not a git work tree: build the package with\
 contrib/debian/build.sh and name it in PATCHATTEST_DEB"
else
	# The build is its own: not make check's jobs or -s (its commands,
	# with their flags, are in the log).
	mkdir "$T/deb"
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
	    DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)" \
	    "$src/contrib/debian/build.sh" "$T/deb" >"$T/build.log" 2>&1
	st=$?
	missing='missing build dependencies\|dpkg-dev is not installed'
	if [ $st -ne 0 ] && grep -q "$missing" "$T/build.log"; then
		skip "build" "$(grep -m 1 "$missing" "$T/build.log")"
	else
		ok $st "build: contrib/debian/build.sh builds the package"
		[ $st -eq 0 ] || diag "$T/build.log"
		grep 'warning:' "$T/build.log" >"$T/warnings"
		[ ! -s "$T/warnings" ]
		ok $? "build: without a warning (hardening flags: $(grep -o \
		    -m 1 '_FORTIFY_SOURCE=[0-9]' "$T/build.log"))"
		diag "$T/warnings"
		set -- "$T"/deb/patchattest_*.deb
		[ -f "$1" ] && deb=$1
	fi
fi
if [ -z "$deb" ] || [ ! -f "$deb" ]; then
	skip "the package installed" "no package to install"
	tap_end
	exit $?
fi

# sandbox NAME FILE...: /sandbox/run.sh (the first FILE) run by sh as
# root in a copy of this machine, with FILE... in /sandbox (where it
# keeps what commands say) and the package in /tmp/deb; its output in
# $T/NAME.out.  The copy is an overlay
# of / (its changes kept in $T/NAME/upper, never in /) with empty /run
# and /tmp as after a boot (no /run/systemd/system), a network of its own
# (loopback alone) and processes of its own, which end with run.sh.
sandbox() {
	_d=$T/$1
	shift
	mkdir -p "$_d/upper/sandbox" "$_d/work" "$_d/root" &&
	cp "$1" "$_d/upper/sandbox/run.sh" && cp "$@" "$_d/upper/sandbox/" ||
	    return 1
	timeout 900 unshare --mount --net --pid --fork --kill-child sh -c '
	    d=$1 deb=$2
	    mount -t overlay overlay \
		-o "lowerdir=/,upperdir=$d/upper,workdir=$d/work" "$d/root" &&
	    mount -t proc proc "$d/root/proc" &&
	    mount --rbind /dev "$d/root/dev" &&
	    mount -t tmpfs tmpfs "$d/root/run" &&
	    mount -t tmpfs tmpfs "$d/root/tmp" &&
	    mkdir "$d/root/tmp/deb" && cp "$deb" "$d/root/tmp/deb/" &&
	    ip link set lo up || exit 1
	    exec chroot "$d/root" /bin/sh /sandbox/run.sh' sh "$_d" "$deb" \
	    >"$_d.out" 2>&1 </dev/null
}

# results NAME: the "@check STATUS WHAT" lines of NAME's output as tests;
# its output shown when one fails or none is there
results() {
	while read -r _w _st _what; do
		[ "$_w" = @check ] && ok "$_st" "$1: $_what"
	done <"$T/$1.out"
	if ! grep -q '^@check ' "$T/$1.out"; then
		ok 1 "$1: the copy of this machine runs"
		diag "$T/$1.out" 60
	elif grep -q '^@check [1-9]' "$T/$1.out"; then
		diag "$T/$1.out" 60
	fi
}

# The helpers each sandbox's script starts with.
cat >"$T/prelude.sh" <<'EOF'
# check STATUS WHAT: one result for the test outside
check() { _st=$1; shift; echo "@check $_st $*"; }
# listening PORT: 0 while something listens on 127.0.0.1:PORT
listening() { [ -n "$(ss -Hltn "sport = :$1")" ]; }
# milters: the process IDs of patchattest-milter
milters() { pidof /usr/sbin/patchattest-milter; }
# policy yes|no: /usr/sbin/policy-rc.d lets invoke-rc.d act, or forbids it
policy() {
	rm -f /usr/sbin/policy-rc.d
	[ "$1" = yes ] && return 0
	printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
	chmod 755 /usr/sbin/policy-rc.d
}
export DEBIAN_FRONTEND=noninteractive
EOF

# --- sysvinit --------------------------------------------------------------
cat "$T/prelude.sh" - >"$T/sysvinit.sh" <<'EOF'
policy yes
apt-get install -y /tmp/deb/patchattest_*.deb >/sandbox/install.out 2>&1
check $? "the package installs"
grep -q 'the milter was not started' /sandbox/install.out
check $? "without a runlevel it says that it did not start the milter"
service patchattest-milter start
check $? "service patchattest-milter start"
ours=$(cat /run/patchattest/patchattest-milter.pid)
listening 8891
check $? "the milter listens on the package's socket, 127.0.0.1:8891"
check $([ "$(ps -o user= -p "$ours")" = patchattest ]; echo $?) \
    "as the user patchattest"
/usr/sbin/patchattest-milter -c /etc/patchattest/patchattest.conf \
    -p inet:8892@127.0.0.1
check $? "a second milter started by hand, on 127.0.0.1:8892"
hand=$(milters | tr ' ' '\n' | grep -vx "$ours")
apt-get remove -y patchattest >/sandbox/remove.out 2>&1
check $? "apt-get remove patchattest"
check $([ -n "$ours" ] && ! kill -0 "$ours" 2>/dev/null; echo $?) \
    "the init script's milter is stopped"
check $(! listening 8891; echo $?) "its socket is closed"
check $([ ! -e /run/patchattest ]; echo $?) "/run/patchattest is gone"
check $([ -n "$hand" ] && kill -0 "$hand" 2>/dev/null; echo $?) \
    "the milter started by hand runs on"
grep -q "patchattest-milter is still running (process $hand)" \
    /sandbox/remove.out
check $? "the removal names it"
grep -q "kill $hand" /sandbox/remove.out
check $? "and says how to stop it"
kill "$hand"
apt-get purge -y patchattest >/sandbox/purge.out 2>&1
check $? "apt-get purge patchattest"
check $(getent passwd patchattest >/dev/null; echo $?) \
    "the user patchattest stays"
check $(! id -nG postfix | grep -qw patchattest; echo $?) \
    "postfix is no longer in its group"
for f in /etc/patchattest /var/lib/patchattest /etc/init.d/patchattest-milter
do
	check $([ ! -e "$f" ]; echo $?) "$f is gone"
done
check $(! ls /etc/rc*.d | grep -q patchattest; echo $?) \
    "and its links in /etc/rc?.d"
EOF
sandbox sysvinit "$T/sysvinit.sh"
results sysvinit

# --- container -------------------------------------------------------------
cat "$T/prelude.sh" - >"$T/container.sh" <<'EOF'
policy no
apt-get install -y /tmp/deb/patchattest_*.deb >/sandbox/install.out 2>&1
check $? "the package installs"
service patchattest-milter start && listening 8891
check $? "service patchattest-milter start: it listens"
ours=$(cat /run/patchattest/patchattest-milter.pid)
apt-get remove -y patchattest >/sandbox/remove.out 2>&1
check $? "apt-get remove patchattest"
check $(kill -0 "$ours" 2>/dev/null && listening 8891; echo $?) \
    "policy-rc.d kept the package from stopping the milter"
grep -q "patchattest-milter is still running (process $ours)" \
    /sandbox/remove.out
check $? "the removal names it"
grep -q "kill $ours" /sandbox/remove.out
check $? "and says how to stop it"
kill "$ours"
i=0
while [ $i -lt 150 ] && kill -0 "$ours" 2>/dev/null; do
	sleep 0.1
	i=$((i + 1))
done
check $([ -n "$ours" ] && ! kill -0 "$ours" 2>/dev/null &&
    ! listening 8891; echo $?) "kill stops it, its socket closed"
apt-get purge -y patchattest >/sandbox/purge.out 2>&1
check $? "apt-get purge patchattest"
check $([ ! -e /run/patchattest ]; echo $?) "/run/patchattest is gone"
EOF
sandbox container "$T/container.sh"
results container

# --- readme ----------------------------------------------------------------
# readme_block MARKER: the first code block of the README after the line
# holding MARKER, unindented
readme_block() {
	awk -v m="$1" 'index($0, m) { on = 1; next }
	    on && /^    / { sub(/^    /, ""); print; got = 1; next }
	    on && got && !/^$/ { exit }' "$src/README.md"
}
if ! command -v curl >/dev/null 2>&1 || ! command -v postconf >/dev/null 2>&1
then
	skip "readme" "curl or postfix is missing"
else
	readme_block "Or build the Debian package and install it:" |
	    grep '^apt-get install' >"$T/install.sh"
	readme_block "**Postfix's \`main.cf\`.**" >"$T/postfix.sh"
	readme_block "Without one, Postfix writes a log of its own" >"$T/log.sh"
	readme_block "**Start them**" >"$T/start.sh"
	readme_block "Take the milter out of the MTA first." >"$T/unwire.sh"
	readme_block "Then stop the milter and remove the package:" \
	    >"$T/remove.sh"
	for f in install postfix log start unwire remove; do
		[ -s "$T/$f.sh" ]
		ok $? "readme: the README's commands: $f ($(wc -l <"$T/$f.sh") lines)"
	done
	cp "$src"/tests/fixtures/seeds/002-*.patch "$T/0001-fix.patch"
	cat "$T/prelude.sh" - >"$T/readme.sh" <<'EOF'
# run NAME: the README's commands NAME, each line shown, yes to apt-get
run() { yes | sh -ex "/sandbox/$1.sh" >"/sandbox/$1.out" 2>&1; }
# send FILE: FILE mailed to maint through Postfix, as "Trying it with a
# patch" sends it
send() {
	curl -sS --crlf --upload-file "$1" --mail-from you@example.org \
	    --mail-rcpt maint@localhost smtp://127.0.0.1:25
}
# delivered N: wait until maint's mailbox holds N mails
delivered() {
	i=0
	while [ $i -lt 100 ]; do
		[ "$(grep -c '^From ' /var/mail/maint 2>/dev/null)" = "$1" ] &&
		    return 0
		sleep 0.2
		i=$((i + 1))
	done
	return 1
}
policy no
useradd -m maint
postconf -n >/sandbox/postconf.out 2>&1
grep -q 'postconf: fatal: open /etc/postfix/main.cf: No such file' \
    /sandbox/postconf.out
check $? "Postfix as the README finds it: postconf: fatal: open" \
    "/etc/postfix/main.cf"
run install
check $? "the README installs the package"
run postfix
check $? "the README gives Postfix a main.cf"
check $(postconf -h myorigin >/dev/null; echo $?) "postconf reads it"
run log
check $? "the README has Postfix write its log itself"
run start
check $? "the README starts the milter and Postfix and wires the milter in"
check $(listening 8891 && listening 25; echo $?) \
    "the milter and Postfix listen"
send /sandbox/0001-fix.patch
check $? "a patch sent with curl is taken"
delivered 1
check $? "it is delivered"
grep -q '^X-Patch-Attested: ' /var/mail/maint
check $? "with X-Patch-Attested"
grep -q 'postfix/local.*status=sent' /var/log/postfix.log
check $? "and Postfix's log (maillog_file) says so"
run unwire
check $? "the README takes the milter out of Postfix"
run remove
check $? "the README stops the milter and purges the package"
check $([ -z "$(milters)" ] && ! listening 8891; echo $?) \
    "no milter runs, nothing listens on its socket"
send /sandbox/0001-fix.patch && delivered 2
check $? "mail flows without it"
check $([ "$(grep -c '^X-Patch-Attested: ' /var/mail/maint)" = 1 ]; echo $?) \
    "without X-Patch-Attested"
check $([ ! -e /etc/patchattest ] && [ ! -e /var/lib/patchattest ] &&
    [ ! -e /run/patchattest ]; echo $?) \
    "/etc/patchattest, /var/lib/patchattest and /run/patchattest are gone"
check $(! id -nG postfix | grep -qw patchattest; echo $?) \
    "postfix is no longer in the group patchattest"
EOF
	sandbox readme "$T/readme.sh" "$T/install.sh" "$T/postfix.sh" \
	    "$T/log.sh" "$T/start.sh" "$T/unwire.sh" "$T/remove.sh" \
	    "$T/0001-fix.patch"
	results readme
fi

tap_end
