#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# run.sh - the fuzz targets under libFuzzer, AddressSanitizer and
# UndefinedBehaviorSanitizer, each for SECONDS (default 300), and the
# torture run of the milter's allocations.
#
# usage: tests/fuzz/run.sh [SECONDS [TARGET...]]
#
# TARGET is msghash, mailpush, attdoc, patatt, openpgp, keyfile, config,
# pins, ledger, journal, patchid, trailers, arrival, authres, attrec,
# callbacks or torture (default: all).  msghash and mailpush feed mail to the hashing, patchid
# patch text to the patch-id, trailers commit messages to the trailer
# reader, arrival mail to what an arrival record keeps of it, attdoc
# documents to their parser, patatt signed mail to the verifier, openpgp OpenPGP signed
# messages (patatt's b=) to the packet reader and librnp, keyfile patatt
# keyring files (ed25519, OpenPGP, OpenSSH) to their parsers, config
# configuration files to the parser, pins records to the first-use pins,
# ledger the stored values of arrival records and signing habits to their
# decoders, journal files of any bytes, and a journal with changes made
# to it, to StateDatabase's journal, authres Authentication-Results values to their reader,
# attrec the index's document records to their reader and writer,
# callbacks sequences of libmilter callbacks to the milter
# (fakemilter.c stands in for libmilter); torture makes every allocation
# of the seed series' way through the milter fail in turn (no sanitizer:
# it replaces malloc).
# The library is built with clang in a directory of its own (FUZZ_BUILD,
# default a new temporary one; an existing one is brought up to date),
# from a copy of the sources when they are configured in place.
# Seeds: the test fixtures, and the corpus when there is one
# ($PATCHATTEST_CORPUS, else ../shared/corpus beside the source), whose
# patatt keyring then lets patatt signatures verify.  What a target finds
# is left in the build directory (crash-*, leak-*, timeout-*) and the exit
# status is 1.  Needs clang, python3 and the build dependencies.

set -u

