#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# t-verify.sh - attestation end to end with real GnuPG and real archives:
# keys made here, documents signed with "patchattest attest", laid out as
# a public-inbox v2 mirror (two epochs), a Maildir and an mbox, indexed,
# and every verdict checked with "patchattest check".
#
# Needs gpg and git; says it skipped otherwise.

: "${PATCHATTEST:?PATCHATTEST must name the built binary}"
: "${srcdir:=.}"
seeds=$srcdir/tests/fixtures/seeds
fixtures=$srcdir/tests/fixtures/mail

if ! command -v gpg >/dev/null 2>&1 || ! command -v git >/dev/null 2>&1; then
	echo "1..0 # SKIP gpg or git is not installed"
	exit 0
fi

T=$(mktemp -d "${TMPDIR:-/tmp}/t-verify.XXXXXX") || exit 1
cleanup() {
	for h in "$T"/gnupg*; do
		[ -d "$h" ] && gpgconf --homedir "$h" --kill all 2>/dev/null
	done
	rm -rf "$T"
}
trap cleanup 0
trap 'exit 1' HUP INT TERM

. "$srcdir/tests/tap.sh"

# verdict CONF FILE: the result column of patchattest check
verdict() {
	"$PATCHATTEST" check -c "$1" "$2" 2>"$T/check.err" | cut -f2
}

newhome() {
	mkdir -m 700 "$1"
	printf 'no-autostart\n' >/dev/null
}

# --- keys ----------------------------------------------------------------
newhome "$T/gnupg"
GNUPGHOME=$T/gnupg gpg --batch --quiet --passphrase '' --quick-gen-key \
    'Alice Developer <alice@example.org>' ed25519 sign never 2>/dev/null
ok $? "made a signing key"
fpr=$(GNUPGHOME=$T/gnupg gpg --batch --with-colons --list-keys alice@example.org |
    awk -F: '$1 == "fpr" { print $10; exit }')

# --- sign the seed series ------------------------------------------------
cat >"$T/sign.conf" <<EOF
GnuPGHome $T/gnupg
EOF
"$PATCHATTEST" attest -c "$T/sign.conf" -u alice@example.org \
    "$seeds"/001-*.txt "$seeds"/00[2-7]-*.patch >"$T/doc.eml" 2>"$T/attest.err"
ok $? "attest signs the seed series"
# unfold FILE: header continuation lines joined to their field
unfold() {
	awk '/^[ \t]/ { sub(/^[ \t]+/, " "); line = line $0; next }
	    { if (NR > 1) print line; line = $0 } END { print line }' "$1"
}
expect "the document mail names the series" \
    "Subject: [PSIGN v4 X/6] binfmt_elf: Update READ_IMPLIES_EXEC logic for modern CPUs" \
    "$(unfold "$T/doc.eml" | grep '^Subject:')"
grep -q '^2a02abe0-215cf3f1-2acb5798:$' "$T/doc.eml"
ok $? "the document carries seed 002's attestation ID"
grep -q '^Comment: att-fmt-ver: 0.1$' "$T/doc.eml"
ok $? "the armor says format 0.1"
sed -n '/^-----BEGIN PGP SIGNED/,/^-----END PGP SIGNATURE/p' "$T/doc.eml" |
    GNUPGHOME=$T/gnupg gpg --batch --verify >/dev/null 2>&1
ok $? "gpg itself verifies the document"

# --- archives ------------------------------------------------------------
# mkepoch DIR FILE...: a bare repository, one commit per message, file "m"
mkepoch() {
	dir=$1
	shift
	git init -q --bare "$dir"
	parent=
	for f in "$@"; do
		blob=$(git --git-dir="$dir" hash-object -w "$f")
		tree=$(printf '100644 blob %s\tm\n' "$blob" |
		    git --git-dir="$dir" mktree)
		commit=$(GIT_AUTHOR_NAME=a GIT_AUTHOR_EMAIL=a@x \
		    GIT_COMMITTER_NAME=inbox GIT_COMMITTER_EMAIL=list@x \
		    git --git-dir="$dir" commit-tree "$tree" ${parent:+-p $parent} \
		    -m "message")
		parent=$commit
	done
	git --git-dir="$dir" update-ref refs/heads/master "$parent"
}
mkdir -p "$T/pi/git"
printf 'From: x@y\nSubject: hello\n\nnot an attestation\n' >"$T/plain.eml"
mkepoch "$T/pi/git/0.git" "$T/plain.eml" "$fixtures/seed-002.eml"
mkepoch "$T/pi/git/1.git" "$T/plain.eml" "$T/doc.eml"

