#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# t-dkim.sh - what the author's domain vouches for, through a real OpenDKIM
# in front of the milter in a private Postfix.  Seed 002 (its From made
# dev@example.org; no developer's signature) is signed by OpenDKIM in
# signing mode (a miltertest pass, tests/milter/dkim-sign.lua) with test
# keys made by opendkim-genkey; the verifying OpenDKIM, listed before
# patchattest-milter in smtpd_milters, reads the public keys from its
# TestPublicKeys file (no DNS) and writes Authentication-Results as
# dkim.test.example, the one authserv-id in TrustedAuthservIDs.  Each
# delivered copy's X-Patch-Attested and our Authentication-Results:
#   aligned     d=example.org: "none; dkim=example.org; attid=..."
#   misaligned  d=relay.example.net: no dkim=
#   fail        signed by example.org, body changed after: no dkim=
#   forged      unsigned, with "Authentication-Results: evil.example;
#               dkim=pass header.d=example.org" from the sender: no dkim=
#   forged-own  unsigned, the same claiming dkim.test.example: OpenDKIM
#               removes it (RemoveARFrom, as README says to set), no
#               dkim=
#   forged-below the same through OpenDKIM restarted to keep it
#               (KeepAuthResults) and to write a field for every mail
#               (AlwaysAddARHeader): the sender's field reaches the milter
#               under OpenDKIM's own "dkim=none", which alone is read: no
#               dkim=
#
# Needs root, postfix, swaks, miltertest, opendkim and opendkim-genkey;
# says it skipped otherwise.  PA_TEST_KEEP=1 keeps the temporary folder.

: "${PATCHATTEST:?PATCHATTEST must name the built binary}"
: "${srcdir:=.}"
: "${top_builddir:=.}"
MILTER=${PATCHATTEST_MILTER:-$top_builddir/patchattest-milter}
LEDGER_DUMP=$top_builddir/tests/ledger-dump
seeds=$srcdir/tests/fixtures/seeds
. "$srcdir/tests/postfix-lib.sh"

if ! pf_usable; then
	echo "1..0 # SKIP $PF_WHY"
	exit 0
fi
for p in swaks miltertest opendkim opendkim-genkey; do
	if ! command -v $p >/dev/null 2>&1 && [ ! -x "/usr/sbin/$p" ]; then
		echo "1..0 # SKIP $p is not installed"
		exit 0
	fi
done
PATH=$PATH:/usr/sbin
if [ ! -x "$MILTER" ]; then
	echo "1..0 # SKIP $MILTER is not built"
	exit 0
fi

T=$(mktemp -d "${TMPDIR:-/tmp}/t-dkim.XXXXXX") || exit 1
chmod 755 "$T"		# Postfix's users reach the queue and the sockets
dkim_pid=
cleanup() {
	pf_stop
	milter_stop
	[ -z "$dkim_pid" ] || milter_stop "$dkim_pid"
	[ -n "${PA_TEST_KEEP:-}" ] || rm -rf "$T"
}
trap cleanup 0
trap 'exit 1' HUP INT TERM

. "$srcdir/tests/tap.sh"

VERIFIER=dkim.test.example

# --- keys, and OpenDKIM's configurations -----------------------------------
mkdir -p "$T/keys" "$T/msg"
opendkim-genkey -D "$T/keys" -d example.org -s t1 &&
    opendkim-genkey -D "$T/keys" -d relay.example.net -s t2
setup $? "two test keys made by opendkim-genkey" /dev/null
# TestPublicKeys: "NAME TXT-DATA" a line, the quoted strings of each
# zone-file record joined
for k in t1:example.org t2:relay.example.net; do
	printf '%s._domainkey.%s ' "${k%%:*}" "${k#*:}"
	sed -n 's/[^"]*"\([^"]*\)"[^"]*/\1/gp' "$T/keys/${k%%:*}.txt" |
	    tr -d '\n'
	echo
done >"$T/keys/public"
cat >"$T/keys/table" <<EOF
aligned example.org:t1:$T/keys/t1.private
misaligned relay.example.net:t2:$T/keys/t2.private
EOF

