#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# t-state-group - a maintainer in the milter's group asks patchattest
# arrived and stats of the StateFile the milter's user writes, with users
# of the test's own (useradd; removed at the end): the file is made
# readable by the group (0640) whatever the umask, its lock file is not
# (0600: a group member cannot stall or pin the milter's writer through
# it), and the maintainer reads without the lock file; a user outside
# the group is told why not.  While the milter's user writes records, one
# commit after another, the maintainer's answers stay exact: each read
# is checked to have settled before the pages the writer reuses could
# be read (tests/ledger-race).  Skips unless root.

: "${srcdir:=.}"
: "${top_builddir:=.}"
. "$srcdir/tests/tap.sh"
srcdir=$(cd "$srcdir" && pwd)
top_builddir=$(cd "$top_builddir" && pwd)
PATCHATTEST=${PATCHATTEST:-$top_builddir/patchattest}
RECORD="$top_builddir/tests/arrival-record"
RACE="$top_builddir/tests/ledger-race"

if [ "$(id -u)" -ne 0 ] || ! command -v useradd >/dev/null 2>&1 ||
    ! command -v runuser >/dev/null 2>&1; then
	skip "a maintainer of the milter's group reads the StateFile" \
	    "needs root, useradd and runuser"
	tap_end
	exit 0
fi
workdir_make t-state-group
cd "$T" || exit 1
PATCHATTEST=$(reachable "$PATCHATTEST") && RECORD=$(reachable "$RECORD") &&
    RACE=$(reachable "$RACE") || exit 1

MUSER=psm$$
RUSER=psr$$
OUSER=pso$$
cleanup() {
	[ -n "$rpid" ] && kill "$rpid" 2>/dev/null
	[ -n "$cpid" ] && kill "$cpid" 2>/dev/null
	for u in "$RUSER" "$OUSER" "$MUSER"; do
		userdel "$u" 2>/dev/null
		groupdel "$u" 2>/dev/null
	done
	workdir_release
}
trap cleanup 0
useradd -M -s /bin/sh -U "$MUSER" >useradd.log 2>&1 &&
    useradd -M -s /bin/sh -U -G "$MUSER" "$RUSER" >>useradd.log 2>&1 &&
    useradd -M -s /bin/sh -U "$OUSER" >>useradd.log 2>&1
setup $? "the milter's user, a maintainer in its group, another user" \
    useradd.log
mkdir var mail
chown "$MUSER:$MUSER" var && chmod 750 var
printf 'StateFile %s/var/state.mdb\n' "$T" >conf
chmod 644 conf
out=$T/out.log

# 2,000 mails of their own, recorded by the milter's user.
i=0
seed=$(ls "$srcdir"/tests/fixtures/seeds/* | sed -n 3p)
while [ $i -lt 2000 ]; do
	{
		echo "Message-ID: <m$i@race.example>"
		sed '/^Message-ID: /d' "$seed"
	} >mail/$i
	i=$((i + 1))
done
chmod -R a+rX mail
# as_milter CMD...: CMD as the milter's user, with a umask that keeps all
as_milter() {
	runuser -u "$MUSER" -- sh -c 'umask 077; exec "$@"' sh "$@"
}
(cd mail && as_milter "$RECORD" "$T/var/state.mdb" 1582578780 none \
    $(seq 0 1999)) >>"$out" 2>&1
setup $? "2,000 records written by the milter's user, umask 077" "$out"
expect "the StateFile is its group's to read, whatever the umask" 640 \
    "$(stat -c %a var/state.mdb)"
expect "... and its lock file its user's alone" 600 \
    "$(stat -c %a var/state.mdb-lock)"
runuser -u "$RUSER" -- sh -c ": >>'$T/var/state.mdb-lock'" 2>>"$out"
expect "a maintainer cannot write the lock file" 1 "$(($? != 0))"

runuser -u "$RUSER" -- "$PATCHATTEST" arrived -c "$T/conf" mail/5 mail/1999 \
    >arrived.base 2>&1
expect "patchattest arrived by a maintainer in the group" 0 $?
expect "... finds each mail" 2 "$(grep -c '	identical	' arrived.base)"
diag arrived.base
runuser -u "$RUSER" -- "$PATCHATTEST" stats -c "$T/conf" >stats.base 2>&1
expect "patchattest stats by a maintainer in the group" 0 $?
grep -q "^Arrival records in $T/var/state.mdb: 2000," stats.base
ok $? "... counts every record"
diag stats.base 4
runuser -u "$OUSER" -- "$PATCHATTEST" arrived -c "$T/conf" mail/5 \
    >outsider 2>&1
expect "a user outside the group: an error (3)" 3 $?
grep -q "cannot read the arrival records at $T/var/state.mdb: Permission denied (the milter's group may" outsider
ok $? "... saying why, and who may"
diag outsider

# The milter's user writes one record per commit, dated 2100 (past what
# stats reads), each under a Message-ID of its own, its signer's habit
# changed: every commit rewrites the trees' upper pages and frees the
# old ones, which LMDB reuses two commits on.  Meanwhile the maintainer
# walks the 2,000 records and looks some up by Message-ID, again and
# again, and must get the same answer each time.
# patchattest arrived, run by the maintainer all the while, answers as
# before each time.
runuser -u "$RUSER" -- "$RACE" read "$T/var/state.mdb" 2000 1582578780 \
    "$T/stop" >rounds 2>race.err &
rpid=$!
mkdir cli && chown "$RUSER" cli && chmod 644 arrived.base
runuser -u "$RUSER" -- sh -c 'cd cli && runs=0
	while [ ! -e ../stop ] || [ "$runs" -lt 5 ]; do
		"$1" arrived -c "$2" ../mail/5 ../mail/1999 >during 2>&1
		echo "$?" >>status
		sed "s#\.\./mail/#mail/#" during | cmp -s ../arrived.base - ||
		    cp during wrong
		runs=$((runs + 1))
	done' sh "$PATCHATTEST" "$T/conf" &
cpid=$!
as_milter "$RACE" write "$T/var/state.mdb" 3000 4102444800 >>"$out" 2>&1
setup $? "3,000 commits by the milter's user" "$out"
: >stop
wait "$rpid"
expect "the maintainer's answers while 3,000 commits were made: exact" \
    0 $?
rpid=
wait "$cpid"
cpid=
echo "# reads while 3,000 commits were made: $(cat rounds)"
diag race.err
[ ! -e cli/wrong ] && [ "$(sort -u cli/status)" = 0 ]
ok $? "patchattest arrived, run $(wc -l <cli/status) times meanwhile: as before each time"
diag cli/wrong
runuser -u "$RUSER" -- "$PATCHATTEST" stats -c "$T/conf" >stats.now 2>&1
cmp -s stats.base stats.now
ok $? "patchattest stats then: as before"
runuser -u "$RUSER" -- "$PATCHATTEST" arrived -c "$T/conf" mail/5 mail/1999 \
    >arrived.now 2>&1
cmp -s arrived.base arrived.now
ok $? "patchattest arrived then: as before"

tap_end
