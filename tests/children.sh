# SPDX-License-Identifier: BSD-2-Clause
# children.sh - background processes of a shell test; sourced.
#
# The shell reaps a background child that ends while it waits for
# another command, keeping its status for "wait"; from then on the kernel
# may give its ID to any new process (IDs wrap within minutes on a busy
# machine with the default pid_max of 32768).  kill -0 on the ID, or a
# signal sent to it, may then reach a stranger.  So a child is known by
# its ID and the time it began (/proc/ID/stat, field 22).
#
# child_note PID remembers the child just started as PID;
# child_running PID is 0 while that child runs (not after it ended, even
# when its ID names another process); child_kill SIG PID sends SIG to it
# only while it runs.

# child_stat PID: the state and start time of process PID into _state and
# _began; 1 when there is no such process
child_stat() {
	_stat=
	read -r _stat 2>/dev/null <"/proc/$1/stat" || return 1
	# the name in parentheses may hold spaces: fields from the state on
	set -- ${_stat##*) }
	_state=$1
	shift 19
	_began=$1
}

child_note() {
	child_stat "$1" && eval "child_began_$1=\$_began"
}

child_running() {
	child_stat "$1" && [ "$_state" != Z ] &&
	    eval "[ \"\$_began\" = \"\${child_began_$1:-}\" ]"
}

child_kill() {
	child_running "$2" && kill "-$1" "$2" 2>/dev/null
}
