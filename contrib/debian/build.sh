#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# build.sh - build the Debian binary package of patchattest.
#
#   contrib/debian/build.sh [--install-deps] [OUTDIR [TARBALL]]
#
# Makes a temporary directory, lays out the source in it as
# patchattest-VERSION/ (from TARBALL, a "make dist" tarball, when given;
# otherwise the files of this tree: those git tracks or would track when
# the tree is the top of a git work tree, everything when it is not),
# copies contrib/debian/ to debian/ at its top, runs "dpkg-buildpackage
# -us -uc -b" there and copies the .deb files it made to OUTDIR (default:
# the current directory).  The temporary directory is removed.
#
# Build dependencies: the packaging tools (dpkg-dev, debhelper) and the
# Build-Depends of contrib/debian/control.  They are checked first; when
# some are missing the script names them and the apt-get line that
# installs them, and stops.  --install-deps runs "apt-get build-dep" for
# them instead (through sudo when not root).
#
# The build runs "make check", several minutes with the tests that drive
# a real Postfix (as root, with Postfix installed).  DEB_BUILD_OPTIONS=
# nocheck skips it, and the nocheck build profile is then set too, so the
# programs only the tests need (git, gnupg, miltertest) are not asked for.
set -eu

me=build.sh
install_deps=
case ${1:-} in
--install-deps)	install_deps=yes; shift ;;
-*)	echo "usage: $0 [--install-deps] [OUTDIR [TARBALL]]" >&2; exit 2 ;;
esac

# as_root COMMAND...: as root, through sudo when we are not
as_root() {
	if [ "$(id -u)" -eq 0 ]; then
		"$@"
	else
		sudo "$@"
	fi
}

# Without the tests, without what only the tests need.
case " ${DEB_BUILD_OPTIONS:-} " in
*" nocheck "*)
	case " ${DEB_BUILD_PROFILES:-} " in
	*" nocheck "*)	;;
	*)	DEB_BUILD_PROFILES="${DEB_BUILD_PROFILES:+$DEB_BUILD_PROFILES }nocheck"
		export DEB_BUILD_PROFILES ;;
	esac ;;
esac

# dpkg-dev brings dpkg-buildpackage and dpkg-checkbuilddeps.
if ! command -v dpkg-checkbuilddeps >/dev/null 2>&1 ||
    ! command -v dpkg-buildpackage >/dev/null 2>&1; then
	if [ -z "$install_deps" ]; then
		echo "$me: dpkg-dev is not installed; install the packaging" \
		    "tools with" >&2
		echo "    apt-get install dpkg-dev debhelper" >&2
		echo "$me: or run $0 --install-deps" >&2
		exit 1
	fi
	as_root apt-get install -y dpkg-dev debhelper
fi

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

# missing_deps: the unmet build dependencies of debian/control, as
# dpkg-checkbuilddeps writes them (with versions), or nothing
missing_deps() {
	(cd "$src" && dpkg-checkbuilddeps 2>&1 >/dev/null) |
	    sed -n 's/.*Unmet build dependencies: //p'
}
missing=$(missing_deps)
if [ -n "$missing" ] && [ -n "$install_deps" ]; then
	as_root apt-get build-dep -y "$src"
	missing=$(missing_deps)
fi
if [ -n "$missing" ]; then
	# Package names for apt-get: no versions, architectures, profiles
	# or alternatives; debhelper-compat is provided by debhelper.
	pkgs=$(printf '%s\n' "$missing" |
	    sed -e 's/([^)]*)//g' -e 's/\[[^]]*\]//g' -e 's/<[^>]*>//g' |
	    awk '{ for (i = 1; i <= NF; i++) {
		if ($i == "|") { i++; continue }
		w = $i; sub(/:.*/, "", w)
		if (w == "debhelper-compat") w = "debhelper"
		printf "%s%s", sep, w; sep = " " } }')
	echo "$me: missing build dependencies: $missing" >&2
	echo "$me: install them with" >&2
	echo "    apt-get install $pkgs" >&2
	echo "$me: or run $0 --install-deps" >&2
	exit 1
fi

(cd "$src" && dpkg-buildpackage -us -uc -b)

set -- "$tmp"/*.deb
[ -f "$1" ] || { echo "build.sh: dpkg-buildpackage made no .deb" >&2; exit 1; }
cp "$@" "$out"/
for f; do
	echo "build.sh: $out/${f##*/}"
done
