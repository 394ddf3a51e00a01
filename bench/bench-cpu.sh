#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# bench-cpu.sh ABS_BUILDDIR ABS_SRCDIR - run by "make bench".
#
# What each milter costs per message, without an MTA: bench/milter-drive
# hands the mail to the milter as Postfix would (bench/mtaconn.h), and
# reads the milter's own CPU time, all its threads, those that ended
# too: the process CPU clock of its PID (in nanoseconds; /proc/PID/stat
# counts in clock ticks of 10 ms, /proc/PID/task/*/schedstat only the
# threads alive, and libmilter ends a connection's thread with it), once
# it has settled before and after the messages counted, so that work it
# does after answering (the StateFile's writer thread) counts.
#
# The milters: bench/nullmilter ("floor": does nothing, accepts all),
# patchattest-milter ("ours": a StateFile, as a real server has it,
# logging to a file; the index holds the seed documents only, or with
# BENCH_CPU_BIG_INDEX=1 about one million attestations as in
# bench-milter.sh, built by bench/bench-index -k: 15 s and 230 MB more),
# and OpenDKIM in verify mode ("opendkim": the public key from a file, no
# DNS), when it is installed.  With BENCH_CPU_BEFORE=DIR, the build folder
# of an earlier patchattest, its milter runs too ("before"), with an index
# and a StateFile of its own made by its own patchattest (the seed
# documents only: BENCH_CPU_BIG_INDEX does not reach it), so that a change
# is measured before and after in one run.
#
# The connection shapes, BENCH_CPU_SHAPES (default "tcp1 unix10"), one
# after the other, each milter started once for each and stopped after it:
#   tcp1    TCP on 127.0.0.1 (inet:PORT@127.0.0.1, a free port found by
#           python3: without it tcp1 is skipped), one message a
#           connection: what a server mostly does, one milter connection
#           an SMTP session, and how the goals were stated;
#   unix10  a unix socket, 10 messages a connection.
# Over TCP ours and the floor take every step of the protocol, each
# answered (on a local socket they skip some: milter/callbacks.c says
# why); OpenDKIM, which does not set TCP_NODELAY as they do, waits some
# 40 ms of delayed ACKs a message there.
#
# The mail, one kind at a time, each DKIM-signed (RSA 2048, relaxed) when
# dkimsign and openssl are there, so that OpenDKIM verifies a signature:
#   v01_pass      seed 002, attested by a 2020 document (a GnuPG key
#                 made here), indexed;
#   ed25519_pass  seed 003 signed by patatt with an ed25519 key (the real
#                 patatt, tests/patatt-lib.sh), in a PatattKeyring folder;
#   openpgp_pass  seed 004 signed by patatt with the OpenPGP key, which is
#                 in that folder too;
#   unsigned      seed 005, neither attested nor signed;
#   nonpatch      a reply with no diff.
# For each shape and kind, BENCH_CPU_ROUNDS rounds (default 3), the
# milters taking turns in each round:
#   - CPU: BENCH_CPU_COUNT messages (default 3,000) after 300 not counted,
#     over 10 connections at a time; the milter's CPU per message of the
#     median round, and the rounds' spread;
#   - latency: BENCH_CPU_LATENCY messages (default 500) one at a time, so
#     that no message waits for another, from MAIL to the reply to the end
#     of the message: p50 and p99 over every round's messages.  The
#     milters take turns in ten chunks, each first in turn, so that the
#     machine's slow moments fall on all of them alike; OpenDKIM's come
#     after them, whole: a milter measured right after its idle waits
#     was the slower in an A/A run (ours and before the same build).
# Then, when valgrind is installed (BENCH_CPU_INSTR=0 skips it), the work
# counted rather than timed, as no machine's noise moves it: the floor,
# ours and ours without a StateFile ("nostate") run under callgrind on a
# unix socket, one message a connection, and for each kind,
# BENCH_CPU_INSTR_COUNT messages (default 200, after 50 not counted) are
# counted in instructions a message, the writer's work on them included
# (instr_KIND_MILTER, instr_KIND_over_floor: ours - floor,
# instr_KIND_statefile: ours - nostate); then the functions where most of
# ours's instructions went.  The count
# leaves out the kernel (the socket, the thread switches: most of the
# floor's time) and runs every program without the CPU extensions that
# valgrind lacks (SHA-256 counts several times what it costs).
# Prints "name value unit" lines, each name prefixed by its shape
# (tcp1_cpu_v01_pass_ours): cpu_KIND_MILTER (and _spread), cpu_KIND_ratio
# (ours/floor), cpu_KIND_over_floor (ours - floor), cpu_KIND_opendkim_ratio
# (opendkim/floor), cpu_KIND_before_ratio and _before_over_floor when
# BENCH_CPU_BEFORE is set; lat_KIND_MILTER_p50 and _p99,
# lat_KIND_added_p99 (ours - floor), lat_KIND_p99_ratio (ours/floor) and
# lat_KIND_before_p99_ratio; and what ours (X-Patch-Attested) and OpenDKIM
# (dkim=) said of the mail: ours must say what "patchattest check
# --header" says, OpenDKIM dkim=pass.  The goals are stated once and
# named beside their figures: our own work at most 250 us a message over
# the floor for a v0.1 pass and an ed25519 patatt pass (at most 1.25 times
# the floor's CPU), a mail with no patch at most 50 us over it, the added
# latency p99 at most 1.5 times the floor's.  It only reports: the exit
# status is 0 unless a program it needs is missing or a milter fails; it
# says what it skips and why (no gpg, no patatt or git, no OpenDKIM, no
# python3, no valgrind).  Needs no root and no MTA.

