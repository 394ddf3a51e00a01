-- SPDX-License-Identifier: BSD-2-Clause
-- t-tofu-race.lua - one of several copies that tests/t-milter.sh runs at
-- once, each on a connection of its own straight to the milter: the copy
-- RACER sends DATA/tofu-raceRACER.eml (seed 002 signed as
-- race@example.org, by a key of its own) up to its end of message, makes
-- READY/RACER and waits in opening the fifo GO, which t-milter.sh opens
-- once every copy is ready: all the ends of message then reach the milter
-- together, each the first use of race@example.org.  The verdict goes to
-- OUT/RACER for t-milter.sh to count.
dofile(HARNESS)

-- touch(path): an empty file at path
local function touch(path)
	local f, err = io.open(path, "w")
	check(f ~= nil, "cannot make %s: %s", path, tostring(err))
	f:close()
end

run(function()
	local conn = connect()
	local what = "racer " .. RACER
	local res = send(conn, mail("tofu-race" .. RACER), {
		before_eom = function()
			touch(READY .. "/" .. RACER)
			-- blocks until t-milter.sh opens the fifo
			local go, err = io.open(GO, "r")
			check(go ~= nil, "cannot open %s: %s", GO, tostring(err))
			go:close()
		end })
	expect_accepted(res, what)
	local v = mt.getheader(conn, HDR, 0)
	check(v ~= nil and mt.getheader(conn, HDR, 1) == nil,
	    "%s: want one %s header", what, HDR)
	local out, err = io.open(OUT .. "/" .. RACER, "w")
	check(out ~= nil, "cannot write %s: %s", OUT, tostring(err))
	out:write(unfold(v), "\n")
	out:close()
	mt.disconnect(conn)
end)
