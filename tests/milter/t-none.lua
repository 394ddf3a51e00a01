-- SPDX-License-Identifier: BSD-2-Clause
-- t-none.lua - a patch nobody attested gets "none" with its computed
-- attestation ID; OnNone accept lets it through.
dofile(HARNESS)

run(function()
	local conn = connect()
	local res = send(conn, mail("none"))
	expect_accepted(res, "unattested patch")
	local v = expect_verdict(conn, res, "none", "unattested patch")
	check(unfold(v) == "none; attid=b439783a-eebcc597-e4de069a",
	    "unattested patch: header %s", show(v))
	expect_only(res, "i", "unattested patch")
	mt.disconnect(conn)
end)
