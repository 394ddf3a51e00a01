#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# t-arrived - "patchattest arrived" on the seed series recorded as the
# milter records it (tests/arrival-record): the series as sent, as b4 am
# gives it back with review trailers collected (b4 is run offline on an
# mbox of the thread), with one line changed in the commit message or
# the diff, with a trailer removed, unknown mail, a Maildir, a Message-ID
# that arrived twice with different content (the attacker's copy after
# the genuine one, and before it), --json, a record whose
# fields hold what a terminal obeys, the exit statuses.  Skips the b4
# cases without b4.

: "${srcdir:=.}"
: "${top_builddir:=.}"
. "$srcdir/tests/tap.sh"
srcdir=$(cd "$srcdir" && pwd)
top_builddir=$(cd "$top_builddir" && pwd)
PATCHATTEST=${PATCHATTEST:-$top_builddir/patchattest}
RECORD="$top_builddir/tests/arrival-record"
workdir_make t-arrived
cd "$T" || exit 1

printf 'StateFile %s/state.mdb\n' "$T" >conf
printf 'StateFile %s/none.mdb\n' "$T" >conf-none

# The seeds have no Message-ID: each gets one, the patches as replies to
# the cover letter, as git send-email threads them; sN is seed N (0 is
# the cover letter), each an mbox of one mail.
i=0
for f in "$srcdir"/tests/fixtures/seeds/*; do
	{
		echo "From sender@example.org Mon Feb 24 21:13:00 2020"
		echo "Message-ID: <s$i@seed.example>"
		if [ $i -gt 0 ]; then
			echo "In-Reply-To: <s0@seed.example>"
			echo "References: <s0@seed.example>"
		fi
		echo "To: list@example.org"
		cat "$f"
		echo
	} >"s$i"
	i=$((i + 1))
done
cat s0 s1 s2 s3 s4 s5 s6 >series

"$RECORD" state.mdb 1582607000 pass s0 s1 s2 s3 s4 s5 s6 >rec.err 2>&1
setup $? "the seed series recorded" rec.err

# arrived ARGS...: the command's stdout in out, stderr in err, status rc
arrived() {
	"$PATCHATTEST" arrived "$@" >out 2>err
	rc=$?
}

# column N: field N of each line of out, space-separated
column() {
	cut -f "$1" out | tr '\n' ' ' | sed 's/ $//'
}

arrived -c conf --mbox series
expect "the series as sent: identical" \
    "identical identical identical identical identical identical identical" \
    "$(column 2)"
expect "the series as sent: exit 0" 0 "$rc"
expect "the arrival's time, verdict and key" \
    "arrived 2020-02-25T05:03:20Z, verdict pass, via -, by message-id" \
    "$(sed -n 2p out | cut -f 4)"

arrived -c conf s1 s2
expect "mail files: identical" "identical identical" "$(column 2)"

# One line of the commit message changed, one of the diff, the subject,
# a trailer removed.
sed 's/^preparation for changing the behavior\./preparation for a change./' s1 >msg
sed 's/^+ \*  exec-none : only PROT_EXEC/+ *  exec-none : any PROT_EXEC/' s1 >diff
sed 's/^Subject: \(.*\)Add table/Subject: \1Add a table/' s1 >subject
sed '/^Reviewed-by: Jason Gunthorpe/d' s1 >trailer
for f in msg diff subject trailer; do
	cmp -s s1 $f
	setup $((1 - $?)) "the copy $f is changed" /dev/null
done
arrived -c conf msg
expect "a changed commit message line: differs" \
    "differs	commit message" "$(cut -f 2,3 out)"
expect "a changed commit message line: exit 1" 1 "$rc"
arrived -c conf diff
expect "a changed diff line: differs" "differs	diff" "$(cut -f 2,3 out)"
arrived -c conf subject
expect "a changed subject: differs" "differs	author/subject" \
    "$(cut -f 2,3 out)"
arrived -c conf trailer
expect "a trailer removed is a change of the commit message" \
    "differs	commit message" "$(cut -f 2,3 out)"

# Unknown: another Message-ID and another diff.  By patch-id: the same
# patch without its Message-ID.
sed 's/s1@seed.example/other@seed.example/' diff >unknown
arrived -c conf unknown
expect "an unknown message: never-arrived" "never-arrived" "$(cut -f 2 out)"
expect "an unknown message: exit 2" 2 "$rc"
arrived -c conf unknown msg
expect "never arrived and differs: exit 1" 1 "$rc"
grep -v '^Message-ID:' s3 >noid
arrived -c conf noid
expect "without a Message-ID: found by its patch-id" \
    "identical by patch-id" "$(cut -f 2 out) $(cut -f 4 out | sed 's/.*, //')"

# A Message-ID longer than a record keeps (1000 bytes) is found by all
# of it: another one that shares its first 600 bytes is not it.
long=$(printf '%01000d' 0)
sed "s/^Message-ID: .*/Message-ID: <$long@seed.example>/" s4 >long
sed "s/^Message-ID: .*/Message-ID: <${long}1@seed.example>/" \
    unknown >long2
