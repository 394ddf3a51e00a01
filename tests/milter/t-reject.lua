-- SPDX-License-Identifier: BSD-2-Clause
-- t-reject.lua - OnFail reject: a tampered patch is refused with 550 5.7.1
-- and a text naming the verdict; other verdicts are still accepted.
dofile(HARNESS)

run(function()
	local conn = connect()
	local res = send(conn, mail("fail-m"))
	local text = expect_reply(res, "550 5.7.1", "commit message changed")
	check(text:find("fail", 1, true), "the reply does not name the " ..
	    "verdict: %s", show(text))

	res = send(conn, mail("fail-p"))
	text = expect_reply(res, "550 5.7.1", "diff changed")

	res = send(conn, mail("p1"))
	expect_accepted(res, "seed 002 after a rejection")
	check(expect_verdict(conn, res, "p1", "seed 002"):match("^pass; "),
	    "seed 002 does not pass")
	res = send(conn, mail("none"))
	expect_accepted(res, "unattested patch (OnNone accept)")
	expect_verdict(conn, res, "none", "unattested patch")
	mt.disconnect(conn)
end)
