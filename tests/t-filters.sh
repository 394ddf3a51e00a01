#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# t-filters.sh - the mailbox rules in contrib/ (procmail recipe, Sieve
# script) run on mail as patchattest-milter leaves it: a GnuPG key made
# here, the seed series signed with "patchattest attest" into a Maildir
# archive and indexed, then each message given the header that
# "patchattest check --header" prints (the milter's, at the very top) and
# delivered by procmail and by Dovecot's sieve-test into Maildirs.
#
#   pass          seed 002 as published         -> .patches.attested/
#   fail          seed 002 with its diff changed -> .patches.FAILED/, flagged
#   none          an unattested patch            -> the inbox
#   plain         mail that is no patch, no header -> the inbox
#   forged-fail   "fail" with a forged "pass" further down (as if no milter
#                 had removed it)               -> .patches.FAILED/
#   forged-none   "none" with a forged "pass" further down -> the inbox
#   unsigned      the unattested patch as the milter marks it when its
#                 author habitually signs (its "none" header with the
#                 verdict unsigned-by-signer) -> .patches.unsigned-by-signer/
#
# Needs gpg; the procmail part needs procmail, the Sieve part sieve-test
# (dovecot-sieve) and, as root, runuser: sieve-test refuses to run as
# root, so it runs as nobody.  A missing one is skipped with the reason.
# PATCHATTEST_KEEP=1 keeps the work directory.

: "${PATCHATTEST:?PATCHATTEST must name the built binary}"
: "${srcdir:=.}"
# procmail runs in MAILDIR, sieve-test as another user: absolute paths.
src=$(cd "$srcdir" && pwd) || exit 1
seeds=$src/tests/fixtures/seeds
recipe=$src/contrib/procmail/procmailrc
script=$src/contrib/sieve/patchattest.sieve

for prog in gpg gpgconf; do
	if ! command -v "$prog" >/dev/null 2>&1; then
		echo "1..0 # SKIP $prog is not installed"
		exit 0
	fi
done

. "$srcdir/tests/tap.sh"
T=$(mktemp -d "${TMPDIR:-/tmp}/t-filters.XXXXXX") || exit 1
trap workdir_release 0
trap 'exit 1' HUP INT TERM
# sieve-test runs as nobody when we are root: it must reach the messages
# and the script, but may write only its own Maildirs.
chmod 755 "$T"

# --- a key, the seed series attested and indexed -------------------------
mkdir -m 700 "$T/gnupg"
GNUPGHOME=$T/gnupg gpg --batch --quiet --passphrase '' --quick-gen-key \
    'Alice Developer <alice@example.org>' ed25519 sign never \
    >"$T/gpg.log" 2>&1
setup $? "make a signing key" "$T/gpg.log"
mkdir -p "$T/archive/new" "$T/archive/cur" "$T/archive/tmp"
cat >"$T/pa.conf" <<EOF
Archive $T/archive
IndexPath $T/index
StateFile $T/state.mdb
GnuPGHome $T/gnupg
TrustModel keyring
EOF
"$PATCHATTEST" attest -c "$T/pa.conf" -u alice@example.org \
    "$seeds"/001-*.txt "$seeds"/00[2-7]-*.patch \
    >"$T/archive/new/1.eml" 2>"$T/attest.log"
setup $? "attest the seed series" "$T/attest.log"
"$PATCHATTEST" index -c "$T/pa.conf" >"$T/index.log" 2>&1
setup $? "index the archive" "$T/index.log"

# --- the messages, as the milter annotates them --------------------------
M=$T/msg
mkdir "$M"
cp "$seeds"/002-*.patch "$M/pass.raw"
sed 's/^+ \* The decision process/+ * The decisive process/' \
    "$seeds"/002-*.patch >"$M/fail.raw"
cp "$src/tests/fixtures/mail/break-diff-u.eml" "$M/none.raw"
printf 'From: Bob <bob@example.org>\nSubject: lunch\n\nNot a patch.\n' \
    >"$M/plain.raw"
# forge FILE: the mail with "X-Patch-Attested: pass" as its second header
# line, where a sender would have written it
forge() {
	awk 'NR == 2 {
		print "X-Patch-Attested: pass; attid=2a02abe0-215cf3f1-2acb5798"
	} { print }' "$1"
}
forge "$M/fail.raw" >"$M/forged-fail.raw"
forge "$M/none.raw" >"$M/forged-none.raw"