if [ $# -ne 2 ]; then
	echo "usage: bench-cpu.sh ABS_BUILDDIR ABS_SRCDIR" >&2
	exit 2
fi
builddir=$1
srcdir=$2
PATCHATTEST=$builddir/patchattest
MILTER=$builddir/patchattest-milter
NULLMILTER=$builddir/bench/nullmilter
DRIVE=$builddir/bench/milter-drive
COUNT=${BENCH_CPU_COUNT:-3000}
ROUNDS=${BENCH_CPU_ROUNDS:-3}
LATENCY=${BENCH_CPU_LATENCY:-500}
CONNS=10
WARMUP=300
seeds=$srcdir/tests/fixtures/seeds
. "$srcdir/tests/children.sh"
. "$srcdir/tests/patatt-lib.sh"

BEFORE=${BENCH_CPU_BEFORE:+$BENCH_CPU_BEFORE/patchattest-milter}
for p in "$PATCHATTEST" "$MILTER" "$NULLMILTER" "$DRIVE" \
    "$builddir/bench/bench-index" ${BEFORE:+"$BEFORE"} \
    ${BEFORE:+"$BENCH_CPU_BEFORE/patchattest"}; do
	if [ ! -x "$p" ]; then
		echo "bench-cpu.sh: $p is missing (make bench builds it)" >&2
		exit 1
	fi
done

# the connection shapes, checked before anything is made
SHAPES=${BENCH_CPU_SHAPES:-tcp1 unix10}
for shape in $SHAPES; do
	case $shape in
	tcp1 | unix10) ;;
	*)	echo "bench-cpu: unknown shape $shape in BENCH_CPU_SHAPES" \
		    "(tcp1, unix10)" >&2
		exit 1 ;;
	esac
done
case " $SHAPES " in
*" tcp1 "*)
	command -v python3 >/dev/null 2>&1 || {
		echo "bench-cpu: skipped the tcp1 shape: python3, which finds" \
		    "a free TCP port, is not installed"
		SHAPES=$(echo $SHAPES | tr ' ' '\n' | grep -vx tcp1)
	} ;;
esac

