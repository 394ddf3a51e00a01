#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# t-patatt.sh - patatt's in-header signatures (X-Developer-Signature),
# differentially: the real patatt tool signs patch mail with keys made
# here, and both our verifier (tests/patatt-verify over lib/sig/patatt.h) and
# "patatt validate" judge every message, intact and tampered with.
#
# Each check is one TAP line "ours / patatt's": our result word
# (patatt_result_name(), one per signature) and patatt's (PASS, BADSIG,
# NOKEY, ERROR, NOSIG), compared with what both should say; a failure
# shows both outputs.  Where the two tools are meant to differ (patatt
# 0.6.3's known quirks and what it predates, spec patatt.md §3.4, §4.1,
# §6) the line says why.
#
# Everything happens in a temporary directory: HOME, the XDG directories,
# GNUPGHOME and the git repository patatt reads its configuration from.
# Needs patatt (Debian package patatt), git and gpg; says it skipped
# otherwise.  ssh-keygen, when present, adds the openssh checks.

: "${srcdir:=.}"
: "${top_builddir:=.}"
VERIFY=$top_builddir/tests/patatt-verify

for prog in patatt git gpg; do
	if ! command -v "$prog" >/dev/null 2>&1; then
		echo "1..0 # SKIP $prog is not installed (patatt: apt-get install patatt)"
		exit 0
	fi
done
if [ ! -x "$VERIFY" ]; then
	echo "1..0 # SKIP $VERIFY is not built (make check builds it)"
	exit 0
fi
VERIFY=$(cd "$(dirname "$VERIFY")" && pwd)/$(basename "$VERIFY")
srcdir=$(cd "$srcdir" && pwd)
seeds=$srcdir/tests/fixtures/seeds
fixtures=$srcdir/tests/fixtures/mail

. "$srcdir/tests/tap.sh"
T=$(mktemp -d "${TMPDIR:-/tmp}/t-patatt.XXXXXX") || exit 1
trap workdir_release 0
trap 'exit 1' HUP INT TERM


HOME=$T/home
XDG_CONFIG_HOME=$T/home/.config
XDG_DATA_HOME=$T/home/.local/share
XDG_CACHE_HOME=$T/home/.cache
GNUPGHOME=$T/gnupg
GIT_CONFIG_NOSYSTEM=1
export HOME XDG_CONFIG_HOME XDG_DATA_HOME XDG_CACHE_HOME GNUPGHOME \
    GIT_CONFIG_NOSYSTEM
unset GIT_DIR GIT_WORK_TREE GIT_CONFIG GIT_CONFIG_GLOBAL GIT_CONFIG_COUNT \
    GIT_CONFIG_PARAMETERS
mkdir -p "$HOME" "$T/in" "$T/s" "$T/x"
mkdir -m 700 "$T/gnupg" "$T/gnupg-empty"
# the key directories our verifier and patatt's sections look in
K=$T/keys
mkdir -p "$K/good" "$K/wrong" "$K/none" "$K/byhash"

# pa ARGS...: the patatt command, run where its configuration is
pa() {
	(cd "$T/repo" && patatt "$@")
}

# ours FILE KEYRING [GNUPGHOME]: our result words, one per signature,
# and "exit N" when the verifier failed (a sanitizer report, say)
ours() {
	"$VERIFY" -v -k "$2" -g "${3:-$T/gnupg-empty}" "$1" >"$T/ours.out" \
	    2>"$T/ours.err"
	st=$?
	cut -f4 "$T/ours.out" | tr '\n' ' ' | sed 's/ $//'
	[ $st -eq 0 ] || printf ' exit %s' "$st"
}

# theirs SECTION FILE [GNUPGHOME]: patatt validate's words, in order
theirs() {
	(cd "$T/repo" && GNUPGHOME=${3:-$T/gnupg-empty} \
	    patatt -v -s "$1" validate <"$2") >"$T/theirs.out" 2>&1
	echo "# exit $?" >>"$T/theirs.out"
	awk '/^ *(PASS|NOSIG|NOKEY|ERROR|BADSIG) \|/ {
		printf "%s%s", sep, $1; sep = " " }' "$T/theirs.out"
}

# both DESC WANT FILE KEYRING-NAME [GNUPGHOME]: one TAP line comparing
# "ours / patatt's" with WANT; KEYRING-NAME is a directory under $K and
# the patatt config section that points at it.
both() {
	got="$(ours "$3" "$K/$4" "$5") / $(theirs "$4" "$3" "$5")"
	expect "$1" "$2" "$got"
	if [ "$2" != "$got" ]; then
		echo "#   ours:"
		diag "$T/ours.out" 10
		diag "$T/ours.err" 10
		echo "#   patatt:"
		grep -v '^gpg: ' "$T/theirs.out" | sed 's/^/#   /' | tail -n 10
	fi
}

# column N: field N of our last output's first line
column() {
	head -n 1 "$T/ours.out" | cut -f"$1"
}

