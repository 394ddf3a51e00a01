#!/bin/sh
# run.sh - the fuzz targets under libFuzzer, AddressSanitizer and
# UndefinedBehaviorSanitizer, each for SECONDS (default 300).
#
# usage: tests/fuzz/run.sh [SECONDS [TARGET...]]
#
# TARGET is msghash, mailpush, attdoc or patatt (default: all).  The library is
# built with clang in a directory of its own (FUZZ_BUILD, default a new
# temporary one; an existing one is brought up to date).  Seeds: the test fixtures, and the corpus when there is
# one ($PATCHATTEST_CORPUS, else ../shared/corpus beside the source),
# whose patatt keyring then lets patatt signatures verify.  What a target
# finds is left in the build directory (crash-*, leak-*, timeout-*) and
# the exit status is 1.  Needs clang and the build dependencies.

set -u

src=$(cd "$(dirname "$0")/../.." && pwd)
seconds=${1:-300}
[ $# -gt 0 ] && shift
targets=${*:-msghash mailpush attdoc patatt}
corpus=${PATCHATTEST_CORPUS:-$src/../shared/corpus}
build=${FUZZ_BUILD:-$(mktemp -d "${TMPDIR:-/tmp}/patchattest-fuzz.XXXXXX")}
flags="-g -O1 -fsanitize=address,undefined -fno-sanitize-recover=undefined"

command -v clang >/dev/null || { echo "run.sh: clang is needed" >&2; exit 2; }
cd "$build" || exit 2
if [ ! -f Makefile ]; then
	[ -f "$src/configure" ] || (cd "$src" && autoreconf -fi) || exit 2
	"$src/configure" -q CC=clang \
	    CFLAGS="$flags -fsanitize=fuzzer-no-link" >configure.log 2>&1 ||
	    { echo "run.sh: configure failed, see $build/configure.log" >&2;
	    exit 2; }
fi
make -j"$(nproc)" lib/libpatchattest.a >make.log 2>&1 ||
    { echo "run.sh: build failed, see $build/make.log" >&2; exit 2; }

# seeds TARGET DIR: starting inputs for one target
seeds()
{
	mkdir -p "$2" || exit 2
	dest=$(cd "$2" && pwd)
	case $1 in
	msghash|mailpush)
		cp "$src"/tests/fixtures/mail/*.eml \
		    "$src"/tests/fixtures/seeds/*.patch "$dest"
		[ -d "$corpus/linux-leds/messages" ] &&
		    find "$corpus/linux-leds/messages" -type f | head -500 |
		    xargs -r cp -t "$dest"
		;;
	patatt)
		cp "$src"/tests/fixtures/seeds/*.patch "$dest"
		[ -f "$corpus/linux-leds/patatt-expected.tsv" ] &&
		    awk -F '\t' 'NR > 1 { print $1 }' \
		    "$corpus/linux-leds/patatt-expected.tsv" |
		    (cd "$corpus/linux-leds" && xargs -r cp -t "$dest")
		;;
	attdoc)
		# the attestation block of the seed series' patch 002
		printf '%s\n' '2a02abe0-215cf3f1-2acb5798:' \
		    '  i: 2a02abe02216f626105622aee2f26ab10c155b6442e23441d90fc5fe4071b86e' \
		    '  m: 215cf3f133478917ad147a6eda1010a9c4bba1846e7dd35295e9a0081559e9b0' \
		    '  p: 2acb5798c366f97501f8feacb873327bac161951ce83e90f04bbcde32e993865' \
		    >"$dest/seed-002"
		;;
	esac
}

mkdir -p gnupg && chmod 700 gnupg
[ -d "$corpus/linux-leds/patatt-keys" ] &&
    FUZZ_KEYRING=$corpus/linux-leds/patatt-keys && export FUZZ_KEYRING
status=0
for t in $targets; do
	clang $flags -fsanitize=fuzzer -I. -I"$src/lib" \
	    "$src/tests/fuzz/fuzz-$t.c" lib/libpatchattest.a \
	    -lcrypto -lgpgme -lyaml -lpthread -o "fuzz-$t" ||
	    { echo "run.sh: cannot build fuzz-$t" >&2; exit 2; }
	seeds "$t" "inputs-$t"
	echo "fuzz-$t: $seconds s"
	FUZZ_GNUPGHOME=$build/gnupg ./"fuzz-$t" -max_len=65536 -timeout=20 \
	    -rss_limit_mb=2048 -max_total_time="$seconds" "inputs-$t" \
	    >"fuzz-$t.log" 2>&1 || status=1
	tail -n 1 "fuzz-$t.log"
	grep -E '^(==[0-9]+==ERROR|SUMMARY)' "fuzz-$t.log"
done
echo "run.sh: logs and findings in $build"
exit $status