T=$(mktemp -d "${TMPDIR:-/tmp}/bench-cpu.XXXXXX") || exit 1
PIDS=			# the milters running
# stop: the milters running ended, each given 20 s to finish its work
stop() {
	for p in $PIDS; do
		child_kill TERM "$p"
	done
	for p in $PIDS; do
		i=0
		while child_running "$p" && [ $i -lt 200 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		child_kill KILL "$p"
	done
	PIDS=
}
cleanup() {
	stop
	gpgconf --homedir "$T/gnupg" --kill all 2>/dev/null
	rm -rf "$T"
}
trap cleanup 0
trap 'exit 1' HUP INT PIPE TERM

OPENDKIM=$(command -v opendkim 2>/dev/null)
[ -n "$OPENDKIM" ] || [ ! -x /usr/sbin/opendkim ] ||
    OPENDKIM=/usr/sbin/opendkim
[ -n "$OPENDKIM" ] ||
    echo "bench-cpu: OpenDKIM is not installed: no opendkim figures"

# --- the mail ---------------------------------------------------------------
mkdir "$T/mail" "$T/keyring"
KINDS=
sed 's/^From: .*/From: Carol Writer <carol@example.net>/' \
    "$seeds"/005-*.patch >"$T/mail/unsigned"
cat >"$T/mail/nonpatch" <<'EOF'
From: Carol Writer <carol@example.net>
To: Kees Cook <keescook@chromium.org>
Cc: linux-kernel@vger.kernel.org
Subject: Re: [PATCH v4 1/6] x86/elf: Add table to document READ_IMPLIES_EXEC
Date: Tue, 25 Feb 2020 09:12:44 +0100
In-Reply-To: <20200225051307.6401-2-keescook@chromium.org>
References: <20200225051307.6401-1-keescook@chromium.org>
 <20200225051307.6401-2-keescook@chromium.org>
MIME-Version: 1.0
Content-Type: text/plain; charset=us-ascii

On Mon, Feb 24, 2020 at 09:13:02PM -0800, Kees Cook wrote:
> Add a table to document the current behavior of READ_IMPLIES_EXEC in
> preparation for changing the behavior.

Thanks for writing this down; the table makes the later patches in the
series much easier to follow.  One question on the legacy case: is the
missing PT_GNU_STACK row meant to cover the 32-bit compat loaders as
well, or only native 64-bit binaries?  If it is both, a sentence saying
so above the table would save the next reader a trip through
binfmt_elf.c.

Either way the series looks good to me, and I have been running it on
two test machines since v2 without surprises.

Thanks,
Carol
EOF
gpg_ok=
if command -v gpg >/dev/null 2>&1 && command -v gpgconf >/dev/null 2>&1
then
	mkdir -m 700 "$T/gnupg"
	GNUPGHOME=$T/gnupg gpg --batch --quiet --passphrase '' \
	    --quick-gen-key 'Alice Developer <alice@example.org>' ed25519 \
	    sign never >"$T/gpg.log" 2>&1 && gpg_ok=yes
	alice=$(GNUPGHOME=$T/gnupg gpg --batch --with-colons --list-keys \
	    alice@example.org 2>/dev/null |
	    awk -F: '$1 == "fpr" { print $10; exit }')
	mkdir -p "$T/keyring/openpgp/example.org/alice"
	GNUPGHOME=$T/gnupg gpg --batch --armor --export "$alice" \
	    >"$T/keyring/openpgp/example.org/alice/default" 2>>"$T/gpg.log"
fi
[ -n "$gpg_ok" ] ||
    echo "bench-cpu: skipped v01_pass and openpgp_pass: gpg is not installed"
if [ -n "$gpg_ok" ]; then
	cp "$seeds"/002-*.patch "$T/mail/v01_pass"
	KINDS=v01_pass
fi
if patatt_setup "$T/patatt"; then
	cp -R "$T/patatt/keyring/ed25519" "$T/keyring/"
	sed 's/^From: .*/From: Dev Eloper <dev@example.org>/' \
	    "$seeds"/003-*.patch >"$T/ed25519.raw"
	if patatt_sign "$T/ed25519.raw" "$T/mail/ed25519_pass"; then
		KINDS="$KINDS ed25519_pass"
	else
		echo "bench-cpu: skipped ed25519_pass: patatt cannot sign:"
		sed 's/^/  /' "$T/patatt/sign.log"
	fi
	sed 's/^From: .*/From: Alice Developer <alice@example.org>/' \
	    "$seeds"/004-*.patch >"$T/openpgp.raw"
	if [ -z "$gpg_ok" ]; then
		:
	elif patatt_sign_pgp "$T/openpgp.raw" "$T/mail/openpgp_pass" \
	    "$T/gnupg" "$alice" alice@example.org; then
		KINDS="$KINDS openpgp_pass"
	else
		echo "bench-cpu: skipped openpgp_pass: patatt cannot sign:"
		sed 's/^/  /' "$T/patatt/sign.log"
	fi
else
	echo "bench-cpu: skipped ed25519_pass and openpgp_pass: patatt or" \
	    "git is not installed"
fi
KINDS="$KINDS unsigned nonpatch"

# DKIM, for OpenDKIM to verify, added last as a relay adds it
dkim=
if [ -n "$OPENDKIM" ] && command -v dkimsign >/dev/null 2>&1 &&
    command -v openssl >/dev/null 2>&1 &&
    openssl genrsa -out "$T/dkim.key" 2048 >/dev/null 2>&1; then
	printf 'sel._domainkey.example.org v=DKIM1; k=rsa; p=%s\n' \
	    "$(openssl rsa -in "$T/dkim.key" -pubout -outform DER 2>/dev/null |
	    base64 | tr -d '\n')" >"$T/dkim.keys"
	dkim=yes
	for k in $KINDS; do
		dkimsign --hcanon relaxed --bcanon relaxed sel example.org \
		    "$T/dkim.key" <"$T/mail/$k" >"$T/mail/$k.dkim" &&
		    mv "$T/mail/$k.dkim" "$T/mail/$k" || dkim=
	done