# --- edits of a signed message (header edits stay in the header) ------
# crlf IN OUT: every line end CRLF
crlf() { awk '{ printf "%s\r\n", $0 }' "$1" >"$2"; }
# body_edit IN OUT: one byte of the first body line that has an "e"
# changed, so the body keeps its length
body_edit() {
	awk 'body && !done && /e/ { sub(/e/, "o"); done = 1 }
	    /^$/ { body = 1 } { print }' "$1" >"$2"
}
# hdr_sed IN OUT SCRIPT: a sed script applied to the header block only
hdr_sed() { sed "1,/^\$/{$3}" "$1" >"$2"; }
# drop_hdr IN OUT NAME: the header field NAME (with its folds) removed
drop_hdr() {
	awk -v name="$3" 'BEGIN { name = tolower(name) ":" }
	    body { print; next }
	    /^$/ { body = 1; print; next }
	    /^[ \t]/ { if (!skip) print; next }
	    { skip = index(tolower($0), name) == 1; if (!skip) print }' \
	    "$1" >"$2"
}
# sig_hdrs FILE: its X-Developer-* fields with their folds
sig_hdrs() {
	awk '/^$/ { exit } /^[ \t]/ { if (keep) print; next }
	    { keep = /^X-Developer-/; if (keep) print }' "$1"
}
# add_sigs IN FROM OUT: IN with FROM's X-Developer-* fields added at the
# end of its header
add_sigs() {
	sig_hdrs "$2" >"$T/x/sigs"
	awk -v sigs="$T/x/sigs" '!body && /^$/ {
		while ((getline l < sigs) > 0) print l; body = 1 } { print }' \
	    "$1" >"$3"
}

# --- the repository and the ed25519 keys --------------------------------
git init -q "$T/repo" &&
    git -C "$T/repo" config user.email dev@example.org &&
    git -C "$T/repo" config user.name 'Dev Eloper'
ok $? "a git repository for patatt's configuration"
pa genkey -n t1 >"$T/genkey.out" 2>&1 && pa genkey -n t2 >>"$T/genkey.out" 2>&1
st=$?
pub=$XDG_DATA_HOME/patatt/public
[ $st -eq 0 ] && [ -s "$pub/t1.pub" ] && [ -s "$pub/t2.pub" ] &&
    [ -s "$pub/ed25519/example.org/dev/t1" ]
ok $? "patatt genkey makes two ed25519 keys in patatt's layout"
[ $st -eq 0 ] || diag "$T/genkey.out"
pk1=$(cat "$pub/t1.pub")
pk2=$(cat "$pub/t2.pub")
# keyrings: good (t1 where it belongs), wrong (t2 in t1's place), none,
# byhash (t1 only under by-hash/, patatt 0.7.0's fallback)
mkdir -p "$K/good/ed25519/example.org/dev" \
    "$K/good/ed25519/example.org/dev%2Blists" \
    "$K/wrong/ed25519/example.org/dev"
cp "$pub/t1.pub" "$K/good/ed25519/example.org/dev/t1"
cp "$pub/t2.pub" "$K/good/ed25519/example.org/dev/t2"
cp "$pub/t1.pub" "$K/good/ed25519/example.org/dev%2Blists/default"
cp "$pub/t2.pub" "$K/wrong/ed25519/example.org/dev/t1"
# by-hash/XX/YYYY...: XXYYYY... the hex SHA-256 of the path (spec §4.1)
h=$(printf '%s' 'ed25519/example.org/dev/t1' | sha256sum | cut -c1-64)
mkdir -p "$K/byhash/by-hash/$(echo "$h" | cut -c1-2)"
cp "$pub/t1.pub" "$K/byhash/by-hash/$(echo "$h" | cut -c1-2)/$(echo "$h" | cut -c3-)"
# patatt always looks in $XDG_DATA_HOME/patatt/public too: empty it, so
# the sections' keyrings are all it has
rm -rf "$pub"

cfg() { git -C "$T/repo" config "$@"; }
cfg patatt.signingkey ed25519:t1
cfg patatt.selector t1
for r in good wrong none byhash; do
	cfg "patatt.$r.keyringsrc" "$K/$r"
done
cfg patatt.trim.keyringsrc "$K/good"
cfg patatt.trim.trimbody yes
# a second signer with the same identity (t2), and an identity that
# needs URL quoting, with the default selector
cfg patatt.k2.signingkey ed25519:t2
cfg patatt.k2.selector t2
cfg patatt.plus.signingkey ed25519:t1
cfg patatt.plus.identity Dev+Lists@Example.ORG

# --- the messages ---------------------------------------------------------
names=
for f in "$seeds"/00[2-7]-*.patch; do
	b=$(basename "$f" .patch)
	b=seed-$(printf '%s' "$b" | cut -c1-3)
	cp "$f" "$T/in/$b.eml"
	names="$names $b"
done
# (not latin1-body.eml: patatt 0.6.3's sign logs the message decoded as
# UTF-8 and dies on other 8-bit text)
for b in inbody-headers rfc2047-utf8-q rfc2047-latin1 qp-softbreak \
    base64-crlf mp-attachment; do
	cp "$fixtures/$b.eml" "$T/in/$b.eml"
	names="$names $b"
