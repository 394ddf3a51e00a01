-- SPDX-License-Identifier: BSD-2-Clause
-- t-tempfail.lua - OnNone tempfail: an unattested patch gets 451 4.7.1
-- and a text naming the verdict; attested ones pass.
dofile(HARNESS)

run(function()
	local conn = connect()
	local res = send(conn, mail("none"))
	local text = expect_reply(res, "451 4.7.1", "unattested patch")
	check(text:find("none", 1, true), "the reply does not name the " ..
	    "verdict: %s", show(text))

	res = send(conn, mail("p1"))
	expect_accepted(res, "seed 002 after a tempfail")
	check(expect_verdict(conn, res, "p1", "seed 002"):match("^pass; "),
	    "seed 002 does not pass")
	res = send(conn, mail("fail-m"))
	expect_accepted(res, "tampered patch (OnFail accept)")
	expect_verdict(conn, res, "fail-m", "tampered patch")
	mt.disconnect(conn)
end)