fi
[ -z "$OPENDKIM" ] || [ -n "$dkim" ] || echo "bench-cpu: the mail is not" \
    "DKIM-signed (dkimsign or openssl is missing): OpenDKIM verifies nothing"

# --- the milters' settings -------------------------------------------------
mkdir -p "$T/archive/new" "$T/archive/cur" "$T/archive/tmp" "$T/state"
{
	echo "Archive $T/archive"
	echo "IndexPath $T/index"
	[ -z "$gpg_ok" ] || echo "GnuPGHome $T/gnupg"
	echo "TrustModel gpg"
	echo "PatattKeyring $T/keyring"
	echo "Syslog no"
	echo "ArchiveRefresh 0"
	[ "$(id -u)" -ne 0 ] || echo "UserID root"
} >"$T/base.conf"
if [ -n "$gpg_ok" ]; then
	"$PATCHATTEST" attest -c "$T/base.conf" -u alice@example.org \
	    "$seeds"/002-*.patch >"$T/archive/new/1.doc" 2>"$T/attest.log" || {
		echo "bench-cpu: patchattest attest failed:" >&2
		cat "$T/attest.log" >&2
		exit 1
	}
fi
if [ "${BENCH_CPU_BIG_INDEX:-0}" = 1 ]; then
	echo "bench-cpu: building an index of 1,000,000 attestations"
	mkdir "$T/big"
	TMPDIR=$T/big "$builddir/bench/bench-index" -k -d 100000 -t 10 \
	    -l 1000 >"$T/big.out" 2>&1
	big=$(sed -n 's/^bench-index: the index is kept in //p' "$T/big.out")
	if [ -z "$big" ] || [ ! -d "$big" ]; then
		echo "bench-cpu: bench-index failed:" >&2
		cat "$T/big.out" >&2
		exit 1
	fi
	sed "s|^IndexPath .*|IndexPath $big|" "$T/base.conf" >"$T/conf.tmp" &&
	    mv "$T/conf.tmp" "$T/base.conf"
