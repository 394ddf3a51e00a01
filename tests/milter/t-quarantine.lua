-- SPDX-License-Identifier: BSD-2-Clause
-- t-quarantine.lua - OnFail quarantine: a tampered patch is accepted
-- into quarantine with a reason naming the verdict, and still gets its
-- X-Patch-Attested; a passing patch is not quarantined.
dofile(HARNESS)

run(function()
	local conn = connect()
	local res = send(conn, mail("fail-p"))
	expect_accepted(res, "diff changed")
	local v = expect_verdict(conn, res, "fail-p", "diff changed")
	check(v:match("^fail; "), "diff changed: header %s", show(v))
	local reason
	for _, a in ipairs(res.acts) do
		if a.cmd == "q" then
			check(reason == nil, "quarantined twice: %s",
			    describe(res.acts))
			reason = a.text
		end
	end
	check(reason ~= nil and mt.eom_check(conn, MT_QUARANTINE),
	    "diff changed: not quarantined: %s", describe(res.acts))
	check(reason:find("fail", 1, true), "the quarantine reason does " ..
	    "not name the verdict: %s", show(reason))
	expect_only(res, "iq", "diff changed")

	res = send(conn, mail("p1"))
	expect_accepted(res, "seed 002")
	check(not mt.eom_check(conn, MT_QUARANTINE),
	    "seed 002 was quarantined: %s", describe(res.acts))
	check(expect_verdict(conn, res, "p1", "seed 002"):match("^pass; "),
	    "seed 002 does not pass")
	mt.disconnect(conn)
end)