done
# seed 003 with a Message-ID, which patatt then signs too
awk '!done && /^Subject:/ { print; print "Message-ID: <20200225051307.6113-3-keescook@example.org>"; done = 1; next } { print }' \
    "$seeds"/003-*.patch >"$T/in/msgid.eml"
names="$names msgid"

fails=0
for b in $names; do
	pa sign <"$T/in/$b.eml" >"$T/s/$b.eml" 2>"$T/sign.err" || {
		fails=$((fails + 1))
		echo "# patatt sign $b:"
		diag "$T/sign.err" 5
	}
done
ok $fails "patatt signs $(echo $names | wc -w) messages with ed25519"
grep -q '^X-Developer-Key: i=dev@example.org; a=ed25519;' "$T/s/seed-002.eml" &&
    grep -q "^ pk=$pk1\$" "$T/s/seed-002.eml"
ok $? "X-Developer-Key offers the signing key as pk="
sig_hdrs "$T/s/msgid.eml" | tr -d '\n' | grep -q 'h=from:subject:message-id;'
ok $? "with a Message-ID, patatt signs h=from:subject:message-id"

# --- ed25519: every message, intact ----------------------------------------
for b in $names; do
	both "$b: valid" "valid / PASS" "$T/s/$b.eml" good
	expect "$b: our identity is i=" "dev@example.org" "$(column 2)"
done
t=$(sig_hdrs "$T/s/seed-002.eml" | tr -d '\n' | sed -n 's/.* t=\([0-9]*\);.*/\1/p')
ours "$T/s/seed-002.eml" "$K/good" >/dev/null
expect "our signing time is t=" "$t" "$(column 6)"
expect "our key source is the keyring file" \
    "$K/good/ed25519/example.org/dev/t1" "$(column 8)"

# --- what is not signed may change ----------------------------------------
crlf "$T/s/seed-002.eml" "$T/x/crlf.eml"
both "seed-002 with CRLF line ends: valid" "valid / PASS" "$T/x/crlf.eml" good
crlf "$T/s/inbody-headers.eml" "$T/x/crlf-inbody.eml"
both "inbody-headers with CRLF line ends: valid" "valid / PASS" \
    "$T/x/crlf-inbody.eml" good
cp "$T/s/seed-002.eml" "$T/x/blank.eml"
printf '\n\n\n' >>"$T/x/blank.eml"
both "trailing blank lines added: valid" "valid / PASS" "$T/x/blank.eml" good
hdr_sed "$T/s/seed-002.eml" "$T/x/prefix.eml" \
    's/^Subject: \[PATCH[^]]*\]/Subject: [PATCH v9 3\/3]/'
both "only the [PATCH] prefix changed (mailinfo drops it): valid" \
    "valid / PASS" "$T/x/prefix.eml" good
hdr_sed "$T/s/inbody-headers.eml" "$T/x/outer-subject.eml" \
    's/^Subject: \(.*\)$/Subject: \1 (edited)/'
both "inbody-headers, outer Subject changed (the in-body one is signed): valid" \
    "valid / PASS" "$T/x/outer-subject.eml" good
hdr_sed "$T/s/seed-002.eml" "$T/x/date.eml" \
    's/^Date: .*/Date: Tue, 25 Feb 2020 09:00:00 +0000/'
both "Date changed (not signed): valid" "valid / PASS" "$T/x/date.eml" good

# --- tampering ----------------------------------------------------------------
for b in seed-002 seed-005 inbody-headers rfc2047-utf8-q; do
	body_edit "$T/s/$b.eml" "$T/x/body-$b.eml"
	both "$b, one body byte changed: badsig" "badsig / BADSIG" \
	    "$T/x/body-$b.eml" good
	# inbody-headers' first such line is its in-body From, which
	# mailinfo takes out of the body: the From that is signed
	want=body
	[ "$b" != inbody-headers ] || want=headers
	expect "$b, one body byte changed: we say $want changed" "$want" \
	    "$(column 10)"
done
for b in seed-002 seed-007 rfc2047-latin1 msgid; do
	hdr_sed "$T/s/$b.eml" "$T/x/subj-$b.eml" \
	    's/^Subject: \(.*\)$/Subject: \1 (tampered)/'
	both "$b, Subject changed: badsig" "badsig / BADSIG" \
	    "$T/x/subj-$b.eml" good
	expect "$b, Subject changed: we say a signed header changed" \
	    headers "$(column 10)"
done
expect "we name the headers h= signs" "From, Subject, Message-ID" \
    "$(column 11)"
hdr_sed "$T/s/seed-002.eml" "$T/x/from.eml" 's/^From: [^<]*</From: Mallory </'
both "From name changed: badsig" "badsig / BADSIG" "$T/x/from.eml" good
sed '/^$/,$s/^Subject: \[PATCH\] iio/Subject: [PATCH] iiO/' \
    "$T/s/inbody-headers.eml" >"$T/x/inbody-subject.eml"
both "inbody-headers, in-body Subject changed: badsig" "badsig / BADSIG" \
    "$T/x/inbody-subject.eml" good
hdr_sed "$T/s/msgid.eml" "$T/x/msgid-edit.eml" \
    's/^Message-ID: <2020/Message-ID: <2021/'