fi
"$PATCHATTEST" index -c "$T/base.conf" >"$T/index.log" 2>&1 || {
	echo "bench-cpu: patchattest index failed:" >&2
	cat "$T/index.log" >&2
	exit 1
}
{ cat "$T/base.conf"; echo 'StateFile ""'; } >"$T/check.conf"
{ cat "$T/base.conf"; echo "StateFile $T/state/state.mdb"; } >"$T/ours.conf"
if [ -n "$BEFORE" ]; then
	mkdir "$T/before-state"
	{
		sed '/^IndexPath /d' "$T/base.conf"
		echo "IndexPath $T/before-index"
		echo "StateFile $T/before-state/state.mdb"
	} >"$T/before.conf"
	"$BENCH_CPU_BEFORE/patchattest" index -c "$T/before.conf" \
	    >"$T/before-index.log" 2>&1 || {
		echo "bench-cpu: the earlier patchattest index failed:" >&2
		cat "$T/before-index.log" >&2
		exit 1
	}
fi

# what ours must say of each kind: what the CLI says (no StateFile)
for k in $KINDS; do
	"$PATCHATTEST" check -c "$T/check.conf" --header "$T/mail/$k" \
	    >"$T/$k.check" 2>&1
	v=$(sed -n 's/^X-Patch-Attested: *\([^; ]*\).*/\1/p' "$T/$k.check")
	echo "${v:-(absent)}" >"$T/$k.expect"
	case $k in
	*_pass)
		[ "$v" = pass ] || {
			echo "bench-cpu: $k mail does not pass:" >&2
			cat "$T/$k.check" >&2
			exit 1
		} ;;
	esac
done

{
	echo "Mode v"
	echo "Syslog yes"
	echo "AuthservID mx.test.example"
	echo "TestPublicKeys $T/dkim.keys"
} >"$T/opendkim.base"
[ -n "$dkim" ] || : >"$T/dkim.keys"

# free_port: a TCP port of 127.0.0.1 that no one listens on now
free_port() {
	python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

# listens PID SOCK: 0 when process PID listens on SOCK; on TCP a socket of
# its own, as another process may have taken the port since free_port
listens() {
	case $2 in
	inet:*)
		lport=${2#inet:}
		lport=${lport%@*}
		linodes=$(ls -l "/proc/$1/fd" 2>/dev/null |
		    sed -n 's/.*socket:\[\([0-9]*\)\]$/\1/p' | tr '\n' ' ')
		awk -v p="$(printf ':%04X' "$lport")" -v i=" $linodes" '
		    $4 == "0A" && substr($2, length($2) - 4) == p &&
		    index(i, " " $10 " ") { f = 1 } END { exit !f }' \
		    /proc/net/tcp ;;
	*)	[ -S "${2#unix:}" ] ;;
	esac
}

# start NAME: the milter NAME on a socket of the shape, its address in
# SOCK_<NAME> and its PID in PID_<NAME> once it listens there; a port
# taken before the milter binds it is tried again with another
start() {
	sname=$1
	stry=1
	while :; do
		case $shape in
		tcp1)	ssock=inet:$(free_port)@127.0.0.1 ;;
		*)	ssock=unix:$T/$sname.sock
			rm -f "$T/$sname.sock" ;;
		esac
		[ "$sname" != opendkim ] || { echo "Socket $ssock" &&
		    cat "$T/opendkim.base"; } >"$T/opendkim.conf"
		(
			case $sname in
			cg_*)	set -- valgrind --tool=callgrind \
				    --callgrind-out-file="$T/$sname.cg"
				case $sname in
				cg_floor) exec "$@" "$NULLMILTER" -p "$ssock" ;;
				cg_ours) exec "$@" "$MILTER" -f \
				    -c "$T/ours.conf" -p "$ssock" ;;
				cg_nostate) exec "$@" "$MILTER" -f \
				    -c "$T/check.conf" -p "$ssock" ;;
				esac ;;
			floor)	exec "$NULLMILTER" -p "$ssock" ;;
			ours)	exec "$MILTER" -f -c "$T/ours.conf" \
				    -p "$ssock" ;;
			before)	exec "$BEFORE" -f -c "$T/before.conf" \
				    -p "$ssock" ;;
			opendkim) exec "$OPENDKIM" -f -x "$T/opendkim.conf" ;;
			esac
		) >"$T/$sname.$shape.log" 2>&1 &
		spid=$!
		child_note $spid
		PIDS="$PIDS $spid"
		i=0
		while ! listens $spid "$ssock" && child_running $spid &&
		    [ $i -lt 300 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		listens $spid "$ssock" && break
		if [ "$shape" != tcp1 ] || [ $stry -ge 3 ] ||
		    child_running $spid; then
			echo "bench-cpu: $sname does not listen on $ssock:" >&2
			cat "$T/$sname.$shape.log" >&2
			exit 1
		fi
		stry=$((stry + 1))
	done
	eval "PID_$sname=\$spid SOCK_$sname=\$ssock"
}

