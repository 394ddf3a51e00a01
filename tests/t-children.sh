#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# t-children.sh - tests/children.sh tells a child that has ended from
# another process given its ID since.  The shell reaps a background child
# that ends while it waits for another command, and the kernel may give
# the ID to any new process: the ID alone then names a stranger.  Run in
# a PID namespace of its own, where the next ID can be chosen
# (ns_last_pid), so that the reuse happens every time.
: "${srcdir:=.}"

if [ "${1:-}" != inside ]; then
	if [ "$(id -u)" -ne 0 ] || ! command -v unshare >/dev/null 2>&1 ||
	    ! unshare --pid --fork --mount-proc true 2>/dev/null; then
		echo "1..0 # SKIP needs root and unshare --pid"
		exit 0
	fi
	# the test as process 2: process 1 adopts and reaps the stranger
	exec unshare --pid --fork --mount-proc sh -c 'sh "$0" inside; exit $?' \
	    "$0"
fi

. "$srcdir/tests/tap.sh"
. "$srcdir/tests/children.sh"

# a child that ends at once, reaped by the shell during the sleep, after
# one whose ID is free again for sh -c below
(exit 0) &
(exit 3) &
gone=$!
child_note "$gone"
sleep 0.3
# a stranger with the ID it had, not a child of this shell (sh -c takes
# the ID before it)
T=$(mktemp -d "${TMPDIR:-/tmp}/t-children.XXXXXX") || exit 1
echo $((gone - 2)) >/proc/sys/kernel/ns_last_pid
sh -c 'sleep 60 >/dev/null 2>&1 & echo $! >"$0"' "$T/stranger"
read -r stranger <"$T/stranger"
rm -rf "$T"
expect "the stranger has the ID of the child that ended" "$gone" "$stranger"

# alive PID: 0 when process PID exists and has not ended
alive() {
	read -r _s 2>/dev/null <"/proc/$1/stat" || return 1
	_s=${_s##*) }
	[ "${_s%% *}" != Z ]
}

child_running "$gone"
ok $((!$?)) "the child that ended is not running"
child_kill 9 "$gone"
sleep 0.2
alive "$stranger"
ok $? "signalling the child that ended leaves the stranger alone"
wait "$gone"
expect "the shell still has the status of the child that ended" 3 $?

sleep 60 &
child=$!
child_note "$child"
child_running "$child"
ok $? "a child still running is running"
child_kill TERM "$child"
wait "$child"
expect "a child still running is signalled" 143 $?
child_running "$child"
ok $((!$?)) "a child signalled and waited for is not running"
kill "$stranger"

tap_end
