#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# bench-milter.sh ABS_BUILDDIR ABS_SRCDIR - run by "make bench".
#
# Mail through a private Postfix on loopback (tests/postfix-lib.sh),
# delivered into a Maildir, sent by tests/smtp-load.py:
#  - throughput: BENCH_MILTER_COUNT messages (default 2000, after 200 not
#    counted) over BENCH_MILTER_SESSIONS sessions (default 10) through
#    Postfix alone, with bench/nullmilter (does nothing, accepts all: the
#    floor of any milter) and with patchattest-milter, the milters each on
#    a unix and on an inet socket, ours without a StateFile; and ours
#    recording each mail in a StateFile, on each socket (ledger_unix,
#    ledger_inet), and, when PostgreSQL is installed, in a StateDatabase
#    on this host (ledger_pg: a server started as tests/pg-lib.sh starts
#    it, on a unix socket); each rate also as a ratio to Postfix alone,
#    ours to the do-nothing milter's on the same socket, and ledger_pg's
#    to ledger_unix's; and each milter's own CPU a message (its process's
#    user and system time, all threads, read from /proc before and after
#    the messages counted: clock ticks, so 1% or so over 2,000 messages),
#    ours against the do-nothing milter's on the same socket
#    (*_cpu_vs_null_*: ratio, and _over in microseconds);
#  - signed mail: with a corpus ($PATCHATTEST_CORPUS, or
#    ABS_SRCDIR/../shared/corpus), its messages that carry patatt
#    signatures (patatt-expected.tsv), BENCH_MILTER_COUNT of them in turn,
#    through the do-nothing milter and through ours set up as a server
#    with the kernel's keyring files and the corpus's ed25519 keys
#    (PatattKeyring twice), no archive and an empty GnuPG home, the rates
#    and the milters' CPU a message;
#  - reloads: the throughput of ours on the unix socket again, with a
#    SIGHUP every 100 ms all along (the configuration unchanged);
#  - memory: the resident size, threads and descriptors of ours (unix
#    socket) idle and with 100 sessions open at MAIL FROM
#    (bench/milter-hold.py, which speaks the milter protocol itself);
#  - latency: BENCH_MILTER_LATENCY messages (default 300) one at a time,
#    per message from MAIL FROM to the reply to the final dot, p50 and
#    p99, Postfix alone, with the do-nothing milter and with
#    patchattest-milter (also with the StateFile, and the StateDatabase);
#    the difference to Postfix alone is the latency a milter adds, ours
#    is also a ratio to the do-nothing milter's on the same socket
#    (latency_ours_*_vs_null_*), and the StateFile's is over ours without
#    one.
# Each is done in BENCH_MILTER_ROUNDS rounds (default 3), the set-ups
# taking turns; rates are the median round's (with the spread of the
# rounds), latencies are taken over the messages of every round.
# The mail is the attested seed series (every message a patch that
# passes: the milter's full work).  patchattest-milter reads an index of
# about one million attestations: bench/bench-index -k builds 100,000
# synthetic documents of 10 (about 230 MB, built in 6 s), then the signed seed
# series is indexed into it.
#
# Prints "name value unit" lines.  It only reports: the exit status is 0
# unless a program it needs is missing; it says it skipped when not root
# or Postfix, gpg or python3 is not installed.