both "Message-ID changed: badsig" "badsig / BADSIG" "$T/x/msgid-edit.eml" good
hdr_sed "$T/s/seed-003.eml" "$T/x/msgid-add.eml" \
    's/^\(Subject: .*\)$/\1\nMessage-ID: <added@example.org>/'
both "Message-ID added after signing (not in h=): valid" "valid / PASS" \
    "$T/x/msgid-add.eml" good
hdr_sed "$T/s/seed-002.eml" "$T/x/tag.eml" 's/ l=\([0-9]*\);/ l=1\1;/'
both "l= changed in the signature header: badsig" "badsig / BADSIG" \
    "$T/x/tag.eml" good

# --- keys ----------------------------------------------------------------------
both "seed-002, another key in the keyring: badsig" "badsig / BADSIG" \
    "$T/s/seed-002.eml" wrong
both "inbody-headers, another key in the keyring: badsig" "badsig / BADSIG" \
    "$T/s/inbody-headers.eml" wrong
both "no key, the key offered in X-Developer-Key verifies: offered / NOKEY" \
    "offered / NOKEY" "$T/s/seed-002.eml" none
expect "we name the offered key" "$pk1" "$(column 9)"
drop_hdr "$T/s/seed-002.eml" "$T/x/nodevkey.eml" X-Developer-Key
both "no key, no X-Developer-Key: nokey" "nokey / NOKEY" "$T/x/nodevkey.eml" none
hdr_sed "$T/s/seed-002.eml" "$T/x/forged-offer.eml" "s|^ pk=.*| pk=$pk2|"
both "no key, X-Developer-Key offers another key: nokey" "nokey / NOKEY" \
    "$T/x/forged-offer.eml" none
both "key in the keyring, X-Developer-Key offers another (never used): valid" \
    "valid / PASS" "$T/x/forged-offer.eml" good
body_edit "$T/s/seed-002.eml" "$T/x/body-offer.eml"
both "no key, body changed, the offered key fails: nokey" "nokey / NOKEY" \
    "$T/x/body-offer.eml" none
# patatt 0.6.3 predates the by-hash fallback (0.7.0, spec §4.1)
both "key only under by-hash/ (patatt 0.6.3 predates by-hash): valid / NOKEY" \
    "valid / NOKEY" "$T/s/seed-002.eml" byhash

# --- identity quoting, default selector ---------------------------------------
pa -s plus sign <"$T/in/seed-004.eml" >"$T/s/plus.eml" 2>"$T/sign.err"
ok $? "patatt signs as Dev+Lists@Example.ORG without a selector"
both "identity with + and capitals, selector default: valid" "valid / PASS" \
    "$T/s/plus.eml" good
expect "our key source URL-quotes and lower-cases the identity" \
    "$K/good/ed25519/example.org/dev%2Blists/default" "$(column 8)"

# --- no signature, two signatures ---------------------------------------------
both "unsigned message: nosig" "nosig / NOSIG" "$T/in/seed-002.eml" good
pa -s k2 sign <"$T/in/seed-006.eml" >"$T/x/k2.eml" 2>"$T/sign.err"
ok $? "patatt signs seed-006 with the second key"
add_sigs "$T/s/seed-006.eml" "$T/x/k2.eml" "$T/x/two.eml"
# patatt validates the first header whose i= matches for each signature
# (spec §6 step 3), so t2's key meets t1's signature
both "two signers, same identity (patatt checks the first twice): valid valid / PASS BADSIG" \
    "valid valid / PASS BADSIG" "$T/x/two.eml" good

# --- l= and trimming ------------------------------------------------------------
cp "$T/s/seed-003.eml" "$T/x/footer.eml"
printf '%s\n' '_______________________________________________' \
    'a-list mailing list' >>"$T/x/footer.eml"
# neither accepts part of a body: patatt only with patatt.trimbody, we
# never (spec §2.3 step 5)
both "list footer appended (body longer than l=): badsig" "badsig / BADSIG" \
    "$T/x/footer.eml" good
expect "with patatt.trimbody, patatt accepts the first l= bytes" "PASS" \
    "$(theirs trim "$T/x/footer.eml")"

# --- OpenPGP ------------------------------------------------------------------
gpg --batch --quiet --passphrase '' --quick-gen-key \
    'Dev Eloper <gpgdev@example.org>' ed25519 sign never 2>/dev/null
ok $? "made an OpenPGP signing key"
fpr=$(gpg --batch --with-colons --list-keys gpgdev@example.org 2>/dev/null |
    awk -F: '$1 == "fpr" { print $10; exit }')
cfg patatt.pgp.signingkey "openpgp:$fpr"
cfg patatt.pgp.identity gpgdev@example.org
fails=0
for b in seed-002 inbody-headers msgid; do
	pa -s pgp sign <"$T/in/$b.eml" >"$T/s/pgp-$b.eml" 2>"$T/sign.err" || {
		fails=$((fails + 1))
		diag "$T/sign.err" 5
	}
