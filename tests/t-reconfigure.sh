#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# t-reconfigure.sh - a tree configured a second time, with another
# --sysconfdir, builds programs and manual pages that name the new one:
# "Installing for real" after the quick start configures the same tree
# again, and nothing may keep the first configuration's paths.
#
# The sources are copied (configure refuses a build beside an in-tree
# one), configured with a first sysconfdir, built, installed, configured
# with a second, built and installed again without a clean.
# Environment: srcdir (make check sets it).  PATCHATTEST_KEEP=1 keeps the
# work directory.

: "${srcdir:=.}"
src=$(cd "$srcdir" && pwd) || exit 1

. "$srcdir/tests/tap.sh"
T=$(mktemp -d "${TMPDIR:-/tmp}/t-reconfigure.XXXXXX") || exit 1
trap workdir_release 0
trap 'exit 1' HUP INT TERM

for prog in cc make pkg-config; do
	if ! command -v "$prog" >/dev/null 2>&1; then
		echo "1..0 # SKIP $prog is not installed"
		exit 0
	fi
done

mkdir "$T/src"
# with their times, so that make sees no reason to run automake again
# (m4/ is not in a release tarball), writable (a tarball's tree, under
# make distcheck, is not)
for f in configure configure.ac Makefile.am Makefile.in aclocal.m4 m4 \
    config.h.in build-aux lib cli milter man conf; do
	[ -e "$src/$f" ] || continue
	cp -pR "$src/$f" "$T/src/" || { ok 1 "copy $f"; tap_end; exit 1; }
done
chmod -R u+w "$T/src"
find "$T/src" \( -name '*.o' -o -name '*.a' -o -name '.deps' -o \
    -name '.dirstamp' \) -prune -exec rm -rf {} + 2>/dev/null
rm -f "$T/src/man/mkman" "$T/src/man/"*.[158]

# build N SYSCONFDIR: configure with SYSCONFDIR, build and install the
# programs and the manual pages into $T/inst
build() {
	(cd "$T/src" && ./configure -q --prefix="$T/inst" \
	    --sysconfdir="$2" >"$T/configure-$1.log" 2>&1 &&
	    make -j"$(nproc 2>/dev/null || echo 2)" -s patchattest \
	    patchattest-milter >"$T/make-$1.log" 2>&1 &&
	    make -s install-binPROGRAMS install-sbinPROGRAMS install-man \
	    >>"$T/make-$1.log" 2>&1)
	st=$?
	ok $st "configure with --sysconfdir=$2, build and install"
	[ $st -eq 0 ] || { diag "$T/configure-$1.log"; diag "$T/make-$1.log"; }
}

# names CONF: the installed programs and manual pages name CONF
names() {
	"$T/inst/bin/patchattest" check --help 2>&1 | grep -qF "$1"
	ok $? "patchattest check --help names $1"
	"$T/inst/sbin/patchattest-milter" -n >"$T/milter.out" 2>&1
	grep -qF "$1" "$T/milter.out"
	ok $? "patchattest-milter without -c reads $1"
	[ $? -eq 0 ] || diag "$T/milter.out"
	for page in man1/patchattest.1 man5/patchattest.conf.5 \
	    man8/patchattest-milter.8; do
		grep -qF "$1" "$T/inst/share/man/$page"
		ok $? "$(basename "$page") names $1"
	done
}

build first "$T/etc-first"
names "$T/etc-first/patchattest/patchattest.conf"
build second "$T/etc-second"
names "$T/etc-second/patchattest/patchattest.conf"
! grep -rqF "$T/etc-first" "$T/inst"
ok $? "nothing installed names the first sysconfdir"

tap_end
