#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# t-milter.sh - patchattest-milter driven by miltertest: GnuPG keys made
# here, the seed series signed with "patchattest attest" by a trusted, an
# untrusted and an unknown key, Maildir archives indexed, then one
# milter per scenario (tests/milter/t-*.lua), each with its own
# configuration and a copy of its index.  TAP on stdout, one line per
# scenario and a few more.
#
# miltertest can tell that a header was deleted, not in which order, and
# matches reply texts only whole; so tests/milter-record sits between
# miltertest and the milter and logs every packet for the scenarios to
# read (see tests/milter/harness.lua).
#
# Environment: PATCHATTEST, PATCHATTEST_MILTER (the binaries), srcdir,
# top_builddir (make check exports them all).  Skips without miltertest,
# gpg or the milter.  PATCHATTEST_KEEP=1 keeps the work directory.

: "${PATCHATTEST:?PATCHATTEST must name the built binary}"
: "${srcdir:=.}"
: "${top_builddir:=.}"
MILTER=${PATCHATTEST_MILTER:-$top_builddir/patchattest-milter}
RECORDER=$top_builddir/tests/milter-record
LEDGER_DUMP=$top_builddir/tests/ledger-dump
started=$(date +%s)
scenarios=$srcdir/tests/milter
seeds=$srcdir/tests/fixtures/seeds
fixtures=$srcdir/tests/fixtures/mail

for prog in miltertest gpg gpgconf; do
	if ! command -v "$prog" >/dev/null 2>&1; then
		echo "1..0 # SKIP $prog is not installed"
		exit 0
	fi
done
if [ ! -x "$MILTER" ]; then
	echo "1..0 # SKIP no milter binary at $MILTER"
	exit 0
fi
if [ ! -x "$RECORDER" ]; then
	echo "1..0 # SKIP $RECORDER is not built (make check builds it)"
	exit 0
fi

. "$srcdir/tests/tap.sh"
. "$srcdir/tests/children.sh"
T=$(mktemp -d "${TMPDIR:-/tmp}/t-milter.XXXXXX") || exit 1
# pids: recorders and milters started and not yet waited for
pids=
# forget PID: waited for, so cleanup must not signal its (reusable) ID
forget() {
	rest=
	for p in $pids; do
		[ "$p" = "$1" ] || rest="$rest $p"
	done
	pids=$rest
}
cleanup() {
	for p in $pids; do
		child_kill 9 "$p"
	done
	workdir_release
}
trap cleanup 0
trap 'exit 1' HUP INT TERM

# --- keys ----------------------------------------------------------------
# The milter's keyring ($T/gnupg) holds alice's key, made there and so
# trusted, and bob's public key, imported and certified by nobody.
# Mallory's key exists only in its own home.
mkkey() {
	mkdir -m 700 "$T/$1"
	GNUPGHOME=$T/$1 gpg --batch --quiet --passphrase '' --quick-gen-key \
	    "$2" ed25519 sign never >"$T/$1.log" 2>&1
	setup $? "make the key $2" "$T/$1.log"
}
mkkey gnupg 'Alice Developer <alice@example.org>'
mkkey gnupg-bob 'Bob Untrusted <bob@example.org>'
mkkey gnupg-mallory 'Mallory Unknown <mallory@example.com>'
GNUPGHOME=$T/gnupg-bob gpg --batch --export bob@example.org |
    GNUPGHOME=$T/gnupg gpg --batch --quiet --import 2>"$T/import.log"
setup $? "import bob's key" "$T/import.log"

# --- mail ----------------------------------------------------------------
D=$T/data
mkdir "$D"
i=1
for f in "$seeds"/00[2-7]-*.patch; do
	cp "$f" "$D/p$i.eml"
	i=$((i + 1))
done
cp "$seeds"/001-*.txt "$D/cover.eml"
cp "$fixtures/break-diff-u.eml" "$D/none.eml"
# tampered copies: one line of the commit message, one line of the diff
sed 's/^Add a table to document/Add a tabel to document/' "$D/p1.eml" \
    >"$D/fail-m.eml"
sed 's/^+ \* The decision process/+ * The decisive process/' "$D/p1.eml" \
    >"$D/fail-p.eml"
! cmp -s "$D/p1.eml" "$D/fail-m.eml" && ! cmp -s "$D/p1.eml" "$D/fail-p.eml"
setup $? "make the tampered patches" /dev/null
cat >"$D/plain.eml" <<'EOF'
From: Carol Writer <carol@example.net>
To: maint@test.example
Subject: lunch on Friday?
Date: Tue, 01 Dec 2026 10:00:00 +0000
Message-ID: <lunch-1@example.net>

Shall we meet at noon?  No patch in here.
EOF

# seed 002 signed by the real patatt tool, and the same with a line of its
# diff changed (when Debian's patatt is installed)
. "$srcdir/tests/patatt-lib.sh"
have_patatt= have_tofu=
if patatt_setup "$T/patatt" && patatt_sign "$D/p1.eml" "$D/patatt.eml" &&
    patatt_sign "$D/cover.eml" "$D/patatt-cover.eml"; then
	sed 's/^+ \* The decision process/+ * The decisive process/' \
	    "$D/patatt.eml" >"$D/patatt-fail.eml"
	have_patatt=yes
fi
# seed 002 with a Message-ID, signed (h= has message-id), and copies of it
# changed after signing: a line of the commit message, of the diff, the
# Subject; and the diff or the Subject changed under another Message-ID,
# of which no copy arrived before (t-patatt-changed.lua)
have_changed=
if [ -n "$have_patatt" ] &&
    sed '/^Subject: /a Message-ID: <seed-002-signed@example.org>' \
    "$D/p1.eml" >"$T/patatt-id.raw" &&
    patatt_sign "$T/patatt-id.raw" "$D/patatt-id.eml"; then
	sed 's/^Add a table to document/Add a tabel to document/' \
	    "$D/patatt-id.eml" >"$D/patatt-id-m.eml"
	sed 's/^+ \* The decision process/+ * The decisive process/' \
	    "$D/patatt-id.eml" >"$D/patatt-id-p.eml"
	sed '1,/^$/s/^Subject: \(.*\)$/Subject: \1 (tampered)/' \
	    "$D/patatt-id.eml" >"$D/patatt-id-subject.eml"
	for f in p subject; do
		sed '1,/^$/s/^Message-ID: <seed-002-signed@/Message-ID: <other@/' \
		    "$D/patatt-id-$f.eml" >"$D/patatt-other-$f.eml"
	done
	tr -d '\n' <"$D/patatt-id.eml" |
	    grep -q 'h=from:subject:message-id;' &&
	    ! cmp -s "$D/patatt-id.eml" "$D/patatt-id-m.eml" &&
	    ! cmp -s "$D/patatt-id.eml" "$D/patatt-id-p.eml" &&
	    ! cmp -s "$D/patatt-id.eml" "$D/patatt-id-subject.eml" &&
	    ! cmp -s "$D/patatt-id-p.eml" "$D/patatt-other-p.eml" &&
	    ! cmp -s "$D/patatt-id-subject.eml" "$D/patatt-other-subject.eml"
	setup $? "sign seed 002 with a Message-ID, change it" /dev/null
	have_changed=yes
