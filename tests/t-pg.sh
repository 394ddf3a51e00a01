#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# t-pg - the pins and arrival records in PostgreSQL (StateDatabase), on a
# server of the test's own (tests/pg-lib.sh): db init and status, a
# schema of another version, two processes racing for first pins (one
# wins), records written and read back by patchattest
# arrived and in SQL, the server stopped while records are written and
# started again (every record once), patchattest stats from the database,
# the milter with the server stopped (t-pg-away.lua: what could not be
# consulted said in the reason), a milter whose journal was damaged, and
# the password in no output.
# Skips without PostgreSQL.

: "${srcdir:=.}"
: "${top_builddir:=.}"
. "$srcdir/tests/tap.sh"
. "$srcdir/tests/pg-lib.sh"
. "$srcdir/tests/patatt-lib.sh"
srcdir=$(cd "$srcdir" && pwd)
top_builddir=$(cd "$top_builddir" && pwd)
PATCHATTEST=${PATCHATTEST:-$top_builddir/patchattest}
RECORD="$top_builddir/tests/arrival-record"
MILTER=${PATCHATTEST_MILTER:-$top_builddir/patchattest-milter}
RACE="$top_builddir/tests/pin-race"
workdir_make t-pg
cd "$T" || exit 1

pg_need

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
expect "db status after init" "schema version 2: ok" "$(cat "$T/status")"
"$PATCHATTEST" db init -c conf >>"$out" 2>&1
expect "db init again: nothing to do" 0 $?

pg_sql "UPDATE patchattest_schema SET version = 99" >/dev/null
"$PATCHATTEST" db status -c conf >"$T/status" 2>&1
expect "a schema of another version: status 1" 1 $?
grep -q "schema version 99" "$T/status"
ok $? "... and it says which"
cat "$T/status" >>"$out"
pg_sql "UPDATE patchattest_schema SET version = 2" >/dev/null

# Two processes race for the first pins of 20 identities, each with its
# own key: for each, exactly one pins, the other sees the winner's key.
ids=$(seq -f 'racer%g@example.org' 1 20)
rm -f go
"$RACE" conf "$T/go" ed25519:keyA $ids >race-a 2>>"$out" &
a=$!
"$RACE" conf "$T/go" ed25519:keyB $ids >race-b 2>>"$out" &
b=$!
sleep 1
: >go
wait $a; ra=$?
wait $b; rb=$?
expect "two racers for the same first pins" "0 0" "$ra $rb"
expect "... exactly one pin made for each identity" 20 \
    "$(cat race-a race-b | grep -c ' new ')"
expect "... the other saw another key pinned" 20 \
    "$(cat race-a race-b | grep -c ' other ')"
sort race-a >race-a.s
sort race-b >race-b.s
expect "... both read back the winner's key" 20 \
    "$(join race-a.s race-b.s | awk '$3 == $5' | wc -l | tr -d ' ')"
expect "... and the database has the winners" \
    "$(awk '$2 == "new" { print $1, $3 }' race-a race-b | sort)" \
    "$(pg_sql "SELECT identity || ' ' || key FROM pins WHERE identity LIKE 'racer%' ORDER BY 1" | sort)"
echo "# wins: A $(grep -c ' new ' race-a), B $(grep -c ' new ' race-b)"

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
	# the same patches again under Message-IDs of their own, for a habit:
	# a Message-ID that arrived before teaches none
	sed "s/^Message-ID: <s$i@/Message-ID: <h$i@/" "s$i" >"h$i"
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
# a habit: three patches signed by one key (h0 is the cover letter),
# then one unsigned
hab=-shab@example.org,ed25519/example.org/hab/t1
"$RECORD" "$hab" "-c$T/conf" 1583107300 pass h0 h1 h2 h3 >>"$out" 2>&1
"$RECORD" "-shab@example.org," "-c$T/conf" 1583107400 unsigned-by-signer \
    h4 >>"$out" 2>&1
expect "a habit learnt in the database" \
    "ed25519/example.org/hab/t1 4 3" \
    "$(pg_sql "SELECT key || ' ' || recent || ' ' || recent_signed FROM habit WHERE identity = 'hab@example.org'")"
