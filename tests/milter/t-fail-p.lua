-- SPDX-License-Identifier: BSD-2-Clause
-- t-fail-p.lua - seed 002 with one line of its diff changed gets "fail",
-- naming the diff; OnFail accept lets it through.
dofile(HARNESS)

run(function()
	local conn = connect()
	local res = send(conn, mail("fail-p"))
	expect_accepted(res, "diff changed")
	local v = expect_verdict(conn, res, "fail-p", "diff changed")
	check(v:match("^fail; ") and unfold(v):find("diff", 1, true),
	    "diff changed: header %s", show(v))
	expect_only(res, "i", "diff changed")
	mt.disconnect(conn)
end)