done
ok $fails "patatt signs 3 messages with openpgp:$fpr"
grep -q "^ fpr=$fpr\$" "$T/s/pgp-seed-002.eml"
ok $? "X-Developer-Key offers the fingerprint as fpr="
G=$T/gnupg
for b in seed-002 inbody-headers msgid; do
	both "openpgp $b: valid" "valid / PASS" "$T/s/pgp-$b.eml" none "$G"
done
ours "$T/s/pgp-seed-002.eml" "$K/none" "$G" >/dev/null
expect "openpgp: our key is the signing key's fingerprint" "$fpr" \
    "$(column 7)"
expect "openpgp: our identity is i=" "gpgdev@example.org" "$(column 2)"
crlf "$T/s/pgp-seed-002.eml" "$T/x/pgp-crlf.eml"
both "openpgp, CRLF line ends: valid" "valid / PASS" "$T/x/pgp-crlf.eml" \
    none "$G"
body_edit "$T/s/pgp-seed-002.eml" "$T/x/pgp-body.eml"
both "openpgp, one body byte changed: badsig" "badsig / BADSIG" \
    "$T/x/pgp-body.eml" none "$G"
expect "openpgp, one body byte changed: we say the body changed" body \
    "$(column 10)"
hdr_sed "$T/s/pgp-seed-002.eml" "$T/x/pgp-subj.eml" \
    's/^Subject: \(.*\)$/Subject: \1 (tampered)/'
both "openpgp, Subject changed: badsig" "badsig / BADSIG" \
    "$T/x/pgp-subj.eml" none "$G"
expect "openpgp, Subject changed: we say a signed header changed" headers \
    "$(column 10)"
hdr_sed "$T/s/pgp-msgid.eml" "$T/x/pgp-msgid.eml" \
    's/^Message-ID: <2020/Message-ID: <2021/'
both "openpgp, Message-ID changed: badsig" "badsig / BADSIG" \
    "$T/x/pgp-msgid.eml" none "$G"
both "openpgp, key not in the GnuPG home: nokey" "nokey / NOKEY" \
    "$T/s/pgp-seed-002.eml" none "$T/gnupg-empty"
expect "openpgp, we name the offered fingerprint" "$fpr" "$(column 9)"
# the signature bytes themselves damaged: patatt reports any gpg failure
# as NOKEY (spec §3.4 quirk)
hdr_sed "$T/s/pgp-seed-002.eml" "$T/x/pgp-sigbyte.eml" \
    '/^ b=/{s/^ b=\(.\{40\}\)A/ b=\1B/;t;s/^ b=\(.\{40\}\)./ b=\1A/}'
both "openpgp, a signature byte changed (patatt: any gpg failure is NOKEY): badsig / NOKEY" \
    "badsig / NOKEY" "$T/x/pgp-sigbyte.eml" none "$G"
# an armored key in the patatt keyring directory instead of the GnuPG home
mkdir -p "$K/pgpring/openpgp/example.org/gpgdev"
gpg --batch --armor --export "$fpr" \
    >"$K/pgpring/openpgp/example.org/gpgdev/default"
cfg patatt.pgpring.keyringsrc "$K/pgpring"
# (both read the keyring file itself; the GnuPG home is empty)
both "openpgp, the key only in the patatt keyring folder: valid / PASS" \
    "valid / PASS" "$T/s/pgp-seed-002.eml" pgpring "$T/gnupg-empty"
expect "openpgp, our key source is the keyring file" \
    "$K/pgpring/openpgp/example.org/gpgdev/default" "$(column 8)"
# both algorithms in one message, two identities
add_sigs "$T/s/seed-002.eml" "$T/s/pgp-seed-002.eml" "$T/x/ed-pgp.eml"
both "ed25519 and openpgp signatures in one message: valid valid" \
    "valid valid / PASS PASS" "$T/x/ed-pgp.eml" good "$G"
hdr_sed "$T/x/ed-pgp.eml" "$T/x/ed-pgp-subj.eml" \
    's/^Subject: \(.*\)$/Subject: \1 (tampered)/'
both "ed25519 and openpgp, Subject changed: badsig badsig" \
    "badsig badsig / BADSIG BADSIG" "$T/x/ed-pgp-subj.eml" good "$G"

# an expired key: made and used in 2020 (gpg --faked-system-time), one
# year of validity; gpg says EXPKEYSIG, which patatt counts as BADSIG
gpg --batch --quiet --faked-system-time 20200101T000000 --passphrase '' \
    --quick-gen-key 'Old Developer <old@example.org>' ed25519 sign 1y \
    2>/dev/null
st=$?
ofpr=$(gpg --batch --with-colons --list-keys old@example.org 2>/dev/null |
    awk -F: '$1 == "fpr" { print $10; exit }')
printf '#!/bin/sh\nexec gpg --faked-system-time 20200601T000000 "$@"\n' \
    >"$T/gpg-2020"
chmod +x "$T/gpg-2020"
cfg patatt.old.signingkey "openpgp:$ofpr"
cfg patatt.old.identity old@example.org
cfg patatt.old.gpg-bin "$T/gpg-2020"
cfg patatt.old.keyringsrc "$K/none"
[ $st -eq 0 ] && pa -s old sign <"$T/in/seed-005.eml" >"$T/s/pgp-old.eml" \
    2>"$T/sign.err"
