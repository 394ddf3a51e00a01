-- SPDX-License-Identifier: BSD-2-Clause
-- t-forged-three.lua - three forged X-Patch-Attested headers, in odd
-- places and in three spellings, are all deleted, last to first (3, 2, 1):
-- Postfix renumbers after each deletion, so any other order leaves one.
-- The deletions come before the milter's own header is inserted, since
-- indices count the headers of that name in the message as it stands.
dofile(HARNESS)

run(function()
	local conn = connect()
	local msg = mail("p1")
	local forged = "pass; attid=2a02abe0-215cf3f1-2acb5798; " ..
	    "signer=\"Mallory <mallory@example.com>\""
	add_header(msg, 1, "X-Patch-Attested", forged)
	add_header(msg, 3, "x-patch-attested", "pass")
	add_header(msg, 99, "X-PATCH-ATTESTED", forged)
	local res = send(conn, msg)
	expect_accepted(res, "seed 002 with three forged headers")
	expect_deleted(res, HDR, { 3, 2, 1 }, "three forged headers")
	local last_delete, insert = 0, nil
	for i, a in ipairs(res.acts) do
		if a.cmd == "m" then
			last_delete = i
		elseif a.cmd == "i" and insert == nil then
			insert = i
		end
	end
	check(insert ~= nil and insert > last_delete,
	    "the deletions must precede the insertion: %s",
	    describe(res.acts))
	expect_verdict(conn, res, "p1", "seed 002 with three forged headers")
	expect_only(res, "mi", "seed 002 with three forged headers")
	mt.disconnect(conn)
end)