fi
# for the milter's clock: seed 002 signed now and dated three years ago;
# signed three years ago (patatt's clock set back) and dated now; the same
# dated when it was signed (an old signed mail sent again); signed an hour
# ahead of the clock and dated now.  patatt does not sign Date.
have_clock=
now=$(date +%s)
ago=$((now - 3 * 365 * 86400))
if [ -n "$have_patatt" ]; then
	sed "0,/^Date: .*/s//Date: $(date -R -d "@$ago")/" "$D/patatt.eml" \
	    >"$D/clock-dated-old.eml"
	sed "0,/^Date: .*/s//Date: $(date -R -d "@$now")/" "$D/p1.eml" \
	    >"$T/fresh.eml"
	patatt_sign_at "$ago" "$T/fresh.eml" "$D/clock-signed-old.eml" &&
	    patatt_sign_at $((now + 3600)) "$T/fresh.eml" \
	    "$D/clock-signed-ahead.eml" && have_clock=yes
	sed "0,/^Date: .*/s//Date: $(date -R -d "@$ago")/" \
	    "$D/clock-signed-old.eml" >"$D/clock-resent.eml"
fi
# signer memory: seeds 003-005 in the name of dev@example.org signed with
# dev's key, seed 006 in dev's name unsigned, seed 007 in another's; then,
# unsigned: seed 002's diff in dev's answer to the series (a reviewer's
# suggestion, quoted text for its commit message), seed 007 sent by dev
# for carol (an in-body From), seed 006 sent by carol for dev, and seed
# 002 sent for dev by the kernel's web endpoint (X-Original-From)
# habit_mail IN OUT FROM N: IN from FROM, with Message-ID habit-N and a
# List-Id
habit_mail() {
	sed -e "s/^From: .*/From: $3/" -e \
	    "s/^Date: .*/&\nMessage-ID: <habit-$4@example.org>\nList-Id: <leds.example.org>/" \
	    "$1" >"$2"
}
have_habit=
if [ -n "$have_patatt" ]; then
	have_habit=yes
	for i in 1 2 3; do
		habit_mail "$D/p$((i + 1)).eml" "$T/habit-$i.raw" \
		    'Dev Eloper <dev@example.org>' $i &&
		    patatt_sign "$T/habit-$i.raw" "$D/habit-$i.eml" || have_habit=
	done
	habit_mail "$D/p5.eml" "$D/habit-forged.eml" \
	    'Dev Eloper <dev@example.org>' forged
	habit_mail "$D/p6.eml" "$D/habit-other.eml" \
	    'Carol Writer <carol@example.net>' other
	habit_mail "$D/p1.eml" "$T/habit-reply.raw" \
	    'Dev Eloper <dev@example.org>' reply
	awk 'NR == 1, /^$/ {
		sub(/^Subject: /, "Subject: Re: ")
		if ($0 != "") {
			print
			next
		}
		print "In-Reply-To: <series-v4-0@example.org>\n"
		print "On Mon, 24 Feb 2020, Kees Cook wrote:"
		print "> Add a table to document the current behavior.\n"
		print "How about this instead:\n"
		skip = 1
		next
	}
	skip && !/^diff --git / { next }
	{ skip = 0; print }' "$T/habit-reply.raw" >"$D/habit-reply.eml"
	habit_mail "$D/p6.eml" "$T/habit-relay.raw" \
	    'Dev Eloper <dev@example.org>' relay
	sed '0,/^$/s//\nFrom: Carol Writer <carol@example.net>\n/' \
	    "$T/habit-relay.raw" >"$D/habit-relay.eml"
	habit_mail "$D/p5.eml" "$T/habit-for-dev.raw" \
	    'Carol Writer <carol@example.net>' for-dev
	sed '0,/^$/s//\nFrom: Dev Eloper <dev@example.org>\n/' \
	    "$T/habit-for-dev.raw" >"$D/habit-for-dev.eml"
	habit_mail "$D/p1.eml" "$T/habit-endpoint.raw" \
	    'Dev Eloper via B4 Relay <devnull+dev.example.org@kernel.org>' \
	    endpoint
	sed '0,/^Date: /s//X-Original-From: Dev Eloper <dev@example.org>\n&/' \
	    "$T/habit-endpoint.raw" >"$D/habit-endpoint.eml"
fi
# for PatattTOFU: seed 002 signed by a second key as DEV@Example.ORG, by
# the first as dev2@example.org and as new@example.org
tofu_sign() {
	patatt_in_repo git config "patatt.$1.signingkey" "ed25519:$2" &&
	    patatt_in_repo git config "patatt.$1.selector" "$2" &&
	    patatt_in_repo git config "patatt.$1.identity" "$3" &&
	    patatt_in_repo patatt -s "$1" sign <"$D/p1.eml" >"$D/tofu-$1.eml" \
	    2>>"$T/patatt/sign.log"
}
if [ -n "$have_patatt" ] &&
    patatt_in_repo patatt genkey -n t2 >>"$T/patatt/genkey.log" 2>&1 &&
    tofu_sign case t2 DEV@Example.ORG && tofu_sign pgponly t1 \
    dev2@example.org && tofu_sign new t1 new@example.org; then
	have_tofu=yes
	mkdir -p "$T/tofu-kr/openpgp/example.org/dev2"
	cp "$T/patatt/keyring/ed25519/example.org/dev/t1" \
	    "$T/tofu-kr/openpgp/example.org/dev2/default"
fi
# and as race@example.org by each of RACERS keys of its own
RACERS=8
i=1
while [ -n "$have_tofu" ] && [ "$i" -le "$RACERS" ]; do
	patatt_in_repo patatt genkey -n "r$i" >>"$T/patatt/genkey.log" 2>&1 &&
	    tofu_sign "race$i" "r$i" race@example.org || have_tofu=
	i=$((i + 1))
done

# sign KEY HOME: the attestation document of the series, signed by KEY
sign() {
	printf 'GnuPGHome %s\n' "$T/$2" >"$T/sign-$2.conf"
	"$PATCHATTEST" attest -c "$T/sign-$2.conf" -u "$1" \
	    "$seeds"/001-*.txt "$seeds"/00[2-7]-*.patch \
	    >"$T/doc-$2.eml" 2>"$T/attest-$2.log"
	setup $? "sign the series as $1" "$T/attest-$2.log"
}
sign alice@example.org gnupg
sign bob@example.org gnupg-bob
sign mallory@example.com gnupg-mallory
cp "$T/doc-gnupg.eml" "$D/doc.eml"

