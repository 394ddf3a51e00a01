#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# t-pg-users - StateDatabase reached as the users who reach it, on a
# server of the test's own (tests/pg-lib.sh) and with users of the
# test's own (useradd, each with a home; removed at the end):
# - the milter's user keeps the password in its ~/.pgpass (0600).  The
#   milter started as root with root's HOME, by start-stop-daemon as
#   README's "Without systemd" says, reaches the database as UserID:
#   patchattest-milter -n says so and names the passfile, patchattest db
#   init and status as root too, and an unsigned patch is judged
#   (t-pg-passfile.lua) and its record sent.  A passfile its group may
#   read, which libpq ignores, is said by -n, with what to do.
# - a maintainer, another user, reads with patchattest arrived and stats
#   through StateDatabaseReader, a role db init lets read the tables,
#   with the maintainer's own ~/.pgpass; that role cannot write.
# No output holds a password.  Skips unless root, or without PostgreSQL.

: "${srcdir:=.}"
: "${top_builddir:=.}"
. "$srcdir/tests/tap.sh"
. "$srcdir/tests/pg-lib.sh"
srcdir=$(cd "$srcdir" && pwd)
top_builddir=$(cd "$top_builddir" && pwd)
PATCHATTEST=${PATCHATTEST:-$top_builddir/patchattest}
MILTER=${PATCHATTEST_MILTER:-$top_builddir/patchattest-milter}

if [ "$(id -u)" -ne 0 ] || ! command -v useradd >/dev/null 2>&1 ||
    ! command -v runuser >/dev/null 2>&1; then
	skip "the database as the milter's user and a maintainer" \
	    "needs root, useradd and runuser"
	tap_end
	exit 0
fi
workdir_make t-pg-users
cd "$T" || exit 1
pg_need
PATCHATTEST=$(reachable "$PATCHATTEST") || exit 1

# The milter's user and a maintainer in its group, homes in $T.
MUSER=pam$$
RUSER=par$$
READER_PASSWORD=rpw-$$-not-to-be-seen
cleanup() {
	[ -n "$mpid" ] && kill -TERM "$mpid" 2>/dev/null
	pg_stop
	userdel "$RUSER" 2>/dev/null
	userdel "$MUSER" 2>/dev/null
	groupdel "$RUSER" 2>/dev/null
	groupdel "$MUSER" 2>/dev/null
	workdir_release
}
trap cleanup 0
useradd -m -d "$T/home-m" -s /bin/sh -U "$MUSER" >"$T/useradd.log" 2>&1 &&
    useradd -m -d "$T/home-r" -s /bin/sh -U -G "$MUSER" "$RUSER" \
    >>"$T/useradd.log" 2>&1
setup $? "the milter's user and a maintainer" "$T/useradd.log"
printf '*:*:*:pa:%s\n' "$PG_PASSWORD" >"$T/home-m/.pgpass"
chown "$MUSER:" "$T/home-m/.pgpass" && chmod 600 "$T/home-m/.pgpass"
mkdir -p var data run
chown "$MUSER:$MUSER" var run && chmod 750 var
out=$T/out.log
cat >conf <<EOC
UserID $MUSER
StateFile $T/var/state.mdb
StateDatabase host=$PG_DIR dbname=postgres user=pa
StateDatabaseConnectTimeout 3000
IndexPath $T/var/idx
Socket unix:$T/var/m.sock
PidFile $T/run/m.pid
Syslog no
LogLevel debug
ArchiveRefresh 0
EOC
chmod 644 conf
# as_root_at_boot CMD...: CMD as root with root's HOME and little else,
# as an init script or start-stop-daemon runs it
as_root_at_boot() {
	env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@"
}

# Before the schema is made: the database answers as UserID.
as_root_at_boot "$PATCHATTEST" db status -c conf >status.out 2>&1
expect "db status as root: reached as UserID, no schema yet (1)" 1 $?
grep -q "has schema version 0" status.out
ok $? "... and says so"
cat status.out >>"$out"
as_root_at_boot "$PATCHATTEST" db init -c conf >init.out 2>&1
expect "db init as root: as UserID, with its passfile" 0 $?
cat init.out >>"$out"
as_root_at_boot "$PATCHATTEST" db status -c conf >status.out 2>&1
expect "db status as root" "schema version 2: ok" "$(cat status.out)"
as_root_at_boot "$MILTER" -n -c conf >n-ok 2>&1
expect "milter -n as root, the password in UserID's ~/.pgpass: good" 0 $?
grep -q "^StateDatabase: schema version 2, reached as $MUSER (database user pa), with the password from $T/home-m/.pgpass$" n-ok
ok $? "... and it says as whom, and from which passfile"
diag n-ok
cat n-ok >>"$out"

# A passfile its group may read: libpq ignores it, -n says so.
chmod 640 "$T/home-m/.pgpass"
as_root_at_boot "$MILTER" -n -c conf >n-mode 2>&1
expect "milter -n, a passfile its group may read: refused" 1 \
    "$(($? != 0))"
grep -q "StateDatabase (not shown): libpq ignores the passfile $T/home-m/.pgpass: its group or others may use it (mode 0640; chmod 600 it)$" n-mode
ok $? "... saying that libpq ignores it, and what to do"
grep -q "cannot connect to the state database (database postgres on $PG_DIR) as $MUSER: libpq ignores the passfile" n-mode
ok $? "... and that the database refused $MUSER for want of a password"
diag n-mode
cat n-mode >>"$out"
chmod 600 "$T/home-m/.pgpass"

