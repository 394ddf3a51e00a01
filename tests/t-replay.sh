#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# t-replay.sh - the corpus of list mail through the milter in a private
# Postfix, then "patchattest arrived" on it and on b4's output:
#   1. every message, in the order the list archived it, in one SMTP
#      session, byte for byte (tests/replay-corpus.py send); then every
#      patch mail, cover letter and signed mail of the corpus is
#      identical to its arrival record, found by its Message-ID;
#   2. a series of the corpus whose patches all arrived, its thread made
#      into an mbox and given to "b4 am" offline: each patch b4 writes is
#      identical, or identical but for the trailers b4 added (named); one
#      line of a commit message changed differs in the commit message,
#      one line of the diff in the diff.
#
# CORPUS is $PATCHATTEST_CORPUS/linux-leds, else
# $srcdir/../shared/corpus/linux-leds.  Needs it, root, postfix and b4;
# says it skipped otherwise.  PA_TEST_KEEP=1 keeps the temporary folder.

: "${PATCHATTEST:?PATCHATTEST must name the built binary}"
: "${srcdir:=.}"
: "${top_builddir:=.}"
srcdir=$(cd "$srcdir" && pwd)
top_builddir=$(cd "$top_builddir" && pwd)
MILTER=${PATCHATTEST_MILTER:-$top_builddir/patchattest-milter}
REPLAY="$srcdir/tests/replay-corpus.py"
. "$srcdir/tests/postfix-lib.sh"

if [ -n "${PATCHATTEST_CORPUS:-}" ]; then
	CORPUS=$PATCHATTEST_CORPUS/linux-leds
else
	CORPUS=$srcdir/../shared/corpus/linux-leds
fi
if [ ! -d "$CORPUS/messages" ]; then
	echo "1..0 # SKIP no corpus: $CORPUS not found (set" \
	    "PATCHATTEST_CORPUS to the folder that holds linux-leds/)"
	exit 0
fi
CORPUS=$(cd "$CORPUS" && pwd)
if ! pf_usable; then
	echo "1..0 # SKIP $PF_WHY"
	exit 0
fi
if ! command -v b4 >/dev/null 2>&1; then
	echo "1..0 # SKIP b4 is not installed"
	exit 0
fi
if [ ! -x "$MILTER" ]; then
	echo "1..0 # SKIP $MILTER is not built"
	exit 0
fi

T=$(mktemp -d "${TMPDIR:-/tmp}/t-replay.XXXXXX") || exit 1
chmod 755 "$T"		# Postfix's users reach the queue and the socket
cleanup() {
	pf_stop
	milter_stop
	[ -n "${PA_TEST_KEEP:-}" ] || rm -rf "$T"
}
trap cleanup 0
trap 'exit 1' HUP INT TERM

. "$srcdir/tests/tap.sh"
cd "$T" || exit 1

# --- 1. the corpus through Postfix and the milter ----------------------------
# No index (no 2020 documents are kept for this list); patatt's keys
# are the corpus's.  Every action accepts: each mail is delivered.
cat >pa.conf <<EOF
IndexPath $T/index
StateFile $T/state.mdb
PatattKeyring $CORPUS/patatt-keys
Socket unix:$T/pa.sock
UMask 000
Syslog no
UserID root
EOF
milter_socket "$T" unix pa
milter_start pa.log "$MILTER" -f -c pa.conf
setup $? "the milter listens" pa.log
# Postfix rewrites no header of mail from loopback: the milter sees the
# list's mail as it was archived.
cat >milters.cf <<EOF
smtpd_milters = $MILTER_PF
non_smtpd_milters = \$smtpd_milters
milter_default_action = tempfail
local_header_rewrite_clients =
EOF
PF_MILTER_CF=$T/milters.cf pf_start "$T/pf"
setup $? "Postfix with the milter" "$T/pf/log/maillog"

total=$(ls "$CORPUS"/messages | grep -c '^[0-9]*\.eml$')
"${PYTHON3:-python3}" "$REPLAY" send --port "$PF_PORT" "$CORPUS" sent.tsv \
    >send.out 2>&1
ok $? "the corpus sent in one SMTP session"
expect "every one of the $total messages accepted" "sent $total
accepted $total" "$(cat send.out)"
grep -v '	250$' sent.tsv | head -n 5 | sed 's/^/# refused: /'
pf_wait_delivered "$total" 120
ok $? "every one delivered"
# ledger_close() commits what is queued
milter_stop
grep 'record was not written' pa.log | head -n 5 | sed 's/^/# /'

