#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# t-cli - the patchattest command through the built binary: output
# formats, exit statuses and error messages of hash and check, the usage
# of every command.  TAP on stdout.  The verdicts that need a signed
# document are checked when gpg is installed.
#
# Environment: PATCHATTEST (the binary; make check exports it), srcdir
# (the source tree, default "."), top_builddir (for tests/pin-race).

: "${srcdir:=.}"
: "${top_builddir:=.}"
: "${PATCHATTEST:=./patchattest}"

seeds=$srcdir/tests/fixtures/seeds
cover=$(ls "$seeds"/001-*.txt 2>/dev/null)
s002=$(ls "$seeds"/002-*.patch 2>/dev/null)
if [ ! -x "$PATCHATTEST" ] || [ ! -f "$cover" ] || [ ! -f "$s002" ]; then
	echo "Bail out! need \$PATCHATTEST ($PATCHATTEST) and the seed fixtures"
	exit 1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-cli.XXXXXX") || exit 1
cleanup()
{
	for h in "$tmp/keys" "$tmp/gnupg"; do
		[ -d "$h" ] && gpgconf --homedir "$h" --kill all 2>/dev/null
	done
	rm -rf "$tmp"
}
trap cleanup 0
trap 'exit 1' HUP INT TERM

n=0
failed=0

# ok COND-STATUS DESCRIPTION: one TAP line for a check that passed (0)
ok()
{
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=1
	fi
}