# --- archives and indexes ------------------------------------------------
# archive NAME [DOC]: Maildir $T/md-NAME with plain mail and DOC, indexed
# with the milter's keyring into $T/index-NAME
archive() {
	mkdir -p "$T/md-$1/new" "$T/md-$1/cur" "$T/md-$1/tmp"
	cp "$D/plain.eml" "$T/md-$1/cur/1.host:2,S"
	[ -n "$2" ] && cp "$2" "$T/md-$1/new/2.host"
	cat >"$T/index-$1.conf" <<EOF
Archive $T/md-$1
IndexPath $T/index-$1
GnuPGHome $T/gnupg
EOF
	"$PATCHATTEST" index -c "$T/index-$1.conf" >"$T/index-$1.log" 2>&1
	setup $? "index the $1 archive" "$T/index-$1.log"
}
archive main "$T/doc-gnupg.eml"
archive bob "$T/doc-gnupg-bob.eml"
archive mallory "$T/doc-gnupg-mallory.eml"
archive empty
grep -q ' 6 attestations indexed' "$T/index-main.log"
setup $? "six attestations indexed" "$T/index-main.log"
# a poisoned archive for the milter to read itself: a document signed by
# an unknown key and over the 16 MiB limit, and one whose YAML is broken,
# beside the real one
mkdir -p "$T/md-poisoned/new" "$T/md-poisoned/cur" "$T/md-poisoned/tmp"
awk 'BEGIN { printf "00000000-00000000-00000000:\n  i: 0\n  m: 0\n  p: 0\n";
    for (k = 0; k < 360000; k++) printf "# padding padding padding padding padding padding\n" }' \
    >"$T/huge.yaml"
{ printf 'From: <devnull@kernel.org>\nSubject: Patch attestation\n\n'
  GNUPGHOME=$T/gnupg-mallory gpg --batch --clearsign \
      --comment 'att-fmt-ver: 0.1' --comment 'att-hash: sha256' -o - \
      "$T/huge.yaml"; } >"$T/md-poisoned/new/0.host" 2>"$T/huge.log"
setup $? "sign a document over 16 MiB" "$T/huge.log"
rm -f "$T/huge.yaml"
{ printf 'From: <devnull@kernel.org>\nSubject: Patch attestation\n\n'
  printf '2a02abe0-215cf3f1-2acb5798: [unclosed\n' |
  GNUPGHOME=$T/gnupg-mallory gpg --batch --clearsign \
      --comment 'att-fmt-ver: 0.1' --comment 'att-hash: sha256' -o -; } \
    >"$T/md-poisoned/new/1.host" 2>"$T/broken.log"
setup $? "sign a broken document" "$T/broken.log"
cp "$T/doc-gnupg.eml" "$T/md-poisoned/new/2.host"

# an index that cannot be used: data.mdb is not an LMDB file
mkdir "$T/index-broken"
awk 'BEGIN { for (i = 0; i < 1024; i++) printf "%063d\n", i }' \
    >"$T/index-broken/data.mdb"

# --- scenarios -----------------------------------------------------------
# scenario NAME LUA INDEX [CONF-LINE...]: run tests/milter/LUA against a
# milter of its own, with a copy of index INDEX (main, bob, mallory,
# empty, broken, old; missing: none at all; cut: main's, truncated;
# poisoned: none, the milter reads its archive) and the archive it came from
# (noarchive: no Archive and no index), plus the lines given.
# $defines adds miltertest -D variables; $hdr_index names the index the
# expected headers (DATA/*.hdr) come from (default: INDEX); $gnupghome
# replaces the milter's GnuPG home; $refresh is ArchiveRefresh (default 0).
defines=
hdr_index=
gnupghome=
refresh=
statefile=
stopping=
racers=

# race ARG...: $racers copies of the scenario $lua at once (miltertest
# ARG..., each straight to the milter, see t-tofu-race.lua), let go
# together once all are ready; each copy's output follows; status 0 when
# every copy passed
race() {
	mkfifo "$d/go" && mkdir "$d/ready" "$d/out.d" || return 1
	racing=
	i=1
	while [ "$i" -le "$racers" ]; do
		miltertest "$@" -D RACER="$i" -D READY="$d/ready" \
		    -D GO="$d/go" -D OUT="$d/out.d" -s "$scenarios/$lua" \
		    >"$d/out-$i" 2>&1 &
		child_note $!
		racing="$racing $!"
		i=$((i + 1))
	done
	pids="$pids $racing"
	t=0
	while [ "$(ls "$d/ready" | wc -l)" -lt "$racers" ] && [ "$t" -lt 600 ]
	do
		sleep 0.1
		t=$((t + 1))
	done
	# open read-write: it never blocks, and lets every copy waiting to
	# open the fifo go on, now and later
	exec 3<>"$d/go"
	st=0
	for p in $racing; do
		wait "$p" || st=1
		forget "$p"
	done
	exec 3>&-
	cat "$d"/out-*
	return $st
}