ok $? "patatt signs with a key that expired in 2021"
got="$(ours "$T/s/pgp-old.eml" "$K/none" "$G") / $(cd "$T/repo" &&
    GNUPGHOME=$G patatt -s none validate <"$T/s/pgp-old.eml" 2>&1 |
    awk '/^ *(PASS|NOSIG|NOKEY|ERROR|BADSIG) \|/ { print $1 }')"
expect "openpgp, key expired since (patatt: BADSIG): key-expired / BADSIG" \
    "key-expired / BADSIG" "$got"

# --- OpenSSH ------------------------------------------------------------------
if command -v ssh-keygen >/dev/null 2>&1 &&
    ssh-keygen -q -t ed25519 -N '' -C dev@example.org -f "$T/id_ed25519" \
    >/dev/null 2>&1; then
	mkdir -p "$K/good/openssh/example.org/dev"
	cp "$T/id_ed25519.pub" "$K/good/openssh/example.org/dev/ssh1"
	cfg patatt.ssh.signingkey "openssh:$T/id_ed25519"
	cfg patatt.ssh.selector ssh1
	pa -s ssh sign <"$T/in/seed-002.eml" >"$T/s/ssh.eml" 2>"$T/sign.err"
	ok $? "patatt signs with an OpenSSH key"
	both "openssh: valid" "valid / PASS" "$T/s/ssh.eml" good
	hdr_sed "$T/s/ssh.eml" "$T/x/ssh-subj.eml" \
	    's/^Subject: \(.*\)$/Subject: \1 (tampered)/'
	both "openssh, Subject changed: badsig" "badsig / BADSIG" \
	    "$T/x/ssh-subj.eml" good
	# an SSHSIG carries no digest: a header or the signature changed
	expect "openssh, Subject changed: a signed header or the signature" \
	    headers-or-signature "$(column 10)"
	body_edit "$T/s/ssh.eml" "$T/x/ssh-body.eml"
	both "openssh, one body byte changed: badsig" "badsig / BADSIG" \
	    "$T/x/ssh-body.eml" good
	expect "openssh, one body byte changed: we say the body changed" \
	    body "$(column 10)"
	# the keyring's key is another one: nothing changed, the signer
	# is not the key's owner
	if ssh-keygen -q -t ed25519 -N '' -C dev@example.org \
	    -f "$T/id_other" </dev/null >/dev/null 2>&1; then
		mkdir -p "$K/wrong/openssh/example.org/dev"
		cp "$T/id_other.pub" "$K/wrong/openssh/example.org/dev/ssh1"
		both "openssh, another key in the keyring: badsig" \
		    "badsig / BADSIG" "$T/s/ssh.eml" wrong
		expect "openssh, another key: no part named as changed" - \
		    "$(column 10)"
	else
		skip "openssh, another key in the keyring" \
		    "ssh-keygen cannot make a second key"
	fi
	# X-Developer-Key carries only the fingerprint, but the SSHSIG blob
	# carries the key: ours checks it against the offered fingerprint
	both "openssh, no key, the signature's key has the offered fingerprint: offered / NOKEY" \
	    "offered / NOKEY" "$T/s/ssh.eml" none
	fp=$(ssh-keygen -l -f "$T/id_ed25519.pub" | cut -d' ' -f2)
	expect "openssh, we name the offered fingerprint" "$fp" "$(column 9)"
	hdr_sed "$T/s/ssh.eml" "$T/x/ssh-forged-offer.eml" \
	    's|^ fpr=SHA256:.*| fpr=SHA256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA|'
	both "openssh, no key, X-Developer-Key offers another fingerprint: nokey" \
	    "nokey / NOKEY" "$T/x/ssh-forged-offer.eml" none
	drop_hdr "$T/s/ssh.eml" "$T/x/ssh-nodevkey.eml" X-Developer-Key
	both "openssh, no key, no X-Developer-Key: nokey" "nokey / NOKEY" \
	    "$T/x/ssh-nodevkey.eml" none
else
	ok 0 "# SKIP ssh-keygen cannot make a key"
fi

