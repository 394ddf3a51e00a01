-- SPDX-License-Identifier: BSD-2-Clause
-- t-nonpatch.lua - mail that is no patch (plain mail, the series' cover
-- letter) gets no X-Patch-Attested, or exactly "nopatch" with
-- MarkNonPatches yes (MARK=yes); forged copies go either way, and patches
-- are decided as usual.  The debug log says of each mail without a patch
-- that it was not judged, and why.
dofile(HARNESS)

local mark = MARK == "yes"

-- nonpatch(conn, res, what): the header that mail without a patch gets
local function nonpatch(conn, res, what)
	expect_accepted(res, what)
	if mark then
		local v = verdict(conn, res, what)
		check(v == "nopatch", "%s: header %s, want \"nopatch\"", what,
		    show(v))
	else
		expect_no_verdict(conn, res, what)
	end
end

run(function()
	local conn = connect()
	local res = send(conn, mail("plain"))
	nonpatch(conn, res, "plain mail")
	expect_only(res, mark and "i" or "", "plain mail")

	res = send(conn, mail("cover"))
	nonpatch(conn, res, "cover letter")
	expect_only(res, mark and "i" or "", "cover letter")

	local msg = add_header(mail("plain"), 2, "X-Patch-Attested", "pass")
	res = send(conn, msg)
	nonpatch(conn, res, "plain mail with a forged header")
	expect_deleted(res, HDR, { 1 }, "plain mail with a forged header")

	res = send(conn, mail("p1"))
	expect_accepted(res, "seed 002")
	check(expect_verdict(conn, res, "p1", "seed 002"):match("^pass; "),
	    "seed 002 does not pass")
	mt.disconnect(conn)

	for _, name in ipairs({ "plain", "cover" }) do
		local id
		for _, h in ipairs(mail(name).headers) do
			if h[1]:lower() == "message-id" then
				id = h[2]:match("^%s*(.-)%s*$")
			end
		end
		local line = "message-id=\"" .. (id or "") .. "\" not judged: no " ..
		    "patatt signature, and no diff"
		wait_for(function()
			return readfile(DATA .. "/../milter.log"):find(line, 1,
			    true) ~= nil
		end, "the debug line on " .. name .. ".eml")
	end
end)
