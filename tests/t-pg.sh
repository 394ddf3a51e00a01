#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# t-pg - the pins and arrival records in PostgreSQL (StateDatabase), on a
# server of the test's own (tests/pg-lib.sh): db init and status, a
# schema of another version, records written and read back by patchattest
# arrived and in SQL, the server stopped while records are written and
# started again (every record once), and the password in no output.
# Skips without PostgreSQL.

: "${srcdir:=.}"
: "${top_builddir:=.}"
. "$srcdir/tests/tap.sh"
. "$srcdir/tests/pg-lib.sh"
srcdir=$(cd "$srcdir" && pwd)
top_builddir=$(cd "$top_builddir" && pwd)
PATCHATTEST=${PATCHATTEST:-$top_builddir/patchattest}
RECORD="$top_builddir/tests/arrival-record"
workdir_make t-pg
cd "$T" || exit 1

pg_start
case $? in
1)	skip "PostgreSQL" "skipped: PostgreSQL is not installed"
	tap_end
	exit 0 ;;
2)	setup 1 "a PostgreSQL of our own" "$T/pg/initdb.log" ;;
esac

cat >conf <<EOC
StateFile $T/state.mdb
StateDatabase $PG_CONNINFO
ArrivalRetentionDays 0
EOC
out=$T/out.log

"$PATCHATTEST" db status -c conf >>"$out" 2>&1
expect "db status before init: no schema (1)" 1 $?
"$PATCHATTEST" db init -c conf >>"$out" 2>&1
expect "db init" 0 $?
"$PATCHATTEST" db status -c conf >"$T/status" 2>&1
expect "db status after init" "schema version 1: ok" "$(cat "$T/status")"
"$PATCHATTEST" db init -c conf >>"$out" 2>&1
expect "db init again: nothing to do" 0 $?

pg_sql "UPDATE patchattest_schema SET version = 99" >/dev/null
"$PATCHATTEST" db status -c conf >"$T/status" 2>&1
expect "a schema of another version: status 1" 1 $?
grep -q "schema version 99" "$T/status"
ok $? "... and it says which"
cat "$T/status" >>"$out"
pg_sql "UPDATE patchattest_schema SET version = 1" >/dev/null

# The seed series, each with a Message-ID.
i=0
for f in "$srcdir"/tests/fixtures/seeds/*; do
	{
		echo "From sender@example.org Mon Feb 24 21:13:00 2020"
		echo "Message-ID: <s$i@seed.example>"
		echo "To: list@example.org"
		cat "$f"
		echo
	} >"s$i"
	i=$((i + 1))
done

"$RECORD" "-c$T/conf" 1582578780 none s0 s1 s2 >>"$out" 2>&1
expect "records written to the database" 0 $?
expect "... each once, in SQL" 3 "$(pg_sql "SELECT count(*) FROM arrival")"
expect "... by Message-ID, with the verdict" "none" \
    "$(pg_sql "SELECT result FROM arrival WHERE message_id = 's1@seed.example'")"
expect "... the journal emptied" 0 \
    "$(test -f "$T/state.mdb-outbox" && echo 0 || echo missing)"
"$PATCHATTEST" arrived -c conf s1 >"$T/arrived" 2>&1
expect "patchattest arrived finds it in the database" 0 $?
cat "$T/arrived" >>"$out"

# The server stopped while records are written: they wait in the journal,
# and reach the database once it is back, each once.
pg_stop
"$RECORD" "-c$T/conf" 1582578800 pass s3 s4 >"$T/down" 2>&1
expect "records written while the database is away: kept, said" 1 $?
cat "$T/down" >>"$out"
expect "... none in the database yet" "" ""
pg_restart
"$RECORD" "-c$T/conf" 1582578900 pass s5 >>"$out" 2>&1
expect "the database back: the journal sent" 0 $?
expect "... every record once" 6 "$(pg_sql "SELECT count(*) FROM arrival")"
expect "... copies numbered" 1 \
    "$(pg_sql "SELECT max(copy) FROM arrival")"

# The same Message-ID again: a second copy, not a record replaced.
"$RECORD" "-c$T/conf" 1582579000 pass s1 >>"$out" 2>&1
expect "a second copy of a Message-ID" 2 \
    "$(pg_sql "SELECT max(copy) FROM arrival WHERE message_id = 's1@seed.example'")"

# patchattest stats reads the database as it reads a StateFile: the same
# records in both give the same report, the signature's algorithm,
# selector and offered key included.
nokey=nokey,ed25519-sha256,t1,AbCdEfGhIjKlMnOpQrStUvWxYz0123456789+/abcd=
"$RECORD" "-c$T/conf" 1583107200 "$nokey" s6 >>"$out" 2>&1
expect "a nokey record, with its signature's columns" \
    "ed25519-sha256 t1" \
    "$(pg_sql "SELECT algo || ' ' || selector FROM arrival WHERE result = 'nokey'")"
{
	"$RECORD" "$T/file.mdb" 1582578780 none s0 s1 s2 &&
	"$RECORD" "$T/file.mdb" 1582578800 pass s3 s4 &&
	"$RECORD" "$T/file.mdb" 1582578900 pass s5 &&
	"$RECORD" "$T/file.mdb" 1582579000 pass s1 &&
	"$RECORD" "$T/file.mdb" 1583107200 "$nokey" s6
} >>"$out" 2>&1
setup $? "the same records in a StateFile" "$out"
printf 'StateFile %s/file.mdb\n' "$T" >conf-file
for how in text json; do
	flag=; [ $how = json ] && flag=--json
	"$PATCHATTEST" stats -c conf $flag >"stats-pg.$how" 2>>"$out"
	expect "patchattest stats ($how) from the database" 0 $?
	"$PATCHATTEST" stats -c conf-file $flag >"stats-file.$how" 2>>"$out"
	sed -i "s|$T/file.mdb|StateDatabase|" "stats-file.$how"
	cmp -s "stats-pg.$how" "stats-file.$how"
	ok $? "... the same report as from the StateFile ($how)"
done
grep -q "^Arrival records in StateDatabase: 8," stats-pg.text
ok $? "... eight records, the database named without its string"
grep -q "^ *1 *2020-03-02T00:00:00Z .* AbCdEfGh" stats-pg.text
ok $? "... the nokey signature with its key offered"
sed 's/^/#   /' stats-pg.text

# An unreachable database is said fast, without the password.
printf 'StateFile %s/other.mdb\nStateDatabase host=%s/nowhere dbname=x user=pa password=%s\n' \
    "$T" "$T" "$PG_PASSWORD" >conf-away
"$PATCHATTEST" db status -c conf-away >>"$out" 2>&1
expect "db status of a database away: 2" 2 $?

if grep -q -- "$PG_PASSWORD" "$out" "$T"/pg/server.log; then
	ok 1 "the password is in no output"
	grep -- "$PG_PASSWORD" "$out" | sed 's/^/#   /'
else
	ok 0 "the password is in no output"
fi

tap_end
