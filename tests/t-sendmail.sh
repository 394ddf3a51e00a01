#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# t-sendmail.sh - patchattest-milter behind a real Sendmail, as t-postfix.sh
# tests it behind Postfix.  Debian's sendmail-bin and sendmail-cf are
# unpacked into a folder of their own (they conflict with postfix, so they
# are not installed); a sendmail.cf is made with m4 from a small .mc that
# includes contrib/sendmail/patchattest.mc with only its S= changed; the
# daemon listens on a free loopback port and delivers each mail into a
# file.  The messages of mta-lib.sh are sent with swaks and read back;
# with the milter down, F=T defers mail with 4xx.  A genuine patch with
# "\n" inside a C string is sent with the README's curl command and
# passes; swaks --data would have changed it.
#
# Needs root, m4, swaks, curl, gpg, python3 and the milter.  The packages
# are fetched once with "apt-get download" and kept in $PA_SENDMAIL_CACHE
# (default ~/.cache/patchattest/sendmail); the test says it skipped when
# they can be neither found there nor fetched.  PA_TEST_KEEP=1 keeps the
# temporary directory.

: "${PATCHATTEST:?PATCHATTEST must name the built binary}"
: "${srcdir:=.}"
: "${top_builddir:=.}"
MILTER=${PATCHATTEST_MILTER:-$top_builddir/patchattest-milter}
seeds=$srcdir/tests/fixtures/seeds
. "$srcdir/tests/postfix-lib.sh"

if [ "$(id -u)" -ne 0 ]; then
	echo "1..0 # SKIP not root (Sendmail's daemon starts as root)"
	exit 0
fi
for p in m4 swaks curl gpg dpkg "$PYTHON3"; do
	if ! command -v "$p" >/dev/null 2>&1; then
		echo "1..0 # SKIP $p is not installed"
		exit 0
	fi
done
if [ ! -x "$MILTER" ]; then
	echo "1..0 # SKIP $MILTER is not built"
	exit 0
fi

T=$(mktemp -d "${TMPDIR:-/tmp}/t-sendmail.XXXXXX") || exit 1
chmod 755 "$T"
SM_PID=
cleanup() {
	sm_stop
	milter_stop
	gpgconf --homedir "$T/gnupg" --kill all 2>/dev/null
	[ -n "${PA_TEST_KEEP:-}" ] || rm -rf "$T"
}
trap cleanup 0
trap 'exit 1' HUP INT TERM