# --- the measurements --------------------------------------------------
# drive NAME KIND MILTER ARG...: milter-drive on MILTER's socket with KIND's
# mail; its output in $T/NAME.out, or the bench stops
drive() {
	dname=$1 dkind=$2 dmilter=$3
	shift 3
	case $dmilter in
	ours | before) dfield=X-Patch-Attested ;;
	opendkim) dfield=Authentication-Results:dkim ;;
	*) dfield=X-Patch-Attested ;;
	esac
	eval "dpid=\$PID_$dmilter dsock=\$SOCK_$dmilter"
	"$DRIVE" -h "$dfield" -p "$dpid" "$@" "$dsock" \
	    "$T/mail/$dkind" >"$T/$dname.out" 2>&1 || {
		echo "bench-cpu: milter-drive failed on $dmilter with" \
		    "$dkind:" >&2
		cat "$T/$dname.out" >&2
		exit 1
	}
}

# cpus NAME: the CPU per message of each round of NAME, one a line
cpus() {
	for f in "$T/$1".*.out; do
		awk '$1 == "cpu_per_message" { print $2 }' "$f"
	done
}
median() {
	sort -n |
	    awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'
}
# quantile NAME Q: the Q quantile (0..1) of every round's latencies
quantile() {
	cat "$T/$1".*.us | sort -n | awk -v q="$2" '{ v[NR] = $1 } END {
		i = int(q * NR) + 1; if (i > NR) i = NR
		if (NR) printf "%.0f\n", v[i] }'
}

# latency KIND ROUND: each milter's latency, one message at a time, the
# milters taking turns in LAT_CHUNKS chunks, each first in turn; then
# OpenDKIM's
LAT_CHUNKS=10
latency() {
	lorder="floor ours${BEFORE:+ before}"
	lc=1
	while [ $lc -le $LAT_CHUNKS ]; do
		for m in $lorder; do
			drive "${shape}_lat_$1_$m.$2.$lc" "$1" "$m" -c 1 \
			    -m $per_conn -w 5 \
			    -n $(((LATENCY + LAT_CHUNKS - 1) / LAT_CHUNKS)) \
			    -o "$T/${shape}_lat_$1_$m.$2.$lc.us"
		done
		lorder="${lorder#* } ${lorder%% *}"
		lc=$((lc + 1))
	done
	[ -z "$OPENDKIM" ] || drive "${shape}_lat_$1_opendkim.$2" "$1" \
	    opendkim -c 1 -m $per_conn -w 50 -n "$LATENCY" \
	    -o "$T/${shape}_lat_$1_opendkim.$2.us"
}

