-- SPDX-License-Identifier: BSD-2-Clause
-- t-multi.lua - several messages of every kind on one connection, each
-- with its own verdict and its own deletions.
dofile(HARNESS)

run(function()
	local conn = connect()
	local cases = {
		{ "p1", "pass", 0 },
		{ "fail-m", "fail", 0 },
		{ "none", "none", 1 },
		{ "plain", nil, 2 },
		{ "p5", "pass", 1 },
		{ "fail-p", "fail", 0 },
		{ "cover", nil, 0 },
		{ "p6", "pass", 3 },
		{ "p2", "pass", 0 },
	}
	for n, c in ipairs(cases) do
		local name, want, nforged = c[1], c[2], c[3]
		local what = string.format("message %d (%s)", n, name)
		local msg = mail(name)
		local dels = {}
		for k = 1, nforged do
			add_header(msg, 2 * k, "X-Patch-Attested", "pass")
			table.insert(dels, 1, k)
		end
		local res = send(conn, msg)
		expect_accepted(res, what)
		expect_deleted(res, HDR, dels, what)
		if want == nil then
			expect_no_verdict(conn, res, what)
			expect_only(res, "m", what)
		else
			local v = expect_verdict(conn, res, name, what)
			check(v:match("^" .. want .. "; "), "%s: header %s",
			    what, show(v))
			expect_only(res, "mi", what)
		end
	end
	mt.disconnect(conn)
end)
