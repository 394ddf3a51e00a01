# SPDX-License-Identifier: BSD-2-Clause
# postfix-lib.sh - a private Postfix on loopback, a milter beside it, and
# a signed Maildir archive of the seed series; sourced by t-postfix.sh,
# t-load.sh and bench/bench-milter.sh, and by t-contrib.sh for the
# README's Postfix lines and the Debian package's configuration.
#
# Postfix runs as root with its own configuration, queue, log and mailbox
# under a directory the caller made (and removes); nothing of the system's
# Postfix is used but its programs.  Mail to maint@test.example is
# delivered by virtual(8) into the Maildir $PF_MAILDIR.
#
#   pf_usable             0 when this can run here; else PF_WHY says why
#   pf_debian_usable      0 when Debian's stock master.cf and chroot set-up
#                         are there (for PF_CHROOT=debian); else PF_WHY
#   pf_start DIR [MILTER] start Postfix in DIR (empty or absent; its
#                         parents searchable by Postfix's users: chmod 755
#                         a mktemp -d) with the milter MILTER in Postfix's
#                         spelling (unix:/path, inet:127.0.0.1:PORT), or
#                         none; wait until it listens.  Sets PF_DIR,
#                         PF_PORT (a free high port) and PF_MAILDIR.
#                         PF_MILTER_CF=FILE: main.cf's milter settings
#                         are FILE's lines instead (MILTER is ignored).
#                         PF_CHROOT=debian: the services as Debian's stock
#                         master.cf has them, smtpd and cleanup chrooted
#                         into the queue directory (PF_DIR/spool), which
#                         is filled as Debian's postfix service does it.
#   pf_send_local FILE    one message through sendmail(1), pickup and
#                         cleanup (non_smtpd_milters)
#   pf_chrooted NAME      0 when its process NAME (smtpd...) is chrooted
#   procs_in DIR          pids of the processes whose working folder is DIR
#   pf_stop               stop it; wait until every process it started
#                         is gone
#   pf_send FILE          one message with swaks (dialogue in FILE.smtp)
#   pf_delivered          how many messages the Maildir holds
#   pf_wait_delivered N [SECS]  wait until it holds N
#   milter_socket DIR unix|inet [NAME]  MILTER_SOCK, libmilter's spelling:
#                         DIR/NAME.sock or a free port
#   milter_start LOG PROG ARG...  start a milter that listens on
#                         MILTER_SOCK, output to LOG; wait until it
#                         accepts.  Sets MILTER_PID, MILTER_PF (Postfix's
#                         spelling of the socket).
#   milter_running        0 while that milter lives
#   milter_stop [PID...]  SIGTERM to that milter (or to PID...), wait,
#                         SIGKILL after 20 s
#   pa_make_archive DIR   a GnuPG key, the seed series signed into a
#                         Maildir archive, indexed; sets PA_CONF (DIR/
#                         pa.conf), PA_ARCHIVE, PA_GNUPG, PA_SIGNER
#   pa_sign ARCHIVE FILE...  one more document, for FILE..., delivered
#                         into the Maildir ARCHIVE
#   hdr_block FILE        a mail's header, continuation lines unfolded
#   readme_postfix        the README's Postfix milter settings, one a line
#   deb_conf_packaged     the patchattest.conf the Debian package installs
#   free_port             a free TCP port on 127.0.0.1
#   port_free PORT        0 when PORT on 127.0.0.1 is free
#   wait_port 127.0.0.1 PORT [SECS], wait_port unix PATH [SECS]
#                         wait until the socket accepts
#
# Needs root (Postfix drops to its own users), postfix, swaks (pf_send
# only), gpg (pa_*) and python3 ($PYTHON3).  pa_* run the CLI:
# $PATCHATTEST, with the seeds under $srcdir/tests/fixtures.

: "${PYTHON3:=python3}"
PF_DIR=
PF_MASTER=
MILTER_PID=