src=$(cd "$(dirname "$0")/../.." && pwd)
seconds=${1:-300}
[ $# -gt 0 ] && shift
targets=${*:-msghash mailpush attdoc patatt openpgp keyfile config pins ledger \
    journal patchid trailers arrival authres attrec callbacks torture}
corpus=${PATCHATTEST_CORPUS:-$src/../shared/corpus}
build=${FUZZ_BUILD:-$(mktemp -d "${TMPDIR:-/tmp}/patchattest-fuzz.XXXXXX")}
flags="-g -O1 -fsanitize=address,undefined -fno-sanitize-recover=undefined"

command -v clang >/dev/null || { echo "run.sh: clang is needed" >&2; exit 2; }
cd "$build" || exit 2
# configure builds nowhere else from a tree configured in place: the
# library is then built from a copy of the distributed files, made again
# each time (their times kept, so that only what changed is rebuilt)
tree=$src
if [ -f "$src/config.status" ]; then
	tree=$build/src
	make -C "$src" distdir distdir="$tree" >distdir.log 2>&1 ||
	    { echo "run.sh: cannot copy the sources, see $build/distdir.log" \
	    >&2; exit 2; }
fi
if [ ! -f Makefile ]; then
	[ -f "$tree/configure" ] || (cd "$tree" && autoreconf -fi) || exit 2
	"$tree/configure" -q CC=clang \
	    CFLAGS="$flags -fsanitize=fuzzer-no-link" >configure.log 2>&1 ||
	    { echo "run.sh: configure failed, see $build/configure.log" >&2;
	    exit 2; }
fi
make -j"$(nproc)" lib/libpatchattest.a >make.log 2>&1 ||
    { echo "run.sh: build failed, see $build/make.log" >&2; exit 2; }
libs="lib/libpatchattest.a $(pkg-config --libs libcrypto gpgme yaml-0.1 lmdb \
    libgit2 libsodium librnp zlib libpsl libpq) -lbz2 -lpthread"
milter="$src/milter/callbacks.c $src/milter/conclude.c $src/milter/places.c \
    $src/milter/state.c $src/milter/reload.c $src/milter/storenotes.c \
    $src/milter/copylog.c $src/milter/metrics.c $src/milter/worker.c \
    $src/milter/log.c $src/tests/fuzz/fakemilter.c"
includes="-I. -I$src/lib -I$src/lib/base -I$src/lib/mail -I$src/lib/sig \
    -I$src/lib/attest -I$src/lib/state -I$src/lib/verdict -I$src/milter \
    -I$src/tests/fuzz $(pkg-config --cflags libpq)"

# seeds TARGET DIR: starting inputs for one target
seeds()
{
	mkdir -p "$2" || exit 2
	dest=$(cd "$2" && pwd)
	case $1 in
	msghash|mailpush|arrival|patchid)
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
	openpgp)
		# what gpg --sign makes with each compression, by a key made
		# here (FUZZ_PGPKEY), and the bombs of the same
		printf 'a digest of 32 bytes, say......\n' >text
		head -c 4194304 /dev/zero >zeros
		for z in none zip zlib bzip2; do
			gpg --homedir gnupg --batch --yes --compress-algo $z \
			    -o "$dest/$z" -s text
			gpg --homedir gnupg --batch --yes --compress-algo $z \
			    -o "$dest/bomb-$z" -s zeros
		done 2>/dev/null
		;;
	keyfile)
		# a key of each kind made here, behind its kind's byte
		g=$build/gnupg-keyfile
		mkdir -p "$g" && chmod 700 "$g"
		gpg --homedir "$g" --batch --quiet --passphrase '' \
		    --quick-gen-key 'Fuzz <fuzz@example.org>' ed25519 sign \
		    never 2>/dev/null
		gpg --homedir "$g" --batch --quiet --passphrase '' \
		    --quick-add-key "$(gpg --homedir "$g" --with-colons -k \
		    fuzz@example.org | awk -F: '/^fpr/ { print $10; exit }')" \
		    rsa2048 sign never 2>/dev/null
		{ printf '\001'; gpg --homedir "$g" --export --armor; } \
		    >"$dest/openpgp.asc"
		{ printf '\001'; gpg --homedir "$g" --export; } \
		    >"$dest/openpgp.gpg"
		gpgconf --homedir "$g" --kill all
		{ printf '\000'; head -c 32 /dev/urandom | base64; } \
		    >"$dest/ed25519"
		rm -f "$build/ssh-key" "$build/ssh-key.pub"
		ssh-keygen -q -t ed25519 -N '' -f "$build/ssh-key" 2>/dev/null &&
		    { printf '\002'; cat "$build/ssh-key.pub"; } \
		    >"$dest/openssh"
		;;
	trailers)
		# the seeds' commit messages, as git mailinfo gives them
		for f in "$src"/tests/fixtures/seeds/*.patch; do
			git mailinfo -u "$dest/$(basename "$f")" /dev/null \
			    <"$f" >/dev/null
		done
		;;
	config)
		cp "$src"/conf/patchattest.conf "$dest"
		printf 'PatattKeyring "/a b"\nPatattKeyring /c # x\nOnFail reject\n' \
		    >"$dest/two-keyrings"
		;;
	callbacks)
		# each seed as libmilter hands it over: connect, envfrom, the
		# header fields, end of header, the body, end of message
		for f in "$src"/tests/fixtures/seeds/*.patch; do
			python3 - "$f" "$dest/$(basename "$f")" <<'EOF'
import struct, sys
raw = open(sys.argv[1], "rb").read()
head, _, body = raw.partition(b"\n\n")
def s(b):
    return struct.pack(">H", len(b)) + b
out = bytes([0, 2])
for line in head.split(b"\n"):
    name, _, value = line.partition(b":")
    out += bytes([5]) + s(name) + s(value)
out += bytes([6, 7]) + s(body[:65535]) + bytes([8, 10])
open(sys.argv[2], "wb").write(out)
EOF
		done
		;;
	authres)
		# as OpenDKIM and rspamd write them, with comments and quotes
		printf '%s' 'dkim.test.example; dkim=pass (2048-bit key;
	unprotected) header.d=example.org header.i=@example.org
	header.a=rsa-sha256 header.s=t1 header.b=AbCd+/12' >"$dest/opendkim"
		printf '%s' '"mx.example.net" 1; dkim/1=pass header.d="kernel.org";
	dmarc=pass (policy=none) header.from=kernel.org; spf=pass
	smtp.mailfrom=dev@kernel.org; none' >"$dest/rspamd"
		;;
	pins)
		# a pin as the store keeps it, and one too short to be one
		printf 'dev@example.org\t\0\0\0\0\0\0\0\1KEY\nx@y\tabc\n' \
		    >"$dest/two"
		;;
	ledger)
		# a record (0) and a habit (1) of version 1: the version, then
		# fields of tag, length (2 bytes) and value; a record of
		# version 2 (1-byte lengths), and one with its text deflated
		# (tag 254); the version 1 fixtures of t-ledger
		printf '\000\001\001\000\003a@b\003\000\004\000\000\000\001\012\000\001\001' \
		    >"$dest/arrival"
		printf '\001\001\001\000\001K\002\000\004\000\000\000\001\003\000\004\000\000\000\001\007\000\004\000\000\000\001' \
		    >"$dest/habit"
		printf '\000\002\001\003a@b\003\001\001\012\001\001\040\040%s' \
		    0123456789abcdef0123456789abcdef >"$dest/arrival-v2"
		python3 -c 'import sys, zlib
z = zlib.compressobj(9, zlib.DEFLATED, -12)
p = z.compress(b"\x01\x03a@b\x06\x0dDev <a@b.org>\x10\x19"
    b"Signed-off-by: Dev <a@b>\n") + z.flush()
sys.stdout.buffer.write(b"\x00\x02\x03\x01\x01\xfe" + bytes([len(p)]) + p)' \
		    >"$dest/arrival-packed"
		f=$src/tests/fixtures/ledger
		{ printf '\000'; cat "$f/arrival-v1.val"; } >"$dest/arrival-v1"
		{ printf '\001'; cat "$f/habit-v1.val"; } >"$dest/habit-v1"
		;;
	journal)
		# the whole journal as made (1), one cut in its middle, and
		# a file of bytes that is no journal (0)
		printf '\001' >"$dest/whole"
		printf '\001\001\010\000\000' >"$dest/cut"
		printf '\000not a journal\n' >"$dest/other"
		;;
	attrec)
		# a record as the index keeps it: version 4, its docid, status,
		# time, a fingerprint and a commit as bytes, two triples, and
		# the checksum over what comes before it
		python3 -c 'import hashlib, sys
def f(tag, v): return bytes([tag, len(v)]) + v
r = bytes([4]) + f(9, bytes(range(32))) + f(1, b"\x01") + \
    f(2, (1600000000).to_bytes(4, "big")) + f(10, bytes(range(20))) + \
    f(4, b"Dev <dev@example.org>") + f(5, b"git/0.git:") + \
    f(11, bytes(range(20, 40))) + f(6, b"<1@example.org>") + \
    bytes([7, 0xc0, 0x01]) + bytes(range(192))
sys.stdout.buffer.write(r + f(8, hashlib.sha256(r).digest()[:8]))' \
		    >"$dest/record"
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
gpg --homedir gnupg --batch --list-keys fuzz@example.org >/dev/null 2>&1 ||
    gpg --homedir gnupg --batch --passphrase '' --quick-gen-key \
    'Fuzz <fuzz@example.org>' ed25519 sign never >/dev/null 2>&1
gpg --homedir gnupg --batch --export fuzz@example.org >pgpkey 2>/dev/null &&
    FUZZ_PGPKEY=$build/pgpkey && export FUZZ_PGPKEY
[ -d "$corpus/linux-leds/patatt-keys" ] &&
    FUZZ_KEYRING=$corpus/linux-leds/patatt-keys && export FUZZ_KEYRING
status=0
for t in $targets; do
	if [ "$t" = torture ]; then
		# the library's sources again, without the sanitizers, whose
		# allocator would stand where torture's must
		clang -g -O1 -D_GNU_SOURCE $includes $(pkg-config --cflags milter) \
		    "$src/tests/fuzz/torture.c" $milter "$src"/lib/*.c \
		    "$src"/lib/*/*.c \
		    $(echo "$libs" | sed 's|lib/libpatchattest.a||') -o torture ||
		    { echo "run.sh: cannot build torture" >&2; exit 2; }
		echo "torture: the seed series"
		./torture "$src"/tests/fixtures/seeds/00[2-7]-*.patch \
		    >torture.log 2>&1 || status=1
		grep '^torture' torture.log | tail -n 8
		continue
	fi
	extra=
	[ "$t" = callbacks ] && extra=$milter
	clang $flags -fsanitize=fuzzer $includes \
	    "$src/tests/fuzz/fuzz-$t.c" $extra $libs -o "fuzz-$t" ||
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