expect "a nokey record, with its signature's columns" \
    "ed25519-sha256 t1" \
    "$(pg_sql "SELECT algo || ' ' || selector FROM arrival WHERE result = 'nokey'")"
{
	"$RECORD" "$T/file.mdb" 1582578780 none s0 s1 s2 &&
	"$RECORD" "$T/file.mdb" 1582578800 pass s3 s4 &&
	"$RECORD" "$T/file.mdb" 1582578900 pass s5 &&
	"$RECORD" "$T/file.mdb" 1582579000 pass s1 &&
	"$RECORD" "$T/file.mdb" 1583107200 "$nokey" s6 &&
	"$RECORD" "$hab" "$T/file.mdb" 1583107300 pass h0 h1 h2 h3 &&
	"$RECORD" "-shab@example.org," "$T/file.mdb" 1583107400 \
	    unsigned-by-signer h4
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
grep -q "^Arrival records in StateDatabase: 13," stats-pg.text
ok $? "... 13 records, the database named without its string"
grep -q "^ *1 .* hab@example.org  *ed25519/example.org/hab/t1" stats-pg.text
ok $? "... the habitual signer now unsigned, with the habit read back"
grep -q "^ *1 *2020-03-02T00:00:00Z .* AbCdEfGh" stats-pg.text
ok $? "... the nokey signature with its key offered"
sed 's/^/#   /' stats-pg.text

# Two nodes recording one Message-ID at once number its copies in turn:
# two processes, each with a journal of its own, record s2 twelve times,
# five rounds at once; every copy is counted once, and of the copies kept
# (the first 16 of a Message-ID) each copy number is had by one record.
for node in a b; do
	printf '%s\n' "StateFile $T/copies-$node.mdb" \
	    "StateDatabase $PG_CONNINFO" "ArrivalRetentionDays 0" \
	    >conf-copies-$node
done
twelve=$(for i in $(seq 12); do printf 's2 '; done)
for round in 1 2 3 4 5; do
	"$RECORD" "-c$T/conf-copies-a" 1583000000 pass $twelve \
	    >>"$out" 2>&1 &
	"$RECORD" "-c$T/conf-copies-b" 1583000000 pass $twelve \
	    >>"$out" 2>&1
	wait $!
done
expect "two nodes recording one Message-ID at once: each copy counted once" \
    121 \
    "$(pg_sql "SELECT c.arrived FROM arrival_copies c JOIN arrival a USING (message_id_sha256) WHERE a.message_id = 's2@seed.example' AND a.copy = 1")"
expect "... the first 16 kept, each copy number had by one" "15 15 2 16" \
    "$(pg_sql "SELECT count(*) || ' ' || count(DISTINCT copy) || ' ' || min(copy) || ' ' || max(copy) FROM arrival WHERE message_id = 's2@seed.example' AND arrived = to_timestamp(1583000000)")"
pg_sql "DELETE FROM arrival WHERE arrived = to_timestamp(1583000000)" \
    >/dev/null

# An unreachable database is said fast, without the password.
printf 'StateFile %s/other.mdb\nStateDatabase host=%s/nowhere dbname=x user=pa password=%s\n' \
    "$T" "$T" "$PG_PASSWORD" >conf-away
"$PATCHATTEST" db status -c conf-away >>"$out" 2>&1
expect "db status of a database away: 2" 2 $?

# mkmail NAME SEED FROM: seed patch SEED (1-7) from FROM as data/NAME.raw
mkmail() {
	{
		echo "Message-ID: <$1@pg.example>"
		echo "From: $3"
		sed -e '/^From: /d' -e '/^Message-ID: /d' \
		    "$(ls "$srcdir"/tests/fixtures/seeds/* | sed -n "$2p")"
	} >"data/$1.raw"
}
# milter NAME [LINE]: a milter with the database (and LINE in its
# configuration), its socket $T/NAME.sock
milter() {
	cat >"$1.conf" <<EOC
${2:-}
IndexPath $T/idx-$1
StateFile $T/$1.mdb
StateDatabase $PG_CONNINFO
StateDatabaseConnectTimeout 3000
PatattTOFU yes
PatattKeyring $T/kr
GnuPGHome $T/gnupg
Socket unix:$T/$1.sock
Syslog no
LogLevel debug
ArchiveRefresh 0
EOC
	[ "$(id -u)" -ne 0 ] || echo "UserID root" >>"$1.conf"
	mkdir -p "idx-$1"
	"$MILTER" -f -c "$1.conf" >"$1.log" 2>&1 &
	eval "pid_$1=\$!"
}
# scenario LUA DEFINE...: miltertest runs tests/milter/LUA
scenario() {
	lua=$1
	shift
	miltertest -D HARNESS="$srcdir/tests/milter/harness.lua" \
	    -D DATA="$T/data" "$@" -s "$srcdir/tests/milter/$lua" \
	    >"$lua.out" 2>&1
}

# Two milters sharing the database, then the database away.  Keys made
# by patatt: dev@example.org's in the keyring; new@example.net's offered
# by the mail only, and another of new@example.net's.
if command -v miltertest >/dev/null 2>&1 && patatt_setup "$T/dev" &&
    patatt_setup "$T/new" && patatt_in_repo git config user.email \
    new@example.net && patatt_setup "$T/new2" &&
    patatt_in_repo git config user.email new@example.net &&
    patatt_setup "$T/x" &&
    patatt_in_repo git config user.email x@example.net; then
	mkdir -p data kr gnupg && chmod 700 gnupg
	cp -R "$T/dev/keyring/." kr/
	# seed 1 is the cover letter
	for i in 1 2 3; do
		mkmail h$i $((i + 1)) "Dev Eloper <dev@example.org>"
	done
	mkmail u4 5 "Dev Eloper <dev@example.org>"
	mkmail n5 6 "New Comer <new@example.net>"
	mkmail n6 7 "New Comer <new@example.net>"
	mkmail tofu 6 "New Comer <new@example.net>"
	mkmail unsigned 7 "Other One <other@example.com>"
	mkmail x7 3 "Dev Eloper <dev@example.org>"
	mkmail soon 4 "Dev Eloper <dev@example.org>"
	PATATT_DIR=$T/dev
	for m in h1 h2 h3 soon; do
		patatt_sign data/$m.raw data/$m.eml
		setup $? "$m signed by patatt" "$T/dev/sign.log"
	done
	PATATT_DIR=$T/new
	patatt_sign data/n5.raw data/n5.eml
	setup $? "n5 signed" "$T/new/sign.log"
	patatt_sign data/tofu.raw data/tofu.eml
	setup $? "tofu signed" "$T/new/sign.log"
	PATATT_DIR=$T/x
	patatt_sign data/x7.raw data/x7.eml
	setup $? "x7 signed by x@example.net's key" "$T/x/sign.log"
	PATATT_DIR=$T/new2
	patatt_sign data/n6.raw data/n6.eml
	setup $? "n6 signed by another key" "$T/new2/sign.log"
	# soon with a space added to its diff's first added line
	sed '0,/^+[^+]/s/^\(+[^+].*\)$/\1 /' data/soon.eml >data/soon-p.eml
	cmp -s data/soon.eml data/soon-p.eml
	setup $((1 - $?)) "soon's diff changed" /dev/null
	# soon-p signed anew by new@example.net (a key the mail offers),
	# with dev's signature of soon beside it, which no longer verifies
	awk 'body { print; next } /^$/ { body = 1 }
	    /^X-Developer-(Signature|Key):/ { skip = 1; next }
	    skip && /^[ \t]/ { next } { skip = 0; print }' data/soon-p.eml \
	    >data/soon-pn.raw
	PATATT_DIR=$T/new
	patatt_sign data/soon-pn.raw data/soon-pn.new
	setup $? "soon-p signed by new@example.net" "$T/new/sign.log"
	awk 'FNR == NR { if (/^$/) done = 1
		if (!done && /^X-Developer-Signature:/) { f = 1; sig = $0; next }
		if (!done && f && /^[ \t]/) { sig = sig "\n" $0; next }
		f = 0; next }
	    !body && /^$/ { print sig; body = 1 } { print }' data/soon.eml \
	    data/soon-pn.new >data/soon-pn.eml
	[ "$(grep -c '^X-Developer-Signature:' data/soon-pn.eml)" -eq 2 ]
	setup $? "soon-pn signed by both" data/soon-pn.eml
	cp data/u4.raw data/u4.eml
	cp data/unsigned.raw data/unsigned.eml
	cat >wait-habit <<EOS