# annotate NAME: NAME.eml is NAME.raw under the header the milter adds;
# prints that header's verdict ("" without one)
annotate() {
	"$PATCHATTEST" check -c "$T/pa.conf" --header "$M/$1.raw" \
	    >"$M/$1.hdr" 2>"$M/$1.err"
	cat "$M/$1.hdr" "$M/$1.raw" >"$M/$1.eml"
	sed -n '1s/^X-Patch-Attested: \([a-z]*\).*/\1/p' "$M/$1.hdr"
}
expect "pass: the milter's verdict" pass "$(annotate pass)"
expect "fail: the milter's verdict" fail "$(annotate fail)"
expect "none: the milter's verdict" none "$(annotate none)"
expect "plain: no header for mail that is no patch" "" "$(annotate plain)"
expect "forged-fail: the milter's verdict on top" fail "$(annotate forged-fail)"
expect "forged-none: the milter's verdict on top" none "$(annotate forged-none)"
# the milter's signer memory: "patchattest check" has none, so the header
# is none's with the verdict the milter would have put in its place
sed '1s/^X-Patch-Attested: none;/X-Patch-Attested: unsigned-by-signer;/' \
    "$M/none.eml" >"$M/unsigned.eml"
expect "unsigned: the milter's verdict" unsigned-by-signer \
    "$(sed -n '1s/^X-Patch-Attested: \([a-z-]*\);.*/\1/p' "$M/unsigned.eml")"
expect "forged-fail: the forged copy is there, further down" 2 \
    "$(grep -c '^X-Patch-Attested:' "$M/forged-fail.eml")"
chmod 644 "$M"/*

# folder MAILDIR: where the one message in MAILDIR went: "." for the
# inbox, ".NAME" for a folder; "N messages" when not exactly one
folder() {
	(cd "$1" && find . -type f \( -path '*/new/*' -o -path '*/cur/*' \)) \
	    >"$T/found"
	if [ "$(wc -l <"$T/found")" -ne 1 ]; then
		echo "$(wc -l <"$T/found" | tr -d ' ') messages"
		return
	fi
	sed 's|/[^/]*/[^/]*$||' "$T/found"
}
# msgfile MAILDIR: the path of that one message
msgfile() {
	find "$1" -type f \( -path '*/new/*' -o -path '*/cur/*' \) | head -n 1
}

# --- procmail ------------------------------------------------------------
# The recipe takes the verdict from the topmost X-Patch-Attested header
# only (procmail's search finds the first match), so a forged copy further
# down decides nothing: forged-fail is filed as fail, forged-none is left
# in the inbox.  A plain "* ^X-Patch-Attested: pass" would match the forged
# copies; the milter's stripping is what protects such recipes.
# procmail_run NAME [PATH]: deliver NAME.eml into $T/pm-NAME (PATH: the
# programs procmail may find)
procmail_run() {
	mkdir "$T/pm-$1"
	{
		# The recipe's filter runs in $SHELL, which procmail takes from
		# the environment here (from the account when it delivers);
		# nobody's is nologin.
		echo 'SHELL=/bin/sh'
		echo "MAILDIR=$T/pm-$1"
		echo 'DEFAULT=$MAILDIR/'
		echo "LOGFILE=$T/pm-$1.log"
		echo 'VERBOSE=yes'
		if [ -n "$2" ]; then
			echo "PATH=$2"
		fi
		echo "INCLUDERC=$recipe"
	} >"$T/pm-$1.rc"
	procmail -m "$T/pm-$1.rc" <"$M/$1.eml" >>"$T/pm-$1.log" 2>&1
}
subject() {
	sed -n '/^$/q; s/^Subject: //p' "$1"
}
if ! command -v procmail >/dev/null 2>&1; then
	skip "procmail" "procmail is not installed"
else
	for m in pass fail none plain forged-fail forged-none unsigned; do
		procmail_run $m
		ok $? "procmail: $m delivered"
	done
	expect "procmail: pass is filed into .patches.attested/" \
	    ./.patches.attested "$(folder "$T/pm-pass")"
	cmp -s "$M/pass.eml" "$(msgfile "$T/pm-pass")"
	ok $? "procmail: pass is filed unchanged"
	expect "procmail: fail is filed into .patches.FAILED/" \
	    ./.patches.FAILED "$(folder "$T/pm-fail")"
	expect "procmail: fail has its subject tagged" \
	    "[ATTESTATION FAILED] $(subject "$M/fail.eml")" \
	    "$(subject "$(msgfile "$T/pm-fail")")"
	expect "procmail: none is left to the default (the inbox)" \
	    . "$(folder "$T/pm-none")"
	expect "procmail: plain mail is left to the default" \
	    . "$(folder "$T/pm-plain")"
	expect "procmail: unsigned-by-signer is filed into .patches.unsigned-by-signer/" \
	    ./.patches.unsigned-by-signer "$(folder "$T/pm-unsigned")"
	expect "procmail: forged-fail is filed by the topmost header: .patches.FAILED/" \
	    ./.patches.FAILED "$(folder "$T/pm-forged-fail")"
	expect "procmail: forged-none is filed by the topmost header: the inbox" \
	    . "$(folder "$T/pm-forged-none")"
	# Without formail the subject cannot be tagged; the mail is still
	# filed.  Only sh on PATH (procmail starts it by its full name).
	mkdir "$T/nobin"
	cp "$M/fail.eml" "$M/fail-noformail.eml"
	procmail_run fail-noformail "$T/nobin"
	ok $? "procmail without formail: fail delivered"
	expect "procmail without formail: fail is still filed into .patches.FAILED/" \
	    ./.patches.FAILED "$(folder "$T/pm-fail-noformail")"
	expect "procmail without formail: the subject is left as it was" \
	    "$(subject "$M/fail.eml")" \
	    "$(subject "$(msgfile "$T/pm-fail-noformail")")"