# pf_usable - root and the programs are there; PF_WHY says what is not
pf_usable() {
	PF_WHY=
	if [ "$(id -u)" -ne 0 ]; then
		PF_WHY="not root (a private Postfix must start as root)"
	elif ! command -v postfix >/dev/null 2>&1 ||
	    ! command -v postconf >/dev/null 2>&1; then
		PF_WHY="postfix is not installed"
	elif ! command -v "$PYTHON3" >/dev/null 2>&1; then
		PF_WHY="python3 is not installed"
	fi
	[ -z "$PF_WHY" ]
}

# Debian's postfix package: its stock master.cf, and the script its
# postfix service runs before Postfix starts, which copies what chrooted
# daemons need (resolv.conf, hosts, localtime, NSS libraries...) into the
# queue directory.  The environment may name others.
: "${PF_DEBIAN_MASTER:=/usr/share/postfix/master.cf.dist}"
: "${PF_DEBIAN_SETUP:=/usr/lib/postfix/configure-instance.sh}"

# pf_debian_usable - PF_CHROOT=debian can run here; PF_WHY says why not
pf_debian_usable() {
	PF_WHY=
	for _f in "$PF_DEBIAN_MASTER" "$PF_DEBIAN_SETUP"; do
		if [ ! -f "$_f" ]; then
			PF_WHY="not Debian's postfix package: $_f is missing"
			break
		fi
	done
	[ -z "$PF_WHY" ]
}

# pf_master_debian: the services the tests use, each line as Debian's
# stock master.cf has it (the chroot column included), smtpd on
# 127.0.0.1:PF_PORT
pf_master_debian() {
	awk -v port="$PF_PORT" '
	    BEGIN { n = split("smtp pickup cleanup qmgr rewrite bounce " \
		"defer trace verify flush proxymap showq error retry " \
		"discard relay local virtual anvil scache postlog", s, " ")
		for (i = 1; i <= n; i++) want[s[i]] = 1 }
	    /^[a-z]/ && ($1 in want) {
		if ($1 == "smtp" && $2 == "inet")
			$1 = "127.0.0.1:" port
		print }' "$PF_DEBIAN_MASTER"
}

# port_free PORT: 0 when nothing listens on 127.0.0.1:PORT
port_free() {
	"$PYTHON3" - "$1" <<'EOT'
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
try:
    s.bind(("127.0.0.1", int(sys.argv[1])))
except OSError:
    sys.exit(1)
EOT
}