#!/bin/sh
for i in \$(seq 100); do
	[ "\$(PGPASSWORD=$PG_PASSWORD "$PG_BIN/psql" -X -q -t -A -h "$PG_DIR" \\
	    -U pa -d postgres -c "SELECT recent_signed FROM habit WHERE
	    identity = 'dev@example.org'")" = 3 ] && exit 0
	sleep 0.1
done
exit 1
EOS
	chmod +x wait-habit

	milter a
	milter b
	trap 'kill -TERM $pid_a $pid_b $pid_c $pid_r 2>/dev/null; pg_stop; workdir_release' 0
	scenario t-pg-shared.lua -D SOCK_A="unix:$T/a.sock" \
	    -D SOCK_B="unix:$T/b.sock" -D WAIT_HABIT="$T/wait-habit"
	ok $? "two milters sharing the database (t-pg-shared.lua)"
	diag t-pg-shared.lua.out
	# u4's record reaches the database from B's journal within a batch
	both="SELECT count(*) FROM arrival WHERE message_id IN
	    ('h1@pg.example', 'u4@pg.example')"
	i=0
	while [ "$(pg_sql "$both")" != 2 ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	"$PATCHATTEST" arrived -c a.conf data/h1.eml data/u4.eml >arrived-ab \
	    2>&1
	expect "patchattest arrived finds mail from either milter" 0 $?
	diag arrived-ab
	scenario t-pg-soon.lua -D SOCK="unix:$T/a.sock"
	ok $? "a copy sent at once is set beside the first, still in the journal (t-pg-soon.lua)"
	diag t-pg-soon.lua.out

	# What one message asks the database: statements on pins, habits
	# and records, as the server logs them (the sender's, which write
	# records, count their copies by record_id, learn habits FOR
	# UPDATE and write them, left out)
	pg_sql "ALTER SYSTEM SET log_statement = 'all'" >/dev/null &&
	    pg_sql "SELECT pg_reload_conf()" >/dev/null
	setup $? "the server logs each statement" "$out"
	cat >trips <<EOS
#!/bin/sh
# trips start | trips N [TEXT]: N statements on pins, habits and records
# (none with TEXT) logged since start; they are in $T/trips.out
case \$1 in
start)	wc -c <"$PG_DIR/server.log" >"$T/trips.at"
	exit ;;