printf 'StateFile %s/state.mdb\n' "$T" >arrived.conf
"$PATCHATTEST" arrived -c arrived.conf --json "$CORPUS"/messages/*.eml \
    >arrived.json 2>arrived.err
expect "arrived read every message" "0 $total" \
    "$(wc -c <arrived.err | tr -d ' ') $(wc -l <arrived.json | tr -d ' ')"
"${PYTHON3:-python3}" "$REPLAY" check "$CORPUS" arrived.json >check.out
setup $? "the classes of the corpus" check.out

# count CLASS OUTCOME: how many of CLASS had OUTCOME ("count": all)
count() {
	awk -v c="$1" -v o="$2" '$1 == c && $2 == o { n = $3 }
	    END { print n + 0 }' check.out
}
expect "1642 patch mails (an attid)" 1642 "$(count patch count)"
expect "119 cover letters" 119 "$(count cover count)"
expect "189 signed mails" 189 "$(count signed count)"
for c in patch cover signed; do
	expect "each $c mail identical, found by its Message-ID" \
	    "$(count $c count)" "$(count $c identical)"
done
grep '^odd ' check.out | head -n 20 | sed 's/^/# /'

# --- 2. b4 am of a series that arrived -----------------------------------------
# b4 offline: a home of its own, no attestation checks (they would ask
# the network for keys).
printf '[user]\n\tname = Main Tainer\n\temail = mt@example.org\n' \
    >.gitconfig
printf '[b4]\n\tattestation-policy = off\n' >>.gitconfig
b4_am() {
	HOME=$T XDG_CONFIG_HOME=$T/.config XDG_DATA_HOME=$T/.local \
	    XDG_CACHE_HOME=$T/.cache b4 am "$@" >b4.out 2>&1
}
# The series in the order replay-corpus.py ranks them; b4 0.12 stops on
# some threads (a header it folds itself: "Header values may not contain
# linefeed"), so the first one it completes is taken.
rank=0 mbx=
while "${PYTHON3:-python3}" "$REPLAY" series "$CORPUS" thread.mbox $rank \
    >series.out; do
	rm -rf b4out
	mkdir b4out
	if b4_am -m thread.mbox -o b4out "$(sed -n 1p series.out)"; then
		mbx=$(ls b4out/*.mbx 2>/dev/null)
		[ -n "$mbx" ] && break
	fi
	echo "# b4 am could not make series $rank, <$(sed -n 1p series.out)>:" \
	    "$(tail -n 1 b4.out)"
	rank=$((rank + 1))
done
[ -n "$mbx" ]
setup $? "b4 am made a series of the corpus ($(sed -n 1p series.out))" b4.out
patches=$(($(wc -l <series.out) - 1))

# outcomes FILE: per message of the mbox FILE, its outcome, with the
# trailers added or the parts that differ: one line each
outcomes() {
	"$PATCHATTEST" arrived -c arrived.conf --json --mbox "$1" >b4.json
	"${PYTHON3:-python3}" -c '
import json, sys
for line in open(sys.argv[1]):
	o = json.loads(line)
	more = sorted(o.get("added_trailers", []) + o.get("parts", []))
	print(":".join([o["result"], o.get("found_by", "-")] +
	    (["|".join(more)] if more else [])))' b4.json
}
# each patch identical, or with the trailers of the replies to it
want=$(tail -n +2 series.out | while IFS= read -r line; do
	case $line in
	*"	"*)	echo "identical-with-trailers:message-id:$(echo "$line" |
		    cut -f 2- | tr '\t' '\n' | sort | paste -s -d '|')" ;;
	*)	echo identical:message-id ;;
	esac
done)
expect "b4 am: each of the $patches patches as it arrived" "$want" \
    "$(outcomes "$mbx")"

# One line of patch 1's commit message changed (its first, after the
# header), one line of its diff (the first added one).
awk 'NR > 1 && /^From / { m++ } m == 0 && !hdr && /^$/ { hdr = 1; print; next }
    m == 0 && hdr && !done && /./ { $0 = $0 " (changed)"; done = 1 }
    { print }' "$mbx" >msg.mbx
awk 'NR > 1 && /^From / { m++ } m == 0 && /^diff --git / { d = 1 }
    m == 0 && d && !done && /^\+/ && !/^\+\+\+ / { $0 = "+changed"; done = 1 }
    { print }' "$mbx" >diff.mbx
for f in msg diff; do
	[ "$(diff "$mbx" $f.mbx | grep -c '^>')" -eq 1 ]
	setup $? "the copy $f.mbx has one line changed" /dev/null
done
expect "b4 am, a line of the commit message changed: differs" \
    "differs:message-id:commit message" "$(outcomes msg.mbx | sed -n 1p)"
expect "b4 am, a line of the diff changed: differs" \
    "differs:message-id:diff" "$(outcomes diff.mbx | sed -n 1p)"

tap_end
