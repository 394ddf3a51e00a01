-- SPDX-License-Identifier: BSD-2-Clause
-- t-fail-m.lua - seed 002 with one line of its commit message changed
-- gets "fail", naming the commit message; OnFail accept lets it through.
dofile(HARNESS)

run(function()
	local conn = connect()
	local res = send(conn, mail("fail-m"))
	expect_accepted(res, "commit message changed")
	local v = expect_verdict(conn, res, "fail-m", "commit message changed")
	check(v:match("^fail; ") and unfold(v):find("commit message", 1, true),
	    "commit message changed: header %s", show(v))
	expect_only(res, "i", "commit message changed")
	mt.disconnect(conn)
end)
