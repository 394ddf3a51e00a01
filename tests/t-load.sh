#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# t-load.sh - patchattest-milter under load behind a real Postfix: 2,000
# messages over 50 parallel SMTP sessions (attested, tampered, unattested,
# forged and plain mail), while documents are added to the archive
# (ArchiveRefresh 1) and the milter is sent SIGHUP half-way, with
# AuthservID added to its configuration.  Every
# message must be delivered exactly once, each patch with exactly one
# X-Patch-Attested header, plain mail with none, and the milter must
# still run afterwards.
#
# Needs root (for the private Postfix), postfix, gpg, python3 and the
# milter; says it skipped otherwise.  LOAD_COUNT and LOAD_SESSIONS change
# the load; PA_TEST_KEEP=1 keeps the temporary directory.

: "${PATCHATTEST:?PATCHATTEST must name the built binary}"
: "${srcdir:=.}"
: "${top_builddir:=.}"
MILTER=${PATCHATTEST_MILTER:-$top_builddir/patchattest-milter}
COUNT=${LOAD_COUNT:-2000}
SESSIONS=${LOAD_SESSIONS:-50}
seeds=$srcdir/tests/fixtures/seeds
mail=$srcdir/tests/fixtures/mail
. "$srcdir/tests/postfix-lib.sh"

if ! pf_usable; then
	echo "1..0 # SKIP $PF_WHY"
	exit 0
fi
if ! command -v gpg >/dev/null 2>&1; then
	echo "1..0 # SKIP gpg is not installed"
	exit 0
fi
if [ ! -x "$MILTER" ]; then
	echo "1..0 # SKIP $MILTER is not built"
	exit 0
fi

T=$(mktemp -d "${TMPDIR:-/tmp}/t-load.XXXXXX") || exit 1
chmod 755 "$T"		# Postfix's users reach the queue and the socket
LOADER=
cleanup() {
	[ -n "$LOADER" ] && kill "$LOADER" 2>/dev/null
	pf_stop
	milter_stop
	gpgconf --homedir "$T/gnupg" --kill all 2>/dev/null
	[ -n "${PA_TEST_KEEP:-}" ] || rm -rf "$T"
}
trap cleanup 0
trap 'exit 1' HUP INT TERM

. "$srcdir/tests/tap.sh"

lines() {
	if [ -f "$1" ]; then wc -l <"$1" | tr -d ' '; else echo 0; fi
}

pa_make_archive "$T"
ok $? "a key, the seed series signed, a Maildir archive indexed"
cat >>"$PA_CONF" <<EOF
UMask 000
Syslog no
ArchiveRefresh 1
EOF

# --- the templates: smtp-load.py reads the expected result from the name --
tpl=$T/tpl
mkdir "$tpl"
for f in "$seeds"/00[2-7]-*.patch; do
	b=$(basename "$f")
	cp "$f" "$tpl/pass-${b%%-*}"
done
# Three forged copies of the header on an attested patch.
awk 'NR == 1 { print "X-Patch-Attested: pass; attid=bogus-1" }
    !body && /^$/ { print "x-patch-attested: pass; attid=bogus-3"; body = 1 }
    { print }
    !body && /^Subject:/ { print "X-PATCH-ATTESTED: fail; attid=bogus-2" }' \
    "$seeds"/003-*.patch >"$tpl/pass-forged"
sed 's/^Add a table to document/Add a tabel to document/' \
    "$seeds"/002-*.patch >"$tpl/fail-commit-message"
sed 's/^+ \* The decision process/+ * The decisive process/' \
    "$seeds"/002-*.patch >"$tpl/fail-diff"
cp "$mail/break-diff-u.eml" "$tpl/none-break-diff-u"
cp "$mail/base64-76.eml" "$tpl/none-base64"
awk 'NR == 1 { print "X-Patch-Attested: pass; attid=bogus-1" } { print }' \
    "$tpl/none-base64" >"$tpl/none-forged"
cp "$seeds"/001-*.txt "$tpl/plain-cover-letter"
printf 'From: Someone <someone@example.org>\nSubject: lunch\n\nNoon?\n' \
    >"$tpl/plain-lunch"
awk 'NR == 1 { print "X-Patch-Attested: pass; attid=bogus-1" } { print }' \
    "$tpl/plain-lunch" >"$tpl/plain-forged"
# Patches whose documents are signed into the archive during the run.
for k in 1 2 3 4; do
	sed "s/^Subject: \[PATCH v4 1\/6\]/Subject: [PATCH v$((k + 4)) 1\/6]/" \
	    "$seeds"/002-*.patch >"$tpl/grow-$k"