# report S: the figures of shape S (S is their names' prefix)
report() {
	for k in $KINDS; do
		for m in $MILTERS; do
			cpus "$1_cpu_${k}_$m" | sort -n |
			    awk -v n="$1_cpu_${k}_$m" '{ v[NR] = $1 } END {
				md = v[int((NR + 1) / 2)]
				printf "%s %.0f us/msg\n", n, md
				if (md > 0)
					printf "%s_spread %.0f %%\n", n,
					    100 * (v[NR] - v[1]) / md }'
		done
		floor=$(cpus "$1_cpu_${k}_floor" | median)
		ours=$(cpus "$1_cpu_${k}_ours" | median)
		case $k in
		v01_pass | ed25519_pass) rgoal=" (goal: at most 1.25)"
			ogoal=" (goal: at most 250)" ;;
		nonpatch) rgoal= ogoal=" (goal: at most 50)" ;;
		*)	rgoal= ogoal= ;;
		esac
		awk -v a="$ours" -v b="$floor" -v n="$1_cpu_$k" \
		    -v rg="$rgoal" -v og="$ogoal" 'BEGIN {
			if (b > 0) printf "%s_ratio %.2f ratio%s\n", n,
			    a / b, rg
			printf "%s_over_floor %.0f us/msg%s\n", n, a - b, og }'
		[ -z "$BEFORE" ] ||
		    awk -v a="$(cpus "$1_cpu_${k}_before" | median)" \
		    -v b="$floor" -v n="$1_cpu_$k" 'BEGIN {
			if (b > 0) printf "%s_before_ratio %.2f ratio\n", n,
			    a / b
			printf "%s_before_over_floor %.0f us/msg\n", n, a - b }'
		[ -z "$OPENDKIM" ] ||
		    awk -v a="$(cpus "$1_cpu_${k}_opendkim" | median)" \
		    -v b="$floor" -v n="$1_cpu_$k" 'BEGIN {
			if (b > 0) printf "%s_opendkim_ratio %.2f ratio\n", n,
			    a / b }'
		for m in $MILTERS; do
			for q in p50 p99; do
				case $q in p50) f=0.50 ;; p99) f=0.99 ;; esac
				printf '%s_lat_%s_%s_%s %s us\n' "$1" "$k" \
				    "$m" $q "$(quantile "$1_lat_${k}_$m" $f)"
			done
		done
		awk -v a="$(quantile "$1_lat_${k}_ours" 0.99)" \
		    -v b="$(quantile "$1_lat_${k}_floor" 0.99)" \
		    -v n="$1_lat_$k" 'BEGIN {
			printf "%s_added_p99 %.0f us\n", n, a - b
			if (b > 0) printf "%s_p99_ratio %.2f ratio (goal: " \
			    "at most 1.5)\n", n, a / b }'
		[ -z "$BEFORE" ] ||
		    awk -v a="$(quantile "$1_lat_${k}_before" 0.99)" \
		    -v b="$(quantile "$1_lat_${k}_floor" 0.99)" \
		    -v n="$1_lat_$k" 'BEGIN {
			if (b > 0) printf "%s_before_p99_ratio %.2f ratio\n",
			    n, a / b }'
		# what the milters said of the mail, over every round
		for m in ours ${BEFORE:+before} ${OPENDKIM:+opendkim}; do
			cat "$T/$1_cpu_${k}_$m".*.out \
			    "$T/$1_lat_${k}_$m".*.out |
			    awk -v n="$1_said_${k}_$m" '/=.* messages$/ {
				s[$1] += $2 } END { for (v in s)
					printf "%s %s %d messages\n", n, v,
					    s[v] }'
		done
		want=$(cat "$T/$k.expect")
		cat "$T/$1_cpu_${k}_ours".*.out "$T/$1_lat_${k}_ours".*.out |
		    grep '^X-Patch-Attested=' |
		    grep -v "^X-Patch-Attested=$want " | grep -q . &&
		    echo "bench-cpu: ours did not always say $want of $k" \
		    "mail over $1, as patchattest check does: see its" \
		    "figures with care"
		[ -z "$dkim" ] || ! cat "$T/$1_cpu_${k}_opendkim".*.out \
		    "$T/$1_lat_${k}_opendkim".*.out | grep 'dkim=' |
		    grep -qv 'dkim=pass ' || echo "bench-cpu: OpenDKIM did" \
		    "not always verify the DKIM signature of $k mail over" \
		    "$1: see its figures with care"
	done
}

MILTERS="floor ${OPENDKIM:+opendkim} ours ${BEFORE:+before}"
echo
echo "bench-cpu: the goals, for tcp1 (as a server meets the milter): our" \
    "own work at most 250 us a message over the floor for a v0.1 pass" \
    "and an ed25519 patatt pass (at most 1.25 times the floor's CPU); a" \
    "mail with no patch at most 50 us over it; the added latency p99 at" \
    "most 1.5 times the floor's"
