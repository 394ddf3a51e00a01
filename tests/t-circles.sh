#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# t-circles.sh - calls between files run one way: no file calls, however
# indirectly, a file that calls it back.  Read off the built objects (a
# file uses a symbol another defines), so it holds for what is compiled,
# not for what a grep would guess.  One TAP line per program; each file in
# a circle is shown as a "#" diagnostic with the files it uses in it.

. "${srcdir:-.}/tests/tap.sh"

# circles OBJECT...: "FILE: FILE..." for every file in a circle, else nothing
circles() {
	nm -A "$@" 2>/dev/null | awk '
	{
		file = $1
		sub(/:[0-9a-f]*$/, "", file)	# "x.o:ADDR" or "x.o:"
		sub(/^.*:/, "", file)		# archive members
		sub(/^.*\//, "", file)
		sub(/^[a-z0-9]+_[a-z0-9_]+-/, "", file)	# automake per-program prefix
		sub(/\.o$/, ".c", file)
		if ($2 == "U")
			use[file] = use[file] " " $3
		else if ($2 ~ /^[TDBRCV]$/)
			def[$3] = file
		files[file] = 1
	}
	END {
		for (f in files) {
			n = split(use[f], syms, " ")
			for (i = 1; i <= n; i++) {
				g = def[syms[i]]
				if (g != "" && g != f && index(adj[f], " " g " ") == 0)
					adj[f] = adj[f] " " g " "
			}
		}
		for (start in files) {
			delete seen
			head = tail = 0
			queue[tail++] = start
			while (head < tail) {
				n = split(adj[queue[head++]], next_, " ")
				for (i = 1; i <= n; i++)
					if (!(next_[i] in seen)) {
						seen[next_[i]] = 1
						queue[tail++] = next_[i]
					}
			}
			if (start in seen)
				incircle[start] = 1
		}
		for (f in incircle) {
			line = f ":"
			n = split(adj[f], next_, " ")
			for (i = 1; i <= n; i++)
				if (next_[i] in incircle)
					line = line " " next_[i]
			print line
		}
	}' | sort
}

# check NAME OBJECT...
check() {
	name=$1
	shift
	for o in "$@"; do
		[ -f "$o" ] || { skip "no call circle in $name" "$o not built"; return; }
	done
	found=$(circles "$@")
	[ -z "$found" ]
	ok $? "no call circle in $name"
	[ -z "$found" ] || echo "$found" | sed 's/^/#   /'
}

check "the library" lib/libpatchattest.a
check "the milter and the library" milter/*.o lib/libpatchattest.a
check "the command and the library" cli/*.o lib/libpatchattest.a

tap_end
