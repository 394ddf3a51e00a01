#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# t-stats - "patchattest stats" over arrival records the milter's way
# (tests/replay-record: the decider, signer memory and the ledger): seed
# patches signed by the real patatt with a key of the keyring (pass), by
# a key the keyring has not (nokey, the key offered), one unsigned from a
# habitual signer (unsigned-by-signer), one from nobody (none), over two
# days and two List-Ids; the text and the JSON against those counts,
# --since, --days, an empty ledger, StateFile off, a damaged ledger,
# records whose fields hold what a terminal obeys (escaped), a flood of
# List-Ids (the table capped, exit 1).  Skips without patatt.

: "${srcdir:=.}"
: "${top_builddir:=.}"
. "$srcdir/tests/tap.sh"
. "$srcdir/tests/patatt-lib.sh"
srcdir=$(cd "$srcdir" && pwd)
top_builddir=$(cd "$top_builddir" && pwd)
PATCHATTEST=${PATCHATTEST:-$top_builddir/patchattest}
REPLAY="$top_builddir/tests/replay-record"
RECORD="$top_builddir/tests/arrival-record"
LEDGER_DUMP="$top_builddir/tests/ledger-dump"
PY=${PYTHON3:-python3}
workdir_make t-stats
cd "$T" || exit 1

if ! patatt_setup "$T/dev"; then
	echo "1..0 # SKIP patatt or git is not installed"
	exit 0
fi
DEV=$PATATT_DIR
patatt_setup "$T/new" && patatt_in_repo git config user.email new@example.net
setup $? "a second patatt key, for new@example.net" "$T/new/genkey.log"
NEW=$PATATT_DIR
newkey=$(cat "$NEW/home/.local/share/patatt/public/t1.pub")

mkdir -p corpus/messages corpus/patatt-keys corpus/kernel-keyring
cp -R "$DEV/keyring/." corpus/patatt-keys/

