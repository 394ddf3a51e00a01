-- SPDX-License-Identifier: BSD-2-Clause
-- t-policy.lua - verdicts of local policy rather than of the signature,
-- with an Authentication-Results result "policy": POLICY=uidmismatch
-- (UIDMatch strict: no user ID of the signer's key has the author's
-- address) or POLICY=stale (StalenessDays 30: the mail is dated 2070,
-- long after the signature).  Configuration: AuthservID mx.test.example.
dofile(HARNESS)

run(function()
	local conn = connect()
	local name = POLICY == "stale" and "late" or "p1"
	local res = send(conn, mail(name))
	expect_accepted(res, POLICY)
	local v = expect_verdict(conn, res, name, POLICY)
	check(v:match("^" .. POLICY .. "; "), "%s: header %s", POLICY, show(v))
	expect_authres(conn, res, "mx.test.example", "policy", POLICY,
	    "2a02abe0-215cf3f1-2acb5798", POLICY)
	mt.disconnect(conn)
end)
