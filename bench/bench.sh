#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# bench.sh ABS_BUILDDIR ABS_SRCDIR - run by "make bench".
#
# Runs bench/bench-hash over the real-mail corpus ($PATCHATTEST_CORPUS, or
# ABS_SRCDIR/../shared/corpus; its */messages directories), or over the
# seed fixtures when there is none.  Then, when python3, git and the
# reference oracle ($PATCHATTEST_REF, or
# ABS_SRCDIR/../shared/reference/patchattest-ref) are at hand, times the
# oracle and "patchattest hash" on the same messages (the first
# $BENCH_REF_MAX, default 300: the oracle runs git once per message) and
# prints the speed-up.  It only reports: the exit status is 0 unless a
# program it needs is missing.

if [ $# -ne 2 ]; then
	echo "usage: bench.sh ABS_BUILDDIR ABS_SRCDIR" >&2
	exit 2
fi
builddir=$1
srcdir=$2
bench=$builddir/bench/bench-hash
pa=$builddir/patchattest
refmax=${BENCH_REF_MAX:-300}

for p in "$bench" "$pa"; do
	if [ ! -x "$p" ]; then
		echo "bench.sh: $p is missing (make bench builds it)" >&2
		exit 1
	fi
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' 0
trap 'exit 1' HUP INT TERM

# The message directories, one a line.
corpus=${PATCHATTEST_CORPUS:-$srcdir/../shared/corpus}
: >"$tmp/dirs"
if [ -d "$corpus" ]; then
	for d in "$corpus"/*/messages; do
		[ -d "$d" ] && echo "$d" >>"$tmp/dirs"
	done
fi
if [ ! -s "$tmp/dirs" ]; then
	echo "bench: no corpus at $corpus (set PATCHATTEST_CORPUS);" \
	    "using the seed fixtures instead"
	echo "$srcdir/tests/fixtures/seeds" >"$tmp/dirs"
else
	echo "bench: corpus $corpus"
fi

# The files in the order bench-hash reads them, one a line.
while read -r d; do
	find "$d" -type f ! -name '.*' | LC_ALL=C sort
done <"$tmp/dirs" >"$tmp/files"

set --
while read -r d; do
	set -- "$@" "$d"
done <"$tmp/dirs"
"$bench" "$@" | tee "$tmp/ours" || exit 1

ref=${PATCHATTEST_REF:-$srcdir/../shared/reference/patchattest-ref}
py=$(command -v python3)
if [ -z "$py" ] || ! command -v git >/dev/null 2>&1 || [ ! -f "$ref" ]; then
	echo "bench: python3, git or the reference ($ref) missing;" \
	    "no comparison"
	exit 0
fi

head -n "$refmax" "$tmp/files" >"$tmp/sample"
nref=$(wc -l <"$tmp/sample" | tr -d ' ')
echo
echo "bench: the reference and patchattest hash on the first $nref" \
    "messages (at most $refmax: the reference runs git once per message)"

# elapsed CMD...: seconds CMD takes with the sample's files appended
elapsed()
{
	"$py" - "$tmp/sample" "$@" <<'EOT'
import subprocess, sys, time
files = [line.rstrip("\n") for line in open(sys.argv[1])]
start = time.monotonic()
subprocess.run(sys.argv[2:] + files, stdout=subprocess.DEVNULL,
               stderr=subprocess.DEVNULL)
print("%.6f" % (time.monotonic() - start))
EOT
}

tref=$(elapsed "$py" "$ref" -q) || exit 0
tcli=$(elapsed "$pa" hash --tsv) || exit 0
primary=$(awk '$1 == "primary" { print $2 }' "$tmp/ours")

awk -v n="$nref" -v tref="$tref" -v tcli="$tcli" -v ours="$primary" 'BEGIN {
	if (tref <= 0 || tcli <= 0) {
		print "bench: timer gave 0 s; no comparison"
		exit 0
	}
	printf "reference   %12.1f messages/s %10.4f s\n", n / tref, tref
	printf "hash --tsv  %12.1f messages/s %10.4f s (one process)\n", \
	    n / tcli, tcli
	printf "speed-up, patchattest hash over the reference: %.1f\n", \
	    tref / tcli
	if (ours > 0)
		printf "speed-up, library (primary) over the reference:" \
		    " %.1f\n", ours / (n / tref)
}'
exit 0
