-- SPDX-License-Identifier: BSD-2-Clause
-- t-policy.lua - a verdict of local policy rather than of the signature,
-- with an Authentication-Results result "policy": POLICY=uidmismatch
-- (UIDMatch strict: no user ID of the signer's key has the author's
-- address).  Signing times are the clock's business: t-clock.lua.
-- Configuration: AuthservID mx.test.example.
dofile(HARNESS)

run(function()
	local conn = connect()
	local res = send(conn, mail("p1"))
	expect_accepted(res, POLICY)
	local v = expect_verdict(conn, res, "p1", POLICY)
	check(v:match("^" .. POLICY .. "; "), "%s: header %s", POLICY, show(v))
	expect_authres(conn, res, "mx.test.example", "policy", POLICY,
	    "2a02abe0-215cf3f1-2acb5798", POLICY)
	mt.disconnect(conn)
end)