esac
tail -c +\$((\$(cat "$T/trips.at") + 1)) "$PG_DIR/server.log" |
    grep -E '(statement|execute [^:]*): .*(FROM|INTO) (pins|habit|arrival)' |
    grep -v 'FOR UPDATE' | grep -v 'INSERT INTO habit' |
    grep -v 'INSERT INTO arrival' | grep -v 'WHERE record_id' |
    grep -v 'DELETE FROM arrival' >"$T/trips.out"
[ "\$(wc -l <"$T/trips.out")" -eq "\$1" ] || exit 1
[ -z "\$2" ] || ! grep -q "\$2" "$T/trips.out"
EOS
	chmod +x trips
	milter c "UIDMatch strict"
	scenario t-pg-trips.lua -D SOCK="unix:$T/c.sock" -D TRIPS="$T/trips"
	ok $? "one statement per message (t-pg-trips.lua)"
	diag t-pg-trips.lua.out
	diag trips.out
	kill -TERM $pid_c 2>/dev/null
	wait $pid_c 2>/dev/null
	cat c.log >>"$out"
	pg_sql "ALTER SYSTEM RESET log_statement" >/dev/null &&
	    pg_sql "SELECT pg_reload_conf()" >/dev/null

	# The database away: a key only the mail offers cannot be judged
	# under PatattTOFU, nor an unsigned patch (whose sender's habit is
	# unknown): temperror, OnError's; each reason says what could not be
	# consulted.
	pg_stop
	scenario t-pg-away.lua -D SOCK="unix:$T/a.sock"
	ok $? "a milter with the database away (t-pg-away.lua)"
	diag t-pg-away.lua.out
	grep -q 'arrival records wait in the journal, until it is back' a.log
	ok $? "... and its log says the database went away"
	kill -TERM $pid_a $pid_b 2>/dev/null
	wait $pid_a $pid_b 2>/dev/null
	cat a.log b.log >>"$out"
	pg_restart

	# The database back: the first message after the server answers again
	# is judged, at once after a restart and within a second after 4.3
	# seconds away (t-pg-back.lua); the time it answered is in its log,
	# in UTC.  pgctl stop | start: the server stopped, or started and
	# that time written to ready-at.
	pg_sql "ALTER SYSTEM SET log_timezone = 'UTC'" >/dev/null &&
	    pg_sql "SELECT pg_reload_conf()" >/dev/null
	setup $? "the server logs in UTC" "$out"
	cat >pgctl <<EOS
