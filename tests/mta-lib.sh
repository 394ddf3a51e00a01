# SPDX-License-Identifier: BSD-2-Clause
# mta-lib.sh - the mail that the tests through a real MTA send, and how
# their delivered copies are read; sourced by t-postfix.sh and
# t-sendmail.sh after postfix-lib.sh and tap.sh.
#
#   msgs_make            the messages, in $T/msg: the seed series,
#                        tampered, unattested, forged headers, plain mail
#                        and, when patatt is installed, patatt-signed
#                        mail (its keyring added to $PA_CONF).  Sets
#                        names (the messages, one word each) and
#                        have_patatt.
#   want NAME            the header patchattest check --header gives
#   delivered NAME       the delivered copies of NAME, one file a line
#   result NAME          the result keyword in the delivered copy
#   verdict_field NAME   its X-Patch-Attested field on one line
#   check_all WHERE      every message delivered once with the header
#                        check --header gives, ours on top
#
# The caller sets T, seeds, PA_CONF, MSG_TAG (the domain of each
# Message-ID), MTA_ABOVE (a regular expression of the fields the MTA may
# put above ours at delivery) and defines mail_files, which lists the
# files of the delivered mail.

# mkmsg NAME FILE: FILE with a Message-ID header on top, as $T/msg/NAME
mkmsg() {
	{ printf 'Message-ID: <%s@%s>\n' "$1" "$MSG_TAG"; cat "$2"; } \
	    >"$T/msg/$1"
}
# forge NAME FILE: mkmsg, plus three forged X-Patch-Attested headers in
# three spellings: on top, after Subject and at the end of the header
forge() {
	mkmsg "$1" "$2"
	awk 'NR == 1 { print "X-Patch-Attested: pass; attid=bogus-1" }
	    !body && /^$/ { print "X-PATCH-ATTESTED: pass; attid=bogus-3";
		body = 1 }
	    { print }
	    !body && /^Subject:/ {
		print "x-patch-attested: pass; attid=bogus-2" }' \
	    "$T/msg/$1" >"$T/msg/$1.tmp" && mv "$T/msg/$1.tmp" "$T/msg/$1"
}
# msgs_make: the messages (see above); each gets a Message-ID of its own
# by which its delivered copy is found
msgs_make() {
	mkdir "$T/msg" || return 1
	for f in "$seeds"/00[1-7]-*; do
		b=$(basename "$f")
		mkmsg "seed-${b%%-*}" "$f"
	done
	sed 's/^Add a table to document/Add a tabel to document/' \
	    "$seeds"/002-*.patch >"$T/tampered.eml"
	mkmsg tampered "$T/tampered.eml"
	mkmsg unattested "$srcdir/tests/fixtures/mail/break-diff-u.eml"
	forge forged-none "$srcdir/tests/fixtures/mail/break-diff-u.eml"
	forge forged-pass "$seeds"/004-*.patch
	printf '%s\n' 'From: Someone <someone@example.org>' 'Subject: lunch' \
	    '' 'Noon?' >"$T/plain.eml"
	mkmsg plain "$T/plain.eml"
	forge forged-plain "$T/plain.eml"
	for m in forged-none forged-pass forged-plain; do
		expect "$m carries three forged headers" 3 "$(grep -c -i \
		    '^X-Patch-Attested: pass; attid=bogus' "$T/msg/$m")"
	done
	# a flood: 1,200 forged pass fields on seed 005 (once 200 were left)
	mkmsg forged-flood "$seeds"/005-*.patch
	awk 'NR == 1 { for (i = 1; i <= 1200; i++)
		printf "X-Patch-Attested: pass; attid=bogus-%d\n", i } { print }' \
	    "$T/msg/forged-flood" >"$T/msg/forged-flood.tmp" &&
	    mv "$T/msg/forged-flood.tmp" "$T/msg/forged-flood"
	expect "forged-flood carries 1,200 forged headers" 1200 "$(grep -c \
	    '^X-Patch-Attested: pass; attid=bogus' "$T/msg/forged-flood")"
	names="seed-001 seed-002 seed-003 seed-004 seed-005 seed-006 seed-007
	tampered unattested forged-none forged-pass plain forged-plain forged-flood"

	# Seed 002 signed by the real patatt tool (X-Developer-Signature), and
	# the same with a line of its diff changed, when Debian's patatt is
	# installed.
	. "$srcdir/tests/patatt-lib.sh"
	have_patatt=
	if patatt_setup "$T/patatt" &&
	    patatt_sign "$seeds"/002-*.patch "$T/patatt.eml"; then
		sed 's/^+ \* The decision process/+ * The decisive process/' \
		    "$T/patatt.eml" >"$T/patatt-fail.eml"
		mkmsg patatt "$T/patatt.eml"
		mkmsg patatt-fail "$T/patatt-fail.eml"
		echo "PatattKeyring $T/patatt/keyring" >>"$PA_CONF"
		names="$names patatt patatt-fail"
		have_patatt=yes
	fi
}

# want NAME: the header patchattest check --header gives, unfolded, or
# nothing for mail that is no patch
want() {
	"$PATCHATTEST" check -c "$PA_CONF" --header "$T/msg/$1" \
	    >"$T/want.hdr" 2>/dev/null
	grep -q '^X-Patch-Attested:' "$T/want.hdr" && hdr_block "$T/want.hdr"
}

# delivered NAME: the delivered copy of NAME (one file name a line)
delivered() {
	mail_files | xargs -r grep -l -i -F "Message-ID: <$1@$MSG_TAG>" \
	    2>/dev/null
}

# result NAME: the result keyword in the delivered copy of NAME
result() {
	f=$(delivered "$1" | head -n 1)
	[ -n "$f" ] && hdr_block "$f" | grep -i '^X-Patch-Attested:' |
	    sed 's/^[^:]*: *//' | cut -d';' -f1
}

# verdict_field NAME: the X-Patch-Attested field of the delivered copy of
# NAME on one line
verdict_field() {
	f=$(delivered "$1" | head -n 1)
	[ -n "$f" ] && hdr_block "$f" | awk '
	    /^X-Patch-Attested:/ { on = 1; printf "%s", $0; next }
	    on && /^[ \t]/ { printf "%s", $0; next }
	    { on = 0 }'
}

# check_all WHERE: every message delivered once, with the right header
check_all() {
	for m in $names; do
		files=$(delivered "$m")
		expect "$1: $m delivered once" 1 \
		    "$(printf '%s' "$files" | grep -c .)"
		f=$(printf '%s\n' "$files" | head -n 1)
		[ -n "$f" ] || continue
		hdr_block "$f" >"$T/got.hdr"
		expect "$1: $m has the header check --header gives" \
		    "$(want "$m")" \
		    "$(grep -i '^X-Patch-Attested:' "$T/got.hdr")"
		grep -q 'bogus' "$T/got.hdr"
		expect "$1: $m has no forged header left" 1 $?
		grep -q -i '^X-Patch-Attested:' "$T/got.hdr" || continue
		# Ours is the top header; only what the MTA adds at
		# delivery may precede it.
		top=$(grep -v -i -E "^($MTA_ABOVE):" \
		    "$T/got.hdr" | head -n 1 | cut -d: -f1)
		expect "$1: $m: X-Patch-Attested on top, above Received" \
		    X-Patch-Attested "$top"
	done
}

