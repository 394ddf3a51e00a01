#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# t-pg-nodes - two MX nodes, each a private Postfix (tests/postfix-lib.sh)
# with its own patchattest-milter, sharing one PostgreSQL of the test's
# own (tests/pg-lib.sh): a key pinned on first use through node A is
# enforced on node B; a signing habit learnt through A flags an unsigned
# patch in its signer's name on B; patchattest arrived finds mail that
# came through either.  Then a stream of patches to both nodes while
# PostgreSQL is stopped and started again: every message is delivered
# with one X-Patch-Attested header, and once the database is back the
# arrival rows count exactly the messages sent.  Keys are made by
# patatt.  Skips without root and Postfix, PostgreSQL, patatt or python3.
# NODES_COUNT sets the stream's messages per node (default 150).

: "${PATCHATTEST:?PATCHATTEST must name the built binary}"
: "${srcdir:=.}"
: "${top_builddir:=.}"
. "$srcdir/tests/tap.sh"
. "$srcdir/tests/pg-lib.sh"
. "$srcdir/tests/patatt-lib.sh"
. "$srcdir/tests/postfix-lib.sh"
srcdir=$(cd "$srcdir" && pwd)
MILTER=${PATCHATTEST_MILTER:-$top_builddir/patchattest-milter}
COUNT=${NODES_COUNT:-150}
PYTHON3=${PYTHON3:-python3}

if ! pf_usable; then
	echo "1..0 # SKIP $PF_WHY"
	exit 0
fi
workdir_make t-pg-nodes
cd "$T" || exit 1
pg_need
if ! patatt_setup "$T/dev" || ! patatt_setup "$T/new" ||
    ! patatt_in_repo git config user.email new@example.net ||
    ! patatt_setup "$T/new2" ||
    ! patatt_in_repo git config user.email new@example.net; then
	echo "1..0 # SKIP patatt or git is not installed"
	exit 0
fi

# node X: PF_* and MILTER_* of node X (a or b) in force; save X: kept
node() {
	eval "PF_DIR=\$pfdir_$1 PF_PORT=\$pfport_$1 PF_MAILDIR=\$pfmail_$1" \
	    "PF_MASTER=\$pfmaster_$1"
}
save() {
	eval "pfdir_$1=\$PF_DIR pfport_$1=\$PF_PORT pfmail_$1=\$PF_MAILDIR" \
	    "pfmaster_$1=\$PF_MASTER"
}
LOADERS=
cleanup() {
	[ -z "$LOADERS" ] || kill $LOADERS 2>/dev/null
	for x in a b; do
		node $x
		pf_stop
	done
	[ -z "$pid_a$pid_b" ] || milter_stop $pid_a $pid_b
	pg_stop
	workdir_release
}
trap cleanup 0
trap 'exit 1' HUP INT TERM

printf 'StateDatabase %s\n' "$PG_CONNINFO" >db.conf
"$PATCHATTEST" db init -c db.conf >db.out 2>&1
setup $? "patchattest db init" db.out

# Patches of our own (none in any archive): NAME N FROM as NAME.raw
mkpatch() {
	cat >"$1.raw" <<EOM
From: $3
To: list@example.org
Subject: [PATCH] file$2: add line $2
Date: Mon, 2 Mar 2020 10:00:00 +0000
Message-ID: <$1@nodes.example>

Add line $2 to file$2, for the test of two nodes.

Signed-off-by: $3
---
 file$2 | 1 +
 1 file changed, 1 insertion(+)

diff --git a/file$2 b/file$2
index 8baef1b..0c8d5f7 100644
--- a/file$2
+++ b/file$2
@@ -1 +1,2 @@
 line
+line $2
-- 
2.39.2
EOM
}
for i in 1 2 3; do
	mkpatch h$i $i "Dev Eloper <dev@example.org>"
done
mkpatch u4 4 "Dev Eloper <dev@example.org>"
mkpatch n5 5 "New Comer <new@example.net>"
mkpatch n6 6 "New Comer <new@example.net>"
PATATT_DIR=$T/dev
for m in h1 h2 h3; do
	patatt_sign $m.raw $m.eml
	setup $? "$m signed by patatt" "$T/dev/sign.log"
done
PATATT_DIR=$T/new
patatt_sign n5.raw n5.eml
setup $? "n5 signed by a key the mail offers" "$T/new/sign.log"
PATATT_DIR=$T/new2
patatt_sign n6.raw n6.eml
setup $? "n6 signed by another key of the same identity" "$T/new2/sign.log"
cp u4.raw u4.eml

# --- the nodes -------------------------------------------------------------
mkdir -p kr gnupg && chmod 700 gnupg
cp -R "$T/dev/keyring/." kr/
pid_a= pid_b=
for x in a b; do
	mkdir -p "$x/index"
	cat >"$x.conf" <<EOC
IndexPath $T/$x/index
StateFile $T/$x/state.mdb
StateDatabase $PG_CONNINFO
StateDatabaseConnectTimeout 3000
PatattTOFU yes
PatattKeyring $T/kr
GnuPGHome $T/gnupg
UserID root
UMask 000
Syslog no
ArchiveRefresh 0
EOC
	milter_socket "$T" unix "milter-$x"
	milter_start "$T/$x/milter.log" "$MILTER" -f -c "$T/$x.conf" \
	    -p "$MILTER_SOCK"
	setup $? "milter $x" "$T/$x/milter.log"
	eval "pid_$x=\$MILTER_PID"
	MILTER_PID=
	pf_start "$T/pf-$x" "$MILTER_PF"
	setup $? "Postfix $x" "$T/pf-$x/log/postfix.log"
	save $x