# dkim_conf NAME MODE LINE...: $T/NAME.conf, OpenDKIM on $T/NAME.sock
dkim_conf() {
	_name=$1 _mode=$2
	shift 2
	{
		echo "Mode $_mode"
		echo "Socket local:$T/$_name.sock"
		echo "UMask 000"
		echo "Syslog no"
		echo "Canonicalization relaxed/relaxed"
		echo "RequireSafeKeys no"
		for _l in "$@"; do
			echo "$_l"
		done
	} >"$T/$_name.conf"
}
# dkim_start NAME: that OpenDKIM, in the foreground, listening
dkim_start() {
	milter_socket "$T" unix "$1"
	milter_start "$T/$1.log" opendkim -f -x "$T/$1.conf" &&
	    dkim_pid=$MILTER_PID
}

# sign KEY IN OUT: IN signed by OpenDKIM with KEY of $T/keys/table
sign() {
	echo "*@example.org $1" >"$T/keys/signing-$1"
	dkim_conf "sign-$1" s "KeyTable $T/keys/table" \
	    "SigningTable refile:$T/keys/signing-$1" \
	    "InternalHosts 192.0.2.10"
	dkim_start "sign-$1" || return 1
	miltertest -D HARNESS="$srcdir/tests/milter/harness.lua" \
	    -D SOCK="unix:$T/sign-$1.sock" -D IN="$2" -D OUT="$3" \
	    -s "$srcdir/tests/milter/dkim-sign.lua" >"$T/sign-$1.out" 2>&1
	_rc=$?
	milter_stop "$dkim_pid"
	dkim_pid=
	[ $_rc -eq 0 ] || sed 's/^/#   /' "$T/sign-$1.out" "$T/sign-$1.log"
	return $_rc
}

# --- the messages ----------------------------------------------------------
# mkmsg NAME: seed 002 by dev@example.org, with a Message-ID by which its
# copy is found
mkmsg() {
	{ printf 'Message-ID: <%s@t-dkim.test>\n' "$1"
	    sed -e '/^From [0-9a-f]\{40\} /d' \
	    -e 's/^From: .*/From: Dev Eloper <dev@example.org>/' \
	    "$seeds"/002-*.patch; } >"$T/msg/$1.in"
}
for m in aligned misaligned fail forged forged-own forged-below; do
	mkmsg $m
done
# attid NAME: the attestation ID of the message NAME
printf 'IndexPath %s/index\n' "$T" >"$T/check.conf"
attid() {
	"$PATCHATTEST" check -c "$T/check.conf" "$T/msg/$1" | cut -f3
}
sign aligned "$T/msg/aligned.in" "$T/msg/aligned" &&
    sign misaligned "$T/msg/misaligned.in" "$T/msg/misaligned" &&
    sign aligned "$T/msg/fail.in" "$T/msg/fail.signed"
setup $? "OpenDKIM signs for example.org and relay.example.net" /dev/null
grep -q '^DKIM-Signature:.* d=example.org;' "$T/msg/aligned" &&
    grep -q '^DKIM-Signature:.* d=relay.example.net;' "$T/msg/misaligned"
setup $? "the signatures name d=example.org and d=relay.example.net" \
    /dev/null
sed 's/^Add a table to document/Add a tabel to document/' \
    "$T/msg/fail.signed" >"$T/msg/fail"
! cmp -s "$T/msg/fail.signed" "$T/msg/fail"
setup $? "fail: a line of the body changed after signing" /dev/null
for m in forged forged-own forged-below; do
	id=evil.example
	[ $m = forged ] || id=$VERIFIER
	{ printf 'Authentication-Results: %s; dkim=pass ' "$id"
	    printf 'header.d=example.org header.s=t1\n'
	    cat "$T/msg/$m.in"; } >"$T/msg/$m"
done

# --- the verifier, the milter and Postfix ----------------------------------
dkim_conf verify v "TestPublicKeys $T/keys/public" \
    "AuthservID $VERIFIER" "RemoveARFrom $VERIFIER" \
    "InternalHosts 192.0.2.1"
dkim_start verify
setup $? "the verifying OpenDKIM listens" "$T/verify.log"
cat >"$T/pa.conf" <<EOF
IndexPath $T/index
StateFile $T/state.mdb
Socket unix:$T/pa.sock
UMask 000
Syslog no
LogLevel debug
UserID root
AuthservID mx.test.example
TrustedAuthservIDs $VERIFIER
EOF
milter_socket "$T" unix pa
milter_start "$T/pa.log" "$MILTER" -f -c "$T/pa.conf"
setup $? "the milter listens" "$T/pa.log"
cat >"$T/milters.cf" <<EOF
smtpd_milters = unix:$T/verify.sock unix:$T/pa.sock
non_smtpd_milters = \$smtpd_milters
milter_default_action = tempfail
EOF
PF_MILTER_CF=$T/milters.cf pf_start "$T/pf"
setup $? "Postfix with OpenDKIM, then the milter" "$T/pf/log/maillog"