free_port() {
	"$PYTHON3" -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

# wait_port HOST PORT [SECS] or wait_port unix PATH [SECS]
wait_port() {
	"$PYTHON3" - "$1" "$2" "${3:-30}" <<'EOT'
import socket, sys, time
kind, where, secs = sys.argv[1], sys.argv[2], float(sys.argv[3])
end = time.monotonic() + secs
while True:
    try:
        if kind == "unix":
            s = socket.socket(socket.AF_UNIX)
            s.connect(where)
        else:
            s = socket.create_connection((kind, int(where)), 1)
        s.close()
        sys.exit(0)
    except OSError:
        if time.monotonic() > end:
            sys.exit(1)
        time.sleep(0.05)
EOT
}

# pf_start DIR [MILTER]
pf_start() {
	PF_DIR=$1
	PF_PORT=$(free_port) || return 1
	PF_MAILDIR=$PF_DIR/mail/inbox
	mkdir -p "$PF_DIR/etc" "$PF_DIR/spool" "$PF_DIR/data" "$PF_DIR/log" \
	    "$PF_DIR/mail" || return 1
	# Postfix's users must reach the queue and the mailbox.
	chmod 755 "$PF_DIR"
	chown postfix "$PF_DIR/data"
	chown 65534:65534 "$PF_DIR/mail"
	cat >"$PF_DIR/etc/main.cf" <<EOF
compatibility_level = 3.6
queue_directory = $PF_DIR/spool
data_directory = $PF_DIR/data
maillog_file_prefixes = $PF_DIR
maillog_file = $PF_DIR/log/maillog
myhostname = mx.test.example
inet_interfaces = loopback-only
inet_protocols = ipv4
mynetworks = 127.0.0.0/8
mydestination =
alias_maps =
alias_database =
biff = no
smtpd_relay_restrictions = permit_mynetworks, reject
smtpd_error_sleep_time = 0
virtual_mailbox_domains = test.example
virtual_mailbox_base = $PF_DIR/mail
virtual_mailbox_maps = static:inbox/
virtual_uid_maps = static:65534
virtual_gid_maps = static:65534
EOF
	if [ -n "${PF_MILTER_CF:-}" ]; then
		cat "$PF_MILTER_CF" >>"$PF_DIR/etc/main.cf" || return 1
	else
		cat >>"$PF_DIR/etc/main.cf" <<EOF
smtpd_milters = ${2:-}
non_smtpd_milters = \$smtpd_milters
milter_default_action = tempfail
EOF
	fi
	if [ "${PF_CHROOT:-}" = debian ]; then
		pf_master_debian >"$PF_DIR/etc/master.cf" &&
		    grep -q "^127\.0\.0\.1:$PF_PORT inet " \
		    "$PF_DIR/etc/master.cf" || {
			echo "# no smtpd in $PF_DEBIAN_MASTER" >&2
			return 1
		}
		# "-": the default instance, here the one MAIL_CONFIG names;
		# -e as its first line says.
		MAIL_CONFIG=$PF_DIR/etc sh -e "$PF_DEBIAN_SETUP" - \
		    >"$PF_DIR/log/chroot" 2>&1 || {
			echo "# $PF_DEBIAN_SETUP failed:" >&2
			sed 's/^/#   /' "$PF_DIR/log/chroot" >&2
			return 1
		}
	else
		# From scratch: nothing chrooted, only what the tests use.
		cat >"$PF_DIR/etc/master.cf" <<EOF
127.0.0.1:$PF_PORT inet n - n - - smtpd
pickup    unix  n - n 60 1 pickup
cleanup   unix  n - n -  0 cleanup
qmgr      unix  n - n 300 1 qmgr
rewrite   unix  - - n -  - trivial-rewrite
bounce    unix  - - n -  0 bounce
defer     unix  - - n -  0 bounce
trace     unix  - - n -  0 bounce
verify    unix  - - n -  1 verify
flush     unix  n - n 1000? 0 flush
proxymap  unix  - - n -  - proxymap
showq     unix  n - n -  - showq
error     unix  - - n -  - error
retry     unix  - - n -  - error
discard   unix  - - n -  - discard
smtp      unix  - - n -  - smtp
relay     unix  - - n -  - smtp
local     unix  - n n -  - local
virtual   unix  - n n -  - virtual
anvil     unix  - - n -  1 anvil
scache    unix  - - n -  1 scache
postlog   unix-dgram n - n - 1 postlogd
EOF
	fi
	# postfix(1) reports only to syslog or a terminal: keep its words.
	if ! postfix -c "$PF_DIR/etc" check >"$PF_DIR/log/start" 2>&1 ||
	    ! postfix -c "$PF_DIR/etc" start >>"$PF_DIR/log/start" 2>&1; then
		echo "# postfix did not start:" >&2
		sleep 1		# postlogd writes the reason a little later
		sed 's/^/#   /' "$PF_DIR/log/start" "$PF_DIR/log/maillog" \
		    2>/dev/null >&2
		return 1
	fi
	# Kept for pf_stop, should the configuration be gone by then.
	PF_MASTER=$(tr -d ' ' <"$PF_DIR/spool/pid/master.pid" 2>/dev/null)
	if ! wait_port 127.0.0.1 "$PF_PORT" 30; then
		echo "# postfix does not listen on $PF_PORT" >&2
		return 1
	fi
}

# procs_in DIR - pids of the processes working in DIR (Linux /proc), also
# when DIR was removed under them
procs_in() {
	for _p in /proc/[0-9]*; do
		case $(readlink "$_p/cwd" 2>/dev/null) in
		"$1" | "$1 (deleted)")
			echo "${_p#/proc/}" ;;
		esac
	done
	return 0
}

