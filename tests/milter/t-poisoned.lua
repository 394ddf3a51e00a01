-- SPDX-License-Identifier: BSD-2-Clause
-- t-poisoned.lua - the milter reads an archive itself (no index yet) in
-- which a signed document over 16 MiB and one with broken YAML lie beside
-- the real one.  Until the read ends patches are "temperror" and pass;
-- then the series passes, the poison costing only itself.  t-milter.sh then
-- looks for the reasons in the log.
dofile(HARNESS)

run(function()
	local conn = connect()
	local res, v
	for _ = 1, 150 do
		res = send(conn, mail("p1"))
		expect_accepted(res, "seed 002 while the archive is read")
		v = verdict(conn, res, "seed 002 while the archive is read")
		if not v:match("^temperror;") then
			break
		end
		os.execute("sleep 0.2")
	end
	check(v == expected("p1"), "seed 002: header\n    %s\n  want\n    %s",
	    show(v), show(expected("p1")))
	check(v:match("^pass; "), "seed 002: header %s", show(v))

	for i = 2, 6 do
		expect_seed_pass(conn, i)
	end
	mt.disconnect(conn)
end)