# --- Sendmail, unpacked ----------------------------------------------------
# sm_fetch DIR: DIR/root holds sendmail-bin and sendmail-cf, unpacked;
# fetched when they are not there yet.  SM_WHY says why not.
sm_fetch() {
	[ -x "$1/root/usr/libexec/sendmail/sendmail" ] &&
	    [ -f "$1/root/usr/share/sendmail/cf/m4/cf.m4" ] && return 0
	command -v apt-get >/dev/null 2>&1 ||
	    { SM_WHY="apt-get is not installed"; return 1; }
	_dl=$(mktemp -d "$1/fetch.XXXXXX") || return 1
	if ! (cd "$_dl" && apt-get download sendmail-bin sendmail-cf) \
	    >"$T/apt.log" 2>&1; then
		SM_WHY="apt-get download sendmail-bin sendmail-cf failed:"
		SM_WHY="$SM_WHY $(grep '^E:' "$T/apt.log" | head -n 1)"
		rm -rf "$_dl"
		return 1
	fi
	for _d in "$_dl"/*.deb; do
		dpkg -x "$_d" "$_dl/root" || { SM_WHY="dpkg -x $_d failed";
		    rm -rf "$_dl"; return 1; }
	done
	rm -rf "$1/root"
	mv "$_dl/root" "$1/root" && rm -rf "$_dl"
}

cache=${XDG_CACHE_HOME:-${HOME:-/nonexistent}/.cache}/patchattest/sendmail
cache=${PA_SENDMAIL_CACHE:-$cache}
mkdir -p "$cache" 2>/dev/null && [ -w "$cache" ] || cache=$T/packages
mkdir -p "$cache"
if ! sm_fetch "$cache"; then
	echo "1..0 # SKIP $SM_WHY"
	exit 0
fi
SM=$cache/root/usr/libexec/sendmail/sendmail
SM_CF=$cache/root/usr/share/sendmail/cf

. "$srcdir/tests/tap.sh"

# Sendmail wants a host name with a dot in it, and otherwise waits 60 s
# at every start ("My unqualified host name ... unknown; sleeping for
# retry"): where a UTS namespace can be had, it runs in one named sm.test.
sm_uts=
unshare --uts sh -c 'hostname sm.test' 2>/dev/null && sm_uts=yes
# sm_run ARG...: Sendmail with ARG...
sm_run() {
	if [ -n "$sm_uts" ]; then
		unshare --uts sh -c 'hostname sm.test && exec "$@"' sh "$SM" "$@"
	else
		"$SM" "$@"
	fi
}

sm_run -d0.1 -bt </dev/null >"$T/sm-version" 2>&1
grep -q -w MILTER "$T/sm-version"
ok $? "$(sed -n 's/^Version /Sendmail /p' "$T/sm-version") is built with MILTER"

# sm_config SM_PORT MILTER_SOCK: the .mc and sendmail.cf of a private
# Sendmail in $T/sm: its own queue, pid file and port; mail for
# test.example delivered by the local mailer, here a script that writes
# each message into a file of $T/sm/mail/new.  The filter is the
# project's patchattest.mc with the test's socket in S=.
sm_config() {
	_d=$T/sm
	rm -rf "$_d"
	mkdir -p "$_d/queue" "$_d/mail/new" "$_d/mail/tmp"
	chmod 700 "$_d/queue"
	cat >"$_d/deliver" <<EOF
#!/bin/sh
f=\$\$.\$(date +%s%N)
cat >"$_d/mail/tmp/\$f" && mv "$_d/mail/tmp/\$f" "$_d/mail/new/\$f"
EOF
	chmod 755 "$_d/deliver"
	# No DNS: names are looked up in /etc/hosts only.
	echo "hosts files" >"$_d/service.switch"
	sed "s|S=inet:8891@127.0.0.1|S=$2|" \
	    "$srcdir/contrib/sendmail/patchattest.mc" >"$_d/patchattest.mc"
	cat >"$_d/sendmail.mc" <<EOF
divert(-1)
divert(0)dnl
OSTYPE(\`linux')dnl
define(\`MAIL_SETTINGS_DIR', \`$_d/')dnl
undefine(\`ALIAS_FILE')dnl
define(\`QUEUE_DIR', \`$_d/queue')dnl
define(\`confPID_FILE', \`$_d/sendmail.pid')dnl
define(\`confDOMAIN_NAME', \`sm.test')dnl
define(\`confDONT_PROBE_INTERFACES', \`True')dnl
define(\`LOCAL_MAILER_PATH', \`$_d/deliver')dnl
define(\`LOCAL_MAILER_ARGS', \`deliver \$u')dnl
MODIFY_MAILER_FLAGS(\`LOCAL', \`-w')dnl
FEATURE(\`no_default_msa')dnl
FEATURE(\`accept_unresolvable_domains')dnl
FEATURE(\`nocanonify')dnl
define(\`confSERVICE_SWITCH_FILE', \`$_d/service.switch')dnl
LOCAL_DOMAIN(\`test.example')dnl
DAEMON_OPTIONS(\`Port=$1, Addr=127.0.0.1, Name=MTA')dnl
include(\`patchattest.mc')dnl
MAILER(\`local')dnl
MAILER(\`smtp')dnl
EOF
	m4 -I "$_d" -D_CF_DIR_="$SM_CF/" "$SM_CF/m4/cf.m4" \
	    "$_d/sendmail.mc" >"$_d/sendmail.cf" 2>"$_d/m4.err" &&
	    [ ! -s "$_d/m4.err" ]
}

# sm_start: the daemon of sm_config's sendmail.cf, listening; SM_PID
sm_start() {
	sm_run -C "$T/sm/sendmail.cf" -bd -q1m >"$T/sm/start.log" 2>&1 &&
	    wait_port 127.0.0.1 "$SM_PORT" 30 || {
		sed 's/^/#   /' "$T/sm/start.log" >&2
		return 1
	}
	SM_PID=$(head -n 1 "$T/sm/sendmail.pid")
}

# sm_stop: the daemon and every process working in its queue
sm_stop() {
	[ -n "$SM_PID" ] || return 0
	kill -TERM "$SM_PID" 2>/dev/null
	_i=0
	while [ -n "$(procs_in "$T/sm/queue")" ] && [ $_i -lt 100 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	for _p in $(procs_in "$T/sm/queue"); do
		kill -KILL "$_p" 2>/dev/null
	done
	SM_PID=
}

# sm_send FILE: 0 when Sendmail accepted it (swaks' dialogue in FILE.smtp)
sm_send() {
	swaks --server 127.0.0.1 --port "$SM_PORT" --from dev@example.org \
	    --to maint@test.example --data @"$1" >"$1.smtp" 2>&1
}

# sm_delivered - how many messages were delivered
sm_delivered() {
	find "$T/sm/mail/new" -type f | wc -l | tr -d ' '
}

# sm_wait_delivered N: 0 once N are there, 1 after 30 s
sm_wait_delivered() {
	_i=0
	while [ "$(sm_delivered)" -lt "$1" ]; do
		[ $_i -ge 300 ] && return 1
		sleep 0.1
		_i=$((_i + 1))
	done
}

# --- the archive and the messages ------------------------------------------
pa_make_archive "$T"
ok $? "a key, the seed series signed, a Maildir archive indexed"
echo "Syslog no" >>"$PA_CONF"

# A genuine patch whose diff has "\n" inside a C string, and a commit
# message with a line that starts with a dot (the sender must double it),
# attested with the test's key.
sed -e 's/^Subject: .*/Subject: [PATCH] x86\/elf: name the RIE warning/' \
    -e 's/^preparation for changing the behavior\.$/&\n.config is left alone./' \
    -e 's/^+ \*  exec-none : only PROT_EXEC.*/+#define RIE_WARN "RIE: %s\\n"/' \
    "$seeds"/002-*.patch >"$T/newline.patch"
expect "the patch: a backslash-n in a C string, a line starting with a dot" 2 \
    "$(grep -c -e '^+#define RIE_WARN "RIE: %s\\n"$' \
    -e '^\.config is' "$T/newline.patch")"
pa_sign "$PA_ARCHIVE" "$T/newline.patch" &&
    "$PATCHATTEST" index -c "$PA_CONF" >"$T/index2.out" 2>&1
ok $? "it is attested and indexed"

. "$srcdir/tests/mta-lib.sh"
MSG_TAG=t-sendmail.test
# the local mailer's Return-Path
MTA_ABOVE='Return-Path'
mail_files() {
	find "$T/sm/mail/new" -type f
}
msgs_make
# Sendmail itself refuses a header over MaxHeadersLength, 32 KB: 552 5.6.0.
names=$(echo $names | sed 's/ forged-flood / /')
mkmsg newline "$T/newline.patch"
mkmsg newline-swaks "$T/newline.patch"
expect "the patch passes patchattest check" pass \
    "$("$PATCHATTEST" check -c "$PA_CONF" --header "$T/msg/newline" |
    sed -n 's/^X-Patch-Attested: \([a-z]*\).*/\1/p')"