# pf_procs - pids of the processes working in our queue
pf_procs() {
	procs_in "$PF_DIR/spool"
}

# pf_chrooted NAME: 0 when a process NAME of our Postfix runs chrooted
# into its queue directory
pf_chrooted() {
	for _p in $(pf_procs); do
		[ "$(cat "/proc/$_p/comm" 2>/dev/null)" = "$1" ] &&
		    [ "$(readlink "/proc/$_p/root")" = "$PF_DIR/spool" ] &&
		    return 0
	done
	return 1
}

pf_stop() {
	[ -n "$PF_DIR" ] || return 0
	postfix -c "$PF_DIR/etc" stop >/dev/null 2>&1 ||
	    { [ -n "$PF_MASTER" ] && kill -TERM "$PF_MASTER" 2>/dev/null; }
	# master ends its children; wait for all of them, then insist.
	_i=0
	while [ -n "$(pf_procs)" ] && [ $_i -lt 100 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	for _p in $(pf_procs); do
		kill -KILL "$_p" 2>/dev/null
	done
	PF_DIR= PF_MASTER=
}

# pf_delivered - how many messages the Maildir holds
pf_delivered() {
	find "$PF_MAILDIR/new" "$PF_MAILDIR/cur" -type f 2>/dev/null |
	    wc -l | tr -d ' '
}

# pf_wait_delivered N [SECS]: 0 once N are there, 1 on timeout
pf_wait_delivered() {
	_i=0
	while [ "$(pf_delivered)" -lt "$1" ]; do
		[ $_i -ge $((${2:-60} * 10)) ] && return 1
		sleep 0.1
		_i=$((_i + 1))
	done
	return 0
}

# pf_send FILE: 0 when Postfix accepted it (swaks' dialogue in FILE.smtp)
pf_send() {
	swaks --server 127.0.0.1 --port "$PF_PORT" --from dev@example.org \
	    --to maint@test.example --data "$1" >"$1.smtp" 2>&1
}

# pf_send_local FILE: 0 when sendmail(1) queued it (its words in
# FILE.smtp)
pf_send_local() {
	"$(postconf -c "$PF_DIR/etc" -h sendmail_path)" -C "$PF_DIR/etc" \
	    -f dev@example.org maint@test.example <"$1" >"$1.smtp" 2>&1
}

# milter_socket DIR unix|inet [NAME] - MILTER_SOCK in libmilter's
# spelling: DIR/NAME.sock (NAME defaults to milter) or a free port
milter_socket() {
	case $2 in
	unix)	MILTER_SOCK=unix:$1/${3:-milter}.sock ;;
	inet)	MILTER_SOCK=inet:$(free_port)@127.0.0.1 ;;
	esac
}

# milter_start LOG PROG ARG...: PROG ARG... must listen on MILTER_SOCK
milter_start() {
	_log=$1
	shift
	"$@" >"$_log" 2>&1 &
	MILTER_PID=$!
	case $MILTER_SOCK in
	unix:* | local:*)
		MILTER_PF=unix:${MILTER_SOCK#*:}
		wait_port unix "${MILTER_SOCK#*:}" 30 ;;
	inet:*)
		_port=${MILTER_SOCK#inet:}
		_port=${_port%@*}
		MILTER_PF=inet:127.0.0.1:$_port
		wait_port 127.0.0.1 "$_port" 30 ;;
	esac || {
		echo "# the milter does not listen on $MILTER_SOCK:" >&2
		sed 's/^/#   /' "$_log" >&2
		return 1
	}
}

# milter_running: 0 while the milter we started is alive
milter_running() {
	[ -n "$MILTER_PID" ] && kill -0 "$MILTER_PID" 2>/dev/null
}