done
notpatch=
for f in "$tpl"/pass-* "$tpl"/fail-* "$tpl"/none-* "$tpl"/grow-*; do
	"$PATCHATTEST" hash "$f" >/dev/null 2>&1 || notpatch="$notpatch $f"
done
expect "every template but the plain ones is a patch" "" "$notpatch"

# --- the run ---------------------------------------------------------------
milter_socket "$T" unix
milter_start "$T/milter.log" "$MILTER" -f -c "$PA_CONF" -p "$MILTER_SOCK"
ok $? "the milter listens on $MILTER_SOCK"
pf_start "$T/pf" "$MILTER_PF"
ok $? "Postfix listens on port $PF_PORT"

"$PYTHON3" "$srcdir/tests/smtp-load.py" send --port "$PF_PORT" \
    --sessions "$SESSIONS" --count "$COUNT" --out "$T/sent.tsv" \
    "$tpl"/* >"$T/load.out" 2>&1 &
LOADER=$!

# While it runs: a document every COUNT/5 answers, SIGHUP at COUNT/2.
# wait_answers N: 0 once N messages are answered, 1 if the loader ended
wait_answers() {
	while [ "$(lines "$T/sent.tsv")" -lt "$1" ]; do
		kill -0 "$LOADER" 2>/dev/null || return 1
		sleep 0.05
	done
}
signed=0
hup_at=
for k in 1 2 3 4; do
	wait_answers $((COUNT * k / 5)) || break
	pa_sign "$PA_ARCHIVE" "$tpl/grow-$k" && signed=$((signed + 1))
	if [ $k -eq 2 ]; then
		wait_answers $((COUNT / 2))
		# A reload that takes effect shows: Authentication-Results.
		echo "AuthservID t-load.test" >>"$PA_CONF"
		kill -HUP "$MILTER_PID" && hup_at=$(lines "$T/sent.tsv")
	fi
done
wait "$LOADER"
rc=$?
LOADER=
sed 's/^/# /' "$T/load.out"
expect "every one of $COUNT messages accepted" 0 "$rc"
awk -F'\t' '$3 != 250 { print "#   " $0 }' "$T/sent.tsv" | head -n 10
expect "four documents signed into the archive during the run" 4 "$signed"
[ -n "$hup_at" ] && [ "$hup_at" -lt "$COUNT" ]
ok $? "SIGHUP sent while the load ran (after ${hup_at:-?} answers)"

pf_wait_delivered "$(awk -F'\t' '$3 == 250' "$T/sent.tsv" | wc -l)" 300
ok $? "Postfix delivered every accepted message"
"$PYTHON3" "$srcdir/tests/smtp-load.py" audit "$T/sent.tsv" \
    "$PF_MAILDIR" >"$T/audit.out"
ok $? "each delivered exactly once; one X-Patch-Attested on each patch"
sed 's/^/# /' "$T/audit.out"
milter_running
ok $? "the milter still runs after the load and SIGHUP"

# The documents added during the run are in use now: after a refresh
# (a second) the grown patches pass.
sleep 2
rm -rf "$PF_MAILDIR"/new/* "$PF_MAILDIR"/cur/*
"$PYTHON3" "$srcdir/tests/smtp-load.py" send --port "$PF_PORT" \
    --sessions 2 --count 4 --tag after --out "$T/after.tsv" \
    "$tpl"/grow-* >/dev/null 2>&1
ok $? "the grown patches sent once more"
pf_wait_delivered 4 60
# Now they must pass: the audit reads the wanted result from the name.
awk 'BEGIN { FS = OFS = "\t" } { sub(/^grow-/, "pass-", $2); print }' \
    "$T/after.tsv" >"$T/after-pass.tsv"
"$PYTHON3" "$srcdir/tests/smtp-load.py" audit "$T/after-pass.tsv" \
    "$PF_MAILDIR" >"$T/audit-after.out" &&
    grep -q '^accepted 4$' "$T/audit-after.out"
ok $? "the documents added during the run make them pass"
sed 's/^/# /' "$T/audit-after.out" | grep -v ' 0$'
expect "the reloaded configuration is in force (AuthservID)" 4 \
    "$(cat "$PF_MAILDIR"/new/* 2>/dev/null | grep -c \
    '^Authentication-Results: t-load.test; x-patch-attest=pass')"

pf_stop
milter_running
ok $? "the milter still runs after Postfix went away"
milter_stop
grep -E 'AddressSanitizer|runtime error|fatal|assert' "$T/milter.log" |
    head -n 20 | sed 's/^/#   /'

tap_end