# The milter, started by start-stop-daemon as README says (as root, with
# root's HOME): an unsigned patch needs its author's habit from the
# database, and is judged; its record reaches the database.
{
	echo "Message-ID: <unsigned@passfile.example>"
	echo "From: Other One <other@example.com>"
	sed -e '/^From: /d' -e '/^Message-ID: /d' \
	    "$(ls "$srcdir"/tests/fixtures/seeds/* | sed -n 3p)"
} >data/unsigned.eml
if command -v start-stop-daemon >/dev/null 2>&1 &&
    command -v miltertest >/dev/null 2>&1; then
	as_root_at_boot start-stop-daemon --start --background \
	    --output "$T/milter.log" --pidfile "$T/run/m.pid" \
	    --exec "$MILTER" -- -f -c "$T/conf"
	i=0
	while [ ! -S var/m.sock ] && [ $i -lt 200 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	mpid=$(cat run/m.pid 2>/dev/null)
	expect "the milter started as root becomes $MUSER" "$MUSER" \
	    "$(ps -o user= -p "$mpid" 2>/dev/null | tr -d ' ')"
	miltertest -D HARNESS="$srcdir/tests/milter/harness.lua" \
	    -D DATA="$T/data" -D SOCK="unix:$T/var/m.sock" \
	    -s "$srcdir/tests/milter/t-pg-passfile.lua" \
	    >t-pg-passfile.lua.out 2>&1
	ok $? "an unsigned patch is judged with the database (t-pg-passfile.lua)"
	diag t-pg-passfile.lua.out
	sent="SELECT count(*) FROM arrival WHERE message_id = 'unsigned@passfile.example'"
	i=0
	while [ "$(pg_sql "$sent")" != 1 ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	expect "... and its record reaches the database" 1 "$(pg_sql "$sent")"
	as_root_at_boot start-stop-daemon --stop --pidfile "$T/run/m.pid" \
	    --retry TERM/20/KILL/5 >/dev/null 2>&1
	mpid=
	grep -q "fe_sendauth\|no password" milter.log
	expect "... and its log says no password was missing" 1 $?
	diag milter.log
	cat milter.log >>"$out"
else
	skip "the milter started by start-stop-daemon" \
	    "start-stop-daemon or miltertest is not installed"
	"$top_builddir/tests/arrival-record" "-c$T/conf" 1582578780 none \
	    data/unsigned.eml >>"$out" 2>&1
fi

# A maintainer reads through StateDatabaseReader: a role that db init
# lets read every table, the password in the maintainer's own ~/.pgpass.
pg_sql "CREATE ROLE pa_reader LOGIN PASSWORD '$READER_PASSWORD'" >/dev/null
setup $? "the reader's role" "$out"
echo "StateDatabaseReader host=$PG_DIR dbname=postgres user=pa_reader" \
    >>conf
printf '*:*:*:pa_reader:%s\n' "$READER_PASSWORD" >"$T/home-r/.pgpass"
chown "$RUSER:" "$T/home-r/.pgpass" && chmod 600 "$T/home-r/.pgpass"
as_root_at_boot "$PATCHATTEST" db init -c conf >init.out 2>&1
expect "db init grants StateDatabaseReader's user" \
    "schema version 2: already made
pa_reader may read it (StateDatabaseReader)" "$(cat init.out)"
cp data/unsigned.eml "$T/home-r/mail.eml"
chown "$RUSER" "$T/home-r/mail.eml"
runuser -u "$RUSER" -- "$PATCHATTEST" arrived -c "$T/conf" \
    "$T/home-r/mail.eml" >arrived.out 2>&1
expect "patchattest arrived, by a maintainer as the reader" 0 $?
grep -q "	identical	" arrived.out
ok $? "... finds the mail"
diag arrived.out
runuser -u "$RUSER" -- "$PATCHATTEST" stats -c "$T/conf" >stats.out 2>&1
expect "patchattest stats, by a maintainer as the reader" 0 $?
grep -q "^Arrival records in StateDatabase: 1," stats.out
ok $? "... reads the records"
diag stats.out
cat arrived.out stats.out >>"$out"
as_reader() {
	PGPASSWORD=$READER_PASSWORD "$PG_BIN/psql" -X -q -t -A -h "$PG_DIR" \
	    -U pa_reader -d postgres -c "$1"
}
for table in patchattest_schema pins arrival habit arrival_copies; do
	as_reader "SELECT count(*) FROM $table" >read.out 2>&1
	ok $? "the reader reads $table"
	cat read.out >>"$out"
done
for sql in "INSERT INTO pins VALUES ('x@example.org', 'k', now())" \
    "UPDATE arrival SET result = 'pass'" "DELETE FROM habit" \
    "DELETE FROM arrival_copies" "UPDATE patchattest_schema SET version = 9"; do
	as_reader "$sql" >write.out 2>&1
	rc=$?
	grep -q "permission denied" write.out && [ $rc -ne 0 ]
	ok $? "the reader cannot write: ${sql%% *} ${sql#* * }"
	cat write.out >>"$out"
done
pg_sql "DROP ROLE pa_nobody" >/dev/null 2>&1
sed 's/user=pa_reader/user=pa_nobody/' conf >conf-nobody
as_root_at_boot "$PATCHATTEST" db init -c conf-nobody >init-nobody.out 2>&1
expect "db init naming a reader role that is not there: refused" 2 $?
grep -q "StateDatabaseReader's user pa_nobody cannot be granted SELECT, and nothing was changed: ERROR:  role \"pa_nobody\" does not exist (a role made with createuser -P pa_nobody can)" \
    init-nobody.out
ok $? "... and says which"
diag init-nobody.out
cat init-nobody.out >>"$out"

if grep -q -e "$PG_PASSWORD" -e "$READER_PASSWORD" "$out" \
    "$T"/pg/server.log *.out; then
	ok 1 "the passwords are in no output"
else
	ok 0 "the passwords are in no output"
fi

tap_end
