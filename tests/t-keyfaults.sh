#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# t-keyfaults.sh - the patatt keyring's faults under the running milter
# (tests/milter/t-keyfaults.lua), in the patatt-only set-up: no Archive,
# no GnuPGHome and no GnuPG home of GnuPG's own.  The milter runs as a
# user the file modes bind (nobody when this runs as root), so a folder
# or file of mode 000 is one the milter cannot read.  Then -n on the
# same configuration: it agrees with what the milter does, and reports a
# keyring folder that the milter's user cannot search.
#
# Mail is signed by the real patatt tool (ed25519, and OpenPGP with a
# key made here that has no keyring file).  Skips without miltertest,
# patatt, git or gpg.  PATCHATTEST_KEEP=1 keeps the work directory.

: "${srcdir:=.}"
: "${top_builddir:=.}"
MILTER=${PATCHATTEST_MILTER:-$top_builddir/patchattest-milter}
RECORDER=$top_builddir/tests/milter-record
scenarios=$srcdir/tests/milter
seeds=$srcdir/tests/fixtures/seeds

for prog in miltertest patatt git gpg; do
	if ! command -v "$prog" >/dev/null 2>&1; then
		echo "1..0 # SKIP $prog is not installed"
		exit 0
	fi
done
if [ ! -x "$MILTER" ] || [ ! -x "$RECORDER" ]; then
	echo "1..0 # SKIP the milter or $RECORDER is not built"
	exit 0
fi
user=
if [ "$(id -u)" -eq 0 ]; then
	if ! id nobody >/dev/null 2>&1; then
		echo "1..0 # SKIP as root, the milter needs the user nobody"
		exit 0
	fi
	user=nobody
fi

. "$srcdir/tests/tap.sh"
. "$srcdir/tests/patatt-lib.sh"
T=$(mktemp -d "${TMPDIR:-/tmp}/t-keyfaults.XXXXXX") || exit 1
chmod 755 "$T"
pids=
cleanup() {
	for p in $pids; do
		kill -9 "$p" 2>/dev/null
	done
	workdir_release
}
trap cleanup 0
trap 'exit 1' HUP INT TERM

D=$T/data
mkdir -p "$D"
cp "$seeds"/002-*.patch "$D/p1.eml"
patatt_setup "$T/patatt" && patatt_sign "$D/p1.eml" "$D/patatt.eml"
setup $? "sign seed 002 with patatt (ed25519)" "$T/patatt/sign.log"
# OpenPGP: a key of GnuPG's that no keyring folder has a file for
mkdir -m 700 "$T/gnupg-signer"
GNUPGHOME=$T/gnupg-signer gpg --batch --quiet --passphrase '' \
    --quick-gen-key 'Dev Eloper <dev@example.org>' ed25519 sign never \
    >"$T/gpg.log" 2>&1
setup $? "make an OpenPGP key" "$T/gpg.log"
fpr=$(GNUPGHOME=$T/gnupg-signer gpg --batch --with-colons --list-keys \
    dev@example.org | awk -F: '/^fpr/ { print $10; exit }')
patatt_in_repo git config patatt.signingkey "openpgp:$fpr" &&
    GNUPGHOME=$T/gnupg-signer patatt_sign "$D/p1.eml" "$D/patatt-pgp.eml"
setup $? "sign seed 002 with patatt (OpenPGP)" "$T/patatt/sign.log"
KR=$T/patatt/keyring
chmod -R a+rX "$T/patatt/keyring" "$D"
mkdir "$T/nohome"	# the milter's HOME: no .gnupg

# run NAME [CONF-LINE...]: the scenario against a milter of its own
run() {
	name=$1
	shift
	d=$T/run/$name
	mkdir -p "$d"
	{
		echo "IndexPath $d/index"
		echo "StateFile $d/state.mdb"
		echo "PatattKeyring $KR"
		echo "Socket unix:$d/milter.sock"
		echo "Syslog no"
		echo "LogLevel debug"
		echo "OnNoKey reject"
		[ -z "$user" ] || echo "UserID $user"
		for line in "$@"; do
			echo "$line"
		done
	} >"$d/milter.conf"
	[ -z "$user" ] || chown "$user" "$d"
	env -u GNUPGHOME HOME=$T/nohome "$MILTER" -n -c "$d/milter.conf" \
	    >"$d/n.out" 2>&1
	st=$?
	ok $st "$name: -n calls the patatt-only set-up good"
	[ $st -eq 0 ] || diag "$d/n.out"

	"$RECORDER" "$d/rec.sock" "$d/milter.sock" "$d/rec.log" \
	    2>"$d/rec.err" &
	rpid=$!
	env -u GNUPGHOME HOME=$T/nohome "$MILTER" -f -c "$d/milter.conf" \
	    >"$d/milter.log" 2>&1 &
	mpid=$!
	pids="$pids $rpid $mpid"
	set -- -D HARNESS="$scenarios/harness.lua" -D SOCK="unix:$d/rec.sock" \
	    -D RECORD="$d/rec.log" -D DATA="$D" -D KEYRING="$KR" -D ROOT="$T"
	[ -z "$onerror" ] || set -- "$@" -D ONERROR="$onerror"
	miltertest "$@" -s "$scenarios/t-keyfaults.lua" >"$d/out" 2>&1
	rc=$?
	kill -TERM "$mpid" "$rpid" 2>/dev/null
	wait "$mpid" "$rpid" 2>/dev/null
	ok "$rc" "$name (t-keyfaults.lua)"
	if [ "$rc" -ne 0 ]; then
		diag "$d/out"
		echo "#   milter log:"
		diag "$d/milter.log" 20
	fi
	# the log may name the folder, but says what failed
	grep -q 'temperror.*keyring folder 1' "$d/milter.log"
	ok $? "$name: the log says which keyring folder failed"
}

onerror=
run accept
onerror=tempfail
run tempfail "OnError tempfail"

# -n: a keyring folder the milter's user cannot search is reported
d=$T/run/n
mkdir -p "$d"
sed "s|$T/run/tempfail|$d|" "$T/run/tempfail/milter.conf" >"$d/milter.conf"
[ -z "$user" ] || chown "$user" "$d"
chmod 000 "$KR/ed25519"
env -u GNUPGHOME HOME=$T/nohome "$MILTER" -n -c "$d/milter.conf" \
    >"$d/n.out" 2>&1
st=$?
chmod 755 "$KR/ed25519"
[ "$st" -ne 0 ] && grep -q 'PatattKeyring.*ed25519' "$d/n.out"
st=$?
ok $st "-n reports a keyring's ed25519 folder its user cannot read"
[ $st -eq 0 ] || diag "$d/n.out"
tap_end