mkdir -p "$T/md/new" "$T/md/cur" "$T/md/tmp"
cp "$T/doc.eml" "$T/md/new/1.eml"
head -c 4096 /dev/urandom >"$T/md/new/2.garbage"
head -c 52428800 /dev/zero >"$T/md/cur/3.junk"

{ printf 'From x Thu Jan  1 00:00:00 1970\n'; cat "$T/plain.eml"; echo;
  printf 'From x Thu Jan  1 00:00:00 1970\n'; cat "$T/doc.eml"; } >"$T/mbox"

for kind in pi md mbox; do
	cat >"$T/$kind.conf" <<EOF
Archive $T/$kind
IndexPath $T/index-$kind
GnuPGHome $T/gnupg
TrustModel gpg
EOF
	"$PATCHATTEST" index -c "$T/$kind.conf" >"$T/index-$kind.out" 2>&1
	ok $? "index the $kind archive"
	grep -q ' 6 attestations indexed' "$T/index-$kind.out"
	ok $? "$kind: six attestations indexed"
	expect "$kind: seed 002 passes" pass "$(verdict "$T/$kind.conf" \
	    "$seeds"/002-*.patch)"
done
grep -q 'skipped' "$T/index-md.out"
ok $? "Maildir: the junk files are skipped with a reason"

# --- every verdict -------------------------------------------------------
conf=$T/pi.conf
for s in 3 4 5 6 7; do
	expect "seed 00$s passes" pass "$(verdict "$conf" "$seeds"/00$s-*.patch)"
done
"$PATCHATTEST" check -c "$conf" --header "$seeds"/002-*.patch >"$T/hdr.folded" 2>&1
unfold "$T/hdr.folded" >"$T/hdr"
grep -q "^X-Patch-Attested: pass; attid=2a02abe0-215cf3f1-2acb5798; signer=\"Alice Developer <alice@example.org>\";" "$T/hdr"
ok $? "the header names the result, ID and signer"
grep -q "key=$fpr" "$T/hdr"
ok $? "the header names the key"

sed 's/^Add a table to document/Add a tabel to document/' \
    "$seeds"/002-*.patch >"$T/m-tampered.eml"
expect "commit message changed: fail" fail "$(verdict "$conf" "$T/m-tampered.eml")"
"$PATCHATTEST" check -c "$conf" --header "$T/m-tampered.eml" | grep -q 'commit message'
ok $? "the reason says the commit message differs"

sed 's/^+ \* The decision process/+ * The decisive process/' \
    "$seeds"/002-*.patch >"$T/p-tampered.eml"
expect "diff changed: fail" fail "$(verdict "$conf" "$T/p-tampered.eml")"
"$PATCHATTEST" check -c "$conf" --header "$T/p-tampered.eml" | grep -q 'diff is not'
ok $? "the reason says the diff differs"

expect "an unattested patch: none" none "$(verdict "$conf" "$fixtures/break-diff-u.eml")"
"$PATCHATTEST" check -c "$conf" "$T/plain.eml" >/dev/null 2>&1
expect "plain mail is no patch (exit 1)" 1 $?

# Signed text altered: the signature no longer verifies.
sed 's/^  p: 2acb5798c366/  p: 2acb5798c367/' "$T/doc.eml" >"$T/altered.eml"
mkdir -p "$T/alt/new" "$T/alt/cur"
cp "$T/altered.eml" "$T/alt/new/1"
sed -e "s|$T/pi|$T/alt|" -e "s|index-pi|index-alt|" "$conf" >"$T/alt.conf"
"$PATCHATTEST" index -c "$T/alt.conf" >/dev/null 2>&1
expect "signed text altered: fail" fail "$(verdict "$T/alt.conf" "$seeds"/003-*.patch)"

# Keys: missing, untrusted, trusted by keyring.
newhome "$T/gnupg-empty"
sed "s|GnuPGHome .*|GnuPGHome $T/gnupg-empty|" "$T/md.conf" |
    sed "s|index-md|index-nokey|" >"$T/nokey.conf"
