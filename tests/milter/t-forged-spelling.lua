-- SPDX-License-Identifier: BSD-2-Clause
-- t-forged-spelling.lua - forged fields in the spellings a filter might
-- still read as ours: "X-Patch-Attested " and "Authentication-Results\t"
-- with trailing blanks (Postfix trims those, other MTAs keep them), and
-- an Authentication-Results whose authserv-id is ours in quotes.  Each is
-- deleted by its name as sent and its index among fields of that exact
-- name, last to first; another host's Authentication-Results stays.
-- Configuration: AuthservID mx.test.example.
dofile(HARNESS)

run(function()
	local conn = connect()
	local msg = mail("p1")
	-- (a blank in a name ends the header for git mailinfo: those last)
	add_header(msg, 1, "Authentication-Results",
	    "other.example; dkim=pass")
	add_header(msg, 2, "Authentication-Results",
	    '"mx.test.example"; x-patch-attest=pass')
	add_header(msg, 3, "X-Patch-Attested", "pass; plain")
	add_header(msg, 99, "X-Patch-Attested ", "pass; trailing blank")
	add_header(msg, 99, "Authentication-Results\t",
	    "mx.test.example; x-patch-attest=pass")
	local res = send(conn, msg)
	expect_accepted(res, "seed 002 with forged fields")
	local got = {}
	for _, a in ipairs(res.acts) do
		if a.cmd == "m" and a.value == "" then
			got[#got + 1] = show(a.name) .. " " .. a.idx
		end
	end
	local want = {
		show("Authentication-Results\t") .. " 1",
		show("X-Patch-Attested ") .. " 1",
		show("X-Patch-Attested") .. " 1",
		show("Authentication-Results") .. " 2",
	}
	check(table.concat(got, ", ") == table.concat(want, ", "),
	    "deletions: want %s, got %s", table.concat(want, ", "),
	    table.concat(got, ", "))
	expect_verdict(conn, res, "p1", "seed 002 with forged fields")
	mt.disconnect(conn)
end)
