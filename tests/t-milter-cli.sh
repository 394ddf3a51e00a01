#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# t-milter-cli.sh - patchattest-milter's command line: -V, -n on the
# shipped configuration and on a bad one (every problem listed, with file
# and line), usage errors, and a socket it cannot open.

: "${PATCHATTEST_MILTER:?PATCHATTEST_MILTER must name the built milter}"
: "${srcdir:=.}"
M=$PATCHATTEST_MILTER

T=$(mktemp -d "${TMPDIR:-/tmp}/t-milter-cli.XXXXXX") || exit 1
trap 'rm -rf "$T"' 0
trap 'exit 1' HUP INT TERM

. "$srcdir/tests/tap.sh"

"$M" -V >"$T/out" 2>&1
ok $? "-V exits 0"
grep -q '^patchattest-milter [0-9]' "$T/out"
ok $? "-V prints the version"
"$M" --version >"$T/out" 2>"$T/err"
expect "--version exits 0" 0 $?
grep -q '^patchattest-milter [0-9]' "$T/out" &&
    [ ! -s "$T/err" ]
ok $? "--version prints the version on standard output"
for h in -h --help; do
	"$M" "$h" >"$T/out" 2>"$T/err"
	expect "$h exits 0" 0 $?
	grep -q '^usage: patchattest-milter' "$T/out" &&
	    grep -q -- '-n  *check the configuration' "$T/out" &&
	    [ ! -s "$T/err" ]
	ok $? "$h prints the usage and the options on standard output"
done

# As root, the shipped file is good only once it says whom to run as; and
# only where the folders of its default socket and index are there.
root=
[ "$(id -u)" -ne 0 ] || root="UserID root"
"$M" -n -c "$srcdir/conf/patchattest.conf" >"$T/out" 2>&1
st=$?
if [ -n "$root" ]; then
	expect "-n refuses to run as root without UserID" 1 $st
	grep -q 'UserID is not set and the milter would run as root' "$T/out"
	ok $? "-n says to set UserID"
	{ cat "$srcdir/conf/patchattest.conf"; echo "$root"; } >"$T/root.conf"
	"$M" -n -c "$T/root.conf" >"$T/out" 2>&1
	st=$?
fi
if [ -d /run/patchattest ] && [ -d /var/lib/patchattest ]; then
	ok $st "-n accepts conf/patchattest.conf as shipped${root:+, with $root}"
	grep -q 'the configuration is good' "$T/out"
	ok $? "-n says so"
else
	expect "-n on conf/patchattest.conf as shipped, here" 1 $st
	! grep -v '^[^ ]*: \(Socket\|IndexPath\|StateFile\) [^ ]* (the default): \(its folder\|the folder to make it in\)' \
	    "$T/out"
	ok $? "-n names only the default folders that are not here"
fi

# Five problems: two the parser finds, three only -n's checks find.
printf '%s\n' '# a bad file' 'Socket inet:99999@127.0.0.1' 'Frobnicate yes' \
    'UserID no-such-user-here' 'OnFail discard' "IndexPath $T/no/ix" \
    "StateFile $T/state.mdb" >"$T/bad.conf"
"$M" -n -c "$T/bad.conf" >"$T/out" 2>"$T/err"
expect "-n on a bad file exits 1" 1 $?
grep -q "bad.conf:3: unknown key \"Frobnicate\"" "$T/err"
ok $? "-n names the unknown key with file and line"
grep -q "bad.conf:5: OnFail: \"discard\" is not one of" "$T/err"
ok $? "-n names the bad word with file and line"
grep -q "bad.conf:2: Socket inet:99999@127.0.0.1: not local:/path" "$T/err"
ok $? "-n judges the socket of a file with other problems, file and line"
grep -q "bad.conf:4: UserID no-such-user-here: no such user" "$T/err"
ok $? "-n looks the user up, file and line"
grep -q "bad.conf:6: IndexPath $T/no/ix: the folder to make it in: No such" \
    "$T/err"
