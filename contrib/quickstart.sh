#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# quickstart.sh - set up a fresh Debian 12 machine, build, then run.
#
#   contrib/quickstart.sh demo   the milter on inet:8891@127.0.0.1 with a
#                                demo key, archive and index (in demo/)
#   contrib/quickstart.sh test   run the test suite (make check)
#
# Installs the build dependencies that are missing with apt-get (as root,
# or through sudo), and only those; then configures and builds in the
# source tree, showing the build's output only when it fails.
set -eu

cd "$(dirname "$0")/.."

packages="build-essential autoconf automake pkg-config libssl-dev libgpgme-dev libyaml-dev liblmdb-dev libpq-dev libgit2-dev libsodium-dev librnp-dev zlib1g-dev libbz2-dev libpsl-dev libmilter-dev libmicrohttpd-dev miltertest gnupg git python3 procmail"

missing=
for p in $packages; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
	    missing="$missing $p"
done
if [ -n "$missing" ]; then
	sudo=
	if [ "$(id -u)" -ne 0 ]; then
		command -v sudo >/dev/null || {
			echo "quickstart: missing packages:$missing; run this" \
			    "as root, or install them first" >&2
			exit 1
		}
		sudo=sudo
	fi
	echo "quickstart: installing$missing"
	$sudo apt-get update -q
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q \
	    --no-install-recommends $missing
fi

# build: the command, its output kept in build.log and shown on a failure
build()
{
	"$@" >>build.log 2>&1 || {
		tail -n 40 build.log >&2
		echo "quickstart: \"$*\" failed; build.log has the whole output" >&2
		exit 1
	}
}
: >build.log
echo "quickstart: building (output in build.log)"
[ -x configure ] || build autoreconf -fi
[ -f Makefile ] || build ./configure
build make -j"$(nproc)"

# demo - a key, the seed series attested with it as a Maildir archive, the
# index, three patches checked, then the milter in the foreground.
demo()
{
	d=$PWD/demo
	seeds=tests/fixtures/seeds
	rm -rf "$d"
	mkdir -p "$d/archive/new" "$d/archive/cur" "$d/archive/tmp"
	mkdir -m 700 "$d/gnupg"
	GNUPGHOME=$d/gnupg gpg --batch --quiet --passphrase '' \
	    --quick-gen-key 'Demo Developer <demo@example.org>' ed25519 sign \
	    never
	cat >"$d/patchattest.conf" <<EOF
# The demo: see conf/patchattest.conf for every key.
Archive $d/archive
IndexPath $d/index
StateFile $d/state.mdb
GnuPGHome $d/gnupg
TrustModel keyring
Socket inet:8891@127.0.0.1
Syslog no
AuthservID demo.localhost
ArchiveRefresh 60
EOF
	# A real server names the user the milter runs as; the demo runs as
	# whoever started it, and says so when that is root.
	[ "$(id -u)" -ne 0 ] || echo "UserID root" >>"$d/patchattest.conf"
	./patchattest attest -c "$d/patchattest.conf" -u demo@example.org \
	    "$seeds"/001-*.txt "$seeds"/00[2-7]-*.patch \
	    >"$d/archive/new/attestation.eml"
	./patchattest index -c "$d/patchattest.conf"
	# signing is done: no agent left running once the demo ends
	gpgconf --homedir "$d/gnupg" --kill gpg-agent 2>/dev/null || true

	cp "$seeds"/002-*.patch "$d/attested.patch"
	# One changed line of the diff: the attestation no longer matches.
	sed 's/^+ \* The decision process/+ * The tampered process/' \
	    "$seeds"/002-*.patch \
	    >"$d/tampered.patch"
	cp tests/fixtures/mail/base64-76.eml "$d/unattested.patch"
	echo
	echo "== patchattest check on an attested, a tampered and an" \
	    "unattested patch:"
	./patchattest check -c "$d/patchattest.conf" "$d/attested.patch" \
	    "$d/tampered.patch" "$d/unattested.patch" || true
	echo
	echo "== the header the milter adds to the tampered one:"
	./patchattest check -c "$d/patchattest.conf" --header \
	    "$d/tampered.patch" || true
	cat <<EOF

== patchattest-milter now listens on inet:8891@127.0.0.1 (Ctrl-C stops it).
To let Postfix use it, add to /etc/postfix/main.cf and run "postfix reload":
    smtpd_milters = inet:127.0.0.1:8891
    non_smtpd_milters = \$smtpd_milters
    milter_default_action = tempfail
Every patch mail then arrives with an X-Patch-Attested header.

EOF
	exec ./patchattest-milter -f -c "$d/patchattest.conf"
}

case "${1:-demo}" in
demo)
	demo
	;;
test)
	make -j"$(nproc)" check
	;;
*)
	echo "usage: $0 demo|test" >&2
	exit 2
	;;
esac
