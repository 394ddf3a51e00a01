#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# t-banned - no banned C library function is called in lib/, cli/ or
# milter/ (curl's checksrc idea).  One TAP line per function; offending
# lines are printed as "#" diagnostics.  Comments are not searched.
# And every C source says its license in an SPDX line.
#
# Banned everywhere: unbounded copies and formats, unchecked number
# parsing, tokenisers with hidden state, shells.  Banned in lib/ only:
# exit() and abort(), because the library never ends the process.

: "${srcdir:=.}"

banned="sprintf vsprintf strcpy strcat strncpy strncat gets atoi atol atoll
sscanf strtok system popen"
banned_lib="exit abort"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-banned.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' 0
trap 'exit 1' HUP INT TERM

# code DIR...: "file:line:text" of every *.c and *.h, C comments blanked
code()
{
	for d in "$@"; do
		[ -d "$srcdir/$d" ] && find "$srcdir/$d" -name '*.[ch]'
	done | sort | while read -r f; do
		awk '
		FNR == 1 { incomment = 0 }
		{
			line = $0
			out = ""
			while (length(line) > 0) {
				if (incomment) {
					i = index(line, "*/")
					if (i == 0)
						break
					line = substr(line, i + 2)
					incomment = 0
					continue
				}
				i = index(line, "/*")
				j = index(line, "//")
				if (j > 0 && (i == 0 || j < i)) {
					out = out substr(line, 1, j - 1)
					break
				}
				if (i == 0) {
					out = out line
					break
				}
				out = out substr(line, 1, i - 1) " "
				line = substr(line, i + 2)
				incomment = 1
			}
			print FILENAME ":" FNR ":" out
		}' "$f"
	done
}

code lib cli milter >"$tmp/all"
code lib >"$tmp/lib"

n=0
failed=0

# check NAME FILE: no call of NAME in the code listing FILE
check()
{
	n=$((n + 1))
	if grep -E "^[^:]*:[0-9]+:(.*[^A-Za-z0-9_])?$1[[:space:]]*\(" "$2" \
	    >"$tmp/hits"; then
		echo "not ok $n - $1() is not used ($3)"
		sed 's/^/# /' "$tmp/hits"
		failed=1
	else
		echo "ok $n - $1() is not used ($3)"
	fi
}

for f in $banned; do
	check "$f" "$tmp/all" "lib cli milter"
done
for f in $banned_lib; do
	check "$f" "$tmp/lib" "lib"
done

# every C file of the programs, the tests and the benchmarks: BSD-2-Clause
n=$((n + 1))
for d in lib cli milter tests bench man; do
	[ -d "$srcdir/$d" ] && find "$srcdir/$d" -name '*.[ch]'
done | sort | while read -r f; do
	grep -q '^/\* SPDX-License-Identifier: BSD-2-Clause \*/$' "$f" ||
	    echo "$f"
done >"$tmp/unlicensed"
if [ -s "$tmp/unlicensed" ]; then
	echo "not ok $n - every C source has its SPDX license line"
	sed 's/^/# /' "$tmp/unlicensed"
	failed=1
else
	echo "ok $n - every C source has its SPDX license line"
fi

echo "1..$n"
exit $failed