fi

# --- Sieve (sieve-test from dovecot-sieve) -------------------------------
# "header :index 1" looks at the topmost header only: forged-fail is filed
# and flagged as fail, forged-none stays in the inbox.
sieve_why=
run_as=
if ! command -v sieve-test >/dev/null 2>&1; then
	sieve_why="sieve-test is not installed (dovecot-sieve)"
elif [ "$(id -u)" -eq 0 ]; then
	if command -v runuser >/dev/null 2>&1 && id nobody >/dev/null 2>&1; then
		run_as="runuser -u nobody --"
	else
		sieve_why="sieve-test refuses root, and runuser or nobody is missing"
	fi
fi
if [ -n "$sieve_why" ]; then
	skip "sieve" "$sieve_why"
else
	# A copy of the script, where sieve-test may save its compiled
	# form (never into the source tree).
	mkdir "$T/sieve"
	cp "$script" "$T/sieve/patchattest.sieve"
	# Dovecot's defaults, spelled out so that the system's dovecot.conf
	# does not matter: Maildir++ with "." between folder names.
	cat >"$T/sieve/dovecot.conf" <<EOF
namespace inbox {
  inbox = yes
  separator = .
}
EOF
	chmod 644 "$T/sieve"/*
	[ -n "$run_as" ] && chown nobody "$T/sieve"
	# sieve_run NAME: deliver NAME.eml into $T/sv-NAME
	sieve_run() {
		mkdir "$T/sv-$1"
		[ -n "$run_as" ] && chown nobody "$T/sv-$1"
		# In $T: nobody may not write there.
		(cd "$T" && $run_as sieve-test -c "$T/sieve/dovecot.conf" -e \
		    -l "maildir:$T/sv-$1" "$T/sieve/patchattest.sieve" \
		    "$M/$1.eml") >"$T/sv-$1.log" 2>&1
	}
	for m in pass fail none plain forged-fail forged-none unsigned; do
		sieve_run $m
		st=$?
		ok $st "sieve: $m delivered"
		[ $st -eq 0 ] || diag "$T/sv-$m.log"
	done
	expect "sieve: pass is filed into patches.attested" \
	    ./.patches.attested "$(folder "$T/sv-pass")"
	case $(msgfile "$T/sv-pass") in
	*:2,*F*) ok 1 "sieve: pass is not flagged" ;;
	*) ok 0 "sieve: pass is not flagged" ;;
	esac
	expect "sieve: fail is filed into patches.FAILED" \
	    ./.patches.FAILED "$(folder "$T/sv-fail")"
	# Maildir keeps flags in the file name: ":2," then the letters.
	case $(msgfile "$T/sv-fail") in
	*:2,*F*) ok 0 "sieve: fail is flagged" ;;
	*) ok 1 "sieve: fail is flagged"
	   echo "#   file: $(msgfile "$T/sv-fail")" ;;
	esac
	expect "sieve: none stays in the inbox" . "$(folder "$T/sv-none")"
	expect "sieve: plain mail stays in the inbox" . "$(folder "$T/sv-plain")"
	expect "sieve: unsigned-by-signer is filed into patches.unsigned-by-signer" \
	    ./.patches.unsigned-by-signer "$(folder "$T/sv-unsigned")"
	case $(msgfile "$T/sv-unsigned") in
	*:2,*F*) ok 0 "sieve: unsigned-by-signer is flagged" ;;
	*) ok 1 "sieve: unsigned-by-signer is flagged" ;;
	esac
	expect "sieve: forged-fail is filed by the topmost header: patches.FAILED" \
	    ./.patches.FAILED "$(folder "$T/sv-forged-fail")"
	case $(msgfile "$T/sv-forged-fail") in
	*:2,*F*) ok 0 "sieve: forged-fail is flagged" ;;
	*) ok 1 "sieve: forged-fail is flagged" ;;
	esac
	expect "sieve: forged-none is filed by the topmost header: the inbox" \
	    . "$(folder "$T/sv-forged-none")"
fi

tap_end
