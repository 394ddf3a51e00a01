#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# t-postfix.sh - patchattest-milter behind a real Postfix: the seed series
# signed and indexed, then mail sent with swaks over SMTP and the
# delivered Maildir files read back.  Run with the milter on a unix socket
# and on an inet socket behind an unchrooted Postfix, then behind Postfix
# chrooted as Debian runs it, with the Debian package's configuration and
# the README's Postfix lines, and with the unix-socket alternative the
# manual gives for it (see "Debian" below).
#
# Needs root (for the private Postfix), postfix, swaks, gpg, python3 and
# the milter; says it skipped otherwise; the chrooted runs need Debian's
# postfix package too.  PA_TEST_KEEP=1 keeps the temporary directory for a
# post-mortem.

: "${PATCHATTEST:?PATCHATTEST must name the built binary}"
: "${srcdir:=.}"
: "${top_builddir:=.}"
MILTER=${PATCHATTEST_MILTER:-$top_builddir/patchattest-milter}
seeds=$srcdir/tests/fixtures/seeds
. "$srcdir/tests/postfix-lib.sh"

if ! pf_usable; then
	echo "1..0 # SKIP $PF_WHY"
	exit 0
fi
for p in swaks gpg; do
	if ! command -v $p >/dev/null 2>&1; then
		echo "1..0 # SKIP $p is not installed"
		exit 0
	fi
done
if [ ! -x "$MILTER" ]; then
	echo "1..0 # SKIP $MILTER is not built"
	exit 0
fi

T=$(mktemp -d "${TMPDIR:-/tmp}/t-postfix.XXXXXX") || exit 1
chmod 755 "$T"		# Postfix's users reach the queue and the socket
cleanup() {
	pf_stop
	milter_stop
	gpgconf --homedir "$T/gnupg" --kill all 2>/dev/null
	[ -n "${PA_TEST_KEEP:-}" ] || rm -rf "$T"
}
trap cleanup 0
trap 'exit 1' HUP INT TERM

. "$srcdir/tests/tap.sh"


pa_make_archive "$T"
ok $? "a key, the seed series signed, a Maildir archive indexed"
# Postfix connects to a unix socket as its own user: UMask 000.
cat >>"$PA_CONF" <<EOF
UMask 000
Syslog no
EOF

# --- the messages ----------------------------------------------------------
. "$srcdir/tests/mta-lib.sh"
MSG_TAG=t-postfix.test
# virtual(8) puts these above ours
MTA_ABOVE='Return-Path|X-Original-To|Delivered-To'
mail_files() {
	find "$PF_MAILDIR/new" "$PF_MAILDIR/cur" -type f 2>/dev/null
}
msgs_make

# --- Debian: a chrooted Postfix, the package's configuration ---------------
# Debian's Postfix runs smtpd and cleanup chrooted into its queue directory
# (the chroot column of its stock master.cf), where a milter's unix socket
# outside the queue directory does not exist.  The variants "debian" and
# "debian-unix" run Postfix so (PF_CHROOT=debian), with the configuration
# the package installs: contrib/debian/conf.sed over conf/patchattest.conf,
# this test's archive, index and keys added, and root standing in for the
# user patchattest.
#   debian       the package's Socket, and Postfix's milter settings
#                exactly as the README gives them
#   debian-unix  the documented alternative: a socket inside the queue
#                directory, group postfix, mode 0770 (UMask 007), named
#                relative to the chroot (contrib/postfix/main.cf)
# And once, before them, the trap itself: the milter on a unix socket
# outside the queue directory (as the built-in default in /run is), and
# every mail deferred.
have_debian=
if pf_debian_usable; then
	have_debian=yes
else
	debian_why=$PF_WHY
fi

# deb_conf SOCKET USERID: the package's configuration as $T/deb.conf,
# with Socket SOCKET (empty: the package's own) and UserID USERID
deb_conf() {
	deb_conf_packaged | sed -e "s|^UserID patchattest\$|UserID $2|" \
	    >"$T/deb.conf"
	if [ -n "$1" ]; then
		sed "s|^Socket .*|Socket $1|" "$T/deb.conf" >"$T/deb.conf.tmp" &&
		    mv "$T/deb.conf.tmp" "$T/deb.conf"
	fi
	grep -E '^(Archive|IndexPath|StateFile|GnuPGHome|TrustModel|Syslog|PatattKeyring) ' \
	    "$PA_CONF" >>"$T/deb.conf"
}

