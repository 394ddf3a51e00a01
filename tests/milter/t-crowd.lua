-- SPDX-License-Identifier: BSD-2-Clause
-- t-crowd.lua - a slowloris: after a patch is judged, 1,000 clients
-- (STALL, straight on the milter's socket MSOCK) negotiate, announce a
-- connection and say nothing more, four times MaximumConnections (its
-- default, 256).  Once they have been silent for IdleConnectionGrace (2 s
-- here), the patch is judged as usual, in the place of one of them, and
-- again on a second connection; the log says once that places were
-- taken; the milter runs on, its threads and memory hardly grown.
-- Before, the patch was temperror, "over MaximumConnections", for as
-- long as the clients stayed.
dofile(HARNESS)

local READY, OUT, HOLD = DATA .. "/crowd.ready", DATA .. "/crowd.out",
    DATA .. "/crowd.hold"

-- status(): the milter's threads and resident memory (KiB)
local function status()
	local s = readfile("/proc/" .. MILTER_PID .. "/status")
	return tonumber(s:match("\nThreads:%s*(%d+)")),
	    tonumber(s:match("\nVmRSS:%s*(%d+)"))
end

-- judged(what): seed 002 through the milter, judged as usual
local function judged(what)
	local conn = connect()
	local res = send(conn, mail("p1"))
	expect_accepted(res, what)
	expect_verdict(conn, res, "p1", what)
	mt.disconnect(conn)
end

run(function()
	judged("seed 002 before the clients")
	local threads0, rss0 = status()
	os.execute(string.format("%s %s 0 1000 %s %s %s &", STALL, MSOCK,
	    READY, OUT, HOLD))
	wait_for(function() return there(READY) end,
	    "the 1,000 clients connecting")
	local threads, rss = status()
	note("1,000 clients in: %d threads (%d before), %d KiB resident " ..
	    "(%d before)", threads, threads0, rss, rss0)
	os.execute("sleep 3")	-- past IdleConnectionGrace

	for i = 1, 2 do
		judged(string.format("seed 002 among 1,000 stalled clients " ..
		    "(%d)", i))
	end

	threads, rss = status()
	note("after the patches: %d threads, %d KiB resident", threads, rss)
	check(threads <= threads0 + 16, "%d threads with 1,000 clients " ..
	    "stalled, %d before", threads, threads0)
	check(rss <= rss0 + 64 * 1024, "%d KiB resident with 1,000 " ..
	    "clients stalled, %d before", rss, rss0)
	local log = readfile(DATA .. "/../milter.log")
	local _, n = log:gsub("MaximumConnections %(256%) reached: a " ..
	    "connection whose MTA was silent for %d+ s %(between " ..
	    "messages%) gave its place to a new one", "")
	check(n == 1, "want the places taken said once, said %d times", n)

	io.open(HOLD, "w"):close()
	wait_for(function() return there(OUT) end, "the clients' end")
	check(os.execute("kill -0 " .. MILTER_PID), "the milter is gone")
end)