scenario() {
	name=$1 lua=$2 index=$3 cut=
	shift 3
	d=$T/run/$name
	mkdir -p "$d/data"
	cp "$D"/*.eml "$d/data/"
	archive=$T/md-$index
	case $index in
	broken) archive=$T/md-main ;;
	missing) archive=$T/md-main; index= ;;
	noarchive) archive=; index= ;;
	cut) archive=$T/md-main; index=main; cut=yes ;;
	old) archive=$T/md-main ;;
	poisoned) index= ;;
	esac
	[ -n "$index" ] && cp -R "$T/index-$index" "$d/index"
	# cut: main's, its file at half its size, as if something truncated it
	[ -z "$cut" ] || truncate -s $(($(wc -c <"$d/index/data.mdb") / 2)) \
	    "$d/index/data.mdb"
	{
		[ -z "$archive" ] || echo "Archive $archive"
		echo "IndexPath $d/index"
		echo "StateFile ${statefile:-$d/state.mdb}"
		echo "GnuPGHome ${gnupghome:-$T/gnupg}"
		echo "Socket unix:$d/milter.sock"
		echo "Syslog no"
		echo "LogLevel debug"
		# as root (CI), knowingly
		[ "$(id -u)" -ne 0 ] || echo "UserID root"
		echo "ArchiveRefresh ${refresh:-0}"
		for line in "$@"; do
			echo "$line"
		done
	} >"$d/milter.conf"

	# what "patchattest check --header" says of each patch
	hconf=$d/milter.conf
	[ -n "$hdr_index" ] && hconf=$T/index-$hdr_index.conf
	for m in p1 p2 p3 p4 p5 p6 fail-m fail-p none patatt \
	    patatt-fail patatt-cover; do
		[ -f "$d/data/$m.eml" ] || continue
		"$PATCHATTEST" check -c "$hconf" --header "$d/data/$m.eml" \
		    >"$d/data/$m.hdr" 2>>"$d/check.log"
	done

	"$RECORDER" "$d/rec.sock" "$d/milter.sock" "$d/rec.log" \
	    2>"$d/rec.err" &
	rpid=$!
	child_note "$rpid"
	"$MILTER" -f -c "$d/milter.conf" >"$d/milter.log" 2>&1 &
	mpid=$!
	child_note "$mpid"
	pids="$pids $rpid $mpid"

	if [ -n "$racers" ]; then
		set -- -D HARNESS="$scenarios/harness.lua" \
		    -D SOCK="unix:$d/milter.sock" -D DATA="$d/data"
	else
		set -- -D HARNESS="$scenarios/harness.lua" \
		    -D SOCK="unix:$d/rec.sock" -D RECORD="$d/rec.log" \
		    -D DATA="$d/data" -D MILTER_PID="$mpid"
	fi
	for v in $defines; do
		set -- "$@" -D "$v"
	done
	if [ -n "$racers" ]; then
		race "$@" >"$d/out" 2>&1
	else
		miltertest "$@" -s "$scenarios/$lua" >"$d/out" 2>&1
	fi
	rc=$?

	# SIGTERM: libmilter takes seconds to stop, so the milters stop
	# together at the end (stopped) rather than one after the other
	child_kill TERM "$mpid"
	stopping="$stopping $name:$mpid"
	child_kill TERM "$rpid"
	wait "$rpid" 2>/dev/null
	forget "$rpid"

	ok "$rc" "$name ($lua)"
	if [ "$rc" -ne 0 ]; then
		diag "$d/out"
		echo "#   milter log:"
		diag "$d/milter.log" 20
	fi
	defines=
	hdr_index=
	gnupghome=
	refresh=
	statefile=
	racers=
}

scenario pass t-pass.lua main
# One log line for the first message (queue ID PASSQID01) names its
# Message-ID, result, attestation ID and signer.
grep 'PASSQID01' "$T/run/pass/milter.log" >"$T/logline"
[ "$(wc -l <"$T/logline")" -eq 1 ] &&
    grep 't-pass-1@example\.org' "$T/logline" |
    grep '2a02abe0-215cf3f1-2acb5798' | grep 'Alice Developer' |
    sed 's/t-pass-1@example\.org//' | grep -qw pass
st=$?
ok $st "pass: one log line with queue ID, Message-ID, result, ID, signer"
[ $st -eq 0 ] || diag "$T/run/pass/milter.log"

# The MTA waited for no answer to a header, the end of the headers or a
# body chunk (the milter asked it to, and miltertest offers it), and sent
# them (a milter that asked for nothing would pass too, but not this).
awk -F '\t' '$1 == ">" { seen[$2]++; last = $2; next }
    $1 == "<" && (last == "L" || last == "N" || last == "B") { bad++ }
    { last = "" }
    END { exit !(seen["L"] > 0 && seen["B"] > 0 && bad == 0) }' \
    "$T/run/pass/rec.log"
ok $? "pass: no reply to a header, the end of headers or a body chunk"

scenario fail-m t-fail-m.lua main
scenario fail-p t-fail-p.lua main
# A patch and an attacker's copy under its Message-ID, after it and before
# it: patchattest arrived on the genuine patch says copies-differ (exit
# 4), lists each copy with the host it came from and marks the genuine
# one; the log warns of each differing copy, naming both hosts.
scenario copies t-copies.lua main
for when in after before; do
	{ echo "Message-ID: <copies-$when@example.org>"; cat "$D/p1.eml"; } \
	    >"$T/copies-$when.eml"
	"$PATCHATTEST" arrived -c "$T/run/copies/milter.conf" \
	    "$T/copies-$when.eml" >"$T/copies-$when.out" 2>&1
	echo "status $?" >>"$T/copies-$when.out"
done
grep -q "	copies-differ	commit message	2 copies arrived, 2 kept, 1 differ from the first; this message is copy 1$" \
    "$T/copies-after.out" &&
    grep -q "	copy 1	.*	from dev@example.org	host lists.example.org \[192.0.2.20\]	queue LISTAFTER	.*	<- this message$" \
    "$T/copies-after.out" &&
    grep -q "	copy 2	.*	from mallory@attacker.example	host mx.attacker.example \[203.0.113.9\]	queue EVILAFTER	.*	differs from the first: commit message$" \
    "$T/copies-after.out" && grep -q "^status 4$" "$T/copies-after.out"
st=$?
ok $st "copies: the attacker's copy after the genuine one: arrived says copies-differ, exit 4, each copy with its host"
[ $st -eq 0 ] || diag "$T/copies-after.out"
grep -q "	copies-differ	commit message	2 copies arrived, 2 kept, 1 differ from the first; this message is copy 2$" \
    "$T/copies-before.out" &&
    grep -q "	copy 2	.*	host lists.example.org \[192.0.2.20\]	queue LISTBEFORE	.*	differs from the first: commit message	<- this message$" \
    "$T/copies-before.out" && grep -q "^status 4$" "$T/copies-before.out"
st=$?
ok $st "copies: the attacker's copy first: the same, the genuine one copy 2"
[ $st -eq 0 ] || diag "$T/copies-before.out"
grep -q 'EVILAFTER: message-id="<copies-after@example.org>" arrived again with other content: commit-message differs from the first copy; 2 copies, 1 differing; copy=2 .* host="mx.attacker.example \[203.0.113.9\]" queue="EVILAFTER" .* first=1 .* host="lists.example.org \[192.0.2.20\]" queue="LISTAFTER" .*(an attack' \
    "$T/run/copies/milter.log" &&
    grep -q 'LISTBEFORE: message-id="<copies-before@example.org>" arrived again with other content: .* host="lists.example.org \[192.0.2.20\]" .* first=1 .* host="mx.attacker.example \[203.0.113.9\]"' \
    "$T/run/copies/milter.log"
st=$?
ok $st "copies: each differing copy is a warning in the log, naming both hosts"
[ $st -eq 0 ] || diag "$T/run/copies/milter.log"
scenario nokey t-nokey.lua mallory "AuthservID mx.test.example"
scenario untrusted t-untrusted.lua bob "AuthservID mx.test.example"
scenario none t-none.lua main
scenario forged-one t-forged-one.lua main
scenario forged-three t-forged-three.lua main
scenario forged-spelling t-forged-spelling.lua main \
    "AuthservID mx.test.example"
scenario authres t-authres.lua main "AuthservID mx.test.example"
scenario forged-flood t-forged-flood.lua main "AuthservID mx.test.example"
scenario reject t-reject.lua main "OnFail reject"
scenario tempfail t-tempfail.lua main "OnNone tempfail"
scenario quarantine t-quarantine.lua main "OnFail quarantine"
scenario wait t-wait.lua main "AttestationWait 60"

hdr_index=main
scenario learn t-learn.lua empty "LearnFromMail yes"
# what was learnt is in the index on disk, as if indexed from the archive
verdict=$("$PATCHATTEST" check -c "$T/run/learn/milter.conf" \
    "$D/p1.eml" 2>/dev/null | cut -f2)
[ "$verdict" = pass ]
ok $? "learn: the document is in the index on disk"

scenario nolearn t-nolearn.lua empty "LearnFromMail no"
defines="MAXBODY=2560"
scenario oversize t-oversize.lua main "MaximumBodySize 2560"
defines="MAXBODY=2560 ONERROR=tempfail"
scenario oversize-tempfail t-oversize.lua main "MaximumBodySize 2560" \
    "OnError tempfail"
defines="STALL=$srcdir/tests/milter-stall.py MSOCK=$T/run/stalled/milter.sock"
scenario stalled t-stalled.lua main "Timeout 5" "MaximumConnections 4"
# 1,000 stalled clients (t-crowd.lua) want more than 1,000 descriptors on
# either side
hard=$(ulimit -Hn)
if [ "$hard" = unlimited ] || [ "$hard" -ge 1100 ]; then
	defines="STALL=$srcdir/tests/milter-stall.py MSOCK=$T/run/crowd/milter.sock"
	scenario crowd t-crowd.lua main "IdleConnectionGrace 2"
else
	skip "crowd (t-crowd.lua)" "descriptors limited to $hard (ulimit -Hn)"
fi
defines="MSOCK=$T/run/yield/milter.sock"
scenario yield t-yield.lua main "MaximumConnections 1" \
    "IdleConnectionGrace 1"
scenario abort t-abort.lua main
scenario multi t-multi.lua main
scenario nonpatch t-nonpatch.lua main
defines="MARK=yes"
scenario nonpatch-marked t-nonpatch.lua main "MarkNonPatches yes"
scenario reload-start t-reload-start.lua main
scenario temperror t-temperror.lua broken "AuthservID mx.test.example"
defines="ONERROR=tempfail"
scenario temperror-tempfail t-temperror.lua broken "OnError tempfail"
scenario temperror-missing t-temperror.lua missing \
    "AuthservID mx.test.example"
# the index's file cut to half, before the start and under the milter
defines="MODE=start"
scenario truncated-start t-truncated.lua cut "AuthservID mx.test.example"
defines="MODE=live DATA_MDB=$T/run/truncated-live/index/data.mdb
    PIDFILE=$T/run/truncated-live/milter.pid"
scenario truncated-live t-truncated.lua main \
    "PidFile $T/run/truncated-live/milter.pid"

# the index removed and made again, emptied, or written over with random
# bytes under the running milter: the next message sees what is there
r=$T/run/replaced-rebuild
printf 'Archive %s\nIndexPath %s\nGnuPGHome %s\n' "$T/md-main" "$r/index" \
    "$T/gnupg" >"$T/rebuild.conf"
printf '#!/bin/sh\nrm -rf "%s" && "%s" index -c "%s" >"%s" 2>&1\n' \
    "$r/index" "$PATCHATTEST" "$T/rebuild.conf" "$T/rebuild.log" \
    >"$T/rebuild.sh"
chmod +x "$T/rebuild.sh"
defines="MODE=rebuild REBUILD=$T/rebuild.sh"
scenario replaced-rebuild t-replaced.lua empty
for m in emptied random; do
	defines="MODE=$m DATA_MDB=$T/run/replaced-$m/index/data.mdb
	    PATCHATTEST=$PATCHATTEST"
	scenario replaced-$m t-replaced.lua main
done

# the main index written again as the schema before wrote it: a milter
# that only reads it says to run patchattest index until that has
# upgraded it in place; one that writes it upgrades it as it starts
cp -R "$T/index-main" "$T/index-old" &&
    "$top_builddir/tests/index-downgrade" "$T/index-old" \
    >"$T/downgrade.log" 2>&1
setup $? "the main index as schema 2 wrote it" "$T/downgrade.log"
printf '#!/bin/sh\n"%s" index -c "%s" >"%s" 2>&1\n' "$PATCHATTEST" \
    "$T/run/oldindex-reader/milter.conf" "$T/upgrade.log" >"$T/upgrade.sh"
chmod +x "$T/upgrade.sh"
hdr_index=main
defines="MODE=reader UPGRADE=$T/upgrade.sh"
scenario oldindex-reader t-oldindex.lua old "LearnFromMail no"
hdr_index=main
defines="MODE=writer LOG=$T/run/oldindex-writer/milter.log"
scenario oldindex-writer t-oldindex.lua old

# a mail of 400 signed documents to learn: capped, and stopped by a
# reload and by SIGTERM (one document signed, then changed: each costs a
# GnuPG run and none verifies)
printf 'note 0\n' | GNUPGHOME=$T/gnupg-mallory gpg --batch --clearsign \
    --comment 'att-fmt-ver: 0.1' --comment 'att-hash: sha256' -o - \
    >"$T/note.asc" 2>"$T/note.log"
setup $? "sign a note" "$T/note.log"
{ printf 'From: <notes@example.com>\nTo: maint@test.example\n'
  printf 'Subject: 400 notes\nMessage-ID: <notes@example.com>\n\n'
  awk 'FNR == 1 { k++ } { sub(/^note 0$/, "note " k); print }' \
      $(yes "$T/note.asc" | head -n 400); } >"$T/stall.eml"
stall() {
	defines="MODE=$1 STALL=$T/stall.eml LOG=$T/run/stall-$1/milter.log
	    PIDFILE=$T/run/stall-$1/milter.pid"
	scenario stall-$1 t-learn-stall.lua empty \
	    "PidFile $T/run/stall-$1/milter.pid" "$2"
}
stall cap "LearnMaxDocuments 8"
stall stop "LearnMaxDocuments 1000"

hdr_index=main
refresh=300
scenario poisoned t-poisoned.lua poisoned
grep -q 'new/0.host: signed document of [0-9]* bytes is over the limit' \
    "$T/run/poisoned/milter.log" &&
    grep -q 'new/1.host: ' "$T/run/poisoned/milter.log" &&
    grep -q '3 entries read: 3 attestation documents (1 verified, 2 bad or unverifiable, 0 already indexed), 0 skipped; 6 attestations indexed' \
    "$T/run/poisoned/milter.log"
st=$?
ok $st "poisoned: the oversized and the broken document are logged and counted"
[ $st -eq 0 ] || diag "$T/run/poisoned/milter.log" 30

# the GnuPG home taken away and given back while the milter runs: a copy
# of its keyring, so that the other scenarios keep theirs
for g in gone gone-tempfail; do
	mkdir -m 700 "$T/gnupg-$g"
	cp "$T/gnupg/pubring.kbx" "$T/gnupg/trustdb.gpg" "$T/gnupg-$g/"
done
gnupghome=$T/gnupg-gone
defines="GNUPG=$T/gnupg-gone"
scenario keyring-gone t-keyring-gone.lua main
gnupghome=$T/gnupg-gone-tempfail
defines="GNUPG=$T/gnupg-gone-tempfail ONERROR=tempfail"
scenario keyring-gone-tempfail t-keyring-gone.lua main "OnError tempfail"
defines="POLICY=uidmismatch"
scenario uidmismatch t-policy.lua main "UIDMatch strict" \
    "AuthservID mx.test.example"
if [ -n "$have_clock" ]; then
	scenario clock t-clock.lua empty "PatattKeyring $T/patatt/keyring" \
	    "StalenessDays 30" "AuthservID mx.test.example"
else
	skip "clock" "patatt cannot sign with its clock set"
fi

if [ -n "$have_patatt" ]; then
	scenario patatt t-patatt.lua empty "PatattKeyring $T/patatt/keyring" \
	    "AuthservID mx.test.example"
	# patatt only: no Archive, no index; the milter makes one
	scenario patatt-only t-patatt-only.lua noarchive \
	    "PatattKeyring $T/patatt/keyring"
	[ -f "$T/run/patatt-only/index/data.mdb" ]
	ok $? "patatt-only: the milter made the index it keeps keys in"
	if grep -q 'temperror' "$T/run/patatt-only/milter.log"; then
		ok 1 "patatt-only: nothing is temperror"
		diag "$T/run/patatt-only/milter.log"
	else
		ok 0 "patatt-only: nothing is temperror"
	fi
fi
if [ -n "$have_changed" ]; then
	scenario patatt-changed t-patatt-changed.lua empty \
	    "PatattKeyring $T/patatt/keyring"
fi
# --- the Prometheus endpoint ----------------------------------------------
# t-metrics.lua scrapes it around real mail; promtool checks what it
# served, and every metric the Grafana dashboard queries must be one of
# those; an address other than loopback is refused unless MetricsRemote
# says yes.
# free_port: a TCP port of 127.0.0.1 that no one listens on now, or ""
# without curl to scrape it (milters stopping may still hold theirs)
free_port() {
	command -v curl >/dev/null 2>&1 &&
	    "${PYTHON3:-python3}" -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])' 2>/dev/null
}
metrics_port=$(free_port)
if [ -z "$metrics_port" ]; then
	skip "metrics" "curl or python3 is not installed"
else
	defines="METRICS=http://127.0.0.1:$metrics_port SCRAPE=$T/scrape.txt"
	patatt_line="# no patatt"
	if [ -n "$have_patatt" ]; then
		defines="$defines PATATT=1"
		patatt_line="PatattKeyring $T/patatt/keyring"
	fi
	scenario metrics t-metrics.lua main "AttestationWait 60" \
	    "MetricsListen 127.0.0.1:$metrics_port" "$patatt_line"
	if ! command -v promtool >/dev/null 2>&1; then
		skip "metrics: promtool check metrics" \
		    "promtool is not installed (Debian: prometheus)"
	else
		promtool check metrics <"$T/scrape.txt" >"$T/promtool.out" 2>&1
		st=$?
		ok $st "metrics: promtool check metrics accepts the scrape"
		[ $st -eq 0 ] || diag "$T/promtool.out"
	fi
	"${PYTHON3:-python3}" - "$srcdir/contrib/grafana/patchattest.json" \
	    "$T/scrape.txt" >"$T/dashboard.out" 2>&1 <<'PY'
import json, re, sys
served = set()
for line in open(sys.argv[2]):
    m = re.match(r"# TYPE (\S+) (\S+)", line) or re.match(r"([^#{ ]+)", line)
    if m:
        served.add(m.group(1))
        if line.startswith("# TYPE") and m.group(2) == "histogram":
            served.update(m.group(1) + s for s in ("_bucket", "_sum", "_count"))
exprs = []
def walk(node):
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "expr" and isinstance(v, str):
                exprs.append(v)
            walk(v)
    elif isinstance(node, list):
        for v in node:
            walk(v)
walk(json.load(open(sys.argv[1])))
named = {n for e in exprs for n in re.findall(r"patchattest_\w+", e)}
missing = sorted(named - served)
for n in missing:
    print("not served:", n)
print(len(exprs), "queries name", len(named), "metrics")
sys.exit(1 if missing or not exprs else 0)
PY
	st=$?
	ok $st "metrics: every metric of the Grafana dashboard is served"
	[ $st -eq 0 ] || diag "$T/dashboard.out"
	# 192.0.2.1 is no address of this host: -n judges the key alone
	for remote in no yes; do
		sed '/^MetricsListen/d' "$T/run/metrics/milter.conf" \
		    >"$T/remote-$remote.conf"
		printf 'MetricsListen 192.0.2.1:%s\nMetricsRemote %s\n' \
		    "$metrics_port" "$remote" >>"$T/remote-$remote.conf"
		"$MILTER" -n -c "$T/remote-$remote.conf" \
		    >"$T/remote-$remote.out" 2>&1
		echo "status $?" >>"$T/remote-$remote.out"
	done
	grep -q 'MetricsListen 192.0.2.1:.*not a loopback address' \
	    "$T/remote-no.out" && grep -q 'status 1' "$T/remote-no.out" &&
	    grep -q 'status 0' "$T/remote-yes.out"
	st=$?
	ok $st "metrics: an address other than loopback is refused unless \
MetricsRemote is yes"
	[ $st -eq 0 ] || diag "$T/remote-no.out"
	[ $st -eq 0 ] || diag "$T/remote-yes.out"
fi
if [ -n "$have_habit" ]; then
	scenario habit t-habit.lua empty "PatattKeyring $T/patatt/keyring" \
	    "AuthservID mx.test.example"
	# every field of one record, read back through the ledger
	"$LEDGER_DUMP" "$T/run/habit/state.mdb" habit-1@example.org \
	    >"$T/habit.dump" 2>&1
	ok $? "habit: the record of habit-1 is in the state file"
	field() {
		sed -n "s/^$1	//p" "$T/habit.dump"
	}
	hash=$("$PATCHATTEST" hash "$D/habit-1.eml" 2>/dev/null)
	st=0
	for want in "message_id habit-1@example.org" "copy 1" \
	    "envelope_from dev@example.org" \
	    "author Dev Eloper <dev@example.org>" \
	    "identity dev@example.org" \
	    "subject [PATCH v4 2/6] x86/elf: Split READ_IMPLIES_EXEC from executable GNU_STACK" \
	    "list_id <leds.example.org>" "has_patch 1" "result pass" \
	    "v01 none" "patatt pass" "key ed25519/example.org/dev/t1" \
	    "signed_trusted 1"; do
		got=$(field "${want%% *}")
		[ "$got" = "${want#* }" ] && continue
		echo "#   ${want%% *}: got '$got', want '${want#* }'"
		st=1
	done
	for h in i m p; do
		printf '%s\n' "$hash" | grep -q "$(field $h)" || {
			echo "#   $h $(field $h) is not among: $hash"
			st=1
		}
	done
	pid=$(git patch-id --stable <"$D/habit-1.eml" | cut -d' ' -f1)
	[ -n "$pid" ] && [ "$(field patch_id)" = "$pid" ] || {
		echo "#   patch_id $(field patch_id), git says $pid"
		st=1
	}
	[ "$(sed '1,/^trailers$/d' "$T/habit.dump")" = "$(printf '%s\n' \
	    'Suggested-by: Hector Marco-Gisbert <hecmargi@upv.es>' \
	    'Signed-off-by: Kees Cook <keescook@chromium.org>' \
	    'Reviewed-by: Jason Gunthorpe <jgg@mellanox.com>')" ] || {
		echo "#   trailers: $(sed '1,/^trailers$/d' "$T/habit.dump")"
		st=1
	}
	core=$(field m_core)
	[ ${#core} -eq 64 ] && [ "$core" != "$(field m)" ] || {
		echo "#   m_core '$core' is not m without the trailers"
		st=1
	}
	arrived=$(field arrived)
	[ -n "$arrived" ] && [ "$arrived" -ge "$started" ] &&
	    [ "$arrived" -le "$(date +%s)" ] || {
		echo "#   arrived $arrived: not the milter's clock"
		st=1
	}
	ok $st "habit: each field of the record is the mail's"
	"$LEDGER_DUMP" "$T/run/habit/state.mdb" habit-forged@example.org |
	    grep -qx 'result	unsigned-by-signer'
	ok $? "habit: the forged patch is recorded as unsigned-by-signer"
	grep -q 'result=unsigned-by-signer .*reason="dev@example.org signed 3 of its last 3 patches' \
	    "$T/run/habit/milter.log"
	ok $? "habit: the log line names the habit"
	grep -q 'HABITCOPY2: message-id="<habit-other@example.org>" arrived again, the same as the first copy; 2 copies, 0 differing; copy=2 .* queue="HABITCOPY2" .* first=1 ' \
	    "$T/run/habit/milter.log" &&
	    [ "$("$LEDGER_DUMP" "$T/run/habit/state.mdb" \
	    habit-other@example.org | grep -c '^copy	')" -eq 2 ]
	ok $? "habit: a second copy of a Message-ID is logged and kept"
	grep -q 'LONGCOPY2: message-id="<xxxx*>" arrived again with other content: author-or-subject,commit-message,diff differs from the first copy; 2 copies, 1 differing; .*(an attack, or a relay that changes mail' \
	    "$T/run/habit/milter.log"
	ok $? "habit: so is one of 900 bytes, with other content, as a warning"
	# habit_record N FIELD...: the record of habit-N has each "NAME
	# VALUE" FIELD, said when not
	habit_record() {
		"$LEDGER_DUMP" "$T/run/habit/state.mdb" "habit-$1@example.org" \
		    >"$T/habit-$1.dump" 2>&1 || return 1
		rec=habit-$1
		shift
		for want in "$@"; do
			got=$(sed -n "s/^${want%% *}	//p" "$T/$rec.dump")
			[ "$got" = "${want#* }" ] && continue
			echo "#   $rec ${want%% *}: got '$got', want '${want#* }'"
			return 1
		done
	}
	habit_record reply "has_patch 1" "result none" "identity " \
	    "author Dev Eloper <dev@example.org>"
	ok $? "habit: dev's reply with a diff is recorded, with no identity"
	habit_record relay "result unsigned-by-signer" \
	    "identity dev@example.org" \
	    "author Carol Writer <carol@example.net>"
	ok $? "habit: carol's patch dev sent is kept under dev, carol its author"
	habit_record for-dev "result none" "identity carol@example.net" \
	    "author Dev Eloper <dev@example.org>"
	ok $? "habit: dev's patch carol sent is kept under carol"
	habit_record endpoint "result unsigned-by-signer" \
	    "identity dev@example.org" "author Dev Eloper <dev@example.org>"
	ok $? "habit: dev's patch the web endpoint relayed is kept under dev"
	defines="ACTION=reject"
	scenario habit-reject t-habit.lua empty \
	    "PatattKeyring $T/patatt/keyring" "OnUnsignedBySigner reject"
else
	skip "habit (t-habit.lua)" "patatt or git is not installed"
fi
# the state file written over with garbage under the milter
# (and, when it can be scraped, the metrics count the faults)
for e in accept tempfail; do
	defines="STATEFILE=$T/run/ledger-$e/state.mdb ONERROR=$e
	    PIDFILE=$T/run/ledger-$e/milter.pid"
	port=$(free_port)
	metrics_line="# no metrics"
	if [ -n "$port" ]; then
		defines="$defines METRICS=http://127.0.0.1:$port"
		metrics_line="MetricsListen 127.0.0.1:$port"
	fi
	scenario ledger-$e t-ledger-fault.lua main "OnError $e" \
	    "PidFile $T/run/ledger-$e/milter.pid" "$metrics_line"
	grep -q ': the arrival record was not written (OnError): ' \
	    "$T/run/ledger-$e/milter.log"
	ok $? "ledger-$e: the log says the record was not written"
done
# StateMaxSize 1 (MiB) over a StateFile of some 1.1 MiB in use: seeds
# 002-007 recorded 2,700 times (tests/arrival-record, 900 at a time)
# state_fill FILE: 900 more records in FILE
state_fill() {
	f=$1
	set --
	while [ $# -lt 900 ]; do
		set -- "$@" "$seeds"/00[2-7]-*.patch
	done
	"$top_builddir/tests/arrival-record" "$f" 1700000000 pass "$@"
}
port=$(free_port)
if [ -z "$port" ]; then
	skip "state-size" "curl or python3 is not installed"
else
	mkdir -p "$T/run/state-size"
	st=0
	for i in 1 2 3; do
		state_fill "$T/run/state-size/state.mdb" || st=1
	done >"$T/state-fill.log" 2>&1
	setup $st "fill a StateFile" "$T/state-fill.log"
	defines="METRICS=http://127.0.0.1:$port"
	scenario state-size t-state-size.lua main "StateMaxSize 1" \
	    "MetricsListen 127.0.0.1:$port"
fi

if [ -n "$have_tofu" ]; then
	defines="KEYRING=$T/tofu-kr"
	scenario tofu t-tofu.lua noarchive "PatattKeyring $T/tofu-kr" \
	    "PatattTOFU yes" "PatattTOFUPins $T/run/tofu/pins.mdb"
	grep -c 'first-use key pinned' "$T/run/tofu/milter.log" >"$T/tofu.n"
	expect "tofu: one key pinned, logged once" 1 "$(cat "$T/tofu.n")"
	grep -q 'first-use key pinned: identity=DEV@Example.ORG key=[A-Za-z0-9+/=]' \
	    "$T/run/tofu/milter.log"
	ok $? "tofu: the log line names identity and key"
	"$PATCHATTEST" tofu -c "$T/run/tofu/milter.conf" list >"$T/tofu.list" \
	    2>&1
	expect "tofu list: the one pin, canonical" "dev@example.org" \
	    "$(cut -f1 "$T/tofu.list")"
	"$PATCHATTEST" tofu -c "$T/run/tofu/milter.conf" forget \
	    Dev@Example.org >"$T/tofu.forget" 2>&1
	ok $? "tofu forget Dev@Example.org"
	"$PATCHATTEST" tofu -c "$T/run/tofu/milter.conf" list >"$T/tofu.list" \
	    2>&1
	expect "tofu list: none left" "" "$(cat "$T/tofu.list")"
	"$PATCHATTEST" tofu -c "$T/run/tofu/milter.conf" forget \
	    dev@example.org >"$T/tofu.forget" 2>&1
	expect "tofu forget, no pin: exit 1" 1 $?

	# RACERS first uses of race@example.org at once, each with its own
	# key: one passes and pins its key, the others fail
	racers=$RACERS
	scenario tofu-race t-tofu-race.lua noarchive \
	    "PatattKeyring $T/tofu-kr" "PatattTOFU yes" \
	    "PatattTOFUPins $T/run/tofu-race/pins.mdb"
	out=$T/run/tofu-race/out.d
	expect "tofu-race: one pass" 1 "$(cat "$out"/* | grep -c '^pass;')"
	expect "tofu-race: the others fail" $((RACERS - 1)) \
	    "$(cat "$out"/* | grep -c '^fail;')"
	"$PATCHATTEST" tofu -c "$T/run/tofu-race/milter.conf" list \
	    >"$T/race.list" 2>&1
	winner=$(grep -l '^pass;' "$out"/* | head -1)
	winner=${winner##*/}
	key=$(sed -n '/^X-Developer-Key:/,/^[^ \t]/s/.*pk=\([A-Za-z0-9+\/=]*\).*/\1/p' \
	    "$D/tofu-race$winner.eml")
	expect "tofu-race: one pin, the key of the mail that passed" \
	    "race@example.org $key" "$(cut -f1,2 "$T/race.list" | tr '\t' ' ')"
	expect "tofu-race: logged once" 1 \
	    "$(grep -c 'first-use key pinned' "$T/run/tofu-race/milter.log")"
