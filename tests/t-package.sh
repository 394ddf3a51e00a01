#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# t-package.sh - the Debian package's maintainer scripts, run against a
# root of their own (DPKG_ROOT, as dpkg sets it for --root) instead of
# this machine's:
#
#   purge     postrm purge removes what the milter and "patchattest
#             index" made in /var/lib/patchattest under the packaged
#             configuration (made here by the real programs), keeps an
#             admin's keyring clone, archive mirror, a GnuPG home
#             holding a key and the damaged bytes an outbox set aside,
#             and names what it kept, as it names the
#             admin's key folder left in /etc/patchattest; with nothing of
#             the admin's left the folders go too; /run/patchattest goes
#             with an emptied PidFile, not with one that names a process
#   postinst  configure says that it did not start the milter, why, and
#             the command that starts it, when systemd does not run
#             (no /run/systemd/system) and the init script does not run
#             it either, and says nothing of it when one of them does
#
# Environment: srcdir, PATCHATTEST, PATCHATTEST_MILTER (make check sets
# them).  PATCHATTEST_KEEP=1 keeps the work directory.

: "${srcdir:=.}"
: "${PYTHON3:=python3}"
. "$srcdir/tests/tap.sh"
. "$srcdir/tests/postfix-lib.sh"
workdir_make t-package
deb=$(cd "$srcdir/contrib/debian" && pwd)
var=/var/lib/patchattest

# A script that ignored DPKG_ROOT would act on this machine's files.
grep -q 'DPKG_ROOT' "$deb/patchattest.postrm"
setup $? "postrm: the purge acts on \$DPKG_ROOT$var" /dev/null
grep -q 'DPKG_ROOT' "$deb/patchattest.postinst"
setup $? "postinst: it looks for systemd under \$DPKG_ROOT" /dev/null

# made_by_programs ROOT: what the programs make in ROOT$var under the
# packaged configuration with TOFU on (paths moved under ROOT, our own
# port, as root, logging to stderr)
made_by_programs() {
	mkdir -p "$1$var" &&
	deb_conf_packaged | sed -e "s|^UserID .*|UserID root|" \
	    -e "s|^# Syslog mail\$|Syslog no|" \
	    -e "s|^# PatattTOFU no|PatattTOFU yes|" \
	    -e "s,^# \(IndexPath\|PatattTOFUPins\|StateFile\) $var,\1 $1$var," \
	    >"$1/pa.conf" &&
	"$PATCHATTEST" index -c "$1/pa.conf" >"$1/index.out" 2>&1 || return 1
	milter_socket "$1" inet
	milter_start "$1/milter.log" "$PATCHATTEST_MILTER" -f \
	    -c "$1/pa.conf" -p "$MILTER_SOCK" || return 1
	milter_stop
	# The journal a StateDatabase keeps beside StateFile, by its name,
	# an earlier version's lock and a rewrite of it cut short.
	: >"$1$var/state.mdb-outbox"
	: >"$1$var/state.mdb-outbox-lock"
	: >"$1$var/state.mdb-outbox.new"
}

# admin_files ROOT: what the README has an admin put in ROOT$var
admin_files() {
	mkdir -p "$1$var/pgpkeys/.keyring/openpgp/example.org/alice" \
	    "$1$var/signatures/git/0.git" "$1/etc/patchattest/keys" &&
	echo key >"$1/etc/patchattest/keys/bob" &&
	echo key >"$1$var/pgpkeys/.keyring/openpgp/example.org/alice/default" &&
	echo ref >"$1$var/signatures/git/0.git/HEAD" &&
	echo damage >"$1$var/state.mdb-outbox-damaged"
}

# gnupg_home DIR [KEY]: a GnuPG home as gpg makes it, with a key in it
# when KEY is given
gnupg_home() {
	mkdir -m 700 "$1" &&
	GNUPGHOME=$1 gpg --batch --list-keys >/dev/null 2>&1 || return 1
	[ -z "${2:-}" ] || GNUPGHOME=$1 gpg --batch --quiet --passphrase '' \
	    --quick-gen-key "$2" ed25519 sign never 2>/dev/null
	gpgconf --homedir "$1" --kill all 2>/dev/null
	return 0
}

# postrm ROOT ARG: the postrm under DPKG_ROOT=ROOT, output in ROOT.out
postrm() {
	DPKG_ROOT=$1 sh "$deb/patchattest.postrm" "$2" >"$1.out" 2>&1
}

# --- purge ---------------------------------------------------------------
if [ ! -x "${PATCHATTEST:-}" ] || [ ! -x "${PATCHATTEST_MILTER:-}" ]; then
	skip "purge" "PATCHATTEST or PATCHATTEST_MILTER names no program"