if [ $# -ne 2 ]; then
	echo "usage: bench-milter.sh ABS_BUILDDIR ABS_SRCDIR" >&2
	exit 2
fi
builddir=$1
srcdir=$2
PATCHATTEST=$builddir/patchattest
MILTER=$builddir/patchattest-milter
NULLMILTER=$builddir/bench/nullmilter
COUNT=${BENCH_MILTER_COUNT:-2000}
SESSIONS=${BENCH_MILTER_SESSIONS:-10}
LATENCY=${BENCH_MILTER_LATENCY:-300}
ROUNDS=${BENCH_MILTER_ROUNDS:-3}
WARMUP=200
. "$srcdir/tests/postfix-lib.sh"
. "$srcdir/tests/pg-lib.sh"

for p in "$PATCHATTEST" "$MILTER" "$NULLMILTER" "$builddir/bench/bench-index"
do
	if [ ! -x "$p" ]; then
		echo "bench-milter.sh: $p is missing (make bench builds it)" >&2
		exit 1
	fi
done
if ! pf_usable; then
	echo "bench-milter: skipped: $PF_WHY"
	exit 0
fi
if ! command -v gpg >/dev/null 2>&1; then
	echo "bench-milter: skipped: gpg is not installed"
	exit 0
fi

T=$(mktemp -d "${TMPDIR:-/tmp}/bench-milter.XXXXXX") || exit 1
chmod 755 "$T"		# Postfix's users reach the queue and the socket
PIDS=			# the milters
cleanup() {
	pf_stop
	pg_stop
	[ -z "$PIDS" ] || milter_stop $PIDS
	gpgconf --homedir "$T/gnupg" --kill all 2>/dev/null
	rm -rf "$T"
}
trap cleanup 0
trap 'exit 1' HUP INT TERM

# --- the index: a million synthetic attestations, then the seed series ---
pa_make_archive "$T" || exit 1
mkdir "$T/big"
echo "bench-milter: building an index of 1,000,000 attestations"
TMPDIR=$T/big "$builddir/bench/bench-index" -k -d 100000 -t 10 -l 1000 \
    >"$T/big.out" 2>&1
big=$(sed -n 's/^bench-index: the index is kept in //p' "$T/big.out")
if [ -z "$big" ] || [ ! -d "$big" ]; then
	echo "bench-milter: bench-index failed:" >&2
	cat "$T/big.out" >&2
	exit 1
fi
sed -e "s|^IndexPath .*|IndexPath $big|" -e '/^StateFile /d' "$T/pa.conf" \
    >"$T/milter.conf"
cat >>"$T/milter.conf" <<EOF
UMask 000
Syslog no
# No background archive reads while measuring.
ArchiveRefresh 0
EOF
# ours recording each mail: the same with a StateFile, in TMPDIR
mkdir "$T/ledger"
{ cat "$T/milter.conf"; echo "StateFile $T/ledger/state.mdb"; } \
    >"$T/ledger.conf"
echo 'StateFile ""' >>"$T/milter.conf"
"$PATCHATTEST" index -c "$T/milter.conf" >"$T/index.out" 2>&1
"$PATCHATTEST" check -c "$T/milter.conf" \
    "$srcdir"/tests/fixtures/seeds/00[2-7]-*.patch >"$T/check.out" 2>&1
if [ "$(cut -f2 "$T/check.out" | grep -c '^pass$')" -ne 6 ]; then
	echo "bench-milter: the seed series does not pass with the big index:" >&2
	cat "$T/index.out" "$T/check.out" >&2
	exit 1
fi
awk '$1 == "build_attestations" { print "index_attestations", $2 + 6, $3 }
    $1 == "index_size" { print "index_size", $2, $3 }' "$T/big.out"

# --- the milters: started once, each on its own socket -----------------
# (a libmilter daemon takes seconds to stop; Postfix is what restarts)
# start_milter NAME KIND PROG ARG...: sets PF_<NAME>, Postfix's spelling,
# and PID_<NAME>
start_milter() {
	mname=$1 mkind=$2
	shift 2
	milter_socket "$T" "$mkind" "$mname"
	milter_start "$T/$mname.log" "$@" -p "$MILTER_SOCK" || exit 1
	PIDS="$PIDS $MILTER_PID"
	eval "PID_$mname=\$MILTER_PID"
	MILTER_PID=
	eval "PF_$mname=\$MILTER_PF"
}
start_milter null_unix unix "$NULLMILTER"
start_milter null_inet inet "$NULLMILTER"
start_milter ours_unix unix "$MILTER" -f -c "$T/milter.conf"
start_milter ours_inet inet "$MILTER" -f -c "$T/milter.conf"
start_milter ledger_unix unix "$MILTER" -f -c "$T/ledger.conf"
# and on an inet socket, which a chrooted Postfix reaches most simply
mkdir "$T/ledger-inet"
sed "s|^StateFile .*|StateFile $T/ledger-inet/state.mdb|" "$T/ledger.conf" \
    >"$T/ledger-inet.conf"
start_milter ledger_inet inet "$MILTER" -f -c "$T/ledger-inet.conf"
# ours recording each mail in PostgreSQL (its journal in TMPDIR)
have_pg=
if pg_start; then
	trap cleanup 0		# pg_start's own trap replaced: cleanup stops it
	mkdir "$T/ledger-pg"
	{ sed "s|^StateFile .*|StateFile $T/ledger-pg/state.mdb|" \
	    "$T/ledger.conf"; echo "StateDatabase $PG_CONNINFO"; } \
	    >"$T/ledger-pg.conf"
	if "$PATCHATTEST" db init -c "$T/ledger-pg.conf" >"$T/db.out" 2>&1
	then
		start_milter ledger_pg unix "$MILTER" -f -c "$T/ledger-pg.conf"
		have_pg=yes
	else
		echo "bench-milter: patchattest db init failed:" >&2
		cat "$T/db.out" >&2
	fi
else
	trap cleanup 0
	echo "bench-milter: no PostgreSQL: no ledger_pg figures"
fi

# --- one measurement ------------------------------------------------------
# cpu_ticks PID: the CPU time process PID has used, all its threads, those
# that ended too, in clock ticks (its name, which may hold spaces, cut)
cpu_ticks() {
	sed 's/^.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'
}
TICKS=$(getconf CLK_TCK 2>/dev/null || echo 100)

# run NAME SESSIONS COUNT MILTER [FILE...]: Postfix with the milter
# MILTER (start_milter's NAME; empty: none), a warm-up, then COUNT
# messages, the FILEs in turn (default: the seed series); the client's
# figures are left in $T/NAME.out, its answers in $T/NAME.tsv, how many
# delivered copies our milter marked as pass in $T/NAME.pass, how
# many it marked at all in $T/NAME.marked, and the milter's CPU time a
# message, in microseconds, in $T/NAME.cpu.
run() {
	rname=$1 rsessions=$2 rcount=$3 rmilter=$4
	shift 4
	rpf= rpid=
	[ -z "$rmilter" ] || eval "rpf=\$PF_$rmilter rpid=\$PID_$rmilter"
	[ $# -gt 0 ] || set -- "$srcdir"/tests/fixtures/seeds/00[2-7]-*.patch
	rm -rf "$T/pf"
	pf_start "$T/pf" "$rpf" || exit 1
	"$PYTHON3" "$srcdir/tests/smtp-load.py" send --port "$PF_PORT" \
	    --sessions "$rsessions" --count "$WARMUP" --tag warm \
	    --id-header X-Load-ID "$@" >/dev/null 2>&1
	# Start from an empty queue: the warm-up delivered.
	pf_wait_delivered "$WARMUP" 120
	rcpu=${rpid:+$(cpu_ticks "$rpid")}
	"$PYTHON3" "$srcdir/tests/smtp-load.py" send --port "$PF_PORT" \
	    --sessions "$rsessions" --count "$rcount" --tag "$rname" \
	    --out "$T/$rname.tsv" --id-header X-Load-ID "$@" \
	    >"$T/$rname.out" 2>&1
	pf_wait_delivered $((WARMUP + rcount)) 300
	# the StateFile's writer writes its last batch (LEDGER_GATHER_MS)
	[ -z "$rpid" ] || { sleep 0.3; echo $(($(cpu_ticks "$rpid") - rcpu)) |
	    awk -v t="$TICKS" -v n="$rcount" '{ printf "%.0f\n",
		$1 * 1000000 / t / n }' >"$T/$rname.cpu"; }
	grep -l '^X-Patch-Attested: pass;' "$PF_MAILDIR"/new/* 2>/dev/null |
	    wc -l | tr -d ' ' >"$T/$rname.pass"
	grep -l '^X-Patch-Attested: ' "$PF_MAILDIR"/new/* 2>/dev/null |
	    wc -l | tr -d ' ' >"$T/$rname.marked"
	pf_stop
}

# rates NAME: the rate of each round of NAME, one a line
rates() {
	for f in "$T/$1".*.out; do
		awk '$1 == "rate" { print $2 }' "$f"
	done
}
# median: of the numbers on standard input
median() {
	sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'
}
# cpus NAME: the milter's CPU a message in each round of NAME, one a line
cpus() {
	cat "$T/$1".*.cpu 2>/dev/null
}
# report NAME: median rate of the rounds, their spread, messages refused,
# and the milter's CPU a message in the median round
report() {
	rates "$1" | sort -n | awk -v n="$1" '{ v[NR] = $1 } END {
		m = v[int((NR + 1) / 2)]
		printf "%s_rate %s messages/s\n", n, m
		if (m > 0)
			printf "%s_rate_spread %.0f %%\n", n,
			    100 * (v[NR] - v[1]) / m }'
	refused=$(cat "$T/$1".*.tsv | awk -F'\t' '$3 != 250' | wc -l)
	[ "$refused" -eq 0 ] || printf '%s_refused %s messages\n' "$1" "$refused"
	cpus "$1" | sort -n | awk -v n="$1" '{ v[NR] = $1 } END {
		if (NR == 0) exit
		m = v[int((NR + 1) / 2)]
		printf "%s_cpu %s us/msg\n", n, m
		if (m > 0)
			printf "%s_cpu_spread %.0f %%\n", n,
			    100 * (v[NR] - v[1]) / m }'
}
# cpu_ratio NAME A B: A's CPU a message against B's (medians), as a
# ratio and as A's over B's
cpu_ratio() {
	awk -v a="$(cpus "$2" | median)" -v b="$(cpus "$3" | median)" \
	    -v n="$1" 'BEGIN { if (a > 0 && b > 0) {
		printf "%s %.2f ratio\n", n, a / b
		printf "%s_over %.0f us/msg\n", n, a - b } }'
}
ratio() {
	awk -v a="$(rates "$2" | median)" -v b="$(rates "$3" | median)" \
	    -v n="$1" 'BEGIN { if (a > 0 && b > 0)
		printf "%s %.2f ratio\n", n, a / b }'
}
# latency NAME Q: the Q quantile (0..1) of every round's latencies, in ms
latency() {
	cat "$T/$1".*.tsv | awk -F'\t' '$3 == 250 { print $4 }' | sort -n |
	    awk -v q="$2" '{ v[NR] = $1 } END {
		i = int(q * NR) + 1; if (i > NR) i = NR
		if (NR) printf "%.2f\n", v[i] * 1000 }'
}

# Rounds interleave the set-ups, so that a slow moment of the machine
# does not fall on one of them only; the median rate of the rounds counts.
echo
echo "bench-milter: throughput, $COUNT attested patches over $SESSIONS" \
    "sessions, median of $ROUNDS rounds"
r=1
while [ $r -le "$ROUNDS" ]; do
	run alone.$r "$SESSIONS" "$COUNT" ""
	for kind in unix inet; do
		for m in null ours; do
			run "${m}_$kind.$r" "$SESSIONS" "$COUNT" "${m}_$kind"
		done
	done
	run "ledger_unix.$r" "$SESSIONS" "$COUNT" ledger_unix
	run "ledger_inet.$r" "$SESSIONS" "$COUNT" ledger_inet
	[ -z "$have_pg" ] ||
	    run "ledger_pg.$r" "$SESSIONS" "$COUNT" ledger_pg
	r=$((r + 1))
done
for s in alone null_unix ours_unix null_inet ours_inet ledger_unix \
    ledger_inet ${have_pg:+ledger_pg}; do
	report $s
done
for kind in unix inet; do
	printf 'ours_%s_pass %s of_%s_delivered\n' $kind \
	    "$(cat "$T/ours_$kind".*.pass | awk '{ s += $1 } END { print s }')" \
	    $(((WARMUP + COUNT) * ROUNDS))
done
for s in ledger_unix ${have_pg:+ledger_pg}; do
	printf '%s_pass %s of_%s_delivered\n' $s \
	    "$(cat "$T/$s".*.pass | awk '{ s += $1 } END { print s }')" \
	    $(((WARMUP + COUNT) * ROUNDS))
done
# each mail that went through ledger_pg is a row, once the journal is sent
if [ -n "$have_pg" ]; then
	sleep 2
	printf 'ledger_pg_records %s of_%s_delivered\n' \
	    "$(pg_sql "SELECT count(*) FROM arrival")" \
	    $(((WARMUP + COUNT) * ROUNDS))
fi
# Are they still there?  A figure with a milter that died is no figure.
for p in $PIDS; do
	kill -0 "$p" 2>/dev/null || echo "bench-milter: milter $p died;" \
	    "see the figures above with care"
done
for kind in unix inet; do
	ratio "null_${kind}_vs_alone" "null_$kind" alone
	ratio "ours_${kind}_vs_alone" "ours_$kind" alone
	ratio "ours_${kind}_vs_null_$kind" "ours_$kind" "null_$kind"
done
ratio ledger_unix_vs_null_unix ledger_unix null_unix
ratio ledger_inet_vs_null_inet ledger_inet null_inet
ratio ledger_unix_vs_ours_unix ledger_unix ours_unix
[ -z "$have_pg" ] || ratio ledger_pg_vs_ledger_unix ledger_pg ledger_unix
# the milter's own CPU against the do-nothing milter's, same socket
for kind in unix inet; do
	cpu_ratio "ours_${kind}_cpu_vs_null_$kind" "ours_$kind" "null_$kind"
	cpu_ratio "ledger_${kind}_cpu_vs_null_$kind" "ledger_$kind" \
	    "null_$kind"
done

# --- reloads ---------------------------------------------------------------
echo
echo "bench-milter: throughput with a SIGHUP every 100 ms, $COUNT" \
    "attested patches over $SESSIONS sessions, median of $ROUNDS rounds"
ours_pid=$PID_ours_unix
r=1
while [ $r -le "$ROUNDS" ]; do
	(while kill -HUP "$ours_pid" 2>/dev/null; do sleep 0.1; done) &
	hupper=$!
	run "hup_unix.$r" "$SESSIONS" "$COUNT" ours_unix
	kill "$hupper" 2>/dev/null
	wait "$hupper" 2>/dev/null
	r=$((r + 1))
done
report hup_unix
ratio hup_unix_vs_ours_unix hup_unix ours_unix
kill -0 "$ours_pid" 2>/dev/null || echo "bench-milter: the milter died" \
    "under reloads"

# --- the corpus's signed mail -------------------------------------------
corpus=${PATCHATTEST_CORPUS:-$srcdir/../shared/corpus}
: >"$T/signed.list"
for d in "$corpus"/*; do
	[ -f "$d/patatt-expected.tsv" ] || continue
	awk -F'\t' -v d="$d" 'NR > 1 { print d "/" $1 }' \
	    "$d/patatt-expected.tsv" >>"$T/signed.list"
	ring=$d
done
if [ -s "$T/signed.list" ]; then
	mkdir -m 700 "$T/gnupg-empty"
	printf '%s\n' "IndexPath $T/signed-index" 'StateFile ""' \
	    "GnuPGHome $T/gnupg-empty" "PatattKeyring $ring/kernel-keyring" \
	    "PatattKeyring $ring/patatt-keys" "UMask 000" "Syslog no" \
	    "UserID root" >"$T/signed.conf"
	start_milter signed_unix unix "$MILTER" -f -c "$T/signed.conf"
	set --
	while read -r f; do
		set -- "$@" "$f"
	done <"$T/signed.list"
	echo
	echo "bench-milter: throughput, $COUNT of the corpus's $# signed" \
	    "messages over $SESSIONS sessions, median of $ROUNDS rounds"
	r=1
	while [ $r -le "$ROUNDS" ]; do
		run "signed_null.$r" "$SESSIONS" "$COUNT" null_unix "$@"
		run "signed_ours.$r" "$SESSIONS" "$COUNT" signed_unix "$@"
		r=$((r + 1))
	done
	report signed_null
	report signed_ours
	printf 'signed_ours_marked %s of_%s_delivered (%s pass)\n' \
	    "$(cat "$T"/signed_ours.*.marked | awk '{ s += $1 } END { print s }')" \
	    $(((WARMUP + COUNT) * ROUNDS)) \
	    "$(cat "$T"/signed_ours.*.pass | awk '{ s += $1 } END { print s }')"
	ratio signed_ours_vs_null signed_ours signed_null
	cpu_ratio signed_ours_cpu_vs_null signed_ours signed_null
else
	echo "bench-milter: no corpus at $corpus: no signed-mail figures"
fi

echo
echo "bench-milter: memory of patchattest-milter, idle and with 100" \
    "sessions open at MAIL FROM"
python3 "$srcdir/bench/milter-hold.py" "${PF_ours_unix#unix:}" \
    "$PID_ours_unix" 100

echo
echo "bench-milter: latency, $LATENCY attested patches one at a time in" \
    "each of $ROUNDS rounds"
r=1
while [ $r -le "$ROUNDS" ]; do
	run lat_alone.$r 1 "$LATENCY" ""
	run lat_null_unix.$r 1 "$LATENCY" null_unix
	run lat_null_inet.$r 1 "$LATENCY" null_inet
	run lat_ours_unix.$r 1 "$LATENCY" ours_unix
	run lat_ours_inet.$r 1 "$LATENCY" ours_inet
	run lat_ledger_unix.$r 1 "$LATENCY" ledger_unix
	[ -z "$have_pg" ] || run lat_ledger_pg.$r 1 "$LATENCY" ledger_pg
	r=$((r + 1))
done
for q in p50 p99; do
	case $q in p50) f=0.50 ;; p99) f=0.99 ;; esac
	base=$(latency lat_alone $f)
	printf 'latency_alone_%s %s ms\n' $q "$base"
	for kind in unix inet; do
		null=$(latency "lat_null_$kind" $f)
		ours=$(latency "lat_ours_$kind" $f)
		printf 'latency_null_%s_%s %s ms\n' $kind $q "$null"
		printf 'latency_ours_%s_%s %s ms\n' $kind $q "$ours"
		awk -v a="$ours" -v b="$base" -v n="latency_added_${kind}_$q" \
		    'BEGIN { if (a != "" && b != "")
			printf "%s %.2f ms\n", n, a - b }'
		awk -v a="$null" -v b="$base" \
		    -v n="latency_null_added_${kind}_$q" 'BEGIN {
			if (a != "" && b != "") printf "%s %.2f ms\n", n,
			    a - b }'
		awk -v a="$ours" -v b="$null" \
		    -v n="latency_ours_${kind}_vs_null_$q" 'BEGIN {
			if (a > 0 && b > 0) printf "%s %.2f ratio\n", n,
			    a / b }'
	done
	ledger=$(latency lat_ledger_unix $f)
	printf 'latency_ledger_unix_%s %s ms\n' $q "$ledger"
	awk -v a="$ledger" -v b="$(latency lat_ours_unix $f)" \
	    -v n="latency_added_by_state_file_$q" 'BEGIN {
		if (a != "" && b != "") printf "%s %.2f ms\n", n, a - b }'
	[ -n "$have_pg" ] || continue
	printf 'latency_ledger_pg_%s %s ms\n' $q "$(latency lat_ledger_pg $f)"
done
exit 0