# mail N SEED FROM LIST DAY TIME: seed patch SEED (1-6) as message N,
# from FROM, to the list LIST, dated DAY TIME (UTC), unsigned, in mN
mail() {
	seed=$(ls "$srcdir"/tests/fixtures/seeds/* | sed -n "$(($2 + 1))p")
	{
		echo "Message-ID: <m$1@stats.example>"
		echo "List-Id: $4 <$4.lists.example.org>"
		echo "From: $3"
		echo "Date: $5 $6 +0000"
		sed -e '/^From: /d' -e '/^Date: /d' "$seed"
	} >m$1
}

# sign N WHO EPOCH: mN signed by WHO's key (DEV or NEW) at EPOCH into the
# corpus as message N
sign() {
	PATATT_DIR=$2
	patatt_sign_at "$3" "m$1" "corpus/messages/0000$1.eml"
	setup $? "m$1 signed" "$PATATT_DIR/sign.log"
}

# 2020-03-02 is 1583107200.
mail 1 1 'Dev Eloper <dev@example.org>' alpha 'Mon, 2 Mar 2020' 10:00:00
mail 2 2 'Dev Eloper <dev@example.org>' alpha 'Mon, 2 Mar 2020' 11:00:00
mail 3 3 'Dev Eloper <dev@example.org>' alpha 'Mon, 2 Mar 2020' 12:00:00
mail 4 4 'New Comer <new@example.net>' beta 'Mon, 2 Mar 2020' 13:00:00
mail 5 5 'Dev Eloper <dev@example.org>' alpha 'Tue, 3 Mar 2020' 09:00:00
mail 6 6 'New Comer <new@example.net>' alpha 'Tue, 3 Mar 2020' 10:30:00
mail 7 2 'Other One <other@example.com>' beta 'Tue, 3 Mar 2020' 11:00:00
sign 1 "$DEV" 1583143200
sign 2 "$DEV" 1583146800
sign 3 "$DEV" 1583150400
sign 4 "$NEW" 1583154000
cp m5 corpus/messages/00005.eml
sign 6 "$NEW" 1583231400
cp m7 corpus/messages/00007.eml
grep -q "^ pk=$newkey" corpus/messages/00004.eml
setup $? "patatt offers its key in the mail" /dev/null

"$REPLAY" corpus "$T" 3 >replay.out 2>replay.err
setup $? "the mail decided and recorded" replay.err
expect "the verdicts as recorded (result, patatt's)" \
    "pass/pass pass/pass pass/pass nokey/nokey unsigned-by-signer/ nokey/nokey none/" \
    "$(cut -f 2,3 replay.out | tr '\t\n' '/ ' | sed 's/ $//')"

printf 'StateFile %s/state.mdb\n' "$T" >conf

stats() {
	"$PATCHATTEST" stats "$@" >out 2>err
	rc=$?
}

stats -c conf
expect "text: exit 0" 0 "$rc"
expect "text: the heading" \
    "Arrival records in $T/state.mdb: 7, arrived from 2020-03-02T10:00:00Z to 2020-03-03T11:00:00Z" \
    "$(sed -n 1p out)"
# the day table: its rows, blanks squeezed
sed -n '/^Mails by day/,/^$/p' out | sed '1d;$d' | tr -s ' ' >days
expect "text: the day and List-Id table" \
    "DAY LIST-ID MAILS pass nokey unsigned-by-signer none|2020-03-02 alpha <alpha.lists.example.org> 3 3 0 0 0|2020-03-02 beta <beta.lists.example.org> 1 0 1 0 0|2020-03-03 alpha <alpha.lists.example.org> 2 0 1 1 0|2020-03-03 beta <beta.lists.example.org> 1 0 0 0 1" \
    "$(paste -s -d '|' days)"
sed -n '/^KEYRING PATH inside/,/^$/p' out | sed '1d;$d' >nokey
expect "text: the nokey identities, with the keyring path and the key offered" \
    "MAILS LAST IDENTITY KEYRING PATH KEY OFFERED|2 2020-03-03T10:30:00Z new@example.net ed25519/example.net/new/t1 $newkey" \
    "$(tr -s ' ' <nokey | sed 's/^ //' | paste -s -d '|')"
# aligned: each column starts where its title does
col=$(sed -n 1p nokey | awk '{ print index($0, "KEYRING PATH") }')
expect "text: the columns are aligned" "$col" \
    "$(sed -n 2p nokey | awk '{ print index($0, "ed25519/") }')"
sed -n '/^Habitual signers/,/^$/p' out | sed '1d;$d' | tr -s ' ' |
    sed 's/^ //' >unsigned
expect "text: the habitual signer now unsigned, with the key of the habit" \
    "MAILS LAST IDENTITY HABIT KEY|1 2020-03-03T09:00:00Z dev@example.org ed25519/example.org/dev/t1" \
    "$(paste -s -d '|' unsigned)"

stats -c conf --json
expect "--json: exit 0" 0 "$rc"
"$PY" -m json.tool out >/dev/null 2>json.err
ok $? "--json: python3 -m json.tool accepts it"
diag json.err
expect "--json: the counts" \
    "7 None 2020-03-02T10:00:00Z 2020-03-03T11:00:00Z|2020-03-02 alpha <alpha.lists.example.org> 3 pass=3,nokey=0,unsigned-by-signer=0,none=0|2020-03-02 beta <beta.lists.example.org> 1 pass=0,nokey=1,unsigned-by-signer=0,none=0|2020-03-03 alpha <alpha.lists.example.org> 2 pass=0,nokey=1,unsigned-by-signer=1,none=0|2020-03-03 beta <beta.lists.example.org> 1 pass=0,nokey=0,unsigned-by-signer=0,none=1|new@example.net 2 2020-03-03T10:30:00Z ed25519-sha256 t1 ed25519/example.net/new/t1 $newkey|dev@example.org 1 2020-03-03T09:00:00Z ed25519/example.org/dev/t1|0 0 0 0" \
    "$("$PY" -c '
import json
o = json.load(open("out"))
print(o["mails"], o["since"], o["first"], o["last"])
for d in o["days"]:
	print(d["day"], d["list_id"], d["mails"],
	    ",".join("%s=%d" % kv for kv in d["results"].items()))
for k in o["nokey"]:
	print(k["identity"], k["mails"], k["last"], k["algo"], k["selector"],
	    k["keyring_path"], k["key_offered"])
for u in o["unsigned_by_signer"]:
	print(u["identity"], u["mails"], u["last"], u["habit_key"])
c = o["capped"]
print(c["days"], c["results"], c["nokey"], c["unsigned_by_signer"])
' | paste -s -d '|')"

stats -c conf --since 2020-03-03 --json
expect "--since: only the second day" "3 2020-03-03T00:00:00Z 1 1" \
    "$("$PY" -c '
import json
o = json.load(open("out"))
print(o["mails"], o["since"], o["nokey"][0]["mails"], len(o["days"]) - 1)')"
stats -c conf --days 1
expect "--days 1: none of 2020's records" \
    "Arrival records in $T/state.mdb since $(date -u +%Y-%m-%d)T00:00:00Z: none" \
    "$(sed -n 1p out)"
expect "--days 1: the tables say none" 4 "$(grep -c '^(none)$' out)"
stats -c conf --days 1 --json
"$PY" -m json.tool out >/dev/null 2>&1
ok $? "--days 1 --json: an empty report parses"
stats -c conf --top 0 --since 2020-02-30
expect "a date that is none: exit 2" 2 "$rc"
stats -c conf --since 2020-03-03 --days 2
expect "--since with --days: exit 2" 2 "$rc"
stats -c conf extra
expect "an operand: exit 2" 2 "$rc"

# An empty ledger: made, nothing recorded.
mkdir -p empty/messages empty/patatt-keys empty/kernel-keyring
"$REPLAY" empty "$T/empty" 3 >/dev/null 2>rec.err
setup $? "an empty ledger made" rec.err
printf 'StateFile %s/empty/state.mdb\n' "$T" >conf-empty
stats -c conf-empty --json
expect "an empty ledger: exit 0" 0 "$rc"
expect "an empty ledger: no mails, no rows" "0 0 0 0" "$("$PY" -c '
import json
o = json.load(open("out"))
print(o["mails"], len(o["days"]), len(o["nokey"]),
    len(o["unsigned_by_signer"]))')"

printf 'StateFile ""\n' >conf-off
stats -c conf-off
expect "StateFile off: exit 2" 2 "$rc"
grep -q "no StateFile" err
ok $? "StateFile off: said so"
printf 'StateFile %s/none.mdb\n' "$T" >conf-none
stats -c conf-none
expect "no ledger: exit 2" 2 "$rc"
grep -q "none.mdb" err
ok $? "no ledger: the file is named"

# A damaged ledger: a byte of a record flipped in the file (in each page
# that holds it), inside its hash i, which the file keeps as its 32 bytes
# (its text is deflated)
cp state.mdb flip.mdb
"$LEDGER_DUMP" state.mdb m3@stats.example >dump 2>&1
setup $? "the record of m3" dump
"$PY" -c '
import sys
data = bytearray(open("flip.mdb", "rb").read())
text = bytes.fromhex(sys.argv[1])
i = data.find(text)
while i >= 0:
	data[i + 4] ^= 0x20
	i = data.find(text, i + 1)
open("flip.mdb", "wb").write(data)' "$(sed -n 's/^i	//p' dump)"
cmp -s state.mdb flip.mdb
setup $((1 - $?)) "a record's byte flipped" /dev/null
printf 'StateFile %s/flip.mdb\n' "$T" >conf-flip
stats -c conf-flip
expect "a damaged record: exit 2" 2 "$rc"
grep -q "is damaged" err
ok $? "a damaged record: said so ($(cat err))"
expect "a damaged record: no report" "" "$(cat out)"
head -c 65536 /dev/urandom >random.mdb
printf 'StateFile %s/random.mdb\n' "$T" >conf-random
stats -c conf-random
expect "a file of random bytes: exit 2" 2 "$rc"

# Records written from hostile mail: ESC and CSI, CR, BEL, C1 controls as
# UTF-8 (U+0085, U+009B), a bare 0x9b byte, bytes that are not UTF-8, a
# tab and a line end in the List-Id, the identity, the key of its habit,
# the key offered, and a result with CSI (a column's title).  Each is
# escaped in the tables: no control byte nor invalid UTF-8 reaches the
# terminal, no tab, every row one line; --json stays valid.
bad=$(printf 'x\033[2K\rOWNED\302\205\302\233\233\377\300\200\tT\nN\007y')
esc='x\x1b[2K\x0dOWNED\xc2\x85\xc2\x9b\x9b\xff\xc0\x80\x09T\x0aN\x07y'
badresult=$(printf 'pass\033[2J\233')
mkdir hostile
for i in 1 2 3 4; do
	{ printf 'Message-ID: <h%d@stats.example>\n' $i
	    cat "$(ls "$srcdir"/tests/fixtures/seeds/* | sed -n "$((i + 1))p")"
	} >hostile/$i
done
"$RECORD" "-s$bad,$bad" "-flist_id=$bad" hostile.mdb 1583107200 pass \
    hostile/1 >rec.err 2>&1 &&
    "$RECORD" "-s$bad," hostile.mdb 1583107300 \
    "nokey,ed25519-sha256,t1,$bad" hostile/2 >>rec.err 2>&1 &&
    "$RECORD" "-s$bad," hostile.mdb 1583107400 unsigned-by-signer \
    hostile/3 >>rec.err 2>&1 &&
    "$RECORD" hostile.mdb 1583107500 "$badresult" hostile/4 >>rec.err 2>&1
setup $? "records of hostile bytes written" rec.err
printf 'StateFile %s/hostile.mdb\n' "$T" >conf-hostile
stats -c conf-hostile
expect "hostile bytes: exit 0" 0 "$rc"
"$PY" -c '
import re, sys
text = open("out", "rb").read().decode("utf-8")
sys.exit(re.search("[\x00-\x09\x0b-\x1f\x7f-\x9f]", text) is not None)'
ok $? "hostile bytes: stdout is UTF-8 without a control byte but LF"
expect "hostile bytes: the result's name escaped in the title" \
    "DAY LIST-ID MAILS pass nokey unsigned-by-signer pass\\x1b[2J\\x9b" \
    "$(sed -n '/^Mails by day/{n;p;}' out | tr -s ' ')"
expect "hostile bytes: the List-Id escaped, one row a List-Id" \
    "2020-03-02 - 3|2020-03-02 $esc 1" \
    "$(sed -n '/^Mails by day/,/^$/p' out | sed '1,2d;$d' | tr -s ' ' |
    cut -d ' ' -f 1-3 | paste -s -d '|')"
expect "hostile bytes: identity and key offered escaped" \
    "1 2020-03-02T00:01:40Z $esc - $esc" \
    "$(sed -n '/^KEYRING PATH inside/,/^$/p' out | sed -n 3p | tr -s ' ' |
    sed 's/^ //')"
expect "hostile bytes: identity and habit key escaped" \
    "1 2020-03-02T00:03:20Z $esc $esc" \
    "$(sed -n '/^Habitual signers/,$p' out | sed -n 3p | tr -s ' ' |
    sed 's/^ //')"
stats -c conf-hostile --json
"$PY" -c '
import json
o = json.load(open("out"))
want = "x[2KOWNED\\xc2\\x85\\xc2\\x9b\\x9b\\xff\\xc0\\x80TNy"
assert [d["list_id"] for d in o["days"]] == ["", want]
assert o["nokey"][0]["identity"] == o["nokey"][0]["key_offered"] == want
assert o["unsigned_by_signer"][0]["habit_key"] == want
assert "pass[2J\\x9b" in o["days"][0]["results"]'
ok $? "hostile bytes: --json parses, control bytes dropped, the others named"

# A flood of List-Ids: 2,100 mails of one day, each to its own list;
# the table keeps 2,048 rows and says that 52 mails are not in it.
i=0
mkdir flood
while [ $i -lt 2100 ]; do
	printf 'Message-ID: <f%d@stats.example>\nList-Id: <l%d.example>\nSubject: x\n\nx\n' \
	    $i $i >flood/$i
	i=$((i + 1))
done
(cd flood && "$RECORD" ../flood.mdb 1583107200 none $(ls)) >rec.err 2>&1
setup $? "2,100 mails recorded" rec.err
printf 'StateFile %s/flood.mdb\n' "$T" >conf-flood
stats -c conf-flood
expect "a flood of List-Ids: exit 1" 1 "$rc"
expect "... 2,048 rows" 2048 "$(grep -c '^2020-03-02  ' out)"
grep -q "^Capped: 52 records are not counted here" out
ok $? "... said to be capped"
stats -c conf-flood --json
expect "... --json says so" "1 52 2048" "$("$PY" -c '
import json
o = json.load(open("out"))
print(o["mails"] // 2100, o["capped"]["days"], len(o["days"]))')"

# A Message-ID that arrived with other content: m1 again with its diff
# changed, from a host of its own, and m2 again the same (no alarm).
sed 's/^+ \*  exec-none : only PROT_EXEC/+ *  exec-none : any PROT_EXEC/' \
    m1 >m1-forged
cmp -s m1 m1-forged
setup $((1 - $?)) "m1 with its diff changed" /dev/null
{
	"$RECORD" copies.mdb 1583107200 pass m1 m2 &&
	"$RECORD" -fhost='mx.attacker.example [203.0.113.9]' copies.mdb \
	    1583110800 none m1-forged &&
	"$RECORD" copies.mdb 1583114400 pass m2
} >rec.err 2>&1
setup $? "a differing copy and a copy the same recorded" rec.err
printf 'StateFile %s/copies.mdb\n' "$T" >conf-copies
stats -c conf-copies
sed -n '/^Message-IDs that arrived with differing content/,$p' out |
    sed '1,2d' | tr -s ' ' | sed 's/^ //' >differing
expect "the Message-IDs that arrived with differing content" \
    "COPIES LAST MESSAGE-ID LAST HOST|1 2020-03-02T01:00:00Z m1@stats.example mx.attacker.example [203.0.113.9]" \
    "$(paste -s -d '|' differing)"
stats -c conf-copies --json
expect "... --json" "m1@stats.example 1 2020-03-02T01:00:00Z mx.attacker.example [203.0.113.9] 1 0" \
    "$("$PY" -c '
import json
o = json.load(open("out"))
for d in o["differing_copies"]:
	print(d["message_id"], d["copies"], d["last"], d["last_host"],
	    o["differing_message_ids"], o["capped"]["differing_copies"])')"

tap_end
