# SPDX-License-Identifier: BSD-2-Clause
# tap.sh - TAP output for the shell tests; sourced.
#
# ok STATUS DESCRIPTION prints one test line (STATUS 0 passes);
# skip DESCRIPTION REASON one test that could not run;
# expect DESCRIPTION WANT GOT compares two values and shows both on a
# failure; diag FILE [LINES] shows the end of a file as comments;
# tap_end prints the plan and gives the suite's status.
# workdir_make NAME makes the work directory $T and has it released when
# the test ends; workdir_release stops the GnuPG agents of the homes
# "$T"/gnupg* and removes $T, or keeps it when PATCHATTEST_KEEP is set.

n=0
failed=0

ok() {
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
	fi
}

skip() {
	n=$((n + 1))
	echo "ok $n - $1 # SKIP $2"
}

expect() {
	if [ "$2" = "$3" ]; then
		ok 0 "$1"
	else
		ok 1 "$1"
		printf '#   want: %s\n#   got:  %s\n' "$2" "$3"
	fi
}

# setup STATUS WHAT LOG: a preparation step; a failure ends the test
setup() {
	if [ "$1" -ne 0 ]; then
		ok 1 "$2"
		diag "$3"
		echo "Bail out! $2 failed"
		exit 1
	fi
}

diag() {
	[ -s "$1" ] && tail -n "${2:-30}" "$1" | sed 's/^/#   /'
}

tap_end() {
	echo "1..$n"
	[ "$failed" -eq 0 ]
}

workdir_make() {
	T=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX") || exit 1
	trap 'workdir_release' 0
	trap 'exit 1' HUP INT TERM
}

# reachable PROGRAM: a copy of PROGRAM in "$T"/bin that every user may
# run (printed), for the checks run as other users: the build may sit
# below a folder only its owner can enter
reachable() {
	mkdir -p "$T/bin" && chmod 755 "$T" "$T/bin" && cp "$1" "$T/bin/" &&
	    echo "$T/bin/${1##*/}"
}

workdir_release() {
	for h in "$T"/gnupg*; do
		[ -d "$h" ] && gpgconf --homedir "$h" --kill all 2>/dev/null
	done
	if [ -n "$PATCHATTEST_KEEP" ]; then
		echo "# kept $T"
	else
		rm -rf "$T"
	fi
}
