#!/bin/sh
# build.sh - build the Debian binary package of patchattest.
#
#   contrib/debian/build.sh [OUTDIR [TARBALL]]
#
# Makes a temporary directory, lays out the source in it as
# patchattest-VERSION/ (from TARBALL, a "make dist" tarball, when given;
# otherwise the files of this tree: those git tracks or would track when
# the tree is the top of a git work tree, everything when it is not),
# copies contrib/debian/ to debian/ at its top, runs "dpkg-buildpackage
# -us -uc -b" there and copies the .deb files it made to OUTDIR (default:
# the current directory).  The temporary directory is removed.
#
# The build dependencies must be installed (Build-Depends in
# contrib/debian/control; the packaging tools: debhelper).
# DEB_BUILD_OPTIONS=nocheck skips make check.
set -eu

out=${1:-.}
tarball=${2:-}
top=$(cd "$(dirname "$0")/../.." && pwd)

mkdir -p "$out"
out=$(cd "$out" && pwd)
case $tarball in
""|/*)	;;
*)	tarball=$PWD/$tarball ;;
esac

tmp=$(mktemp -d "${TMPDIR:-/tmp}/patchattest-deb.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

version=$(dpkg-parsechangelog -l "$top/contrib/debian/changelog" \
    -S Version)
upstream=${version%-*}
src=$tmp/patchattest-$upstream

if [ -n "$tarball" ]; then
	mkdir "$src"
	tar -C "$src" --strip-components=1 -xf "$tarball"
elif [ "$(git -C "$top" rev-parse --show-toplevel 2>/dev/null)" = "$top" ]
then
	mkdir "$src"
	# Tracked and untracked files, not the ignored ones (build output);
	# files deleted from the work tree are passed over.
	git -C "$top" ls-files -z --cached --others --exclude-standard |
	    tar -C "$top" --null --no-recursion --ignore-failed-read -T - \
	    -cf - | tar -C "$src" -xf -
else
	cp -a "$top" "$src"
fi

rm -rf "$src/debian"
cp -a "$src/contrib/debian" "$src/debian"

(cd "$src" && dpkg-buildpackage -us -uc -b)

set -- "$tmp"/*.deb
[ -f "$1" ] || { echo "build.sh: dpkg-buildpackage made no .deb" >&2; exit 1; }
cp "$@" "$out"/
for f; do
	echo "build.sh: $out/${f##*/}"
done