else
	R=$T/admin
	made_by_programs "$R"
	setup $? "purge: the milter and the index make their files" \
	    "$R/milter.log"
	for f in index pins.mdb pins.mdb-lock state.mdb state.mdb-lock; do
		[ -e "$R$var/$f" ]
		ok $? "purge: the programs made $var/$f"
	done
	admin_files "$R" && gnupg_home "$R$var/.gnupg" "Keyring Maintainer <k@example.org>"
	setup $? "purge: the admin's files" /dev/null

	postrm "$R" remove
	ok $? "purge: postrm remove exits 0"
	[ -d "$R$var/index" ] && [ -f "$R$var/state.mdb" ]
	ok $? "purge: postrm remove keeps the state"

	postrm "$R" purge
	ok $? "purge: postrm purge exits 0"
	left=
	for f in index pins.mdb pins.mdb-lock state.mdb state.mdb-lock \
	    state.mdb-outbox state.mdb-outbox-lock state.mdb-outbox.new; do
		[ -e "$R$var/$f" ] && left="$left $f"
	done
	expect "purge: what the programs made is gone" "" "$left"
	[ -f "$R$var/pgpkeys/.keyring/openpgp/example.org/alice/default" ]
	ok $? "purge: the admin's keyring clone stays"
	[ -f "$R$var/signatures/git/0.git/HEAD" ]
	ok $? "purge: the admin's archive mirror stays"
	[ -s "$R$var/.gnupg/pubring.kbx" ]
	ok $? "purge: a GnuPG home holding a key stays"
	[ -s "$R$var/state.mdb-outbox-damaged" ]
	ok $? "purge: the damage an outbox set aside for the admin stays"
	for f in .gnupg pgpkeys signatures state.mdb-outbox-damaged; do
		grep -qxF "    $R$var/$f" "$R.out"
		ok $? "purge: it says that it kept $var/$f"
	done
	grep -q "^patchattest: purge kept $R$var, which holds" "$R.out"
	ok $? "purge: it says why"
	grep -qxF "    $R/etc/patchattest/keys" "$R.out"
	ok $? "purge: it says that it kept the admin's /etc/patchattest/keys"

	# Only what the programs made, and a GnuPG home without a key.
	R=$T/plain
	made_by_programs "$R" && gnupg_home "$R$var/.gnupg"
	setup $? "purge: the programs' files alone" "$R/milter.log"
	postrm "$R" purge
	ok $? "purge: postrm purge exits 0"
	[ ! -e "$R$var" ]
	ok $? "purge: with nothing of the admin's, $var is gone"
	[ ! -s "$R.out" ]
	ok $? "purge: and nothing is said"
	diag "$R.out"
	postrm "$R" purge
	ok $? "purge: a second purge, with $var gone, exits 0"
fi

# The init script's /run/patchattest, after its milter was stopped with
# kill (the PidFile emptied), or while it runs on (its PidFile names it).
R=$T/run
mkdir -p "$R/run/patchattest" && : >"$R/run/patchattest/patchattest-milter.pid"
setup $? "purge: /run/patchattest with an emptied PidFile" /dev/null
postrm "$R" purge
ok $? "purge: postrm purge exits 0"
[ ! -e "$R/run/patchattest" ]
ok $? "purge: /run/patchattest with an emptied PidFile is gone"
mkdir -p "$R/run/patchattest" &&
    echo 4321 >"$R/run/patchattest/patchattest-milter.pid"
postrm "$R" purge
[ -s "$R/run/patchattest/patchattest-milter.pid" ]
ok $? "purge: a PidFile that names a process stays"

# --- postinst ------------------------------------------------------------
# The commands the postinst runs, as stubs that report the user, Postfix
# and the override there, so that nothing of this machine changes;
# invoke-rc.d's status says that the init script's milter does not run
# (3), or does when $T/running is there.
mkdir "$T/bin"
for c in getent id dpkg-statoverride adduser chown chmod; do
	printf '#!/bin/sh\necho postfix patchattest\n' >"$T/bin/$c"
	chmod +x "$T/bin/$c"
done
printf '#!/bin/sh\n[ -e "%s/running" ] || exit 3\n' "$T" >"$T/bin/invoke-rc.d"
chmod +x "$T/bin/invoke-rc.d"
R=$T/nosystemd
mkdir -p "$R"
PATH=$T/bin:$PATH DPKG_ROOT=$R sh "$deb/patchattest.postinst" configure \
    >"$R.out" 2>&1
ok $? "postinst: configure exits 0 without systemd"
grep -q '^patchattest: the milter was not started: systemd is not running' \
    "$R.out"
ok $? "postinst: it says that the milter was not started"
grep -q '(no /run/systemd/system)' "$R.out"
ok $? "postinst: and why"
grep -qxF "    service patchattest-milter start" "$R.out"
ok $? "postinst: and the command that starts it with the init script"
diag "$R.out"
: >"$T/running"
PATH=$T/bin:$PATH DPKG_ROOT=$R sh "$deb/patchattest.postinst" configure \
    >"$R.out" 2>&1
ok $? "postinst: configure exits 0 without systemd, the init script's milter running"
grep -q 'not started' "$R.out"
expect "postinst: then it says nothing of starting" 1 $?
rm "$T/running"
R=$T/systemd
mkdir -p "$R/run/systemd/system"
PATH=$T/bin:$PATH DPKG_ROOT=$R sh "$deb/patchattest.postinst" configure \
    >"$R.out" 2>&1
ok $? "postinst: configure exits 0 under systemd"
grep -q 'not started' "$R.out"
expect "postinst: under systemd it says nothing of starting" 1 $?

tap_end
