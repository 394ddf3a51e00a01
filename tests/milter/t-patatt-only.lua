-- SPDX-License-Identifier: BSD-2-Clause
-- t-patatt-only.lua - a server that checks patatt's signatures only: no
-- Archive and, at start, no index.  Signed mail passes on its signature,
-- a patch nobody signed is "none" (not temperror), and a signed cover
-- letter gets its verdict too.
dofile(HARNESS)

run(function()
	local conn = connect()
	local res = send(conn, mail("patatt"))
	expect_accepted(res, "signed seed 002")
	local v = unfold(expect_verdict(conn, res, "patatt", "signed seed 002"))
	check(v:match("^pass; scheme=patatt; ") and
	    v:match("v0%.1=none; patatt=pass$"), "signed: header %s", show(v))

	res = send(conn, mail("p2"))
	expect_accepted(res, "unsigned patch")
	v = unfold(expect_verdict(conn, res, "p2", "unsigned patch"))
	check(v:match("^none; attid="), "unsigned: header %s", show(v))

	res = send(conn, mail("patatt-cover"))
	expect_accepted(res, "signed cover letter")
	v = unfold(expect_verdict(conn, res, "patatt-cover",
	    "signed cover letter"))
	check(v:match("^pass; scheme=patatt; ") and v:match("patatt=pass$"),
	    "cover letter: header %s", show(v))
	mt.disconnect(conn)
end)
