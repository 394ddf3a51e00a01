#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# t-pg-import - a node's files moved into StateDatabase with "patchattest
# db import", on a PostgreSQL of the test's own (tests/pg-lib.sh): a
# StateFile with the seed series, copies of a Message-ID that differ and
# more copies than are kept, a habit broken by an unsigned patch, and
# first-use pins, one of them pinned to another key in the database.
# Before the import the database knows nothing (the admin's report);
# after it, patchattest arrived and stats read the same from the
# database as from the file, the habit is the file's, the pins are there
# and the conflicting one is said and left; a dry run writes nothing;
# importing again writes nothing, and brings what the file learnt since;
# two nodes' files, one of them twice, imported at once, are each there
# once; records older than ArrivalRetentionDays stay behind, their habit
# comes whole, and so does one of more patches than its window holds;
# errors are said with what to do.
# Skips without PostgreSQL.

: "${srcdir:=.}"
: "${top_builddir:=.}"
. "$srcdir/tests/tap.sh"
. "$srcdir/tests/pg-lib.sh"
srcdir=$(cd "$srcdir" && pwd)
top_builddir=$(cd "$top_builddir" && pwd)
PATCHATTEST=${PATCHATTEST:-$top_builddir/patchattest}
RECORD="$top_builddir/tests/arrival-record"
DUMP="$top_builddir/tests/ledger-dump"
PINS="$top_builddir/tests/pin-race"
workdir_make t-pg-import
cd "$T" || exit 1

pg_need
out=$T/out.log
: >go

# conf NAME STATEFILE PINS [DB [RETENTION]]: a configuration, with the
# database DB (of our server) when it is given
conf() {
	{
		echo "StateFile $T/$2"
		echo "PatattTOFUPins $T/$3"
		echo "ArrivalRetentionDays ${5:-0}"
		[ -n "$4" ] && echo "StateDatabase ${PG_CONNINFO%%dbname=*}dbname=$4 user=pa password=$PG_PASSWORD"
	} >"$1"
}
# import CONF [ARGS...]: patchattest db import, its output in imp.out and
# imp.err, its status in rc
import() {
	c=$1
	shift
	"$PATCHATTEST" db import -c "$c" "$@" >imp.out 2>imp.err
	rc=$?
	cat imp.out imp.err >>"$out"
}
# line WORDS: the line of imp.out that begins with WORDS, after its path
line() {
	grep "^$1" imp.out | sed 's/^[^:]*: //'
}
# snapshot DB: every row the import writes, in an order of their own
snapshot() {
	psql_db "$1" "SELECT record_id, message_id, copy, differs, parts,
	    extract(epoch FROM arrived) FROM arrival ORDER BY record_id;
	    SELECT encode(message_id_sha256, 'hex'), arrived, differing
	    FROM arrival_copies ORDER BY 1;
	    SELECT identity, key, recent, recent_signed, run, window_bits,
	    first_signed, last_signed, encode(ids, 'hex') FROM habit
	    ORDER BY 1;
	    SELECT identity, key, since FROM pins ORDER BY 1"
}
psql_db() {
	PGPASSWORD=$PG_PASSWORD "$PG_BIN/psql" -X -q -t -A -h "$PG_DIR" \
	    -U pa -d "$1" -c "$2"
}

for db in one two three empty; do
	pg_sql "CREATE DATABASE $db" >>"$out" 2>&1
done
conf conf-a a.mdb pins-a.mdb
conf conf-a1 a.mdb pins-a.mdb one
conf conf-a2 a.mdb pins-a.mdb two
conf conf-b2 b.mdb pins-b.mdb two
"$PATCHATTEST" db init -c conf-a1 >>"$out" 2>&1 &&
    "$PATCHATTEST" db init -c conf-a2 >>"$out" 2>&1
setup $? "two databases made" "$out"