else
	skip "tofu (t-tofu.lua)" "patatt or git is not installed"
fi
if [ -z "$have_patatt" ]; then
	skip "patatt (t-patatt.lua)" "patatt or git is not installed"
	skip "patatt-only (t-patatt-only.lua)" "patatt or git is not installed"
fi

# Crafted OpenPGP signatures for alice, whose key is only in the GnuPG
# home: the milter finds gpg through wrappers of gpg and gpgconf first
# in PATH, which write a line to gpg-calls for every run.
alice=$(GNUPGHOME=$T/gnupg gpg --batch --with-colons --list-keys \
    alice@example.org 2>/dev/null | awk -F: '$1 == "fpr" { print $10; exit }')
if [ -n "$have_patatt" ] && command -v python3 >/dev/null &&
    patatt_sign_pgp "$D/p1.eml" "$D/pgp.eml" "$T/gnupg" "$alice" \
    alice@example.org; then
	for k in tag60 bzip2 zip zlib random many; do
		python3 "$srcdir/tests/patatt-craft.py" $k "$D/pgp.eml" \
		    "$D/pgp-$k.eml" || setup 1 "craft pgp-$k" /dev/null
	done
	mkdir "$T/gpgwrap"
	printf '#!/bin/sh\necho "$*" >>"%s"\nexec "%s" "$@"\n' \
	    "$T/gpg-calls" "$(command -v gpg)" >"$T/gpgwrap/gpg"
	printf '#!/bin/sh\necho "$*" >>"%s"\n"%s" "$@" | sed "s|^bindir:.*|bindir:%s|; s|:%s\\$|:%s/gpg|"\n' \
	    "$T/gpg-calls" "$(command -v gpgconf)" "$T/gpgwrap" \
	    "$(command -v gpg)" "$T/gpgwrap" >"$T/gpgwrap/gpgconf"
	chmod +x "$T/gpgwrap/gpg" "$T/gpgwrap/gpgconf"
	defines="GPGCALLS=$T/gpg-calls"
	oldpath=$PATH
	PATH=$T/gpgwrap:$PATH
	scenario pgp-crafted t-pgp-crafted.lua empty \
	    "AuthservID mx.test.example"
	PATH=$oldpath
	grep -q 'over 8 X-Developer-Signature fields: none is verified' \
	    "$T/run/pgp-crafted/milter.log"
	ok $? "pgp-crafted: the log says why nine signatures are not verified"
	# alice's key in a keyring file with text before its armor
	mkdir -p "$T/kr-text/openpgp/example.org/alice"
	{
		echo "alice's key, exported for the keyring"
		GNUPGHOME=$T/gnupg gpg --batch --armor --export "$alice"
	} >"$T/kr-text/openpgp/example.org/alice/default"
	scenario rnp-quiet t-rnp-quiet.lua empty \
	    "PatattKeyring $T/kr-text"