readme_postfix >"$T/readme.cf"
grep -q '^smtpd_milters = ' "$T/readme.cf"
ok $? "the README gives Postfix's milter settings"
sed 's/^/#   /' "$T/readme.cf"
deb_socket=$(deb_conf_packaged | sed -n 's/^Socket //p')
case $deb_socket in
inet:*@*)
	# Another milter or a second run of this test may hold the port:
	# then both sides move to a free one.
	deb_port=${deb_socket#inet:}
	deb_port=${deb_port%@*}
	if ! port_free "$deb_port"; then
		p=$(free_port)
		echo "# port $deb_port is in use: the package's socket and the" \
		    "README's lines move to $p"
		deb_socket=inet:$p@${deb_socket#*@}
		sed "s/:$deb_port\$/:$p/" "$T/readme.cf" >"$T/readme.cf.tmp" &&
		    mv "$T/readme.cf.tmp" "$T/readme.cf"
	fi ;;
esac

if [ -z "$have_debian" ]; then
	skip "debian-trap: a unix socket outside the chroot" "$debian_why"
else
	rm -rf "$T/pf" "$T/run"
	mkdir "$T/run"
	# Group postfix: the socket's mode is no obstacle, only the chroot.
	deb_conf "local:$T/run/patchattest.sock" root:postfix
	MILTER_SOCK=local:$T/run/patchattest.sock
	milter_start "$T/milter-trap.log" "$MILTER" -f -c "$T/deb.conf"
	ok $? "debian-trap: the milter listens on $MILTER_SOCK"
	sed "s|^smtpd_milters = .*|smtpd_milters = unix:$T/run/patchattest.sock|" \
	    "$T/readme.cf" >"$T/trap.cf"
	PF_CHROOT=debian PF_MILTER_CF=$T/trap.cf pf_start "$T/pf"
	ok $? "debian-trap: Postfix listens on port $PF_PORT"
	cp "$T/msg/seed-002" "$T/trap.eml"
	pf_send "$T/trap.eml"
	expect "debian-trap: the chrooted smtpd finds no socket: 451 4.7.1" \
	    1 "$(grep -c '^<\*\* *451 4\.7\.1' "$T/trap.eml.smtp")"
	grep -q "connect to Milter service unix:$T/run/patchattest.sock: No such file or directory" \
	    "$PF_DIR/log/maillog"
	ok $? "debian-trap: Postfix logs the socket as not found"
	sleep 1
	expect "debian-trap: nothing delivered" 0 "$(pf_delivered)"
	pf_stop
	milter_stop
fi

# The messages are sent over SMTP (smtpd_milters) and one more, seed 003,
# through sendmail(1) (non_smtpd_milters, applied by cleanup).
cp "$T/msg/seed-003" "$T/local.eml"
sed -i 's/@t-postfix\.test>/-local@t-postfix.test>/' "$T/local.eml"
nmsg=$(($(echo $names | wc -w) + 1))

for kind in unix inet debian debian-unix; do
	rm -rf "$T/pf" "$T/milter.sock"
	unset PF_CHROOT PF_MILTER_CF
	case $kind in
	unix | inet)
		milter_socket "$T" $kind
		milter_start "$T/milter-$kind.log" "$MILTER" -f \
		    -c "$PA_CONF" -p "$MILTER_SOCK"
		ok $? "$kind: the milter listens on $MILTER_SOCK"
		pf_start "$T/pf" "$MILTER_PF"
		ok $? "$kind: Postfix listens on port $PF_PORT" ;;
	debian*)
		if [ -z "$have_debian" ]; then
			skip "$kind: a chrooted Postfix" "$debian_why"
			continue
		fi
		if [ $kind = debian ]; then
			deb_conf "$deb_socket" root
			cp "$T/readme.cf" "$T/pf.cf"
		else
			# The owner, patchattest on a real system, is root
			# here, like the milter's UserID.
			mkdir -p "$T/pf/spool"
			install -d -o root -g postfix -m 0750 \
			    "$T/pf/spool/patchattest"
			deb_conf "local:$T/pf/spool/patchattest/patchattest.sock" \
			    root:postfix
			sed -e '/^smtpd_milters = inet:/d' \
			    -e 's/^#smtpd_milters = unix:/smtpd_milters = unix:/' \
			    "$srcdir/contrib/postfix/main.cf" >"$T/pf.cf"
		fi
		"$MILTER" -n -c "$T/deb.conf" >"$T/deb-n.out" 2>&1
		st=$?
		ok $st "$kind: patchattest-milter -n accepts the configuration"
		[ $st -eq 0 ] || diag "$T/deb-n.out"
		MILTER_SOCK=$(sed -n 's/^Socket //p' "$T/deb.conf")
		milter_start "$T/milter-$kind.log" "$MILTER" -f -c "$T/deb.conf"
		ok $? "$kind: the milter listens on $MILTER_SOCK"
		PF_CHROOT=debian PF_MILTER_CF=$T/pf.cf pf_start "$T/pf"
		ok $? "$kind: Postfix listens on port $PF_PORT"
		if [ $kind = debian-unix ]; then
			expect "$kind: the socket is 0770, group postfix" \
			    "770 postfix" "$(stat -c '%a %G' \
			    "$T/pf/spool/patchattest/patchattest.sock")"
		fi ;;
	esac

	refused=
	for m in $names; do
		pf_send "$T/msg/$m" || refused="$refused $m"
	done
	expect "$kind: Postfix accepted every message" "" "$refused"
	for m in $refused; do
		sed 's/^/#   /' "$T/msg/$m.smtp" | tail -n 5
	done
	pf_send_local "$T/local.eml"
	ok $? "$kind: sendmail(1) queued a patch"
	diag "$T/local.eml.smtp"
	pf_wait_delivered "$nmsg" 60
	ok $? "$kind: every message delivered"
	check_all "$kind"
	expect "$kind: the patch sent with sendmail(1) passes" pass \
	    "$(result seed-003-local)"
	case $kind in
	debian*)
		pf_chrooted smtpd && pf_chrooted cleanup
		ok $? "$kind: smtpd and cleanup ran chrooted into the queue" ;;
	esac

	# The seed series: pass, one header each (also covered above; this
	# says it in the words of the contract).
	passes=0
	for s in 2 3 4 5 6 7; do
		f=$(delivered seed-00$s | head -n 1)
		[ -n "$f" ] && hdr_block "$f" | grep -q -E \
		    '^X-Patch-Attested: pass; attid=' && passes=$((passes + 1))
	done
	expect "$kind: the six seed patches pass" 6 "$passes"
	expect "$kind: the tampered copy fails" fail "$(result tampered)"
	expect "$kind: an unattested patch: none" none "$(result unattested)"
	expect "$kind: forged pass headers on an unattested patch: none" none \
	    "$(result forged-none)"
	f=$(delivered forged-flood | head -n 1)
	expect "$kind: 1,200 forged fields on seed 005: one X-Patch-Attested left, ours" \
	    1 "$([ -n "$f" ] && hdr_block "$f" | grep -c -i '^X-Patch-Attested:')"
	if [ -n "$have_patatt" ]; then
		verdict_field patatt | grep -q -E '^X-Patch-Attested: pass; '\
'scheme=patatt;.*v0\.1=pass;[[:space:]]*patatt=pass$'
		ok $? "$kind: patatt-signed seed 002 passes by both schemes"
		verdict_field patatt-fail |
		    grep -q -E '^X-Patch-Attested: fail;.*patatt=fail$'
		ok $? "$kind: patatt-signed, diff changed: fail"
	else
		skip "$kind: patatt-signed mail" \
		    "patatt or git is not installed"
	fi

	# One log line per decided message, naming its result; none for
	# mail that is no patch.  (The runs share a StateFile: from the
	# second on, each message also has a line saying it arrived before.)
	for m in $names; do
		res=$(result "$m")
		nlog=$([ -n "$res" ] && echo 1 || echo 0)
		expect "$kind: $m logged $nlog time(s)${res:+ as $res}" \
		    "$nlog" "$(grep -F "<$m@t-postfix.test>" \
		    "$T/milter-$kind.log" | grep -F ' result=' |
		    grep -c -w "${res:-.}")"
	done
	milter_running
	ok $? "$kind: the milter is still running"

	pf_stop
	milter_stop
	grep -E 'ERROR|AddressSanitizer|runtime error' "$T/milter-$kind.log" |
	    sed 's/^/#   /'
done

tap_end