# The seed series, each with a Message-ID of its own; hN the same patches
# under other Message-IDs, for a habit; bN for the second node.
i=0
for f in "$srcdir"/tests/fixtures/seeds/*; do
	{
		echo "Message-ID: <s$i@seed.example>"
		echo "To: list@example.org"
		cat "$f"
	} >"s$i"
	for p in h b o; do
		sed "s/^Message-ID: <s$i@/Message-ID: <$p$i@/" "s$i" >"$p$i"
	done
	i=$((i + 1))
done
# a copy of s1 whose commit message changed (from another host), and one
# of s2 whose subject did
sed 's/^preparation for changing the behavior\./preparation for a change./' \
    s1 >d1
sed 's/^Subject: \(.*\)Split READ/Subject: \1Separate READ/' s2 >d2
cmp -s s1 d1 || cmp -s s2 d2
setup $((1 - $?)) "the differing copies are changed" /dev/null
twenty=$(for i in $(seq 20); do printf 's2 '; done)

# Node a's files: what the milter would have written over a few weeks.
hab=-shab@example.org,ed25519/example.org/hab/t1
nokey=nokey,ed25519-sha256,t1,AbCdEfGhIjKlMnOpQrStUvWxYz0123456789+/abcd=
{
	"$RECORD" a.mdb 1582578780 none s0 s1 s2 s3 &&
	"$RECORD" a.mdb 1582578800 pass s4 s5 &&
	"$RECORD" -fhost='mx.attacker.example [203.0.113.9]' \
	    -fenvelope_from=mallory@attacker.example a.mdb 1582700000 none d1 &&
	"$RECORD" a.mdb 1582800000 pass $twenty &&
	"$RECORD" a.mdb 1582800100 pass d2 &&
	"$RECORD" a.mdb 1583107200 "$nokey" s6 &&
	"$RECORD" "$hab" a.mdb 1583107300 pass h0 h1 h2 h3 &&
	"$RECORD" "-shab@example.org," a.mdb 1583107400 unsigned-by-signer h4 &&
	"$PINS" conf-a go ed25519:carol-key carol@example.org &&
	"$PINS" conf-a go ed25519:dave-file-key dave@example.org
} >>"$out" 2>&1
setup $? "node a's StateFile and pins" "$out"
expect "node a's StateFile: 29 records (22 copies of s2, 17 of them kept)" \
    "Arrival records in $T/a.mdb: 29," \
    "$("$PATCHATTEST" stats -c conf-a 2>>"$out" | grep -o '^Arrival records in [^:]*: [0-9]*,')"
# the database pins another key for dave (a node already switched)
"$PINS" conf-a1 go ed25519:dave-db-key dave@example.org >>"$out" 2>&1
setup $? "a pin of dave in the database" "$out"

# What the admin saw: with StateDatabase and nothing imported, what
# arrived before is unknown.
ask="s0 s1 s2 s3 s4 s5 s6 h1 h4 d1 d2 b5"
"$PATCHATTEST" arrived -c conf-a1 s1 >>"$out" 2>&1
expect "before the import, the database knows nothing: never-arrived (2)" \
    2 $?

# A dry run says what would be written, and writes nothing.
import conf-a1 --dry-run
expect "db import --dry-run: exit 1, a pin conflicts" 1 "$rc"
expect "... says it is a dry run" "dry run: nothing is written" \
    "$(sed -n 1p imp.out)"
expect "... the records it would import" \
    "29 read, 29 to import, 0 already there" "$(line "arrival records")"
expect "... the pins" "2 read, 1 to import, 0 already there, 1 in conflict" \
    "$(line "pins from")"
expect "... and writes none" "0 0 1" \
    "$(psql_db one "SELECT (SELECT count(*) FROM arrival), (SELECT count(*)
    FROM habit), (SELECT count(*) FROM pins)" | tr '|' ' ')"

import conf-a1
expect "db import: exit 1, a pin conflicts" 1 "$rc"
expect "... every record imported" "29 read, 29 imported, 0 already there" \
    "$(line "arrival records")"
expect "... the habit" "1 read, 1 imported, 0 merged, 0 already there" \
    "$(line "signing habits")"
expect "... the pins" "2 read, 1 imported, 0 already there, 1 in conflict" \
    "$(line "pins from")"
expect "... the conflict said, with both keys" \
    "pin conflict: dave@example.org: the database pins ed25519:dave-db-key (since X), the file ed25519:dave-file-key (since X); the database's is kept" \
    "$(grep '^pin conflict' imp.out | sed 's/since [^)]*)/since X)/g')"
grep -q "tofu forget" imp.err
ok $? "... and what to do about it"
expect "... the database's pin kept" "ed25519:dave-db-key" \
    "$(psql_db one "SELECT key FROM pins WHERE identity = 'dave@example.org'")"
expect "... the file's made" "ed25519:carol-key" \
    "$(psql_db one "SELECT key FROM pins WHERE identity = 'carol@example.org'")"

# patchattest arrived from the database: what it says from the file.
"$PATCHATTEST" arrived -c conf-a $ask >arr-file 2>&1
st_file=$?
"$PATCHATTEST" arrived -c conf-a1 $ask >arr-db 2>&1
st_db=$?
expect "patchattest arrived from the database: the file's status" \
    "$st_file" "$st_db"
cmp -s arr-file arr-db
ok $? "... and the file's answer for each mail, copies and all"
[ $? -eq 0 ] || diff arr-file arr-db | sed 's/^/#   /'
grep -q "^s2	copies-differ	author/subject	22 copies arrived, 17 kept, 1 differ" \
    arr-db
ok $? "... the copies of s2 counted as the file counted them"
for how in text json; do
	flag=; [ $how = json ] && flag=--json
	"$PATCHATTEST" stats -c conf-a $flag 2>>"$out" |
	    sed "s|$T/a.mdb|StateDatabase|" >"stats-file.$how"
	"$PATCHATTEST" stats -c conf-a1 $flag >"stats-db.$how" 2>>"$out"
	cmp -s "stats-file.$how" "stats-db.$how"
	ok $? "patchattest stats ($how) from the database: the file's"
done
grep -q "^ *1 .* hab@example.org  *ed25519/example.org/hab/t1" stats-db.text
ok $? "... the unsigned-by-signer of the issue among them"
expect "the habit in the database: the file's" \
    "$("$DUMP" a.mdb -h hab@example.org)" \
    "$("$DUMP" -cconf-a1 -h hab@example.org 2>&1)"

# Again: nothing new, nothing changed.
snapshot one >snap-1
import conf-a1
expect "db import again: the conflict again (1)" 1 "$rc"
expect "... no record written twice" "29 read, 0 imported, 29 already there" \
    "$(line "arrival records")"
expect "... the habit already there" \
    "1 read, 0 imported, 0 merged, 1 already there" "$(line "signing habits")"
snapshot one >snap-2
cmp -s snap-1 snap-2
ok $? "... not a row of the database changed (records, copies, habits, pins)"
[ -s snap-1 ] && [ "$(wc -l <snap-1)" -gt 30 ]
ok $? "... of $(wc -l <snap-1) rows"

# Mail that arrives at node a between the import and its restart on the
# database: the next import brings it, and the habit learnt from it.
{
	"$RECORD" a.mdb 1583200000 pass s5 &&
	"$RECORD" "$hab" a.mdb 1583200100 pass h5
} >>"$out" 2>&1
setup $? "two more records in node a's file" "$out"
import conf-a1
expect "an import after more mail: just that" \
    "31 read, 2 imported, 29 already there" "$(line "arrival records")"
expect "... its habit merged" "1 read, 0 imported, 1 merged, 0 already there" \
    "$(line "signing habits")"
expect "... as the file has it" "$("$DUMP" a.mdb -h hab@example.org)" \
    "$("$DUMP" -cconf-a1 -h hab@example.org 2>&1)"
"$PATCHATTEST" arrived -c conf-a s5 >arr-file 2>&1
"$PATCHATTEST" arrived -c conf-a1 s5 >arr-db 2>&1
cmp -s arr-file arr-db
ok $? "... and s5's second copy is there"

# Two nodes at once: node a's files twice and node b's, into a database
# of their own.  Node b has a copy of s3, a patch of its own for the
# habit, its own mail, and pins of its own (carol's the same key).
conf conf-b b.mdb pins-b.mdb
{
	"$RECORD" b.mdb 1582578900 pass s3 b1 b2 &&
	"$RECORD" "$hab" b.mdb 1583300000 pass b6 &&
	"$PINS" conf-b go ed25519:carol-key carol@example.org &&
	"$PINS" conf-b go ed25519:erin-key erin@example.org
} >>"$out" 2>&1
setup $? "node b's StateFile and pins" "$out"
"$PATCHATTEST" db import -c conf-a2 >imp-a1 2>&1 &
p1=$!
"$PATCHATTEST" db import -c conf-a2 >imp-a2 2>&1 &
p2=$!
"$PATCHATTEST" db import -c conf-b2 >imp-b 2>&1
rb=$?
wait $p1; ra1=$?
wait $p2; ra2=$?
cat imp-a1 imp-a2 imp-b >>"$out"
expect "three imports at once (a, a again, b): each exit 0" "0 0 0" \
    "$ra1 $ra2 $rb"
expect "... node a's records written once between the two of a" 31 \
    "$(cat imp-a1 imp-a2 | sed -n 's/^arrival records.*, \([0-9]*\) imported.*/\1/p' |
    awk '{ s += $1 } END { print s }')"
