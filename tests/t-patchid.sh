#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# t-patchid - our patch-id (lib/mail/patchid.c) against the real
# "git patch-id --stable": on the seed series (through git mailinfo), on
# patches that git itself makes of every kind of change, on hostile
# bytes, and on every corpus message with a diff (CORPUS is
# $PATCHATTEST_CORPUS, else $srcdir/../shared/corpus; skipped without).

: "${srcdir:=.}"
: "${top_builddir:=.}"
. "$srcdir/tests/tap.sh"
srcdir=$(cd "$srcdir" && pwd)
top_builddir=$(cd "$top_builddir" && pwd)

PRINT="$top_builddir/tests/patchfacts-print"
workdir_make t-patchid

# git_id FILE: the first id git prints for FILE, or "-"
git_id() {
	id=$(git patch-id --stable <"$1" | head -n 1 | cut -c1-40)
	echo "${id:--}"
}

our_id() {
	"$PRINT" patchid "$1" | cut -f2
}

# same NAME FILE: ours and git's agree on FILE
same() {
	expect "$1: git's patch-id" "$(git_id "$2")" "$(our_id "$2")"
}

# The seed series: the patch file git mailinfo writes.
for f in "$srcdir"/tests/fixtures/seeds/*; do
	b=$(basename "$f")
	git mailinfo -u "$T/msg" "$T/patch" <"$f" >/dev/null
	same "seed $b" "$T/patch"
	expect "seed $b: through our mailinfo" "$(git_id "$T/patch")" \
	    "$("$PRINT" mail "$f" | head -n 1 | cut -f2)"
done

# Patches git makes: text, binary, modes, renames, a missing newline.
R="$T/repo"
export GIT_AUTHOR_NAME=T GIT_AUTHOR_EMAIL=t@example.org \
    GIT_COMMITTER_NAME=T GIT_COMMITTER_EMAIL=t@example.org
git init -q "$R" && cd "$R" || exit 1
seq 1 40 >a.txt; seq 100 130 >b.txt; printf 'x' >c.txt
head -c 600 /dev/urandom >bin.dat
git add . && git commit -qm base
sed -i 's/^7$/seven/; s/^30$/thirty/' a.txt; echo 131 >>b.txt
printf 'x\ny' >c.txt; head -c 600 /dev/urandom >bin.dat
chmod +x b.txt; git mv a.txt a2.txt
git commit -qam change
git format-patch -q -1 --stdout >"$T/full.patch"
git format-patch -q -1 --stdout --binary >"$T/binary.patch"
git diff HEAD~1 --no-renames >"$T/norename.patch"
chmod -x b.txt && git commit -qam mode
git format-patch -q -1 --stdout >"$T/mode.patch"
printf '1\n' >one.txt && git add one.txt && git commit -qm one
printf '2\n' >one.txt && git commit -qam two
git format-patch -q -1 --stdout >"$T/oneline.patch"
printf '3\n' >one.txt && echo z >>b.txt && git commit -qam three
git format-patch -q -1 --stdout >"$T/two.patch"
echo one.txt >"$T/order"
git format-patch -q -1 --stdout -O"$T/order" >"$T/order.patch"
cd "$T" || exit 1
for p in full binary norename mode oneline two order; do
	same "git's $p patch" "$T/$p.patch"
done
# (A binary diff swallows the "diff" line after it: git's order does count.)
expect "the order of the files does not count" "$(our_id two.patch)" \
    "$(our_id order.patch)"
sed 's/^+thirty$/+ thirty /' full.patch >blanks.patch
expect "blanks do not count" "$(our_id full.patch)" "$(our_id blanks.patch)"
sed 's/^+thirty$/+thirty3/' full.patch >changed.patch
ok "$([ "$(our_id full.patch)" != "$(our_id changed.patch)" ]; echo $?)" \
    "a changed line gives another id"

# Hostile bytes: each as git reads it.
hdr='diff --git a/f b/f\nindex 1111111..2222222 100644\n--- a/f\n+++ b/f\n'
printf "$hdr"'@@ -1,2 +1,2 @@\n-a\0b\n+c\n x\n' >nul.diff
printf "$hdr"'@@ -1,99999999999999999999 +1,-5 @@\n-a\n+b\n-c\n' >counts.diff
printf "$hdr"'@@ -1, +3 @@\n-a\n+b\n@@ -9 +9 @@\n-c\n+d\n' >short.diff
printf '0123456789abcdef0123456789abcdef01234567\n'"$hdr"'@@ -1 +1 @@\n-a\n+b\n' >oid.diff
printf 'diff --git a/f b/f\nindex 1..\nBinary files a/f and b/f differ\n' >dots.diff
printf 'diff --git a/f b/f\nindex 12..34\nGIT binary patch\n' >eof.diff
printf 'diff --git a/f b/f\nindex 12..34\nGIT binary patch\ndiff --git a/g b/g\n--- a/g\n+++ b/g\n@@ -1 +1 @@\n-a\n+b\n' >binnext.diff
printf "$hdr"'@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n-- \n2.39\n' >tail.diff
printf 'commit 0123456789abcdef0123456789abcdef01234567\n'"$hdr"'@@ -1 +1 @@\n-a\n+b\n' >commit.diff
printf 'no diff here\n' >none.diff
: >empty.diff
for p in nul counts short oid dots eof binnext tail commit none empty; do
	same "hostile $p" "$T/$p.diff"
done

# The corpus: the patch our mailinfo gives of each mail, to both.
corpus=${PATCHATTEST_CORPUS:-$srcdir/../shared/corpus}
if [ ! -d "$corpus" ]; then
	skip "corpus patch-ids" "no corpus at $corpus (set PATCHATTEST_CORPUS)"
else
	mkdir patches
	ls "$corpus"/*/messages/*.eml | xargs "$PRINT" patches patches \
	    2>reading.err
	ok $? "corpus: the facts from the hashes' reading are a reading's own"
	sed 's/^/# /' reading.err
	for f in patches/*.patch; do
		git patch-id --stable <"$f" | { read -r id rest; echo "${id:--}"; }
	done >git.ids
	"$PRINT" patchid patches/*.patch | cut -f2 >our.ids
	count=$(grep -cv '^-$' git.ids)
	echo "# corpus: $count messages with a diff"
	ok "$([ "$count" -gt 1000 ]; echo $?)" "the corpus has patches"
	cmp -s git.ids our.ids
	ok $? "corpus: every patch-id is git's ($count)"
fi

cd / && tap_end