done

# through X NAME: NAME.eml through node X's Postfix; its X-Patch-Attested
# as delivered (unfolded), once it is
through() {
	node "$1"
	n=$(pf_delivered)
	"$PYTHON3" "$srcdir/tests/smtp-load.py" send --port "$PF_PORT" \
	    --sessions 1 --count 1 --tag "$2" --id-header X-Load-ID \
	    "$T/$2.eml" >"$2.send" 2>&1
	pf_wait_delivered $((n + 1)) 60
	f=$(grep -l "^X-Load-ID: <0.$2@load.test>" "$PF_MAILDIR"/new/* |
	    head -n 1)
	[ -n "$f" ] && hdr_block "$f" | sed -n 's/^X-Patch-Attested: //p'
}

for m in h1 h2 h3; do
	v=$(through a $m)
	expect "A: $m, signed by a key of the keyring, passes" pass "${v%%;*}"
done
i=0
while [ "$(pg_sql "SELECT recent_signed FROM habit WHERE identity = 'dev@example.org'")" != 3 ] &&
    [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
v=$(through b u4)
expect "B: an unsigned patch of the habitual signer A saw" \
    unsigned-by-signer "${v%%;*}"
echo "#   $v"
v=$(through a n5)
expect "A: a key only the mail offers, first used: pass" pass "${v%%;*}"
v=$(through b n6)
expect "B: another key for that identity: fail" fail "${v%%;*}"
echo "#   $v"
expect "... the pin is A's" 1 "$(pg_sql "SELECT count(*) FROM pins WHERE identity = 'new@example.net'")"
# A node sends its records to the database in batches, after the mail
# has gone on: the last one may take a moment to be there.
for x in a b; do
	i=0 st=1
	while [ $st -ne 0 ] && [ $i -lt 100 ]; do
		[ $i -gt 0 ] && sleep 0.1
		"$PATCHATTEST" arrived -c "$x.conf" h1.eml u4.eml n5.eml \
		    n6.eml >"arrived-$x" 2>&1
		st=$?
		i=$((i + 1))
	done
	expect "patchattest arrived on $x finds the mail of both nodes" 0 $st
	diag "arrived-$x"
done

# --- a stream to both while PostgreSQL goes away and comes back ----------
mkdir tpl
for f in "$srcdir"/tests/fixtures/seeds/00[2-7]-*.patch; do
	cp "$f" "tpl/$(basename "$f")"
done
for x in a b; do
	node $x
	eval "before_$x=\$(pf_delivered)"
	"$PYTHON3" "$srcdir/tests/smtp-load.py" send --port "$PF_PORT" \
	    --sessions 4 --count "$COUNT" --tag "stream-$x" \
	    --out "$T/stream-$x.tsv" tpl/* >"stream-$x.out" 2>&1 &
	LOADERS="$LOADERS $!"
done
# answered - how many messages node a has answered
answered() {
	[ -f stream-a.tsv ] && wc -l <stream-a.tsv | tr -d ' ' || echo 0
}
i=0
while [ "$(answered)" -lt $((COUNT / 4)) ] && [ $i -lt 600 ]; do
	sleep 0.1
	i=$((i + 1))
done
pg_stop
echo "# PostgreSQL stopped after $(answered) messages through A"
i=0
while [ "$(answered)" -lt $((COUNT * 3 / 4)) ] && [ $i -lt 600 ]; do
	sleep 0.1
	i=$((i + 1))
done
pg_restart
echo "# PostgreSQL started again after $(answered) messages through A"
st=0
for p in $LOADERS; do
	wait "$p" || st=1
done
LOADERS=
expect "every message of the stream accepted by both nodes" 0 "$st"
for x in a b; do
	node $x
	eval "want=\$((before_$x + COUNT))"
	pf_wait_delivered "$want" 120
	expect "$x: every message delivered" "$want" "$(pf_delivered)"
	bad=0
	for f in $(grep -l "@load.test>" "$PF_MAILDIR"/new/*); do
		[ "$(hdr_block "$f" | grep -c '^X-Patch-Attested: ')" -eq 1 ] ||
		    bad=$((bad + 1))
	done
	expect "$x: each with one X-Patch-Attested header" 0 "$bad"
	expect "$x: the stream's messages carry it" "$COUNT" \
	    "$(grep -l '^X-Patch-Attested: ' $(grep -l "stream-$x@load.test>" \
	    "$PF_MAILDIR"/new/*) | wc -l | tr -d ' ')"
done
grep -h -o 'could not be consulted: [^"]*' "$PF_MAILDIR"/new/* 2>/dev/null |
    sort | uniq -c | sed 's/^/#   /' | head -n 3
i=0
count() {
	pg_sql "SELECT count(*) FROM arrival WHERE message_id LIKE '%.stream-_@load.test'"
}
while [ "$(count)" != $((2 * COUNT)) ] && [ $i -lt 300 ]; do
	sleep 0.1
	i=$((i + 1))
done
expect "once the database is back, the arrival rows count the messages sent" \
    $((2 * COUNT)) "$(count)"
expect "... each Message-ID once" 0 "$(pg_sql "SELECT count(*) FROM (SELECT message_id FROM arrival WHERE message_id LIKE '%@load.test' GROUP BY message_id HAVING count(*) > 1) d")"
grep -h 'state database' a/milter.log b/milter.log | sed 's/^/#   /' |
    head -n 4
if grep -q -- "$PG_PASSWORD" a/milter.log b/milter.log; then
	ok 1 "the password is in no log"
else
	ok 0 "the password is in no log"
fi

tap_end
