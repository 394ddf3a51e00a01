#!/bin/sh
# quickstart.sh - set up a fresh Debian 12 machine, build, then run.
#
#   contrib/quickstart.sh demo   hash the bundled seed patch series
#   contrib/quickstart.sh test   run the test suite (make check)
#
# Installs the build dependencies with apt-get when they are missing (as
# root, or through sudo), then configures and builds in the source tree.
set -eu

cd "$(dirname "$0")/.."

packages="build-essential autoconf automake pkg-config libssl-dev libgpgme-dev libyaml-dev liblmdb-dev libgit2-dev gnupg git python3"

need_install=
for p in $packages; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
	    need_install=yes
done
if [ -n "$need_install" ]; then
	sudo=
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	$sudo apt-get update -q
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q $packages
fi

[ -x configure ] || autoreconf -fi
[ -f Makefile ] || ./configure
make -j"$(nproc)"

case "${1:-demo}" in
demo)
	./patchattest hash tests/fixtures/seeds/*.patch
	;;
test)
	make -j"$(nproc)" check
	;;
*)
	echo "usage: $0 demo|test" >&2
	exit 2
	;;
esac
