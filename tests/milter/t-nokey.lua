-- SPDX-License-Identifier: BSD-2-Clause
-- t-nokey.lua - the series attested by a key that is not in the milter's
-- keyring: "nokey", and with AuthservID an Authentication-Results result
-- "neutral".  Configuration: AuthservID mx.test.example.
dofile(HARNESS)

run(function()
	local conn = connect()
	local res = send(conn, mail("p1"))
	expect_accepted(res, "signer's key unknown")
	local v = expect_verdict(conn, res, "p1", "signer's key unknown")
	check(v:match("^nokey; "), "signer's key unknown: header %s", show(v))
	expect_authres(conn, res, "mx.test.example", "neutral", "nokey",
	    "2a02abe0-215cf3f1-2acb5798", "signer's key unknown")
	expect_only(res, "i", "signer's key unknown")
	mt.disconnect(conn)
end)