else
	skip "pgp-crafted (t-pgp-crafted.lua)" "patatt, git or python3 is missing"
	skip "pgp-crafted: the log line" "patatt, git or python3 is missing"
	skip "rnp-quiet (t-rnp-quiet.lua)" "patatt, git or python3 is missing"
fi

# stopped: every milter, sent SIGTERM, exits 0 within 15 seconds.  One
# that ended minutes ago was reaped by the shell, and its ID may name
# another process by now: child_running tells them apart.
stopped() {
	t=0
	for entry in $stopping; do
		pid=${entry#*:}
		while child_running "$pid" && [ "$t" -lt 15 ]; do
			sleep 1
			t=$((t + 1))
		done
	done
	bad=
	for entry in $stopping; do
		pid=${entry#*:}
		if child_running "$pid"; then
			child_kill 9 "$pid"
			wait "$pid" 2>/dev/null
			bad="$bad ${entry%:*}(still running)"
		else
			wait "$pid"
			mrc=$?
			[ "$mrc" -eq 0 ] || bad="$bad ${entry%:*}(status $mrc)"
		fi
		forget "$pid"
	done
	[ -z "$bad" ]
	ok $? "every milter exits 0 on SIGTERM"
	[ -n "$bad" ] && echo "#  $bad"
}
stopped

tap_end