"$PATCHATTEST" index -c "$T/nokey.conf" >/dev/null 2>&1
expect "no public key: nokey" nokey "$(verdict "$T/nokey.conf" "$seeds"/002-*.patch)"

newhome "$T/gnupg-other"
GNUPGHOME=$T/gnupg gpg --batch --export alice@example.org |
    GNUPGHOME=$T/gnupg-other gpg --batch --quiet --import 2>/dev/null
sed "s|GnuPGHome .*|GnuPGHome $T/gnupg-other|" "$T/md.conf" |
    sed "s|index-md|index-other|" >"$T/other.conf"
"$PATCHATTEST" index -c "$T/other.conf" >/dev/null 2>&1
expect "an imported, uncertified key under gpg: untrusted" untrusted \
    "$(verdict "$T/other.conf" "$seeds"/002-*.patch)"
sed 's/TrustModel gpg/TrustModel keyring/' "$T/other.conf" >"$T/keyring.conf"
expect "the same key under the keyring model: pass" pass \
    "$(verdict "$T/keyring.conf" "$seeds"/002-*.patch)"
sed 's/TrustModel gpg/TrustModel tofu/' "$T/other.conf" >"$T/tofu.conf"
expect "the same key under tofu: pass" pass \
    "$(verdict "$T/tofu.conf" "$seeds"/002-*.patch)"

# Policy: strict user ID match, staleness.
printf 'UIDMatch strict\n' | cat "$conf" - >"$T/strict.conf"
expect "author not among the key's user IDs: uidmismatch" uidmismatch \
    "$(verdict "$T/strict.conf" "$seeds"/002-*.patch)"
sed 's/^From: Kees Cook <keescook@chromium.org>/From: Alice Developer <alice@example.org>/' \
    "$seeds"/002-*.patch >"$T/alice.eml"
mkdir -p "$T/own/new" "$T/own/cur"
"$PATCHATTEST" attest -c "$T/sign.conf" "$T/alice.eml" >"$T/own/new/1" 2>/dev/null
sed -e "s|$T/pi|$T/own|" -e "s|index-pi|index-own|" "$T/strict.conf" >"$T/own.conf"
"$PATCHATTEST" index -c "$T/own.conf" >/dev/null 2>&1
expect "strict: a patch by the key's own user passes" pass \
    "$(verdict "$T/own.conf" "$T/alice.eml")"
sed 's/^Date: .*/Date: Mon, 24 Feb 2070 21:13:02 -0800/' \
    "$seeds"/002-*.patch >"$T/late.eml"
printf 'StalenessDays 30\n' | cat "$conf" - >"$T/stale.conf"
expect "mail dated long after the signature: its Date decides nothing" \
    pass "$(verdict "$T/stale.conf" "$T/late.eml")"

# Incremental: one more commit in epoch 1 is the only entry read.
blob=$(git --git-dir="$T/pi/git/1.git" hash-object -w "$T/plain.eml")
tree=$(printf '100644 blob %s\tm\n' "$blob" | git --git-dir="$T/pi/git/1.git" mktree)
tip=$(git --git-dir="$T/pi/git/1.git" rev-parse refs/heads/master)
c=$(GIT_AUTHOR_NAME=a GIT_AUTHOR_EMAIL=a@x GIT_COMMITTER_NAME=i \
    GIT_COMMITTER_EMAIL=l@x git --git-dir="$T/pi/git/1.git" commit-tree \
    "$tree" -p "$tip" -m more)
git --git-dir="$T/pi/git/1.git" update-ref refs/heads/master "$c"
"$PATCHATTEST" index -c "$conf" >"$T/again.out" 2>&1
grep -q '^1 entry read' "$T/again.out"
ok $? "re-index reads only the new commit"

# A document attesting 10,000 patches, and a YAML alias bomb.
awk 'BEGIN {
	for (k = 0; k < 10000; k++) {
		h = sprintf("%08x", k);
		i = h "00000000000000000000000000000000000000000000000000000000";
		m = h "11111111111111111111111111111111111111111111111111111111";
		p = h "22222222222222222222222222222222222222222222222222222222";
		printf "%s%s-%s-%s:\n  i: %s\n  m: %s\n  p: %s", \
		    k ? "\n" : "", h, h, h, i, m, p;
	}
}' >"$T/big.yaml"
mkdir -p "$T/big/new" "$T/big/cur"
{ printf 'From: <devnull@kernel.org>\nSubject: Patch attestation\n\n'
  GNUPGHOME=$T/gnupg gpg --batch --clearsign --comment 'att-fmt-ver: 0.1' \
      --comment 'att-hash: sha256' -o - "$T/big.yaml"; } >"$T/big/new/1"