# run ARGS...: the binary with stdout, stderr and status in $tmp/out,
# $tmp/err and $rc
run()
{
	"$PATCHATTEST" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

# same FILE EXPECTED: FILE equals EXPECTED byte for byte (else a diff)
same()
{
	if cmp -s "$1" "$2"; then
		return 0
	fi
	diff "$2" "$1" | sed 's/^/# /'
	return 1
}

# is_rc WANT: $rc is WANT (else a diagnostic with stderr)
is_rc()
{
	if [ "$rc" -eq "$1" ]; then
		return 0
	fi
	echo "# exit status $rc, want $1; stderr:"
	sed 's/^/#   /' "$tmp/err"
	return 1
}

tab=$(printf '\t')

cat >"$tmp/article" <<'EOT'
2a02abe0-215cf3f1-2acb5798:
  i: 2a02abe02216f626105622aee2f26ab10c155b6442e23441d90fc5fe4071b86e
  m: 215cf3f133478917ad147a6eda1010a9c4bba1846e7dd35295e9a0081559e9b0
  p: 2acb5798c366f97501f8feacb873327bac161951ce83e90f04bbcde32e993865
EOT
cols002="2a02abe0-215cf3f1-2acb5798${tab}2a02abe02216f626105622aee2f26ab10c155b6442e23441d90fc5fe4071b86e${tab}215cf3f133478917ad147a6eda1010a9c4bba1846e7dd35295e9a0081559e9b0${tab}2acb5798c366f97501f8feacb873327bac161951ce83e90f04bbcde32e993865"
: >"$tmp/empty"
# check's configuration: an index of its own, no archive, no keys
mkdir -m 700 "$tmp/gnupg"
# attest without -c uses GnuPG's home: never the user's own
GNUPGHOME=$tmp/gnupg
export GNUPGHOME
printf 'IndexPath %s\nGnuPGHome %s\n' "$tmp/index" "$tmp/gnupg" >"$tmp/pa.conf"

# Seed 002: the attestation block LWN published.
run hash "$s002"
is_rc 0
ok $? "seed 002: exit 0"
same "$tmp/out" "$tmp/article"
ok $? "seed 002: the article's YAML block, byte for byte"
same "$tmp/err" "$tmp/empty"
ok $? "seed 002: nothing on stderr"

# Seed 001, the cover letter: no patch.
run hash "$cover"
is_rc 1
ok $? "cover letter: exit 1"
same "$tmp/out" "$tmp/empty"
ok $? "cover letter: nothing on stdout"
echo "patchattest: $cover: no patch" >"$tmp/want"
same "$tmp/err" "$tmp/want"
ok $? "cover letter: stderr names it"

# Empty input: "no patch", the words check uses, not git's "empty patch".
run hash /dev/null
echo "patchattest: /dev/null: no patch" >"$tmp/want"
is_rc 1 && same "$tmp/out" "$tmp/empty" && same "$tmp/err" "$tmp/want"
ok $? "hash /dev/null: no patch, exit 1"
printf ' \n\r\n\t\n' >"$tmp/blank"
run hash "$tmp/blank"
echo "patchattest: $tmp/blank: no patch" >"$tmp/want"
is_rc 1 && same "$tmp/err" "$tmp/want"
ok $? "hash on blank lines: no patch"
run attest /dev/null
is_rc 1 && grep -q "^patchattest: /dev/null: no patch$" "$tmp/err"
ok $? "attest /dev/null: no patch"
run check -c "$tmp/pa.conf" /dev/null
is_rc 1 && grep -q "${tab}no patch, no signature" "$tmp/out"
ok $? "check /dev/null: no patch (and no signature)"

# A mix: the patch is still printed, the status says not all were patches.
run hash "$cover" "$s002"
is_rc 1
ok $? "cover letter and patch: exit 1"
same "$tmp/out" "$tmp/article"
ok $? "cover letter and patch: the patch's block"

# A missing file is an error; the other inputs are still done.
run hash "$tmp/missing" "$s002"
is_rc 2
ok $? "missing file: exit 2"
grep -q "^patchattest: $tmp/missing: ." "$tmp/err"
ok $? "missing file: stderr names it"
same "$tmp/out" "$tmp/article"
ok $? "missing file: the next input is still hashed"

run hash "$tmp"
is_rc 2
ok $? "directory: exit 2"

# Over the size cap: a sparse file, and standard input.
dd if=/dev/zero of="$tmp/big" bs=1 count=0 seek=67108865 2>/dev/null
run hash "$tmp/big"
echo "patchattest: $tmp/big: larger than the input limit of 64 MiB" >"$tmp/want"
is_rc 2 && same "$tmp/err" "$tmp/want"
ok $? "file over 64 MiB: exit 2, the file and the limit named"
head -c 67108865 /dev/zero | "$PATCHATTEST" hash - >"$tmp/out" 2>"$tmp/err"
rc=$?
echo "patchattest: -: larger than the input limit of 64 MiB" >"$tmp/want"
is_rc 2 && same "$tmp/err" "$tmp/want"
ok $? "standard input over 64 MiB: exit 2, the limit named"
head -c 67108864 /dev/zero >"$tmp/cap"
run hash "$tmp/cap"
is_rc 1 && ! grep -q limit "$tmp/err"
ok $? "a file of exactly 64 MiB is read"
run check -c "$tmp/pa.conf" "$tmp/big"
echo "patchattest: $tmp/big: larger than the input limit of 64 MiB" >"$tmp/want"
is_rc 2 && same "$tmp/err" "$tmp/want"
ok $? "check: a file over 64 MiB, the file and the limit named"

# Standard input.
"$PATCHATTEST" hash - <"$s002" >"$tmp/out" 2>"$tmp/err"
rc=$?
is_rc 0 && same "$tmp/out" "$tmp/article"
ok $? "- reads standard input"

# --tsv
run hash --tsv "$s002"
printf '%s\t%s\n' "$s002" "$cols002" >"$tmp/want"
is_rc 0 && same "$tmp/out" "$tmp/want"
ok $? "--tsv: name, attid, i, m, p"
"$PATCHATTEST" hash --tsv - <"$s002" >"$tmp/out" 2>"$tmp/err"
rc=$?
printf -- '-\t%s\n' "$cols002" >"$tmp/want"
is_rc 0 && same "$tmp/out" "$tmp/want"
ok $? "--tsv: standard input is named -"
run hash "$s002" --tsv
printf '%s\t%s\n' "$s002" "$cols002" >"$tmp/want"
is_rc 0 && same "$tmp/out" "$tmp/want"
ok $? "options may follow the files"
# A file name's tab or line end would make a row of its own: escaped.
odd="$tmp/a${tab}b
c.eml"
cp "$s002" "$odd"
run hash --tsv "$odd"
printf '%s\t%s\n' "$tmp/a\\x09b\\x0ac.eml" "$cols002" >"$tmp/want"
is_rc 0 && same "$tmp/out" "$tmp/want"
ok $? "--tsv: a file name's tab and line end are escaped"
run check -c "$tmp/pa.conf" "$odd"
[ "$(wc -l <"$tmp/out")" -eq 1 ] &&
    [ "$(cut -f 1 "$tmp/out")" = "$tmp/a\\x09b\\x0ac.eml" ]
ok $? "check: likewise, one line whose first field is the name escaped"
run check -c "$tmp/pa.conf" --header "$odd" "$s002"
grep -q -F -x "==> $tmp/a\\x09b\\x0ac.eml <==" "$tmp/out" &&
    [ "$(grep -c '^==> ' "$tmp/out")" -eq 2 ]
ok $? "check --header: the name's line escaped"
cp "$cover" "$odd"
run check -c "$tmp/pa.conf" "$odd"
[ "$(wc -l <"$tmp/out")" -eq 1 ] &&
    [ "$(cut -f 1,5 "$tmp/out")" = "$tmp/a\\x09b\\x0ac.eml${tab}no patch, no signature" ]
ok $? "check, no patch: the name escaped"
run check -c "$tmp/pa.conf" --header "$odd"
[ "$(cat "$tmp/out")" = "$tmp/a\\x09b\\x0ac.eml: no patch and no signature, no header" ]
ok $? "check --header, no patch: the name escaped"
rm -f "$odd"

# --variants: the primary first, labelled; every further entry labelled.
run hash --variants --tsv "$s002"
printf '%s\t%s\tprimary\n' "$s002" "$cols002" >"$tmp/want"
head -n 1 "$tmp/out" >"$tmp/first"
is_rc 0 && same "$tmp/first" "$tmp/want" &&
    awk -F "$tab" 'NF != 6 { exit 1 }' "$tmp/out"
ok $? "--variants --tsv: primary row first, 6 columns"
run hash --variants "$s002"
head -n 4 "$tmp/out" >"$tmp/first"
is_rc 0 && same "$tmp/first" "$tmp/article" &&
    awk 'NR > 4 && (NR - 5) % 5 == 0 && !/^# variant: ./ { exit 1 }
	NR > 4 && (NR - 5) % 5 == 1 && !/^[0-9a-f-]+:$/ { exit 1 }
	END { if ((NR - 4) % 5 != 0) exit 1 }' "$tmp/out"
ok $? "--variants: article block first, then commented blocks"

# --mbox over the seed series, git format-patch separators.
for f in "$seeds"/00[1-7]-*; do
	echo "From x Mon Sep 17 00:00:00 2001"
	cat "$f"
done >"$tmp/series.mbox"
run hash --mbox --tsv "$tmp/series.mbox"
cp "$tmp/out" "$tmp/series.tsv"
cut -f 1,2 "$tmp/out" >"$tmp/got"
m=$tmp/series.mbox
cat >"$tmp/want" <<EOT
$m:2${tab}2a02abe0-215cf3f1-2acb5798
$m:3${tab}75937bcc-99055a61-86ed600d
$m:4${tab}df75a2bb-112978df-c45ac766
$m:5${tab}d708fe17-8d3777c2-6ae8636e
$m:6${tab}5e5e2104-22c94ea8-26c8ab2f
$m:7${tab}3bcaf54a-abe4870f-92b040cb
EOT
is_rc 1 && same "$tmp/got" "$tmp/want"
ok $? "--mbox: messages named PATH:N, the cover letter skipped"
echo "patchattest: $m:1: no patch" >"$tmp/want"
same "$tmp/err" "$tmp/want"
ok $? "--mbox: stderr names PATH:1"
{ echo "From x Mon Sep 17 00:00:00 2001"; cat "$s002"; } |
    "$PATCHATTEST" hash --mbox - >"$tmp/out" 2>"$tmp/err"
rc=$?
is_rc 0 && same "$tmp/out" "$tmp/article"
ok $? "--mbox -: an mbox on standard input"

# --mbox on what is not an mbox: said, and an error.
run hash --mbox "$s002"
echo "patchattest: $s002: not an mbox: it does not begin with a \"From \" line" \
    >"$tmp/want"
is_rc 2 && same "$tmp/out" "$tmp/empty" && same "$tmp/err" "$tmp/want"
ok $? "hash --mbox on a mail file: not an mbox, exit 2"
run hash --mbox /dev/null
echo "patchattest: /dev/null: not an mbox: the file is empty" >"$tmp/want"
is_rc 2 && same "$tmp/out" "$tmp/empty" && same "$tmp/err" "$tmp/want"
ok $? "hash --mbox /dev/null: not an mbox, exit 2"
printf '\177ELF\002\001\001\000\000\000From \000\n' >"$tmp/binary"
run hash --mbox "$tmp/binary" "$m"
is_rc 2 && grep -q "^patchattest: $tmp/binary: not an mbox" "$tmp/err" &&
    [ "$(grep -c . "$tmp/out")" -eq 24 ]
ok $? "hash --mbox on a binary file: not an mbox, the next FILE still read"

# Several mails in one file are not hashed as one; a single mail with
# git format-patch's "From " line is.
run hash "$m"
echo "patchattest: $m: an mbox of 7 messages: give --mbox to read each of them" \
    >"$tmp/want"
is_rc 2 && same "$tmp/out" "$tmp/empty" && same "$tmp/err" "$tmp/want"
ok $? "hash on an mbox of 7 mails without --mbox: refused, exit 2"
run attest "$m"
is_rc 2 && same "$tmp/out" "$tmp/empty" &&
    grep -q "^patchattest: $m: an mbox of 7 messages" "$tmp/err"
ok $? "attest on an mbox of 7 mails: refused, nothing signed, exit 2"
{ echo "From 5c8a4d1e Mon Sep 17 00:00:00 2001"; cat "$s002"; } >"$tmp/one.mbox"
run hash "$tmp/one.mbox"
is_rc 0 && same "$tmp/out" "$tmp/article"
ok $? "hash on one mail with a leading From line"

# check reads an mbox with --mbox, names its messages FILE:N.
run check -c "$tmp/pa.conf" --mbox "$m"
cut -f 1-3 "$tmp/out" >"$tmp/got"
cat >"$tmp/want" <<EOT
$m:1${tab}-${tab}-
$m:2${tab}none${tab}2a02abe0-215cf3f1-2acb5798
$m:3${tab}none${tab}75937bcc-99055a61-86ed600d
$m:4${tab}none${tab}df75a2bb-112978df-c45ac766
$m:5${tab}none${tab}d708fe17-8d3777c2-6ae8636e
$m:6${tab}none${tab}5e5e2104-22c94ea8-26c8ab2f
$m:7${tab}none${tab}3bcaf54a-abe4870f-92b040cb
EOT
is_rc 1 && same "$tmp/got" "$tmp/want"
ok $? "check --mbox: one line per message, named PATH:N"
run check -c "$tmp/pa.conf" "$m"
echo "patchattest: $m: an mbox of 7 messages: give --mbox to read each of them" \
    >"$tmp/want"
is_rc 2 && same "$tmp/out" "$tmp/empty" && same "$tmp/err" "$tmp/want"
ok $? "check on an mbox of 7 mails without --mbox: no false verdict, exit 2"
run check -c "$tmp/pa.conf" "$tmp/one.mbox"
printf '%s\tnone\t2a02abe0-215cf3f1-2acb5798\n' "$tmp/one.mbox" >"$tmp/want"
cut -f 1-3 "$tmp/out" >"$tmp/got"
is_rc 1 && same "$tmp/got" "$tmp/want"
ok $? "check on one mail with a leading From line: one message"
# A commit message may hold a line starting "From " (format-patch leaves
# it unescaped): still one mail.
sed '/^Add a table to document/a\
From the table, READ_IMPLIES_EXEC follows.' "$tmp/one.mbox" >"$tmp/inbody.mbox"
run check -c "$tmp/pa.conf" "$tmp/inbody.mbox"
cut -f 1 "$tmp/out" >"$tmp/got"
echo "$tmp/inbody.mbox" >"$tmp/want"
grep -q '^From the table' "$tmp/inbody.mbox" && is_rc 1 &&
    same "$tmp/got" "$tmp/want"
ok $? "check on one mail with a From line in its commit message: one message"
# check --header: with several messages, a line naming each before it.
run check -c "$tmp/pa.conf" --header "$s002"
echo "X-Patch-Attested: none; attid=2a02abe0-215cf3f1-2acb5798" >"$tmp/want"
is_rc 1 && same "$tmp/out" "$tmp/want"
ok $? "check --header on one FILE: the header alone"
run check -c "$tmp/pa.conf" --header "$cover" "$s002"
cat >"$tmp/want" <<EOT
==> $cover <==
$cover: no patch and no signature, no header
==> $s002 <==
X-Patch-Attested: none; attid=2a02abe0-215cf3f1-2acb5798
EOT
is_rc 1 && same "$tmp/out" "$tmp/want"
ok $? "check --header on two FILEs: each header after a line naming its FILE"
run check -c "$tmp/pa.conf" --header --mbox "$tmp/one.mbox"
cat >"$tmp/want" <<EOT
==> $tmp/one.mbox:1 <==
X-Patch-Attested: none; attid=2a02abe0-215cf3f1-2acb5798
EOT
is_rc 1 && same "$tmp/out" "$tmp/want"
ok $? "check --header --mbox: named even for one message"
run check -c "$tmp/pa.conf" --header --mbox "$m"
is_rc 1 && [ "$(grep -c '^==> ' "$tmp/out")" -eq 7 ] &&
    [ "$(sed -n 's/^==> \(.*\) <==$/\1/p' "$tmp/out" | tr '\n' ' ')" = \
    "$m:1 $m:2 $m:3 $m:4 $m:5 $m:6 $m:7 " ]
ok $? "check --header --mbox: the seven messages named in order"
run check -c "$tmp/pa.conf" --mbox "$s002"
is_rc 2 && grep -q "^patchattest: $s002: not an mbox" "$tmp/err"
ok $? "check --mbox on a mail file: not an mbox, exit 2"

# check's plain line: name, verdict, attid, signer, reason, schemes.
run check -c "$tmp/pa.conf" "$s002"
printf '%s\tnone\t2a02abe0-215cf3f1-2acb5798\t-\t-\t-\n' "$s002" >"$tmp/want"
is_rc 1 && same "$tmp/out" "$tmp/want"
ok $? "check: an unattested patch, six columns"
run check -c "$tmp/pa.conf" "$cover"
printf '%s\t-\t-\t-\tno patch, no signature\t-\n' "$cover" >"$tmp/want"
is_rc 1 && same "$tmp/out" "$tmp/want"
ok $? "check: no patch, the reason in the fifth column"
# A patatt signature by a key nobody has: signer and reason both shown.
sig="v=1; a=ed25519-sha256; t=1582607582; l=100; s=default; h=from:subject:date:message-id; bh=47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=; b=AAAA"
{ echo "X-Developer-Signature: i=dev@example.org; $sig"; cat "$s002"; } \
    >"$tmp/nokey.eml"
run check -c "$tmp/pa.conf" "$tmp/nokey.eml"
printf '%s\tnokey\t2a02abe0-215cf3f1-2acb5798\tdev@example.org\t%s\t%s\n' \
    "$tmp/nokey.eml" "dev@example.org/default: no matching ed25519 key found" \
    "scheme=patatt v0.1=none patatt=nokey" >"$tmp/want"
is_rc 1 && same "$tmp/out" "$tmp/want"
ok $? "check: nokey with the signer, the reason and each scheme's result"
# The mail names its signer: what it holds is escaped, not sent to the
# terminal nor into the next column.
{ printf 'X-Developer-Signature: i=dev\033[2J\007@example.org; %s\n' "$sig"
  cat "$s002"; } >"$tmp/esc.eml"
run check -c "$tmp/pa.conf" "$tmp/esc.eml"
cut -f 4 "$tmp/out" >"$tmp/got"
printf '%s\n' 'dev\x1b[2J\x07@example.org' >"$tmp/want"
is_rc 1 && same "$tmp/got" "$tmp/want" &&
    awk -F "$tab" 'NF != 6 { exit 1 }' "$tmp/out"
ok $? "check: control bytes of a signer escaped"

# A signed document, a patch whose commit message was changed: fail,
# and the plain line says why as --header does.
if command -v gpg >/dev/null 2>&1 && command -v gpgconf >/dev/null 2>&1; then
	mkdir -m 700 "$tmp/keys"
	mkdir -p "$tmp/md/new" "$tmp/md/cur" "$tmp/md/tmp"
	GNUPGHOME=$tmp/keys gpg --batch --quiet --passphrase '' \
	    --quick-gen-key 'Alice Developer <alice@example.org>' ed25519 \
	    sign never 2>/dev/null
	printf 'GnuPGHome %s\n' "$tmp/keys" >"$tmp/sign.conf"
	printf 'Archive %s\nIndexPath %s\nGnuPGHome %s\nTrustModel gpg\n' \
	    "$tmp/md" "$tmp/index-md" "$tmp/keys" >"$tmp/signed.conf"
	"$PATCHATTEST" attest -c "$tmp/sign.conf" -u alice@example.org \
	    "$s002" >"$tmp/md/new/1" 2>"$tmp/err" &&
	    "$PATCHATTEST" index -c "$tmp/signed.conf" >/dev/null 2>>"$tmp/err"
	rc=$?
	is_rc 0
	ok $? "attest and index seed 002"
	sed 's/^Add a table to document/Add a tabel to document/' "$s002" \
	    >"$tmp/m-changed.eml"
	run check -c "$tmp/signed.conf" "$tmp/m-changed.eml" "$s002"
	cat >"$tmp/want" <<EOT
$tmp/m-changed.eml${tab}fail${tab}2a02abe0-4efa3d02-2acb5798${tab}Alice Developer <alice@example.org>${tab}commit message is not what was attested${tab}-
$s002${tab}pass${tab}2a02abe0-215cf3f1-2acb5798${tab}Alice Developer <alice@example.org>${tab}-${tab}-
EOT
	is_rc 1 && same "$tmp/out" "$tmp/want"
	ok $? "check: fail says what differs, pass has no reason"
	cp "$tmp/want" "$tmp/want-check"
	# The index written again as the schema before wrote it: check says
	# to run patchattest index and judges temperror; patchattest index
	# upgrades it in place and says so; then check judges as before.
	if "$top_builddir/tests/index-downgrade" "$tmp/index-md" \
	    >/dev/null 2>"$tmp/err"; then
		run check -c "$tmp/signed.conf" "$s002"
		ix="index at $tmp/index-md has schema patchattest-index 2, this program needs patchattest-index 4: run patchattest index, which upgrades it in place"
		printf '%s\ttemperror\t2a02abe0-215cf3f1-2acb5798\t-\t%s\t-\n' \
		    "$s002" "$ix" >"$tmp/want"
		echo "patchattest: $ix: 2020 attestations are not consulted, patatt signatures are" \
		    >"$tmp/want-err"
		is_rc 2 && same "$tmp/out" "$tmp/want" &&
		    same "$tmp/err" "$tmp/want-err"
		ok $? "check on an index of schema 2: temperror, saying to run patchattest index"
		run index -c "$tmp/signed.conf"
		echo "patchattest: index at $tmp/index-md upgraded in place from patchattest-index 2 to patchattest-index 4; documents filed anew: 1" \
		    >"$tmp/want-err"
		is_rc 0 && same "$tmp/err" "$tmp/want-err"
		ok $? "index upgrades it in place, and says so"
		run check -c "$tmp/signed.conf" "$tmp/m-changed.eml" "$s002"
		is_rc 1 && same "$tmp/out" "$tmp/want-check"
		ok $? "check after the upgrade: fail and pass as before"
	else
		sed 's/^/# /' "$tmp/err"
		for t in "check on an index of schema 2" "index upgrades it" \
		    "check after the upgrade"; do
			ok 1 "$t (tests/index-downgrade failed)"
		done
	fi
	# A maintainer in the index's group reads it (the index made as
	# root, umask or not); one outside it gets patatt's verdicts, and
	# what the index would judge is temperror, saying why.
	# (nobody must reach the program: a build below a private folder
	# leaves it out of reach)
	if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null &&
	    id nobody >/dev/null 2>&1 && setpriv --reuid=nobody \
	    --regid=nogroup --clear-groups test -x "$PATCHATTEST"; then
		chmod 755 "$tmp"
		chmod 750 "$tmp/keys" && chmod 640 "$tmp/keys/trustdb.gpg"
		as_nobody() {
			group=$1
			shift
			setpriv --reuid=nobody --regid="$group" \
			    --clear-groups "$PATCHATTEST" "$@" \
			    >"$tmp/out" 2>"$tmp/err"
			rc=$?
		}
		as_nobody "$(id -g)" check -c "$tmp/signed.conf" "$s002"
		printf '%s\tpass\t2a02abe0-215cf3f1-2acb5798\t%s\t-\t-\n' \
		    "$s002" "Alice Developer <alice@example.org>" >"$tmp/want"
		is_rc 0 && same "$tmp/out" "$tmp/want"
		ok $? "check by a user of the index's group: pass"
		as_nobody nogroup check -c "$tmp/signed.conf" "$s002" \
		    "$tmp/nokey.eml"
		ix="cannot open index at $tmp/index-md: Permission denied"
		cat >"$tmp/want" <<EOT
$s002${tab}temperror${tab}2a02abe0-215cf3f1-2acb5798${tab}-${tab}$ix${tab}-
$tmp/nokey.eml${tab}nokey${tab}2a02abe0-215cf3f1-2acb5798${tab}dev@example.org${tab}dev@example.org/default: no matching ed25519 key found${tab}scheme=patatt v0.1=temperror patatt=nokey
EOT
		echo "patchattest: $ix: 2020 attestations are not consulted, patatt signatures are" \
		    >"$tmp/want-err"
		is_rc 2 && same "$tmp/out" "$tmp/want" &&
		    same "$tmp/err" "$tmp/want-err"
		ok $? "check by a user outside it: patatt's verdicts, the index named once"
		chmod 700 "$tmp/keys"
	else
		why="needs root, setpriv, and nobody able to run $PATCHATTEST"
		skip "check by a user of the index's group" "$why"
		skip "check by a user outside it" "$why"
	fi
	run attest -c "$tmp/sign.conf" -u alice@example.org --mbox "$m"
	grep -E '^[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}:$' "$tmp/out" >"$tmp/got"
	cut -f 2 "$tmp/series.tsv" | sed 's/$/:/' >"$tmp/want"
	is_rc 0 && same "$tmp/got" "$tmp/want" && same "$tmp/err" "$tmp/empty" &&
	    grep -q '^Subject: \[PSIGN v4 X/6\] binfmt_elf' "$tmp/out"
	ok $? "attest --mbox: the series' six patches, the cover's subject"
else
	for t in "attest and index seed 002" "check: fail says what differs" \
	    "check on an index of schema 2" "index upgrades it" \
	    "check after the upgrade" "attest --mbox"; do
		n=$((n + 1))
		echo "ok $n - $t # SKIP gpg is not installed"
	done
fi

# Usage.
run hash --bogus "$s002"
is_rc 2 && same "$tmp/out" "$tmp/empty" && grep -q '^usage: ' "$tmp/err"
ok $? "unknown option: exit 2 and usage on stderr"
run hash
is_rc 2 && grep -q '^usage: ' "$tmp/err"
ok $? "no FILE: exit 2"
run hash --help
is_rc 0 && grep -q -- '--tsv' "$tmp/out" &&
    grep -q -- '--variants' "$tmp/out" && grep -q -- '--mbox' "$tmp/out"
ok $? "hash --help lists the options"
run --help
is_rc 0 && grep -q '^  hash ' "$tmp/out"
ok $? "--help lists the commands"
run --version
is_rc 0 && grep -q '^patchattest [0-9]' "$tmp/out"
ok $? "--version"
run -V
is_rc 0 && grep -q '^patchattest [0-9]' "$tmp/out" && same "$tmp/err" "$tmp/empty"
ok $? "-V is --version"
run -h
is_rc 0 && grep -q '^usage: ' "$tmp/out" && same "$tmp/err" "$tmp/empty"
ok $? "-h: the usage on stdout, exit 0"
run --bogus
is_rc 2 && same "$tmp/out" "$tmp/empty" && grep -q '^usage: ' "$tmp/err"
ok $? "unknown main option: exit 2, the usage on stderr"
for c in hash attest index check; do
	run "$c" --help
	is_rc 0 && grep -q "^usage: patchattest $c " "$tmp/out" &&
	    same "$tmp/err" "$tmp/empty"
	ok $? "$c --help: stdout, exit 0"
	run "$c" --bogus
	is_rc 2 && same "$tmp/out" "$tmp/empty" &&
	    grep -q "^usage: patchattest $c " "$tmp/err"
	ok $? "$c --bogus: the usage on stderr, exit 2"
done
run index stray
is_rc 2 && grep -q "^patchattest: index: unexpected operand 'stray'" "$tmp/err"
ok $? "index with an operand: says which, exit 2"
run frobnicate
is_rc 2 && grep -q "unknown command 'frobnicate'" "$tmp/err"
ok $? "unknown command: exit 2"
run
is_rc 2 && grep -q '^usage: ' "$tmp/err"
ok $? "no command: exit 2"

# tofu list: a pin's key came in mail (the key a patch offered).  Control
# bytes (ESC, CSI, CR, BEL, tab, line end, C1 as UTF-8), a bare 0x9b and
# bytes that are not UTF-8 are escaped: one line of three columns; --json
# stays valid.
bad=$(printf 'x\033[2K\rOWNED\302\205\302\233\233\377\300\200\tT\nN\007y')
printf 'PatattTOFUPins %s/pins.mdb\n' "$tmp" >"$tmp/tofu.conf"
: >"$tmp/go"
if [ -x "$top_builddir/tests/pin-race" ]; then
	"$top_builddir/tests/pin-race" "$tmp/tofu.conf" "$tmp/go" "$bad" \
	    dev@example.org >/dev/null 2>"$tmp/pin.err"
	run tofu -c "$tmp/tofu.conf" list
	cut -f 1,2 "$tmp/out" >"$tmp/got"
	printf 'dev@example.org\t%s\n' \
	    'x\x1b[2K\x0dOWNED\xc2\x85\xc2\x9b\x9b\xff\xc0\x80\x09T\x0aN\x07y' \
	    >"$tmp/want"
	is_rc 0 && same "$tmp/got" "$tmp/want" &&
	    awk -F "$tab" 'NF != 3 { exit 1 }' "$tmp/out"
	ok $? "tofu list: a key's control bytes escaped"
	run tofu -c "$tmp/tofu.conf" --json list
	is_rc 0 && "${PYTHON3:-python3}" -c '
import json, sys
o = json.load(open(sys.argv[1]))
sys.exit(o["key"] != "x[2KOWNED\\xc2\\x85\\xc2\\x9b\\x9b\\xff\\xc0\\x80TNy")' \
	    "$tmp/out"
	ok $? "tofu list --json: parses, control bytes dropped, the others named"
else
	echo "ok $((n + 1)) # SKIP tests/pin-race is not built"
	n=$((n + 1))
fi

echo "1..$n"
exit $failed