ok $? "-n finds that the index's folder is missing"
expect "-n lists five problems" 5 "$(wc -l <"$T/err" | tr -d ' ')"

mkdir "$T/ring"
printf 'PatattKeyring %s/ring\nPatattKeyring %s/noring\n' "$T" "$T" \
    >"$T/rings.conf"
"$M" -n -c "$T/rings.conf" >"$T/out" 2>"$T/err"
expect "-n with a PatattKeyring folder missing exits 1" 1 $?
grep -q "rings.conf:2: PatattKeyring $T/noring: No such file" "$T/err" &&
    ! grep -q "PatattKeyring $T/ring:" "$T/err"
ok $? "-n names the missing keyring folder, not the one that is there"

"$M" -n -c "$T/missing.conf" >"$T/out" 2>"$T/err"
expect "-n on a missing file exits 1" 1 $?
grep -q "missing.conf: cannot open" "$T/err"
ok $? "-n says the file cannot be opened"

printf 'Socket local:%s/sock\n' "$T" >"$T/p.conf"
"$M" -n -c "$T/p.conf" -p inet:bad >"$T/out" 2>"$T/err"
expect "-p is checked like Socket" 1 $?
grep -q '^-p: Socket inet:bad: not local:/path' "$T/err"
ok $? "  and named as given with -p"

# What start-up would find: the folders of the socket and the PidFile
printf '%s\n' "Socket local:$T/nosock/sock" "IndexPath $T/ix" \
    "PidFile $T/nopid/milter.pid" "$root" "StateFile $T/state.mdb" \
    >"$T/folders.conf"
"$M" -n -c "$T/folders.conf" >"$T/out" 2>"$T/err"
expect "-n with the socket's and the PidFile's folders missing exits 1" 1 $?
grep -q "folders.conf:1: Socket local:$T/nosock/sock: its folder $T/nosock: No such" \
    "$T/err" &&
    grep -q "folders.conf:3: PidFile $T/nopid/milter.pid: its folder: No such" \
    "$T/err"
st=$?
ok $st "-n names both folders, with file and line"
[ $st -eq 0 ] || diag "$T/err"

