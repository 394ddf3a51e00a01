-- SPDX-License-Identifier: BSD-2-Clause
-- t-truncated.lua - the index's file cut to half (the size LMDB's map
-- would fault on): before the milter starts (MODE=start), or under it
-- (MODE=live: DATA_MDB names the file, PIDFILE the milter's pid file).
-- Patches are "temperror" and pass (OnError accept); the milter keeps
-- serving; live, once the file is whole again and the milter has a
-- SIGHUP, patches pass again.
dofile(HARNESS)

-- size - the bytes of file
local function size(file)
	local f = assert(io.open(file, "rb"))
	local n = f:seek("end")
	f:close()
	return n
end

-- expect_temperror - an attested patch is temperror, the index damaged
local function expect_temperror(conn, what)
	local res = send(conn, mail("p1"))
	expect_accepted(res, what)
	local v = unfold(verdict(conn, res, what))
	check(v:match("^temperror;") and v:match("damaged"),
	    "%s: header %s", what, show(v))
end

run(function()
	local conn = connect()
	if MODE == "live" then
		local res = send(conn, mail("p1"))
		expect_accepted(res, "seed 002, index whole")
		check(verdict(conn, res, "seed 002, index whole"):match("^pass;"),
		    "index whole: pass")
		check(os.execute(string.format("cp '%s' '%s.whole' && " ..
		    "truncate -s %d '%s'", DATA_MDB, DATA_MDB,
		    size(DATA_MDB) // 2, DATA_MDB)), "cut %s", DATA_MDB)
	end
	expect_temperror(conn, "seed 002, index cut")
	expect_temperror(conn, "seed 002 again, index cut")

	local res = send(conn, mail("plain"))
	expect_accepted(res, "plain mail, index cut")
	expect_no_verdict(conn, res, "plain mail, index cut")

	if MODE == "live" then
		check(os.execute(string.format("cat '%s.whole' >'%s' && " ..
		    "kill -HUP $(cat '%s')", DATA_MDB, DATA_MDB, PIDFILE)),
		    "restore %s and reload", DATA_MDB)
		local v
		for _ = 1, 50 do
			os.execute("sleep 0.2")
			res = send(conn, mail("p1"))
			v = verdict(conn, res, "seed 002, index whole again")
			if v:match("^pass;") then
				break
			end
		end
		check(v:match("^pass;"), "index whole again: header %s",
		    show(v))
	end
	mt.disconnect(conn)
end)