for shape in $SHAPES; do
	case $shape in
	tcp1)	per_conn=1 ;;
	unix10)	per_conn=10 ;;
	esac
	for m in $MILTERS; do
		start "$m"
	done
	echo
	echo "bench-cpu: $shape: CPU per message, $COUNT messages over" \
	    "$CONNS connections at a time, $per_conn a connection, after" \
	    "$WARMUP, median of $ROUNDS rounds; latency of $LATENCY" \
	    "messages one at a time in each round"
	r=1
	while [ $r -le "$ROUNDS" ]; do
		for k in $KINDS; do
			for m in $MILTERS; do
				drive "${shape}_cpu_${k}_$m.$r" "$k" "$m" \
				    -c $CONNS -m $per_conn -w $WARMUP \
				    -n "$COUNT"
			done
			latency "$k" "$r"
		done
		r=$((r + 1))
	done
	for m in $MILTERS; do
		eval "p=\$PID_$m"
		child_running "$p" || echo "bench-cpu: $m died over $shape;" \
		    "see the figures below with care"
	done
	stop
	report "$shape"
done

# --- the work counted -------------------------------------------------------
INSTR_COUNT=${BENCH_CPU_INSTR_COUNT:-200}
CG_MILTERS="cg_floor cg_ours cg_nostate"
if [ "${BENCH_CPU_INSTR:-1}" = 0 ]; then
	exit 0
elif ! command -v valgrind >/dev/null 2>&1 ||
    ! command -v callgrind_control >/dev/null 2>&1; then
	echo "bench-cpu: valgrind is not installed: no instruction counts"
	exit 0
fi
shape=instr
for m in $CG_MILTERS; do
	start "$m"
done
echo
echo "bench-cpu: instructions a message under callgrind, $INSTR_COUNT" \
    "messages one a connection after 50, the kernel's work left out"
# instr NAME: NAME's instructions since its counts were zeroed, in its
# dump number $n, made now
instr() {
	eval "ipid=\$PID_$1"
	callgrind_control -d "$ipid" >/dev/null 2>&1 || return 1
	i=0
	while [ ! -s "$T/$1.cg.$n" ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	sed -n 's/^summary: *//p' "$T/$1.cg.$n" 2>/dev/null
}
n=0
for k in $KINDS; do
	n=$((n + 1))
	for m in $CG_MILTERS; do
		eval "ipid=\$PID_$m"
		# after each drive, the StateFile's writer writes its last
		# batch (LEDGER_GATHER_MS): the warm-up's before the count
		drive "instr_${k}_${m}_warm" "$k" "$m" -c 1 -m 1 -w 0 -n 50 \
		    -t 120
		sleep 0.5
		callgrind_control -z "$ipid" >/dev/null 2>&1
		drive "instr_${k}_$m" "$k" "$m" -c 1 -m 1 -w 0 \
		    -n "$INSTR_COUNT" -t 600
		sleep 0.5
		eval "I_$m=\$(instr $m)"
	done
	awk -v k="$k" -v n="$INSTR_COUNT" -v f="$I_cg_floor" \
	    -v o="$I_cg_ours" -v s="$I_cg_nostate" 'BEGIN {
		if (f == "" || o == "" || s == "") {
			printf "bench-cpu: no instruction count for %s\n", k
			exit
		}
		printf "instr_%s_floor %.0f instr/msg\n", k, f / n
		printf "instr_%s_ours %.0f instr/msg\n", k, o / n
		printf "instr_%s_nostate %.0f instr/msg\n", k, s / n
		printf "instr_%s_over_floor %.0f instr/msg\n", k, (o - f) / n
		printf "instr_%s_statefile %.0f instr/msg\n", k, (o - s) / n }'
	[ ! -s "$T/cg_ours.cg.$n" ] || {
		echo "bench-cpu: where ours's instructions went on $k mail" \
		    "(a function's own, of all it counted):"
		callgrind_annotate --threshold=100 --inclusive=no \
		    "$T/cg_ours.cg.$n" 2>/dev/null | awk '
		    /file:function/ { go = 1; next }
		    go && $1 ~ /^[0-9,]+$/ && $0 !~ /:(clone|start_thread) / {
			print "  " $0; if (++shown == 8) exit }'
	}
done
stop
exit 0