SM_PORT=$(free_port)
milter_socket "$T" inet
sm_config "$SM_PORT" "$MILTER_SOCK"
ok $? "m4 makes a sendmail.cf from a .mc including patchattest.mc"
diag "$T/sm/m4.err"
expect "the test's patchattest.mc differs from the project's in S= only" 1 \
    "$(diff "$srcdir/contrib/sendmail/patchattest.mc" "$T/sm/patchattest.mc" |
    grep -c '^>')"
grep -q "^Xpatchattest, S=$MILTER_SOCK, F=T, " "$T/sm/sendmail.cf"
ok $? "sendmail.cf has the filter with F=T"

# --- the milter down: F=T defers --------------------------------------------
sm_start
ok $? "Sendmail listens on port $SM_PORT"
cp "$T/msg/seed-002" "$T/down.eml"
sm_send "$T/down.eml"
expect "the milter down: Sendmail refuses the mail for now (451 4.3.2)" 1 \
    "$(grep -c '^<\*\* *451 4\.3\.2' "$T/down.eml.smtp")"
sleep 1
expect "the milter down: nothing delivered" 0 "$(sm_delivered)"
expect "the milter down: nothing left in Sendmail's queue" 0 \
    "$(find "$T/sm/queue" -type f | wc -l | tr -d ' ')"

