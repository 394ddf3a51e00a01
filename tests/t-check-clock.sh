#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# t-check-clock - "patchattest check" judges a mail the StateFile recorded
# as of its arrival, not as of today: seed 002 signed by the real patatt
# tool 60 days ago (StalenessDays 30) and recorded (tests/arrival-record)
# an hour later passes, and its reason names that arrival; the same mail
# under a Message-ID never recorded is stale as of now, and says so; a
# copy of it sent again today (a replay) leaves the first arrival's time;
# an attacker's other content recorded under the Message-ID before it
# gives no time; --header is the milter's header, with nothing of ours;
# with no StateFile, or one that cannot be read (said on standard error),
# the mail is judged as of now.  Skips without patatt and git.

: "${srcdir:=.}"
: "${top_builddir:=.}"
. "$srcdir/tests/tap.sh"
srcdir=$(cd "$srcdir" && pwd)
top_builddir=$(cd "$top_builddir" && pwd)
PATCHATTEST=${PATCHATTEST:-$top_builddir/patchattest}
RECORD="$top_builddir/tests/arrival-record"
workdir_make t-check-clock
cd "$T" || exit 1

. "$srcdir/tests/patatt-lib.sh"
now=$(date +%s)
signed=$((now - 60 * 86400))
arrived=$((signed + 3600))
if ! patatt_setup "$T/patatt" || ! patatt_sign_at "$signed" \
    "$srcdir"/tests/fixtures/seeds/002-*.patch signed.eml; then
	echo "1..0 # SKIP patatt or git is not installed, or patatt failed"
	exit 0
fi

# The Message-ID goes on top after signing: patatt signs From and
# Subject, so that a.eml and b.eml carry one signature.
for id in a b; do
	{ echo "Message-ID: <clock-$id@example.org>"; cat signed.eml; } >$id.eml
done
sed 's/^+ \* The decision process/+ * The decisive process/' a.eml >evil.eml
cmp -s a.eml evil.eml
setup $((1 - $?)) "the attacker's copy differs" /dev/null
mkdir -m 700 gnupg
conf() {
	printf 'PatattKeyring %s\nIndexPath %s\nGnuPGHome %s\nStateFile %s\n' \
	    "$T/patatt/keyring" "$T/index" "$T/gnupg" "$2" >"$1"
}
conf conf "$T/state.mdb"
conf conf-off '""'
conf conf-missing "$T/missing.mdb"
conf conf-bad "$T/bad.mdb"
printf 'not a ledger\n' >bad.mdb

# The attacker's other content first, an hour before the signature: its
# time would make the signature one from after the arrival (stale).
"$RECORD" state.mdb $((signed - 3600)) fail evil.eml >rec.err 2>&1 &&
    "$RECORD" state.mdb "$arrived" pass,ed25519-sha256,t1 a.eml \
    >>rec.err 2>&1
setup $? "an attacker's copy and the mail recorded" rec.err

# check ARGS...: the command's stdout in out, stderr in err, status rc
check() {
	"$PATCHATTEST" check "$@" >out 2>err
	rc=$?
}

# field N: field N of the line of out
field() {
	cut -f "$1" out
}

when() {
	date -u -d "@$1" +%Y-%m-%dT%H:%M:%SZ
}

check -c conf a.eml
expect "signed 60 days ago, recorded an hour later: pass (not judged at the attacker's copy recorded before it)" \
    "pass 0" "$(field 2) $rc"
expect "the reason names the arrival it was judged at" \
    "as of its arrival here, $(when "$arrived")" "$(field 5)"

check -c conf b.eml
expect "the same mail never recorded: stale, as of now" "stale 1" \
    "$(field 2) $rc"
case $(field 5) in
"signed 60 days before the mail arrived (StalenessDays 30); as of now, "*": no copy with this content arrived here")
	ok 0 "its reason says the clock is now, and why" ;;
*)
	ok 1 "its reason says the clock is now, and why"
	diag out ;;
esac

check -c conf --header a.eml
expect "--header: the header the milter gave, with nothing of ours" \
    "X-Patch-Attested: pass; scheme=patatt; attid=2a02abe0-215cf3f1-2acb5798;" \
    "$(head -n 1 out)"
grep -q 'as of' out
expect "--header: no word of the clock" 1 $?

# A copy of the mail sent again today, and recorded: the first counts.
"$RECORD" state.mdb "$now" stale,ed25519-sha256,t1 a.eml >rec.err 2>&1
setup $? "the mail recorded again today" rec.err
check -c conf a.eml
expect "sent again today: still pass, as of the first arrival" \
    "pass 0 as of its arrival here, $(when "$arrived") (the first of 2 copies with this content)" \
    "$(field 2) $rc $(field 5)"

check -c conf evil.eml
expect "the attacker's copy: what it is (fail), whatever its time" \
    "fail 1" "$(field 2) $rc"

for c in off missing; do
	check -c conf-$c a.eml
	expect "StateFile $c: stale as of now, no word on standard error" \
	    "stale 1 0" "$(field 2) $rc $(wc -c <err)"
	case $(field 5) in
	*"; as of now, "*": no arrival records are kept here")
		ok 0 "StateFile $c: the reason says so" ;;
	*)
		ok 1 "StateFile $c: the reason says so"
		diag out ;;
	esac
done

check -c conf-bad a.eml b.eml
expect "a StateFile that cannot be read: judged as of now" "stale stale 1" \
    "$(field 2 | tr '\n' ' ')$rc"
grep -c 'bad.mdb.*mail is judged as of now, not as of its arrival' err \
    >count
expect "... said once on standard error" 1 "$(cat count)"
case $(sed -n 1p out | cut -f 5) in
*"; as of now, "*": the arrival records cannot be read")
	ok 0 "... and in the reason" ;;
*)
	ok 1 "... and in the reason"
	diag out ;;
esac

tap_end