#!/bin/sh
. "$srcdir/tests/pg-lib.sh"
T=$T PG_DIR=$PG_DIR PG_BIN=$PG_BIN PG_USER=$PG_USER
case \$1 in
stop)	rm -f "$T/ready-at"
	pg_stop ;;
start)	pg_restart || exit 1
	at=\$(grep 'database system is ready to accept connections' \\
	    "$PG_DIR/server.log" | tail -n 1 | cut -d ' ' -f 1-3)
	date -d "\$at" +%s.%N >"$T/ready-at.new" &&
	    mv "$T/ready-at.new" "$T/ready-at" ;;
esac
EOS
	chmod +x pgctl
	milter r
	scenario t-pg-back.lua -D SOCK="unix:$T/r.sock" -D PGCTL="$T/pgctl" \
	    -D LOG="$T/r.log" -D READY="$T/ready-at"
	ok $? "the database back: the first message after it answers is judged (t-pg-back.lua)"
	diag t-pg-back.lua.out
	kill -TERM $pid_r 2>/dev/null
	wait $pid_r 2>/dev/null
	cat r.log >>"$out"
	[ -f "$PG_DIR/data/postmaster.pid" ] || pg_restart
	pg_sql "ALTER SYSTEM RESET log_timezone" >/dev/null &&
	    pg_sql "SELECT pg_reload_conf()" >/dev/null
else
	skip "two milters sharing the database" \
	    "miltertest or patatt is not installed"
	skip "a milter with the database away" \
	    "miltertest or patatt is not installed"
	skip "the database back" "miltertest or patatt is not installed"
fi

# patchattest-milter -n: the database unreachable, a schema of another
# version
# nconf FILE CONNINFO: a configuration -n accepts but for the database
# nconf FILE CONNINFO: a configuration for -n, with time enough to reach
# the database on a loaded machine (what -n says is tested, not how soon)
nconf() {
	mkdir -p idx-n
	printf '%s\n' "StateFile $T/n.mdb" "StateDatabase $2" "Syslog no" \
	    "StateDatabaseConnectTimeout 10000" "StateDatabaseTimeout 10000" \
	    "IndexPath $T/idx-n" \
	    "Socket unix:$T/n.sock" "UserID root" >"$1"
}
nconf conf-n-away "host=$T/nowhere dbname=x user=pa password=$PG_PASSWORD"
"$MILTER" -n -c conf-n-away >n-away 2>&1
rc=$?
expect "milter -n, the database unreachable: refused" 1 "$((rc != 0))"
grep -q 'state database' n-away
ok $? "... and says so"
diag n-away
cat n-away >>"$out"
# ... but the milter starts with it: a node that boots while the database
# is away passes mail (as t-pg-away shows of one where it went away)
"$MILTER" -f -c conf-n-away >away-start.out 2>&1 &
apid=$!
i=0
while [ ! -S "$T/n.sock" ] && kill -0 "$apid" 2>/dev/null &&
    [ $i -lt 200 ]; do
	sleep 0.1
	i=$((i + 1))
done
[ -S "$T/n.sock" ]
ok $? "the milter starts while the database cannot be reached"
kill -TERM "$apid" 2>/dev/null
wait "$apid" 2>/dev/null
diag away-start.out
cat away-start.out >>"$out"
nconf conf-n "$PG_CONNINFO"
pg_sql "UPDATE patchattest_schema SET version = 7" >/dev/null
"$MILTER" -n -c conf-n >n-schema 2>&1
rc=$?
pg_sql "UPDATE patchattest_schema SET version = 2" >/dev/null
expect "milter -n, a schema of another version: refused" 1 \
    "$((rc != 0))"
grep -q 'schema version 7' n-schema
ok $? "... and says which"
diag n-schema
cat n-schema >>"$out"
"$MILTER" -n -c conf-n >n-ok 2>&1
expect "milter -n, the database as it should be: accepted" 0 $?
diag n-ok