"$RECORD" state.mdb 1582607000 pass long >rec.err 2>&1
setup $? "a mail with a long Message-ID recorded" rec.err
arrived -c conf long long2
expect "a long Message-ID: found by all of it" \
    "identical message-id never-arrived" \
    "$(cut -f 2,4 out | sed 's/\t.*, by / /' | tr '\n' ' ' | sed 's/ $//')"

# A Maildir given as a folder: cur/ and new/, never tmp/.
mkdir -p md/cur md/new md/tmp
cp s2 md/new/1.host
cp msg md/cur/2.host:2,S
cp unknown md/tmp/3.host
arrived -c conf md
expect "a Maildir: each message of cur/ and new/" \
    "md/cur/2.host:2,S differs md/new/1.host identical" \
    "$(cut -f 1,2 out | sort | tr '\t\n' '  ' | sed 's/ $//')"

# --json: one object a line, each parsing, with its fields.
arrived -c conf --json --mbox series
expect "--json: 7 lines" 7 "$(wc -l <out | tr -d ' ')"
"${PYTHON3:-python3}" -m json.tool --json-lines out >/dev/null 2>json.err
ok $? "--json: each line parses"
diag json.err
got=$("${PYTHON3:-python3}" -c '
import json, sys
for line in open("out"):
	o = json.loads(line)
	print(o["name"], o["message_id"], o["result"], o["found_by"],
	    o["arrived"], o["verdict"], o["copies"], o["copy"],
	    o["copies_differ"], o["added_trailers"])
' | sed -n 2p)
expect "--json: the fields" "series:2 s1@seed.example identical message-id \
2020-02-25T05:03:20Z pass 1 1 False []" "$got"

# b4 am: the thread with a review of patch 1 and an ack of the cover
# letter, made into an mbox to apply with -l (Link:), -s (the
# maintainer's Signed-off-by) and -t (the cover letter's trailers on
# every patch).
b4_am() {
	HOME=$T XDG_CONFIG_HOME=$T/.config XDG_DATA_HOME=$T/.local \
	    XDG_CACHE_HOME=$T/.cache b4 am "$@" 2>>b4.err
}
if command -v b4 >/dev/null 2>&1; then
	printf '[user]\n\tname = Main Tainer\n\temail = mt@example.org\n' \
	    >.gitconfig
	{
		echo "From reviewer@example.org Tue Feb 25 10:00:00 2020"
		echo "From: Re Viewer <rv@example.org>"
		echo "To: list@example.org"
		echo "Subject: Re: [PATCH v4 1/6] x86/elf: Add table to" \
		    "document READ_IMPLIES_EXEC"
		echo "Date: Tue, 25 Feb 2020 10:00:00 +0000"
		echo "Message-ID: <review1@example.org>"
		echo "In-Reply-To: <s1@seed.example>"
		echo "References: <s0@seed.example> <s1@seed.example>"
		echo
		echo "On Mon, Feb 24, 2020 Kees Cook wrote:"
		echo "> Add a table to document the current behavior"
		echo
		echo "Reviewed-by: Re Viewer <rv@example.org>"
		echo
		echo "From acker@example.org Tue Feb 25 11:00:00 2020"
		echo "From: Ac Ker <ak@example.org>"
		echo "To: list@example.org"
		echo "Subject: Re: [PATCH v4 0/6] binfmt_elf: Update" \
		    "READ_IMPLIES_EXEC logic for modern CPUs"
		echo "Date: Tue, 25 Feb 2020 11:00:00 +0000"
		echo "Message-ID: <ack0@example.org>"
		echo "In-Reply-To: <s0@seed.example>"
		echo "References: <s0@seed.example>"
		echo
		echo "Acked-by: Ac Ker <ak@example.org>"
		echo
	} >replies
	cat series replies >thread
	mkdir b4out
	b4_am -l -s -t -m thread -o b4out
	setup $? "b4 am of the thread" b4.err
	b4mbx=$(ls b4out/*.mbx)
	arrived -c conf --mbox "$b4mbx"
	expect "b4 am: six patches, identical but for trailers" \
	    "$(echo identical-with-trailers identical-with-trailers \
	    identical-with-trailers identical-with-trailers \
	    identical-with-trailers identical-with-trailers)" "$(column 2)"
	expect "b4 am: exit 0" 0 "$rc"
	# In the order of the mail (b4's), compared as a set.
	arrived -c conf --json --mbox "$b4mbx"
	expect "b4 am: the trailers added to patch 1, named" \
	    "Acked-by: Ac Ker <ak@example.org>|Link: https://lore.kernel.org/r/s1@seed.example|Reviewed-by: Re Viewer <rv@example.org>|Signed-off-by: Main Tainer <mt@example.org>" \
	    "$("${PYTHON3:-python3}" -c '
import json
o = json.loads(open("out").readline())
print("|".join(sorted(o["added_trailers"])))')"
	arrived -c conf b4out/*.cover
	expect "b4 am: its cover letter (subject folded anew): identical" \
	    identical "$(cut -f 2 out)"
	arrived -c conf --json --mbox "$b4mbx"
	"${PYTHON3:-python3}" -m json.tool --json-lines out >/dev/null
	ok $? "b4 am: --json parses"
	arrived -c conf --mbox "$b4mbx"
	expect "b4 am: the text line names them too" \
	    "added: Reviewed-by: Re Viewer <rv@example.org>, Acked-by: Ac Ker <ak@example.org>, Link: https://lore.kernel.org/r/s1@seed.example, Signed-off-by: Main Tainer <mt@example.org>" \
	    "$(sed -n 1p out | cut -f 3)"
	# A trailer of the commit message changed under b4's new ones.
	sed 's/^Reviewed-by: Jason Gunthorpe <jgg@mellanox.com>/Reviewed-by: Jason Gunthorpe <jgg@example.org>/' \
	    "$b4mbx" >b4changed
	arrived -c conf --mbox b4changed
	expect "b4 am, an arrived trailer changed: differs" \
	    "differs	commit message" "$(sed -n 1p out | cut -f 2,3)"
	# A series b4 cannot complete (patch 3 of 6 missing) is still
	# written: the patches it has are each what arrived.
	cat s0 s1 s2 s4 s5 s6 >incomplete
	b4_am -m incomplete -o - >incomplete.mbx
	setup $? "b4 am of an incomplete thread" b4.err
	arrived -c conf --mbox incomplete.mbx
	expect "b4 am of an incomplete series: the five identical" \
	    "identical identical identical identical identical" "$(column 2)"
else
	skip "b4 am cases" "b4 is not installed"
fi

# Two copies of one Message-ID with different content, the attacker's
# after the genuine one (from a host of its own): whichever copy a file
# matches, and when it matches none, the answer is copies-differ (exit
# 4), naming how the copies differ, and every copy is listed with where
# it came from and which one the file is.
"$RECORD" -fhost='mx.attacker.example [203.0.113.9]' \
    -fenvelope_from=mallory@attacker.example state.mdb 1582700000 none msg \
    >rec.err 2>&1
setup $? "a second copy of s1, with its commit message changed" rec.err
arrived -c conf s1 msg diff
expect "copies that differ: copies-differ, whatever the file matches" \
    "copies-differ copies-differ copies-differ" \
    "$(grep -v '^	' out | cut -f 2 | paste -s -d ' ')"
expect "... exit 4" 4 "$rc"
expect "... how the copies differ, how many, which one each file is" \
    "commit message	2 copies arrived, 2 kept, 1 differ from the first; this message is copy 1|commit message	2 copies arrived, 2 kept, 1 differ from the first; this message is copy 2|commit message	2 copies arrived, 2 kept, 1 differ from the first; this message is none of them (nearest: copy 1)" \
    "$(grep -v '^	' out | cut -f 3,4 | paste -s -d '|')"
expect "... each copy listed once a file, where it came from" \
    "	copy 1	2020-02-25T05:03:20Z	from -	host -	queue -	list -	dkim -	verdict pass	the same as the first	<- this message|	copy 2	2020-02-26T06:53:20Z	from mallory@attacker.example	host mx.attacker.example [203.0.113.9]	queue -	list -	dkim -	verdict none	differs from the first: commit message" \
    "$(sed -n 2,3p out | paste -s -d '|')"
expect "... the copy the file is marked" \
    "	copy 2	2020-02-26T06:53:20Z	from mallory@attacker.example	host mx.attacker.example [203.0.113.9]	queue -	list -	dkim -	verdict none	differs from the first: commit message	<- this message" \
    "$(sed -n 6p out)"
arrived -c conf --json s1
expect "... --json the same" \
    "copies-differ identical 2 2 1 ['commit message'] [1, 2] [True, False] ['', 'mx.attacker.example [203.0.113.9]']" \
    "$("${PYTHON3:-python3}" -c '
import json
o = json.load(open("out"))
c = o["copy_list"]
print(o["result"], o["match"], o["copies_arrived"], o["copies_kept"],
    o["copies_differing"], o["copies_differ_in"], [x["copy"] for x in c],
    [x["matches"] for x in c], [x["host"] for x in c])')"

# The attacker's copy before the genuine one: the genuine mail is copy 2,
# and the answer the same.
for f in s3 diff; do
	sed 's/^Message-ID: .*/Message-ID: <early@seed.example>/' $f >early-$f
done
"$RECORD" -fhost='mx.attacker.example [203.0.113.9]' state.mdb 1582700100 \
    none early-diff >rec.err 2>&1 &&
    "$RECORD" state.mdb 1582700200 pass early-s3 >>rec.err 2>&1
setup $? "a forged copy recorded before the genuine one" rec.err
arrived -c conf early-s3
expect "the forged copy first: copies-differ, the genuine one is copy 2" \
    "4 copies-differ	author/subject, commit message, diff	2 copies arrived, 2 kept, 1 differ from the first; this message is copy 2" \
    "$rc $(head -1 out | cut -f 2-4)"

# Copies that are one mail are no alarm: identical, exit 0.
"$RECORD" state.mdb 1582700300 pass s2 >rec.err 2>&1
setup $? "a second copy of s2, the same" rec.err
arrived -c conf s2
expect "copies the same: identical, exit 0" \
    "0 identical; 2 copies arrived, matches copy 1" \
    "$rc $(cut -f 2 out); $(cut -f 4 out | sed 's/.*; //')"

# A record written from a hostile mail: ESC and CSI, CR, BEL, C1 controls
# as UTF-8 (U+0085, U+009B), a bare 0x9b byte, bytes that are not UTF-8,
# a tab and a line end in its List-Id, subject, author, envelope sender,
# identity and key, and a verdict with CSI.  The text line escapes each
# byte (no control byte nor invalid UTF-8 reaches the terminal, no field
# spills into a column or a line of its own); --json stays valid.
bad=$(printf 'x\033[2K\rOWNED\302\205\302\233\233\377\300\200\tT\nN\007y')
esc='x\x1b[2K\x0dOWNED\xc2\x85\xc2\x9b\x9b\xff\xc0\x80\x09T\x0aN\x07y'
sed 's/^Message-ID: .*/Message-ID: <hostile@seed.example>/' s2 >hostile
"$RECORD" "-s$bad,$bad" "-flist_id=$bad" "-fsubject=$bad" "-fauthor=$bad" \
    "-fenvelope_from=$bad" state.mdb 1582607000 \
    "$(printf 'pass\033[2J\233')" hostile >rec.err 2>&1
setup $? "a record of hostile bytes written" rec.err
arrived -c conf hostile
expect "hostile bytes: one line of four columns, escaped" \
    "1 4 arrived 2020-02-25T05:03:20Z, verdict pass\\x1b[2J\\x9b, via $esc, by message-id" \
    "$(wc -l <out | tr -d ' ') $(awk -F '\t' '{ print NF }' out) \
$(cut -f 4 out)"
"${PYTHON3:-python3}" -c '
import re, sys
text = open("out", "rb").read().decode("utf-8")
sys.exit(re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f]", text) is not None)'
ok $? "hostile bytes: stdout is UTF-8 without a control byte but tab and LF"
arrived -c conf --json hostile
expect "hostile bytes: --json parses, control bytes dropped, the others named" \
    'x[2KOWNED\xc2\x85\xc2\x9b\x9b\xff\xc0\x80TNy pass[2J\x9b' \
    "$("${PYTHON3:-python3}" -c '
import json
o = json.load(open("out"))
print(o["list"], o["verdict"])')"

# Faults: no ledger, StateFile off, no operand, an unknown option, an unreadable file.
arrived -c conf-none s1
expect "no ledger: exit 3" 3 "$rc"
grep -q "none.mdb" err
ok $? "no ledger: the file is named"
printf 'StateFile ""\n' >conf-off
arrived -c conf-off s1
expect "StateFile turned off: exit 3" 3 "$rc"
grep -q "no StateFile" err
ok $? "StateFile turned off: said so"
arrived -c conf
expect "no FILE: exit 3" 3 "$rc"
arrived --bogus s1
expect "an unknown option: exit 3" 3 "$rc"
arrived -c conf s4 nosuchfile
expect "an unreadable file among good ones: exit 3" 3 "$rc"
expect "... the others still read" identical "$(cut -f 2 out)"
arrived --help
expect "--help: exit 0" 0 "$rc"
grep -q '^usage: patchattest arrived ' out
ok $? "--help: the usage on stdout"

tap_end