expect "... every record once: 31 of a, 4 of b" 35 \
    "$(psql_db two "SELECT count(*) FROM arrival")"
expect "... each copy number of a Message-ID had by one record" 0 \
    "$(psql_db two "SELECT count(*) FROM (SELECT message_id_sha256, copy
    FROM arrival GROUP BY 1, 2 HAVING count(*) > 1) d")"
expect "... s3 from both nodes: two copies" "2 1 2" \
    "$(psql_db two "SELECT count(*) || ' ' || min(copy) || ' ' || max(copy)
    FROM arrival WHERE message_id = 's3@seed.example'")"
expect "... the habit of both nodes: a's 5 patches (4 signed), b's one" \
    "6 5" \
    "$(psql_db two "SELECT recent || ' ' || recent_signed FROM habit
    WHERE identity = 'hab@example.org'")"
expect "... the pins of both, carol's once" \
    "carol@example.org ed25519:carol-key|dave@example.org ed25519:dave-file-key|erin@example.org ed25519:erin-key" \
    "$(psql_db two "SELECT identity || ' ' || key FROM pins ORDER BY 1" |
    paste -s -d '|')"
snapshot two >snap-3
import conf-b2
rc_b=$rc
import conf-a2
expect "... both again: exit 0, nothing imported" "0 0 0 0" \
    "$rc_b $rc $(line "arrival records" | sed 's/.*read, \([0-9]*\) imported.*/\1/') $(line "signing habits" | sed 's/.*imported, \([0-9]*\) merged.*/\1/')"