# milter_stop [PID...]: the milter we started last, or those PIDs;
# SIGTERM to all, then wait (libmilter takes a few seconds to notice),
# SIGKILL after 20 s
milter_stop() {
	if [ $# -eq 0 ]; then
		[ -n "$MILTER_PID" ] || return 0
		set -- "$MILTER_PID"
		MILTER_PID=
	fi
	kill -TERM "$@" 2>/dev/null
	_i=0
	for _p in "$@"; do
		while kill -0 "$_p" 2>/dev/null && [ $_i -lt 200 ]; do
			sleep 0.1
			_i=$((_i + 1))
		done
		kill -KILL "$_p" 2>/dev/null
		wait "$_p" 2>/dev/null
	done
}

# pa_make_archive DIR: as tests/t-verify.sh does it, by the CLI.  Sets
# PA_CONF (Archive, IndexPath, StateFile, GnuPGHome; the caller may append keys),
# PA_ARCHIVE (the Maildir), PA_GNUPG and PA_SIGNER.
pa_make_archive() {
	PA_GNUPG=$1/gnupg
	PA_ARCHIVE=$1/archive
	PA_CONF=$1/pa.conf
	PA_SIGNER=alice@example.org
	mkdir -m 700 "$PA_GNUPG" || return 1
	GNUPGHOME=$PA_GNUPG gpg --batch --quiet --passphrase '' \
	    --quick-gen-key "Alice Developer <$PA_SIGNER>" ed25519 sign never \
	    2>"$1/gpg.err" || { sed 's/^/#   /' "$1/gpg.err" >&2; return 1; }
	mkdir -p "$PA_ARCHIVE/new" "$PA_ARCHIVE/cur" "$PA_ARCHIVE/tmp"
	# Postfix's tests run as root, and so does their milter, knowingly.
	cat >"$PA_CONF" <<EOF
Archive $PA_ARCHIVE
IndexPath $1/index
StateFile $1/state.mdb
GnuPGHome $PA_GNUPG
TrustModel gpg
UserID root
EOF
	pa_sign "$PA_ARCHIVE" "$srcdir"/tests/fixtures/seeds/001-*.txt \
	    "$srcdir"/tests/fixtures/seeds/00[2-7]-*.patch || return 1
	"$PATCHATTEST" index -c "$PA_CONF" >"$1/index.out" 2>&1 &&
	    grep -q ' 6 attestations indexed' "$1/index.out" || {
		echo "# patchattest index:" >&2
		sed 's/^/#   /' "$1/index.out" >&2
		return 1
	}
}

# pa_sign ARCHIVE FILE...: a document for FILE... written into ARCHIVE/tmp
# and moved into new/, as a Maildir delivery does
pa_sign() {
	_arch=$1
	shift
	PA_SEQ=$((${PA_SEQ:-0} + 1))
	_name=$(date +%s).$$_$PA_SEQ.test
	"$PATCHATTEST" attest -c "$PA_CONF" -u "$PA_SIGNER" "$@" \
	    >"$_arch/tmp/$_name" 2>"$_arch.attest.err" &&
	    mv "$_arch/tmp/$_name" "$_arch/new/$_name" || {
		echo "# patchattest attest:" >&2
		sed 's/^/#   /' "$_arch.attest.err" >&2
		return 1
	}
}

# hdr_block FILE: the header of a mail, continuation lines unfolded
hdr_block() {
	awk '/^$/ { exit } /^[ \t]/ { sub(/^[ \t]+/, " "); line = line $0; next }
	    { if (NR > 1) print line; line = $0 } END { print line }' "$1"
}

# readme_postfix: the indented block of the README after the line
# "Postfix (`contrib/postfix/main.cf`)...", without its indent
readme_postfix() {
	awk '/^Postfix \(`contrib\/postfix\/main\.cf`\)/ { on = 1; next }
	    on && /^    [a-z]/ { sub(/^    /, ""); print; got = 1; next }
	    on && got { exit }' "$srcdir/README.md"
}

# deb_conf_packaged: conf/patchattest.conf as debian/rules changes it
deb_conf_packaged() {
	sed -f "$srcdir/contrib/debian/conf.sed" "$srcdir/conf/patchattest.conf"
}