# --- the kernel's keyring layout ------------------------------------------------
# A folder laid out as pgpkeys.git's .keyring (openpgp/<domain>/<local>/
# <selector>, plus ed25519/ and openssh/), the only keyring of both tools,
# with an empty GnuPG home: every key is trusted by being there, OpenPGP
# ones included, and the verdicts must be patatt's.
KR=$K/kernel
mkdir -p "$KR/openpgp/example.org" "$KR/ed25519/example.org/dev"
cfg patatt.kernel.keyringsrc "$KR"
# gpg_at TIME: a gpg that lives at TIME (patatt's gpg-bin)
gpg_at() {
	printf '#!/bin/sh\nexec gpg --faked-system-time %s "$@"\n' "$1" \
	    >"$T/gpg-$1"
	chmod +x "$T/gpg-$1"
	echo "$T/gpg-$1"
}
# newkey UID ALGO USAGE EXPIRE [TIME]: a key made at TIME; its fingerprint
newkey() {
	gpg --batch --quiet --passphrase '' ${5:+--faked-system-time "$5"} \
	    --quick-gen-key "$1" "$2" "$3" "$4" 2>/dev/null &&
	    gpg --batch --with-colons --list-keys "$1" 2>/dev/null |
	    awk -F: '$1 == "fpr" { print $10; exit }'
}
# subkey FPR EXPIRE [TIME]: a signing subkey added at TIME; its fingerprint
subkey() {
	gpg --batch --quiet --passphrase '' ${3:+--faked-system-time "$3"} \
	    --quick-add-key "$1" ed25519 sign "$2" 2>/dev/null &&
	    gpg --batch --with-colons --list-keys "$1" 2>/dev/null |
	    awk -F: '$1 == "fpr" { f = $10 } END { print f }'
}
# ksign NAME KEY IDENTITY [GPG]: seed-004 signed by KEY as IDENTITY into
# $T/s/k-NAME.eml, through patatt section NAME
ksign() {
	cfg "patatt.$1.signingkey" "openpgp:$2"
	cfg "patatt.$1.identity" "$3"
	[ -z "$4" ] || cfg "patatt.$1.gpg-bin" "$4"
	pa -s "$1" sign <"$T/in/seed-004.eml" >"$T/s/k-$1.eml" \
	    2>"$T/sign.err" || diag "$T/sign.err" 5
}
kfile() { mkdir -p "$KR/openpgp/example.org/$1"; echo "$KR/openpgp/example.org/$1/default"; }

kdev=$(newkey 'K Dev <kdev@example.org>' ed25519 sign never)
gpg --batch --armor --export "$kdev" >"$(kfile kdev)" 2>/dev/null
ksign kdev "$kdev" kdev@example.org
both "kernel layout, armored export: valid / PASS" "valid / PASS" \
    "$T/s/k-kdev.eml" kernel "$T/gnupg-empty"
expect "kernel layout: our key source is the .keyring file" \
    "$KR/openpgp/example.org/kdev/default" "$(column 8)"
body_edit "$T/s/k-kdev.eml" "$T/x/k-kdev-body.eml"
both "kernel layout, body changed: badsig / BADSIG" "badsig / BADSIG" \
    "$T/x/k-kdev-body.eml" kernel "$T/gnupg-empty"
# what the kernel's files look like: a text summary before the armor
{ printf 'pub   ed25519 2026-12-03 [SC]\n      %s\nuid   K Bin\n\n' "$kdev"
  gpg --batch --armor --export "$kdev"; } >"$T/x/summary.asc" 2>/dev/null
cp "$T/x/summary.asc" "$(kfile kdev)"
both "kernel layout, a summary before the armor: valid / PASS" \
    "valid / PASS" "$T/s/k-kdev.eml" kernel "$T/gnupg-empty"

kbin=$(newkey 'K Bin <kbin@example.org>' rsa2048 sign never)
gpg --batch --export "$kbin" >"$(kfile kbin)" 2>/dev/null
ksign kbin "$kbin" kbin@example.org
both "kernel layout, binary export of an RSA key: valid / PASS" \
    "valid / PASS" "$T/s/k-kbin.eml" kernel "$T/gnupg-empty"

# two keys in one file: two armored exports one after the other
ktwo=$(newkey 'K Two <ktwo@example.org>' ed25519 sign never)
{ gpg --batch --armor --export "$kbin"; gpg --batch --armor --export "$ktwo"
} >"$(kfile ktwo)" 2>/dev/null
ksign ktwo "$ktwo" ktwo@example.org
both "kernel layout, the signer's key second of two in the file: valid / PASS" \
    "valid / PASS" "$T/s/k-ktwo.eml" kernel "$T/gnupg-empty"

# a primary with an expired signing subkey, used when it was valid
old=$(gpg_at 20200601T000000)
kexp=$(newkey 'K Exp <kexp@example.org>' ed25519 cert never 20200101T000000)
kexps=$(subkey "$kexp" 1y 20200101T000000)
gpg --batch --armor --export "$kexp" >"$(kfile kexp)" 2>/dev/null
ksign kexp "$kexps!" kexp@example.org "$old"
both "kernel layout, signing subkey expired since (patatt: BADSIG): key-expired / BADSIG" \
    "key-expired / BADSIG" "$T/s/k-kexp.eml" kernel "$T/gnupg-empty"
case $(column 5) in
*"expired on 2020-12-31"*) ok 0 "we say when it expired" ;;
*) ok 1 "we say when it expired: $(column 5)" ;;
esac
# ... and used after it expired: the signer extended it in its own
# keyring, the keyring file still has the first expiry
gpg --batch --quiet --faked-system-time 20200601T000000 \
    --quick-set-expire "$kexp" never "$kexps" 2>/dev/null
ksign kexp2 "$kexps!" kexp@example.org "$(gpg_at 20220101T000000)"
both "kernel layout, signed by a subkey already expired (patatt: BADSIG): key-expired / BADSIG" \
    "key-expired / BADSIG" "$T/s/k-kexp2.eml" kernel "$T/gnupg-empty"
case $(column 5) in
*"after the key expired"*) ok 0 "we say it signed after it expired" ;;
*) ok 1 "we say it signed after it expired: $(column 5)" ;;
esac