snapshot two >snap-4
cmp -s snap-3 snap-4
ok $? "... and not a row changed"

# Records older than ArrivalRetentionDays stay behind; the habit they
# taught comes whole, so an unsigned patch after them is still flagged.
now=$(date +%s)
{
	"$RECORD" -sold@example.org,ed25519/example.org/old/t1 c.mdb \
	    $((now - 100 * 86400)) pass o1 o2 o3 &&
	"$RECORD" -sold@example.org, c.mdb $((now - 86400)) \
	    unsigned-by-signer o4
} >>"$out" 2>&1
setup $? "node c's StateFile, three records of 100 days ago" "$out"
conf conf-c3 c.mdb pins-c.mdb three 30
"$PATCHATTEST" db init -c conf-c3 >>"$out" 2>&1
import conf-c3
expect "ArrivalRetentionDays 30: the old records left out, said" \
    "1 read, 1 imported, 0 already there, 3 older than ArrivalRetentionDays (30 days, left out)" \
    "$(line "arrival records")"
expect "... pins: none, said" "none (no file $T/pins-c.mdb)" \
    "$(grep '^pins' imp.out | sed 's/^pins: //')"
expect "... the habit whole: 3 signed of 4" \
    "ed25519/example.org/old/t1 4 3" \
    "$("$DUMP" -cconf-c3 -h old@example.org 2>&1 | cut -d ' ' -f 1-3)"
expect "... exit 0" 0 "$rc"

# A habit of more patches than its window holds, 20 signed then 20
# unsigned: the database's is the file's, with the 40 records beside it.
i=1
while [ $i -le 40 ]; do
	sed -e "s/^Message-ID: <s1@/Message-ID: <busy$i@/" \
	    -e "0,/^+[^+]/s/^\(+[^+].*\)$/\1 $i/" s1 >busy$i
	i=$((i + 1))
done
{
	"$RECORD" -sbusy@example.org,ed25519/example.org/busy/t1 c.mdb \
	    $((now - 3 * 86400)) pass $(seq -f 'busy%g' 1 20) &&
	"$RECORD" -sbusy@example.org, c.mdb $((now - 2 * 86400)) \
	    unsigned-by-signer $(seq -f 'busy%g' 21 40)
} >>"$out" 2>&1
setup $? "40 patches of busy@example.org" "$out"
expect "... the file's habit: 12 of its 32 signed" "32 12" \
    "$("$DUMP" c.mdb -h busy@example.org | cut -d ' ' -f 2-3)"
import conf-c3
expect "... imported: its records" \
    "41 read, 40 imported, 1 already there, 3 older than ArrivalRetentionDays (30 days, left out)" \
    "$(line "arrival records")"
expect "... and the habit the file's" "$("$DUMP" c.mdb -h busy@example.org)" \
    "$("$DUMP" -cconf-c3 -h busy@example.org 2>&1)"

# Errors: said with the file or database and what to do.
conf conf-x nowhere.mdb pins-a.mdb one
import conf-x
expect "a StateFile that is not there: exit 2" 2 "$rc"
grep -q "$T/nowhere.mdb.*--state-file" imp.err
ok $? "... naming it"
import conf-a1 --state-file "$T/b.mdb" --pins "$T/pins-b.mdb"
expect "--state-file and --pins: those files" "4 read, 4 imported, 0 already there" \
    "$(line "arrival records")"
conf conf-e a.mdb pins-a.mdb empty
import conf-e
expect "a database without the schema: exit 2" 2 "$rc"
grep -q "db init" imp.err
ok $? "... says to run patchattest db init"
expect "... and nothing is read" "" "$(cat imp.out)"
import conf-a
expect "no StateDatabase: exit 2" 2 "$rc"
"$PATCHATTEST" db init -c conf-a1 --dry-run >>"$out" 2>&1
expect "--dry-run with init: a usage error (2)" 2 $?
printf 'StateFile %s/a.mdb\nStateDatabase host=%s/nowhere dbname=x user=pa password=%s\n' \
    "$T" "$T" "$PG_PASSWORD" >conf-away
import conf-away
expect "a database that cannot be reached: exit 2" 2 "$rc"

if grep -q -- "$PG_PASSWORD" "$out"; then
	ok 1 "the password is in no output"
else
	ok 0 "the password is in no output"
fi

tap_end
