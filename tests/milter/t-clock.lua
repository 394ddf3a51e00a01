-- SPDX-License-Identifier: BSD-2-Clause
-- t-clock.lua - signing times are judged against the milter's clock (the
-- mail's arrival), never against the Date the sender wrote: seed 002
-- signed by patatt now but dated three years ago passes; signed three
-- years ago (t= three years old) under a fresh Date is stale
-- (StalenessDays 30), and so is that mail sent again under the Date it
-- was signed at; signed an hour ahead of the clock is stale too
-- (MaxClockSkew 300), with its own reason.  Authentication-Results says
-- "policy" for each.  Configuration: StalenessDays 30, AuthservID
-- mx.test.example, patatt's keyring, an empty index.
dofile(HARNESS)

local ID = "mx.test.example"

-- patatt_authres(res, result, reason, what): our one Authentication-Results
-- field, with patatt's result and reason
local function patatt_authres(res, result, reason, what)
	local ar = inserted(res, AR)
	local want = ID .. '; x-patch-attest=none reason="none" ' ..
	    'policy.attid=2a02abe0-215cf3f1-2acb5798; x-patatt=' .. result ..
	    ' reason="' .. reason .. '" header.i=dev@example.org ' ..
	    'header.a=ed25519-sha256'
	check(#ar == 1 and unfold(ar[1].value) == want,
	    "%s: %s %s, want %s", what, AR,
	    ar[1] and show(ar[1].value) or "missing", show(want))
end

-- stale(conn, name, what): name.eml is accepted, stale by patatt alone,
-- "policy" in Authentication-Results; returns its header, unfolded
local function stale(conn, name, what)
	local res = send(conn, mail(name))
	expect_accepted(res, what)
	local v = unfold(verdict(conn, res, what))
	check(v:match("^stale; scheme=patatt; ") and
	    v:match("; v0%.1=none; patatt=stale$"), "%s: header %s", what,
	    show(v))
	patatt_authres(res, "policy", "stale", what)
	return v
end

run(function()
	local conn = connect()
	local res = send(conn, mail("clock-dated-old"))
	expect_accepted(res, "signed now, dated three years ago")
	local v = unfold(verdict(conn, res, "dated three years ago"))
	check(v:match("^pass; scheme=patatt; ") and
	    v:match("; v0%.1=none; patatt=pass$"),
	    "dated three years ago: header %s", show(v))
	patatt_authres(res, "pass", "pass", "dated three years ago")

	local old = 'reason="signed 1095 days before the mail arrived ' ..
	    '(StalenessDays 30)"'
	v = stale(conn, "clock-signed-old", "signed three years ago")
	check(v:find(old, 1, true), "signed three years ago: header %s",
	    show(v))
	-- the same signed mail sent again years later, with its own Date
	v = stale(conn, "clock-resent", "sent again")
	check(v:find(old, 1, true), "sent again: header %s", show(v))

	v = stale(conn, "clock-signed-ahead", "signed an hour ahead")
	local secs = tonumber(v:match('reason="signed (%d+) seconds after ' ..
	    'the mail arrived: the signer\'s clock or the signing time is ' ..
	    'wrong %(MaxClockSkew 300%)"'))
	-- an hour ahead when signed, less by the time the run took since
	-- then: beyond MaxClockSkew, never beyond the hour
	check(secs ~= nil and secs > 300 and secs <= 3600,
	    "signed an hour ahead: header %s", show(v))
	mt.disconnect(conn)
end)