sent=0
for m in aligned misaligned fail forged forged-own; do
	pf_send "$T/msg/$m"
	ok $? "$m: accepted by Postfix"
	sent=$((sent + 1))
done
pf_wait_delivered $sent 60
ok $? "all $sent delivered"

# field NAME FIELD [ID]: that field of NAME's delivered copy, unfolded,
# (Authentication-Results: the one of authserv-id ID)
field() {
	_f=$(grep -l -F "Message-ID: <$1@t-dkim.test>" "$PF_MAILDIR"/new/* \
	    2>/dev/null | head -n 1)
	[ -n "$_f" ] && hdr_block "$_f" | grep -i "^$2: ${3:-}" |
	    sed 's/^[^:]*: //'
}

# verifier NAME RESULT: OpenDKIM's own result in NAME's copy
verifier() {
	field "$1" Authentication-Results "$VERIFIER;" |
	    sed -n 's/^[^;]*; *dkim=\([a-z]*\).*/\1/p'
}
expect "aligned: OpenDKIM passed it" pass "$(verifier aligned)"
expect "misaligned: OpenDKIM passed it" pass "$(verifier misaligned)"
expect "fail: OpenDKIM failed it" fail "$(verifier fail)"
expect "forged: no result of OpenDKIM (no signature)" "" \
    "$(verifier forged)"
expect "forged: the sender's field reached the milter, and the mailbox" \
    "evil.example; dkim=pass header.d=example.org header.s=t1" \
    "$(field forged Authentication-Results evil.example)"
expect "forged-own: OpenDKIM removed the field claiming its name" "" \
    "$(field forged-own Authentication-Results "$VERIFIER")"

# --- a verifier that keeps the fields claiming its name --------------------
# OpenDKIM again on the same socket, keeping the fields that claim its
# name and writing one for every mail; the milter keeps running.
pa_pid=$MILTER_PID
milter_stop "$dkim_pid"
dkim_pid=
rm -f "$T/verify.sock"
dkim_conf verify v "TestPublicKeys $T/keys/public" \
    "AuthservID $VERIFIER" "KeepAuthResults yes" "AlwaysAddARHeader yes" \
    "InternalHosts 192.0.2.1"
dkim_start verify
setup $? "OpenDKIM listens again, keeping fields in its name" \
    "$T/verify.log"
MILTER_PID=$pa_pid
pf_send "$T/msg/forged-below"
ok $? "forged-below: accepted by Postfix"
sent=$((sent + 1))
pf_wait_delivered $sent 60
ok $? "forged-below: delivered"
expect "forged-below: OpenDKIM's dkim=none over the sender's field" \
    "$VERIFIER; dkim=none|$VERIFIER; dkim=pass header.d=example.org \
header.s=t1" \
    "$(field forged-below Authentication-Results "$VERIFIER" |
    sed 's/; dkim-atps=[a-z]*//' | paste -s -d '|')"

a=$(attid aligned)
expect "aligned: the author's domain vouches" \
    "none; dkim=example.org; attid=$a" "$(field aligned X-Patch-Attested)"
expect "aligned: our Authentication-Results names the domain" \
    "mx.test.example; x-patch-attest=none reason=\"none\" policy.attid=$a policy.dkim-domain=example.org" \
    "$(field aligned Authentication-Results mx.test.example)"
for m in misaligned fail forged forged-own forged-below; do
	a=$(attid $m)
	expect "$m: nothing vouches" "none; attid=$a" \
	    "$(field $m X-Patch-Attested)"
	expect "$m: our Authentication-Results names no domain" \
	    "mx.test.example; x-patch-attest=none reason=\"none\" policy.attid=$a" \
	    "$(field $m Authentication-Results mx.test.example)"
done
# recorded: the domain that vouched, in the arrival record
milter_stop
for m in aligned misaligned; do
	want=
	[ $m = aligned ] && want=example.org
	expect "$m: the arrival record keeps the domain" "dkim	$want" \
	    "$("$LEDGER_DUMP" "$T/state.mdb" "$m@t-dkim.test" | grep '^dkim	')"
done
grep -q 'Authentication-Results field(s) ignored' "$T/pa.log"
ok $? "the forged field is logged as ignored (debug)"

tap_end
