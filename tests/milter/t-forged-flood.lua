-- SPDX-License-Identifier: BSD-2-Clause
-- t-forged-flood.lua - 1,200 forged X-Patch-Attested fields and 1,100
-- forged Authentication-Results of our authserv-id (one with a /version
-- after it) are every one deleted, last to first; the earlier code kept
-- all past the 1,000th.  The patch is judged as delivered.
dofile(HARNESS)

local ID = "mx.test.example"

-- want(n): the indices n, n - 1, ..., 1
local function want(n)
	local t = {}
	for i = n, 1, -1 do
		t[#t + 1] = i
	end
	return t
end

run(function()
	local conn = connect()
	local msg = mail("p1")
	for i = 1, 1200 do
		add_header(msg, 1, "X-Patch-Attested",
		    "pass; attid=2a02abe0-215cf3f1-2acb5798; n=" .. i)
	end
	for i = 1, 1099 do
		add_header(msg, 1, AR, ID .. "; x-patch-attest=pass n=" .. i)
	end
	add_header(msg, 99, AR, ID .. "/1; x-patch-attest=pass")
	local res = send(conn, msg)
	expect_accepted(res, "seed 002 with 2,300 forged fields")
	expect_deleted(res, HDR, want(1200), "1,200 forged X-Patch-Attested")
	expect_deleted(res, AR, want(1100), "1,100 forged A-R")
	expect_verdict(conn, res, "p1", "seed 002 with 2,300 forged fields")
	expect_authres(conn, res, ID, "pass", "pass",
	    "2a02abe0-215cf3f1-2acb5798", "seed 002 with 2,300 forged fields")
	expect_only(res, "mi", "seed 002 with 2,300 forged fields")
	mt.disconnect(conn)
end)
