-- SPDX-License-Identifier: BSD-2-Clause
-- t-rnp-quiet.lua - a patatt OpenPGP signature checked against a key file
-- with text before its armor, as the kernel's key files have: the mail
-- passes, and the debug log holds the decision but none of librnp's
-- diagnostics about that text.
dofile(HARNESS)

run(function()
	local conn = connect()
	local res = send(conn, mail("pgp"))
	expect_accepted(res, "seed 002 signed with OpenPGP")
	local v = verdict(conn, res, "seed 002 signed with OpenPGP")
	check(v:match("^pass; "), "seed 002 signed with OpenPGP: header %s",
	    show(v))
	mt.disconnect(conn)
	local log = readfile(DATA .. "/../milter.log")
	check(log:find("result=pass", 1, true), "no decision in the log")
	check(not log:find("extra data before the header line", 1, true),
	    "librnp's diagnostic is in the log")
end)