# --- the milter up --------------------------------------------------------
milter_start "$T/milter.log" "$MILTER" -f -c "$PA_CONF" -p "$MILTER_SOCK"
ok $? "the milter listens on $MILTER_SOCK"
refused=
for m in $names; do
	sm_send "$T/msg/$m" || refused="$refused $m"
done
expect "Sendmail accepted every message" "" "$refused"
for m in $refused; do
	sed 's/^/#   /' "$T/msg/$m.smtp" | tail -n 5
done
sm_wait_delivered "$(echo $names | wc -w)"
ok $? "every message delivered"
check_all sendmail
expect "seed 002 passes" pass "$(result seed-002)"
expect "the tampered copy fails" fail "$(result tampered)"
expect "an unattested patch: none" none "$(result unattested)"
expect "forged pass headers on an unattested patch: none" none \
    "$(result forged-none)"
expect "forged pass headers on attested seed 004: pass, one header" \
    "pass 1" "$(result forged-pass) $(hdr_block "$(delivered forged-pass |
    head -n 1)" | grep -c -i '^X-Patch-Attested:')"
if [ -n "$have_patatt" ]; then
	verdict_field patatt | grep -q -E '^X-Patch-Attested: pass; '\
'scheme=patatt;.*v0\.1=pass;[[:space:]]*patatt=pass$'
	ok $? "patatt-signed seed 002 passes by both schemes"
	verdict_field patatt-fail |
	    grep -q -E '^X-Patch-Attested: fail;.*patatt=fail$'
	ok $? "patatt-signed, diff changed: fail"
else
	skip "patatt-signed mail" "patatt or git is not installed"
fi
qid=$(sed -n 's/^<-  250 2\.0\.0 \([^ ]*\) Message accepted.*/\1/p' \
    "$T/msg/seed-002.smtp")
grep -q " patchattest-milter: $qid: message-id=\"<seed-002@" "$T/milter.log"
ok $? "the milter logs seed 002 under the queue ID Sendmail gave it ($qid)"

# --- a patch sent byte for byte, and with swaks --data ---------------------
# readme_send: the README's command after "Send a patch file", its
# continuation lines joined
readme_send() {
	awk '/^Send a patch file/ { on = 1; next }
	    on && /^    / { sub(/^ +/, ""); printf "%s", $0; got = 1; next }
	    on && got { exit }' "$srcdir/README.md" | sed 's/ \\/ /g'
	echo
}
# The README's command, with this Sendmail's port and addresses.
readme_send >"$T/readme-send"
grep -q '^curl ' "$T/readme-send"
ok $? "the README gives a command that sends a patch file as it is"
sed 's/^/#   /' "$T/readme-send"
before=$(sm_delivered)
sed -e "s|0001-fix\.patch|$T/msg/newline|" \
    -e "s|you@example\.org|maint@test.example|g" \
    -e "s|smtp://127\.0\.0\.1:25|smtp://127.0.0.1:$SM_PORT|" \
    "$T/readme-send" >"$T/readme-send.sh"
sh "$T/readme-send.sh" >"$T/curl.out" 2>&1
st=$?
ok $st "the README's command sends it"
[ $st -eq 0 ] || diag "$T/curl.out"
sm_send "$T/msg/newline-swaks"
ok $? "swaks --data @file sends it"
sm_wait_delivered $((before + 2))
ok $? "both delivered"
# body FILE: the body of a mail
body() {
	sed '1,/^$/d' "$1"
}
f=$(delivered newline | head -n 1)
body "$T/msg/newline" >"$T/newline.body"
[ -n "$f" ] && body "$f" | cmp -s - "$T/newline.body"
ok $? "the README's command: the body arrives byte for byte"
expect "the README's command: the patch passes" pass "$(result newline)"
f=$(delivered newline-swaks | head -n 1)
[ -n "$f" ] && ! body "$f" | cmp -s - "$T/newline.body"
ok $? "swaks --data @file: the body arrives changed"
[ -n "$f" ] && body "$f" | grep -q '^+#define RIE_WARN "RIE: %s$'
ok $? "swaks --data @file: the backslash-n in the C string became a newline"
expect "swaks --data @file: the genuine patch no longer passes" fail \
    "$(result newline-swaks)"

milter_running
ok $? "the milter is still running"
sm_stop
milter_stop
grep -E 'ERROR|AddressSanitizer|runtime error' "$T/milter.log" |
    sed 's/^/#   /'

tap_end