# store_n KEY DAMAGE LINE...: -n on the store file KEY names (PatattTOFUPins,
# StateFile): in a folder that is not there, a file there that is no such
# store (read without making LMDB's lock file beside it, which root would
# own; DAMAGE: what -n says of it), an empty one, and one to be made; the
# configuration is LINE... then KEY
mkdir "$T/pins"
store_n() {
	key=$1 damage=$2
	shift 2
	at=$(($# + 1))
	awk 'BEGIN { for (i = 0; i < 128; i++) printf "%063d\n", i }' \
	    >"$T/pins/junk-$key"
	: >"$T/pins/empty-$key"
	for f in nodir/$key pins/junk-$key pins/empty-$key pins/new-$key; do
		printf '%s\n' "$@" "$key $T/$f" "$root" >"$T/$key.conf"
		"$M" -n -c "$T/$key.conf" >"$T/out-$f" 2>&1
		echo $? >>"$T/out-$f"
	done
	grep -q "$key.conf:$at: $key $T/nodir/$key: the folder to make it in: No such file" \
	    "$T/out-nodir/$key" && [ "$(tail -1 "$T/out-nodir/$key")" = 1 ]
	ok $? "-n: $key in a folder that is not there, file and line"
	grep -q "$key.conf:$at: $key $T/pins/junk-$key: .*$damage" \
	    "$T/out-pins/junk-$key" &&
	    [ "$(tail -1 "$T/out-pins/junk-$key")" = 1 ]
	ok $? "-n: a $key file that is no such store"
	[ ! -e "$T/pins/junk-$key-lock" ]
	ok $? "  and no lock file is made beside it"
	grep -q "$key.conf:$at: $key $T/pins/empty-$key: .*the file is empty" \
	    "$T/out-pins/empty-$key" &&
	    [ "$(tail -1 "$T/out-pins/empty-$key")" = 1 ]
	ok $? "-n: an empty $key file is damage"
	[ "$(tail -1 "$T/out-pins/new-$key")" = 0 ]
	st=$?
	ok $st "-n: a $key file to be made in a folder that is there"
	[ $st -eq 0 ] || diag "$T/out-pins/new-$key"
}
mkdir "$T/out-pins" "$T/out-nodir"
store_n PatattTOFUPins "not a pin store" "Socket inet:8891@127.0.0.1" \
    "IndexPath $T/ix" "StateFile $T/state.mdb" "PatattTOFU yes"
store_n StateFile "not a ledger" "Socket inet:8891@127.0.0.1" \
    "IndexPath $T/ix"
printf '%s\n' "Socket inet:8891@127.0.0.1" "IndexPath $T/ix" 'StateFile ""' \
    "$root" >"$T/state-off.conf"
"$M" -n -c "$T/state-off.conf" >"$T/out-state-off" 2>&1
ok $? "-n: StateFile \"\" is off, nothing to check"
# The built-in Socket is TCP on the loopback, which a chrooted MTA reaches
# and which needs no folder of its own (a unix socket's /run/patchattest
# is there only once a package made it).
printf '%s\n' "IndexPath $T/ix" 'StateFile ""' "$root" >"$T/nosock.conf"
"$M" -n -c "$T/nosock.conf" >"$T/out-nosock" 2>&1
st=$?
ok $st "-n: the built-in Socket needs no folder"
[ $st -eq 0 ] || diag "$T/out-nosock"

# ... and what the milter's user could not use once root is left behind
if [ -n "$root" ] && id nobody >/dev/null 2>&1; then
	mkdir -m 700 "$T/rootonly" "$T/rootix"
	printf '%s\n' "Socket inet:8891@127.0.0.1" "UserID nobody" \
	    "GnuPGHome $T/rootonly" "IndexPath $T/rootix/ix" \
	    >"$T/nobody.conf"
	chmod 755 "$T"
	"$M" -n -c "$T/nobody.conf" >"$T/out" 2>"$T/err"
	expect "-n: folders the milter's user may not use: exits 1" 1 $?
	grep -q "nobody.conf:3: GnuPGHome $T/rootonly: the milter's user (nobody) may not read it" \
	    "$T/err" &&
	    grep -q "nobody.conf:4: IndexPath $T/rootix/ix: the folder to make it in: the milter's user (nobody) may not write to it" \
	    "$T/err"
	st=$?
	ok $st "  and names them, judged for UserID"
	[ $st -eq 0 ] || diag "$T/err"
else
	skip "-n judges folders for UserID" "needs root and the user nobody"
	skip "  and names them" "needs root and the user nobody"
fi

# stop_milter PID: SIGTERM, again after five seconds, SIGKILL after ten
# (this part is about the start, not the stop)
# wait_started PID LOG: until the milter PID logs that it started, exits,
# or 5 s pass
wait_started() {
	j=0
	while [ $j -lt 50 ] && kill -0 "$1" 2>/dev/null &&
	    ! grep -q started "$2"; do
		sleep 0.1
		j=$((j + 1))
	done
}

stop_milter() {
	for sig in TERM TERM KILL; do
		kill -$sig "$1" 2>/dev/null
		j=0
		while [ $j -lt 50 ] && kill -0 "$1" 2>/dev/null; do
			sleep 0.1
			j=$((j + 1))
		done
	done
	wait "$1"
}

# A socket in a folder of the milter's user: that user swaps a link to a
# file of root's in for the socket the moment it appears, ten starts in a
# row; the file stays root's (the socket is made as the user, and root
# never acts on a name in that folder).  Once it was handed over each time.
# (the system's python: a per-user one may be out of nobody's reach)
if [ -n "$root" ] && id nobody >/dev/null 2>&1 &&
    command -v setpriv >/dev/null 2>&1 && [ -x /usr/bin/python3 ]
then
	chmod 755 "$T"
	mkdir -m 755 "$T/race" "$T/race/ix"
	chown nobody "$T/race" "$T/race/ix"
	echo precious >"$T/secret"
	chmod 600 "$T/secret"
	printf '%s\n' "Socket local:$T/race/sock" "Syslog no" \
	    "IndexPath $T/race/ix" "UserID nobody" \
	    "StateFile $T/race/state.mdb" >"$T/race.conf"
	cat >"$T/racer.py" <<'EOF_PY'
import os, stat, sys
sock, link, target = sys.argv[1], sys.argv[1] + ".l", sys.argv[2]
while True:
    try:
        if stat.S_ISSOCK(os.lstat(sock).st_mode):
            if not os.path.lexists(link):
                os.symlink(target, link)
            os.rename(link, sock)
    except OSError:
        pass
EOF_PY
	setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups \
	    /usr/bin/python3 "$T/racer.py" "$T/race/sock" "$T/secret" &
	racer=$!
	started=0
	swapped=0
	for i in 1 2 3 4 5 6 7 8 9 10; do
		rm -f "$T/race/sock"
		"$M" -f -c "$T/race.conf" >"$T/race.log" 2>&1 &
		mpid=$!
		wait_started "$mpid" "$T/race.log"
		if grep -q started "$T/race.log"; then
			started=$((started + 1))
		else
			cp "$T/race.log" "$T/race.failed"
		fi
		stop_milter "$mpid"
		[ ! -L "$T/race/sock" ] || swapped=$((swapped + 1))
	done
	kill "$racer"
	wait "$racer" 2>/dev/null
	expect "a link raced over the socket at ten starts: the file of root's stays root's, 0600" \
	    "root 600" "$(stat -c '%U %a' "$T/secret")"
	# A link swapped in between the socket's bind and what follows may
	# make a start fail (safely); most starts must still race and succeed.
	[ "$started" -ge 5 ]
	ok $? "  and the milter started at least 5 times of 10 ($started)"
	[ "$started" -eq 10 ] || diag "$T/race.failed"
	[ "$swapped" -ge 5 ]
	ok $? "  and the link was swapped in at least 5 times of 10 ($swapped)"
else
	skip "a link raced over the socket" "needs root, nobody, setpriv, python3"
	skip "  and the milter started at least 5 times of 10" "needs root, nobody, setpriv, python3"
	skip "  and the link was swapped in at least 5 times of 10" "needs root, nobody, setpriv, python3"
fi

# The socket's and the PidFile's folders, from "/" down: a folder others
# may write to above the socket, and a PidFile folder behind a link that
# someone but root owns (and so may point elsewhere), are refused by -n.
mkdir -m 777 "$T/shared"
chmod 777 "$T/shared"
mkdir -m 755 "$T/shared/sock" "$T/realpid"
ln -s "$T/realpid" "$T/pidlink"
[ -z "$root" ] || chown -h nobody "$T/pidlink" 2>/dev/null
printf '%s\n' "Socket local:$T/shared/sock/sock" "IndexPath $T/ix" \
    "PidFile $T/pidlink/milter.pid" "$root" "StateFile $T/state.mdb" \
    >"$T/shared.conf"
"$M" -n -c "$T/shared.conf" >"$T/out" 2>"$T/err"
expect "-n: a folder others may change above the socket, a PidFile folder behind a link: exits 1" 1 $?
grep -q "shared.conf:1: Socket local:$T/shared/sock/sock: its folder $T/shared/sock: $T/shared may be written by others than root" "$T/err"
ok $? "  and names the socket's"
grep -q "shared.conf:3: PidFile $T/pidlink/milter.pid: its folder: $T/pidlink is a symbolic link that others than root may change" "$T/err"
st=$?
ok $st "  and the PidFile's symbolic link"
[ $st -eq 0 ] || diag "$T/err"

for bad in -x --bogus; do
	"$M" "$bad" >"$T/out" 2>"$T/err"
	expect "an unknown option ($bad) exits 2" 2 $?
	grep -q '^usage: patchattest-milter' "$T/err" && [ ! -s "$T/out" ]
	ok $? "  and shows the usage on standard error"
done

printf 'Socket local:%s/no/such/dir/sock\nSyslog no\nIndexPath %s/ix\n%s\nStateFile %s/state.mdb\n' \
    "$T" "$T" "$root" "$T" >"$T/nodir.conf"
"$M" -f -c "$T/nodir.conf" >"$T/out" 2>"$T/err"
rc=$?
[ "$rc" -ne 0 ]
ok $? "a socket it cannot open: exits non-zero ($rc)"
grep -q "Socket local:$T/no/such/dir/sock: its folder $T/no/such/dir: No such" \
    "$T/err"
ok $? "and says why, before it tries to listen"

# --- PidFile ---------------------------------------------------------------
# pidconf NAME PIDFILE: a configuration that can start, with that PidFile
pidconf() {
	mkdir -p "$T/$1"
	printf '%s\n' "Socket local:$T/$1/sock" "Syslog no" \
	    "IndexPath $T/$1/ix" "PidFile $2" "$root" \
	    "StateFile $T/$1/state.mdb" >"$T/$1/conf"
}
# start_pid NAME PIDFILE [ARG...]: the milter of pidconf NAME in the
# background (mpid), with ARG..., its log in $T/NAME/log; wait until it
# has written PIDFILE
start_pid() {
	_name=$1 _pid=$2
	shift 2
	"$M" -f -c "$T/$_name/conf" "$@" >"$T/$_name/log" 2>&1 &
	mpid=$!
	i=0
	while [ $i -lt 50 ] && [ ! -s "$_pid" ]; do
		sleep 0.1
		i=$((i + 1))
	done
}
# a symbolic link at the path: refused, its target untouched
mkdir -m 755 "$T/pid"
echo "precious" >"$T/target"
ln -s "$T/target" "$T/pid/milter.pid"
pidconf link "$T/pid/milter.pid"
"$M" -f -c "$T/link/conf" >"$T/out" 2>&1
st=$?
[ $st -ne 0 ] && grep -q 'symbolic link' "$T/out"
ok $? "a PidFile that is a symbolic link: refused ($st)"
expect "  and its target is untouched" precious "$(cat "$T/target")"
# a folder others may write to
mkdir -m 777 "$T/open"
chmod 777 "$T/open"
pidconf open "$T/open/milter.pid"
"$M" -n -c "$T/open/conf" >"$T/out" 2>&1
expect "-n: a PidFile folder others may write to is refused" 1 $?
grep -q 'may be written by others' "$T/out"
ok $? "  and -n says why"
# the pid written, a second milter refused, the file gone at the end
rm "$T/pid/milter.pid"
pidconf good "$T/pid/milter.pid"
pidconf second "$T/pid/milter.pid"
start_pid good "$T/pid/milter.pid"
expect "the PidFile holds the milter's process ID" "$mpid" \
    "$(cat "$T/pid/milter.pid" 2>/dev/null)"
"$M" -f -c "$T/second/conf" >"$T/out" 2>&1
st=$?
[ $st -ne 0 ] && grep -q 'held by another running milter' "$T/out"
ok $? "a second milter with the same PidFile stops ($st)"
kill -TERM "$mpid"
wait "$mpid"
expect "SIGTERM: the milter exits 0" 0 $?
[ ! -e "$T/pid/milter.pid" ]
ok $? "  and its PidFile is gone"

# -P: the PidFile given on the command line instead of the configuration's
pidconf given "$T/pid/conf.pid"
"$M" -n -c "$T/given/conf" -P "$T/nopid/given.pid" >"$T/out" 2>&1
expect "-n -P with a folder that is not there exits 1" 1 $?
grep -q "^-P: PidFile $T/nopid/given.pid: its folder: No such file" "$T/out"
ok $? "  and names -P"
diag "$T/out"
start_pid given "$T/pid/given.pid" -P "$T/pid/given.pid"
expect "-P: the process ID is written there" "$mpid" \
    "$(cat "$T/pid/given.pid" 2>/dev/null)"
[ ! -e "$T/pid/conf.pid" ]
ok $? "  and not to the configuration's PidFile"
kill -TERM "$mpid"
wait "$mpid"
[ ! -e "$T/pid/given.pid" ]
ok $? "  and removed at the end"

# A PidFile that can be neither removed nor emptied at the end (made
# immutable while the milter ran): the log says so, once, and what to do.
pidconf frozen "$T/pid/milter.pid"
start_pid frozen "$T/pid/milter.pid"
if ! chattr +i "$T/pid/milter.pid" 2>"$T/out"; then
	kill -TERM "$mpid"
	wait "$mpid"
	skip "a PidFile that cannot be removed or emptied" \
	    "chattr +i: $(cat "$T/out")"
else
	kill -TERM "$mpid"
	wait "$mpid"
	st=$?
	chattr -i "$T/pid/milter.pid"
	expect "a PidFile it cannot remove or empty: the milter exits 0" 0 $st
	said=$(grep -c "PidFile $T/pid/milter.pid could be neither removed (Operation not permitted) nor emptied (Operation not permitted): it still names process $mpid, this milter, which has stopped; remove it by hand" \
	    "$T/frozen/log")
	expect "  and the log says so, once, with the reasons" 1 "$said"
	[ "$said" = 1 ] || diag "$T/frozen/log"
	rm -f "$T/pid/milter.pid"
fi

# --- a configuration that is no file, on reload ---------------------------
# /dev/zero never ends: the reload is refused, the milter serves on and
# still stops on SIGTERM
pidconf zero "$T/zero/milter.pid"
start_pid zero "$T/zero/milter.pid"
mv "$T/zero/conf" "$T/zero/conf.real"
ln -s /dev/zero "$T/zero/conf"
kill -HUP "$mpid"
i=0
while [ $i -lt 50 ] && ! grep -q 'reload refused' "$T/zero/log"; do
	sleep 0.1
	i=$((i + 1))
done
grep -q 'not a regular file' "$T/zero/log" &&
    grep -q 'reload refused' "$T/zero/log"
ok $? "SIGHUP with the configuration a link to /dev/zero: refused"
kill -0 "$mpid" 2>/dev/null
ok $? "  and the milter runs on"
kill -TERM "$mpid"
i=0
while [ $i -lt 150 ] && kill -0 "$mpid" 2>/dev/null; do
	sleep 0.1
	i=$((i + 1))
done
if kill -0 "$mpid" 2>/dev/null; then
	kill -9 "$mpid"
	ok 1 "  and stops on SIGTERM"
	diag "$T/zero/log"
else
	ok 0 "  and stops on SIGTERM"
fi
wait "$mpid" 2>/dev/null

# Syslog mail (the default) with no syslog to take the lines: said once, on
# the terminal that started the milter, before it starts, and not again
# when reloads turn syslog off and on.
# run_logged CONF LOG: the milter run with CONF until it started ($mpid),
# its standard error added to LOG (where /dev/log is a socket, hidden
# behind a file)
run_logged() {
	if [ -S /dev/log ]; then
		unshare -m sh -c 'mount --bind /dev/null /dev/log &&
		    exec "$0" -f -c "$1"' "$M" "$1" >>"$2" 2>&1 &
	else
		"$M" -f -c "$1" >>"$2" 2>&1 &
	fi
	mpid=$!
	wait_started "$mpid" "$2"
}
# start_logged CONF LOG: run_logged into a new LOG, then stopped
start_logged() {
	: >"$2"
	run_logged "$1" "$2"
	stop_milter "$mpid"
}
# reload_to CONF N: the running milter's configuration replaced by CONF
# and reloaded, until its log says "reloaded" N times
reload_to() {
	cp "$1" "$T/nolog/reload.conf"
	kill -HUP "$mpid"
	j=0
	while [ $j -lt 50 ] &&
	    [ "$(grep -c reloaded "$T/nolog/reload.log")" -lt "$2" ]; do
		sleep 0.1
		j=$((j + 1))
	done
}
mkdir -m 700 "$T/nolog"
printf '%s\n' "Socket unix:$T/nolog/sock" "IndexPath $T/ix" \
    'StateFile ""' "$root" >"$T/nolog/mail.conf"
{ cat "$T/nolog/mail.conf"; echo "Syslog no"; } >"$T/nolog/no.conf"
if [ -S /dev/log ] && { [ -z "$root" ] || ! command -v unshare >/dev/null; }
then
	skip "Syslog mail without syslog: said once" "/dev/log is there"
	skip "Syslog no: nothing said" "/dev/log is there"
	skip "Syslog mail without syslog: not said again by reloads" \
	    "/dev/log is there"
else
	start_logged "$T/nolog/mail.conf" "$T/nolog/mail.log"
	[ "$(grep -c 'syslog is unavailable (/dev/log: [^)]*): the log goes only to standard error, and nowhere in the background' \
	    "$T/nolog/mail.log")" -eq 1 ] &&
	    sed -n 1p "$T/nolog/mail.log" | grep -q 'syslog is unavailable' &&
	    grep -q started "$T/nolog/mail.log"
	st=$?
	ok $st "Syslog mail without syslog: said once, before it starts"
	[ $st -eq 0 ] || diag "$T/nolog/mail.log"
	start_logged "$T/nolog/no.conf" "$T/nolog/no.log"
	grep -q started "$T/nolog/no.log" &&
	    ! grep -q syslog "$T/nolog/no.log"
	ok $? "Syslog no: nothing said"
	cp "$T/nolog/mail.conf" "$T/nolog/reload.conf"
	: >"$T/nolog/reload.log"
	run_logged "$T/nolog/reload.conf" "$T/nolog/reload.log"
	reload_to "$T/nolog/no.conf" 1
	reload_to "$T/nolog/mail.conf" 2
	reload_to "$T/nolog/mail.conf" 3
	stop_milter "$mpid"
	[ "$(grep -c reloaded "$T/nolog/reload.log")" -eq 3 ] &&
	    [ "$(grep -c 'syslog is unavailable' "$T/nolog/reload.log")" -eq 1 ]
	st=$?
	ok $st "Syslog mail without syslog: not said again by reloads that turn it off and on"
	[ $st -eq 0 ] || diag "$T/nolog/reload.log"
fi

# Each line on standard error starts with its time, ISO 8601 in UTC to
# the millisecond (a file an init script keeps has no other); not when
# standard error is systemd's journal, which says that it is in
# JOURNAL_STREAM (its device and inode) and times each line itself.
before=$(date +%s)
start_logged "$T/nolog/no.conf" "$T/nolog/timed.log"
after=$(date +%s)
stamp='[0-9]\{4\}-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]\.[0-9]\{3\}Z'
at=$(sed -n "1s/^\($stamp\) patchattest-milter: .*/\1/p" "$T/nolog/timed.log")
at=$(date -u -d "$at" +%s 2>/dev/null)
[ -s "$T/nolog/timed.log" ] &&
    ! grep -v "^$stamp patchattest-milter: " "$T/nolog/timed.log" &&
    [ -n "$at" ] && [ "$at" -ge "$before" ] && [ "$at" -le "$after" ]
st=$?
ok $st "each line on standard error starts with its time in UTC"
[ $st -eq 0 ] || diag "$T/nolog/timed.log"
: >"$T/nolog/journal.log"
JOURNAL_STREAM=$(stat -c '%d:%i' "$T/nolog/journal.log")
export JOURNAL_STREAM
start_logged "$T/nolog/no.conf" "$T/nolog/journal.log"
unset JOURNAL_STREAM
grep -q started "$T/nolog/journal.log" &&
    ! grep -v '^patchattest-milter: ' "$T/nolog/journal.log"
st=$?
ok $st "... but not in systemd's journal (JOURNAL_STREAM)"
[ $st -eq 0 ] || diag "$T/nolog/journal.log"

tap_end
