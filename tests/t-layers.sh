#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# t-layers.sh - the library's layers are kept: a file in lib/LAYER/
# includes the headers of its own folder, lib/patchattest.h and the one
# public header (LAYER.h) of a layer below its own, nothing else of the
# project; the programs (cli/, milter/), the benchmarks and man/mkman
# include only lib/patchattest.h, the layers' public headers and their
# own.  One TAP line per folder; offending lines as "#" diagnostics.
# Above lib/state, no file names LMDB: the stores' interfaces hide it,
# so that a store may be another one.  lib/state reads no mail: its
# built objects call nothing that lib/mail's define (the facts of a mail
# are computed once, above it, and handed down as values).

: "${srcdir:=.}"
src=$(cd "$srcdir" && pwd) || exit 1

. "$srcdir/tests/tap.sh"

layers="base mail sig attest state verdict"	# bottom to top

# project_includes FILE: the quoted includes of FILE, one a line
project_includes() {
	sed -n 's/^#include "\([^"]*\)".*/\1/p' "$1"
}

# allowed FOLDER BELOW: check every file of FOLDER; BELOW lists the public
# headers it may include besides its own folder's
check_folder() {
	folder=$1 below=$2 bad=
	for f in "$src/$folder"/*.[ch]; do
		[ -f "$f" ] || continue
		for h in $(project_includes "$f"); do
			case " config.h pa-paths.h patchattest.h $below " in
			*" $h "*) continue ;;
			esac
			[ -f "$src/$folder/$h" ] && continue
			bad="$bad
${f#"$src"/}: $h"
		done
	done
	[ -z "$bad" ]
	ok $? "$folder/ includes only what its layer may"
	[ -z "$bad" ] || echo "$bad" | sed '/^$/d; s/^/#   /'
}

below=
for layer in $layers; do
	[ -d "$src/lib/$layer" ] || { ok 1 "lib/$layer/ exists"; continue; }
	check_folder "lib/$layer" "$below"
	below="$below $layer.h"		# open to the layers above
done
for folder in lib cli milter bench man; do
	check_folder "$folder" "$below"
done

bad=$(cd "$src" && grep -ln 'lmdb\.h\|MDB_\|mdb_' lib/verdict/*.[ch] \
    lib/*.[ch] cli/*.[ch] milter/*.[ch] 2>/dev/null)
[ -z "$bad" ]
ok $? "above lib/state, no file names LMDB"
[ -z "$bad" ] || echo "$bad" | sed 's/^/#   /'

if ls lib/state/*.o lib/mail/*.o >/dev/null 2>&1; then
	bad=$({
		nm -g --defined-only lib/mail/*.o | awk 'NF == 3 { print "D", $3 }'
		for o in lib/state/*.o; do
			nm -u "$o" | awk -v o="$o" '{ print "U", $2, o }'
		done
	} | awk '$1 == "D" { d[$2] = 1; next } $2 in d { print $3 ": " $2 }')
	[ -z "$bad" ]
	ok $? "lib/state reads no mail (calls nothing of lib/mail)"
	[ -z "$bad" ] || echo "$bad" | sed 's/^/#   /'
else
	skip "lib/state reads no mail" "the library is not built"
fi

tap_end
