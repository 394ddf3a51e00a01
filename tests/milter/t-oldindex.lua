-- SPDX-License-Identifier: BSD-2-Clause
-- t-oldindex.lua - the index is of the schema before this one (written
-- again as that version wrote it):
--   MODE=reader  the milter only reads the index (LearnFromMail no):
--                seed 002 is temperror, the reason saying to run
--                patchattest index; once that (UPGRADE: the command) has
--                upgraded the index in place, seed 002 passes, with no
--                reload;
--   MODE=writer  the milter writes the index: it upgraded it when it
--                started, so seed 002 passes, and its log (LOG) says so.
dofile(HARNESS)

run(function()
	local conn = connect()
	if MODE == "reader" then
		local v = expect_seed(conn, "temperror;",
		    "seed 002, index of schema 2")
		check(v:find("run patchattest index, which upgrades it " ..
		    "in place", 1, true), "the reason says what to do: %s",
		    show(v))
		check(os.execute(UPGRADE), "%s failed", UPGRADE)
		expect_seed(conn, "pass;", "seed 002 after the upgrade")
	else
		expect_seed(conn, "pass;",
		    "seed 002, index upgraded at the start")
		check(readfile(LOG):find("upgraded in place from " ..
		    "patchattest-index 2 to patchattest-index 4", 1, true),
		    "the milter's log says it upgraded the index")
	end
	mt.disconnect(conn)
end)
