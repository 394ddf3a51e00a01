#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# t-trailers - the trailer block we find in a commit message
# (lib/mail/trailers.c) against "git interpret-trailers" on the commit
# git am makes of it (the subject, a blank line, the message): on crafted
# messages, the seed series and every corpus message with a patch
# (CORPUS is $PATCHATTEST_CORPUS, else $srcdir/../shared/corpus; skipped
# without one).  And the core: the same when only trailers were added.

: "${srcdir:=.}"
: "${top_builddir:=.}"
. "$srcdir/tests/tap.sh"
srcdir=$(cd "$srcdir" && pwd)
top_builddir=$(cd "$top_builddir" && pwd)

PRINT="$top_builddir/tests/patchfacts-print"
workdir_make t-trailers
cd "$T" || exit 1

# git's trailers of the message file $1, as the commit "Subject" + $1 has
git_trailers() {
	{ printf 'Subject\n\n'; cat "$1"; } |
	    git interpret-trailers --only-trailers --only-input --unfold
}

# ours, the trailers among the block's lines
our_trailers() {
	"$PRINT" trailers "$1" | grep -E '^[A-Za-z0-9-]+: '
}

same() {
	expect "$1: git's trailers" "$(git_trailers "$2")" "$(our_trailers "$2")"
}

printf 'Body.\n\nSigned-off-by: A <a@example.org>\n' >plain
printf 'Signed-off-by: A <a@example.org>\n' >only
printf 'Body.\n\nReviewed-by: R\nLink: https://example.org/x\n' >nogit
printf 'Body.\n\nFixes: 1234 ("a long\n  subject")\nSigned-off-by: A\n' >cont
printf 'Body.\n\nSigned-off-by: A\nnot a trailer\nCc: x\nCc: y\n' >mixed
printf 'Body.\n\nSigned-off-by: A\nnot one\nnot two\n' >toomany
printf 'Body.\n\nKey :  value  \n# comment\nSigned-off-by: A\n\n\n' >spaces
printf 'Body with: colon\n' >body
printf 'Body.\n\nA: b\n\n---\nC: d\n' >dashes
printf '' >empty
printf 'Body.\n\n(cherry picked from commit 1234)\nAcked-by: x\n' >cherry
for f in plain only nogit cont mixed toomany spaces body dashes empty cherry
do
	same "$f" "$f"
done
expect "the block's lines, other lines kept" \
    "$(printf 'Signed-off-by: A\nnot a trailer\nCc: x\nCc: y')" \
    "$("$PRINT" trailers mixed)"
expect "a trailer's continuation line unfolded" \
    'Fixes: 1234 ("a long subject")' "$("$PRINT" trailers cont | head -n 1)"

# The core: trailers added after the block leave it alone.
cp plain added && printf 'Reviewed-by: R\nLink: L\n' >>added
expect "core of a message with added trailers" "$("$PRINT" core plain)" \
    "$("$PRINT" core added)"
expect "the core is the text before the block" 'Body.' \
    "$("$PRINT" core plain)"
printf 'Body.\n' >bare
printf 'Body.\n\nReviewed-by: R\n' >bare-added
expect "core of a message that had no trailers" "$("$PRINT" core bare)" \
    "$("$PRINT" core bare-added)"
printf 'Body!\n\nSigned-off-by: A <a@example.org>\n' >edited
ok "$([ "$("$PRINT" core plain)" != "$("$PRINT" core edited)" ]; echo $?)" \
    "an edited body changes the core"

# The seeds and the corpus: our mailinfo's message of each mail, to both.
mkdir seeds
"$PRINT" patches seeds "$srcdir"/tests/fixtures/seeds/*
for f in seeds/*.msg; do
	same "seed $(basename "$f" .msg)" "$f"
done
corpus=${PATCHATTEST_CORPUS:-$srcdir/../shared/corpus}
if [ ! -d "$corpus" ]; then
	skip "corpus trailers" "no corpus at $corpus (set PATCHATTEST_CORPUS)"
else
	mkdir corpus
	ls "$corpus"/*/messages/*.eml | xargs "$PRINT" patches corpus
	count=0 differ=0
	for f in corpus/*.msg; do
		count=$((count + 1))
		if [ "$(git_trailers "$f")" != "$(our_trailers "$f")" ]; then
			differ=$((differ + 1))
			echo "# differs: $f"
		fi
	done
	echo "# corpus: $count commit messages"
	ok "$([ "$count" -gt 1000 ]; echo $?)" "the corpus has patches"
	expect "corpus: every trailer block is git's" 0 "$differ"
fi

cd / && tap_end