printf 'a: &a ["x","x","x","x","x","x","x","x"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a]\nc: [*b,*b,*b,*b,*b,*b,*b,*b]\n' >"$T/bomb.yaml"
{ printf 'From: <devnull@kernel.org>\nSubject: Patch attestation\n\n'
  GNUPGHOME=$T/gnupg gpg --batch --clearsign --comment 'att-fmt-ver: 0.1' \
      --comment 'att-hash: sha256' -o - "$T/bomb.yaml"; } >"$T/big/new/2"
# A signed document over the 16 MiB limit, read first: anyone who can
# post to the signatures list can send one, and it must cost only itself.
awk 'BEGIN { printf "00000000-00000000-00000000:\n  i: 0\n  m: 0\n  p: 0\n";
    for (k = 0; k < 360000; k++) printf "# padding padding padding padding padding padding\n" }' \
    >"$T/huge.yaml"
{ printf 'From: <devnull@kernel.org>\nSubject: Patch attestation\n\n'
  GNUPGHOME=$T/gnupg gpg --batch --clearsign --comment 'att-fmt-ver: 0.1' \
      --comment 'att-hash: sha256' -o - "$T/huge.yaml"; } >"$T/big/new/0"
sed -e "s|$T/md|$T/big|" -e "s|index-md|index-big|" "$T/md.conf" >"$T/big.conf"
"$PATCHATTEST" index -c "$T/big.conf" >"$T/big.out" 2>&1
ok $? "index a 10,000-patch document, an alias bomb and a 17 MB document"
grep -q ' 10000 attestations indexed' "$T/big.out"
ok $? "all 10,000 attestations indexed"
grep -qiE 'alias|anchor' "$T/big.out"
ok $? "the alias bomb is refused with a reason"
grep -q 'over the limit' "$T/big.out"
ok $? "the oversized document is skipped with a reason"
[ "$(wc -c <"$T/big/new/0")" -gt 16777216 ]
ok $? "  (and it is over 16 MiB)"

# Random bytes over seed 002's entries (i, m, p side by side in the file)
# in a copy of the index: the check is temperror, the index damaged; a
# lookup never reads them as another patch's record (fail).
cp -R "$T/index-md" "$T/index-scrambled"
sed "s|index-md|index-scrambled|" "$T/md.conf" >"$T/scrambled.conf"
imp=$("$PATCHATTEST" hash --tsv "$seeds"/002-*.patch | cut -f3-5 | tr -d '\t')
places=$(perl -e 'open(F, "+<", $ARGV[0]) or die; binmode F; local $/;
    my $d = <F>; my $k = pack("H*", $ARGV[1]); my ($p, $n) = (0, 0);
    while (($p = index($d, $k, $p)) >= 0) { seek(F, $p + 32, 0);
    print F map { chr int rand 256 } 1 .. 64; $p += 96; $n++ } print $n' \
    "$T/index-scrambled/data.mdb" "$imp")
[ "${places:-0}" -gt 0 ]
ok $? "random bytes written over seed 002's entries ($places places)"
"$PATCHATTEST" check -c "$T/scrambled.conf" "$seeds"/002-*.patch \
    >"$T/scrambled.out" 2>&1
cut -f2 "$T/scrambled.out" | grep -qx temperror &&
    grep -q 'index at .* is damaged' "$T/scrambled.out"
ok $? "seed 002 on the scrambled index: temperror, the index damaged"

# Revocation after indexing: the next check says so, without re-indexing.
rev=$T/gnupg/openpgp-revocs.d/$fpr.rev
sed 's/^:-----BEGIN/-----BEGIN/' "$rev" >"$T/rev.asc"
GNUPGHOME=$T/gnupg gpg --batch --quiet --import "$T/rev.asc" 2>/dev/null
expect "the key revoked after indexing: untrusted" untrusted \
    "$(verdict "$conf" "$seeds"/002-*.patch)"

tap_end