# A journal damaged while the database was away (8 KiB of random bytes
# written inside 2,000 records): -n says so; the milter starts, logs the
# damage naming the file, sends every record that can be read, sets the
# rest aside beside it and counts them (its metrics); -n then says what
# waits there to be looked into.
port=$("${PYTHON3:-python3}" -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])' 2>/dev/null)
printf '%s\n' "StateFile $T/dmg.mdb" "StateDatabase $PG_CONNINFO" \
    "ArrivalRetentionDays 0" "Syslog no" "IndexPath $T/idx-n" \
    "Socket unix:$T/dmg.sock" "UserID root" "ArchiveRefresh 0" \
    ${port:+"MetricsListen 127.0.0.1:$port"} >conf-dmg
dmg="SELECT count(*) FROM arrival WHERE arrived = to_timestamp(1584000000)"
# 2,000 mails of their own (copies of one would be kept 16 times only)
mkdir dmg
i=0
while [ $i -lt 2000 ]; do
	sed "s/^Message-ID: <s3@/Message-ID: <dmg$i@/" s3 >dmg/$i
	i=$((i + 1))
done
pg_stop
(cd dmg && "$RECORD" "-c$T/conf-dmg" 1584000000 pass $(ls)) >>"$out" 2>&1
size=$(wc -c <dmg.mdb-outbox)
pg_restart
head -c 8192 /dev/urandom |
    dd of=dmg.mdb-outbox bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
setup $? "2,000 records in the journal ($size bytes), 8 KiB of random \
bytes written at its middle" "$out"
"$MILTER" -n -c conf-dmg >n-dmg 2>&1
expect "milter -n, a damaged journal: refused" 1 "$(($? != 0))"
grep -q "$T/dmg.mdb-outbox is damaged" n-dmg
ok $? "... and says which"
diag n-dmg
"$MILTER" -f -c conf-dmg >dmg.log 2>&1 &
dpid=$!
# the readable records sent: 2,000 less those said to be lost
i=0
while [ $i -lt 300 ] && kill -0 $dpid 2>/dev/null; do
	lost=$(sed -n 's/.*dmg.mdb-outbox was damaged: .* \([0-9]*\) records in them are lost.*/\1/p' dmg.log)
	[ -n "$lost" ] && [ "$(pg_sql "$dmg")" -eq $((2000 - lost)) ] &&
	    break
	sleep 0.1
	i=$((i + 1))
done
kill -0 $dpid 2>/dev/null
ok $? "the milter with a damaged journal runs"
grep -q "the journal of arrival records at $T/dmg.mdb-outbox was damaged: .* set aside in $T/dmg.mdb-outbox-damaged" dmg.log
ok $? "... its log names the journal and where the damage is set aside"
[ -n "$lost" ] && [ "$lost" -ge 1 ] && [ "$lost" -le 60 ]
ok $? "... and how many records were lost (${lost:-none said})"
expect "... every other record sent" $((2000 - ${lost:-0})) \
    "$(pg_sql "$dmg")"
test -s dmg.mdb-outbox-damaged
ok $? "... the damaged bytes kept beside the journal"
if [ -n "$port" ]; then
	"${PYTHON3:-python3}" -c 'import sys, urllib.request
print(urllib.request.urlopen(sys.argv[1]).read().decode())' \
	    "http://127.0.0.1:$port/metrics" >dmg.metrics 2>&1
	expect "... counted in its metrics" "1 ${lost:-none}" \
	    "$(awk '$1 == "patchattest_state_journal_damage_total" { d = $2 }
	    $1 == "patchattest_state_journal_lost_records_total" { l = $2 }
	    END { print d, l }' dmg.metrics)"
else
	skip "... counted in its metrics" "python3 is not installed"
fi
kill -TERM $dpid 2>/dev/null
wait $dpid 2>/dev/null
diag dmg.log
cat dmg.log >>"$out"
"$MILTER" -n -c conf-dmg >n-dmg2 2>&1
expect "milter -n after: refused while the damage waits beside it" 1 \
    "$(($? != 0))"
grep -q "$T/dmg.mdb-outbox-damaged holds" n-dmg2
ok $? "... and says where"
diag n-dmg2

if grep -q -- "$PG_PASSWORD" "$out" "$T"/pg/server.log *.out; then
	ok 1 "the password is in no output"
	grep -- "$PG_PASSWORD" "$out" | sed 's/^/#   /'
else
	ok 0 "the password is in no output"
fi

tap_end