# a primary with a revoked signing subkey, used before the revocation
krev=$(newkey 'K Rev <krev@example.org>' ed25519 cert never 20240101T000000)
krevs=$(subkey "$krev" never 20240101T000000)
ksign krev "$krevs!" krev@example.org "$(gpg_at 20250101T000000)"
printf 'key 1\nrevkey\ny\n0\n\ny\nsave\n' | gpg --batch --yes \
    --faked-system-time 20250601T000000 --command-fd 0 \
    --pinentry-mode loopback --passphrase '' --edit-key "$krev" \
    >/dev/null 2>&1
gpg --batch --armor --export "$krev" >"$(kfile krev)" 2>/dev/null
gpg --batch --with-colons --list-keys "$krev" 2>/dev/null | grep -q '^sub:r:'
ok $? "gpg revoked the signing subkey of $krev"
both "kernel layout, signing subkey revoked since (patatt: BADSIG): key-expired / BADSIG" \
    "key-expired / BADSIG" "$T/s/k-krev.eml" kernel "$T/gnupg-empty"
case $(column 5) in
*"revoked on 2025-06-01"*) ok 0 "we say when it was revoked" ;;
*) ok 1 "we say when it was revoked: $(column 5)" ;;
esac

# a file that lacks the signing subkey: the primary and another subkey
kpart=$(newkey 'K Part <kpart@example.org>' ed25519 cert never)
kpart1=$(subkey "$kpart" never)
kpart2=$(subkey "$kpart" never)
gpg --batch --armor --export "$kpart1!" >"$(kfile kpart)" 2>/dev/null
ksign kpart "$kpart2!" kpart@example.org
both "kernel layout, the file lacks the signing subkey: nokey / NOKEY" \
    "nokey / NOKEY" "$T/s/k-kpart.eml" kernel "$T/gnupg-empty"

# an OpenPGP signer with no file, and an empty GnuPG home
both "kernel layout, no file for the identity: nokey / NOKEY" \
    "nokey / NOKEY" "$T/s/pgp-seed-002.eml" kernel "$T/gnupg-empty"

# ed25519 and OpenSSH keys filed there too
cp "$K/good/ed25519/example.org/dev/t1" "$KR/ed25519/example.org/dev/t1"
both "kernel layout, an ed25519 key: valid / PASS" "valid / PASS" \
    "$T/s/seed-002.eml" kernel "$T/gnupg-empty"
if [ -f "$T/s/ssh.eml" ]; then
	mkdir -p "$KR/openssh/example.org/dev"
	cp "$T/id_ed25519.pub" "$KR/openssh/example.org/dev/ssh1"
	both "kernel layout, an OpenSSH key: valid / PASS" "valid / PASS" \
	    "$T/s/ssh.eml" kernel "$T/gnupg-empty"
else
	skip "kernel layout, an OpenSSH key" "ssh-keygen cannot make a key"
fi

# --- several keyring folders, searched in order -------------------------------
# the kernel's first, a local one second (patatt: keyringsrc given twice)
git -C "$T/repo" config --add patatt.multi.keyringsrc "$KR"
git -C "$T/repo" config --add patatt.multi.keyringsrc "$K/good"
multi() {
	"$VERIFY" -k "$KR" -k "$K/good" -g "$T/gnupg-empty" "$1" 2>/dev/null |
	    cut -f4 | tr '\n' ' ' | sed 's/ $//'
}
got="$(multi "$T/s/plus.eml") / $(theirs multi "$T/s/plus.eml")"
expect "two folders, the key only in the second: valid / PASS" \
    "valid / PASS" "$got"
got="$(multi "$T/s/k-kdev.eml") / $(theirs multi "$T/s/k-kdev.eml")"
expect "two folders, the key in the first: valid / PASS" "valid / PASS" "$got"
# the first folder's file wins: t2 filed there for dev's t1 selector
cp "$K/good/ed25519/example.org/dev/t2" "$KR/ed25519/example.org/dev/t1"
got="$(multi "$T/s/seed-002.eml") / $(theirs multi "$T/s/seed-002.eml")"
expect "two folders, the first one's (wrong) key wins: badsig / BADSIG" \
    "badsig / BADSIG" "$got"
cp "$K/good/ed25519/example.org/dev/t1" "$KR/ed25519/example.org/dev/t1"

# --- the same through the decision ("patchattest check") ---------------------
if [ -x "${PATCHATTEST:-}" ]; then
	printf 'IndexPath %s\nGnuPGHome %s\nPatattKeyring %s\n' \
	    "$T/index" "$T/gnupg-empty" "$KR" >"$T/kernel.conf"
	for pair in k-kdev:pass k-kexp:untrusted k-krev:untrusted \
	    k-kpart:nokey; do
		f=${pair%%:*}
		w=${pair#*:}
		v=$("$PATCHATTEST" check -c "$T/kernel.conf" "$T/s/$f.eml" |
		    cut -f2)
		expect "check with the kernel layout, $f: $w" "$w" "$v"
	done
else
	skip "check with the kernel layout" "PATCHATTEST is not set"
fi

tap_end
