#!/bin/sh
# t-milter-cli.sh - patchattest-milter's command line: -V, -n on the
# shipped configuration and on a bad one (every problem listed, with file
# and line), usage errors, and a socket it cannot open.

: "${PATCHATTEST_MILTER:?PATCHATTEST_MILTER must name the built milter}"
: "${srcdir:=.}"
M=$PATCHATTEST_MILTER

T=$(mktemp -d "${TMPDIR:-/tmp}/t-milter-cli.XXXXXX") || exit 1
trap 'rm -rf "$T"' 0
trap 'exit 1' HUP INT TERM

. "$srcdir/tests/tap.sh"

"$M" -V >"$T/out" 2>&1
ok $? "-V exits 0"
grep -q '^patchattest-milter [0-9]' "$T/out"
ok $? "-V prints the version"

"$M" -n -c "$srcdir/conf/patchattest.conf" >"$T/out" 2>&1
ok $? "-n accepts conf/patchattest.conf as shipped"
grep -q 'the configuration is good' "$T/out"
ok $? "-n says so"

# Four problems: two the parser finds, two only -n's checks find.
printf '%s\n' '# a bad file' 'Socket inet:99999@127.0.0.1' 'Frobnicate yes' \
    'UserID no-such-user-here' 'OnFail discard' >"$T/bad.conf"
"$M" -n -c "$T/bad.conf" >"$T/out" 2>"$T/err"
expect "-n on a bad file exits 1" 1 $?
grep -q "bad.conf:3: unknown key \"Frobnicate\"" "$T/err"
ok $? "-n names the unknown key with file and line"
grep -q "bad.conf:5: OnFail: \"discard\" is not one of" "$T/err"
ok $? "-n names the bad word with file and line"
grep -q "Socket inet:99999@127.0.0.1: not local:/path" "$T/err"
ok $? "-n judges the socket of a file with other problems"
grep -q "UserID no-such-user-here: no such user" "$T/err"
ok $? "-n looks the user up"
expect "-n lists four problems" 4 "$(wc -l <"$T/err" | tr -d ' ')"

mkdir "$T/ring"
printf 'PatattKeyring %s/ring\nPatattKeyring %s/noring\n' "$T" "$T" \
    >"$T/rings.conf"
"$M" -n -c "$T/rings.conf" >"$T/out" 2>"$T/err"
expect "-n with a PatattKeyring folder missing exits 1" 1 $?
grep -q "PatattKeyring $T/noring: No such file" "$T/err" &&
    ! grep -q "PatattKeyring $T/ring:" "$T/err"
ok $? "-n names the missing keyring folder, not the one that is there"

"$M" -n -c "$T/missing.conf" >"$T/out" 2>"$T/err"
expect "-n on a missing file exits 1" 1 $?
grep -q "missing.conf: cannot open" "$T/err"
ok $? "-n says the file cannot be opened"

printf 'Socket local:%s/sock\n' "$T" >"$T/p.conf"
"$M" -n -c "$T/p.conf" -p inet:bad >"$T/out" 2>"$T/err"
expect "-p is checked like Socket" 1 $?

"$M" -x >"$T/out" 2>"$T/err"
expect "an unknown option exits 2" 2 $?
grep -q '^usage: patchattest-milter' "$T/err"
ok $? "and shows the usage"

printf 'Socket local:%s/no/such/dir/sock\nSyslog no\nIndexPath %s/ix\n' \
    "$T" "$T" >"$T/nodir.conf"
"$M" -f -c "$T/nodir.conf" >"$T/out" 2>"$T/err"
rc=$?
[ "$rc" -ne 0 ]
ok $? "a socket it cannot open: exits non-zero ($rc)"
grep -q "cannot listen on local:$T/no/such/dir/sock" "$T/err"
ok $? "and says where it could not listen"

tap_end
