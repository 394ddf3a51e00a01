-- SPDX-License-Identifier: BSD-2-Clause
-- t-reload-start.lua - a reload compares the keys that take effect only at
-- a start (Socket, UMask) with the values in use: Socket and UMask
-- changed in the file are named once, and changed back, they are not
-- named again, and the milter goes on judging mail on its socket.
dofile(HARNESS)

local CONF = DATA .. "/../milter.conf"
local LOG = DATA .. "/../milter.log"

-- count(text): how many times the log holds text
local function count(text)
	local pattern = text:gsub("%p", "%%%0")
	local _, n = readfile(LOG):gsub(pattern, "")
	return n
end

-- reload(conf, n): the milter given conf and SIGHUP, until it says that
-- it reloaded for the n-th time
local function reload(conf, n)
	local f = assert(io.open(CONF, "wb"))
	f:write(conf)
	f:close()
	os.execute("kill -HUP " .. MILTER_PID)
	wait_for(function() return count("reloaded ") >= n end,
	    "reload " .. n)
end

local SOCKET_WORD = "reload: Socket changed; it takes effect at the " ..
    "next start"
local UMASK_WORD = "reload: UserID, UMask or PidFile changed; they take " ..
    "effect at the next start"

run(function()
	local conn = connect()	-- the milter handles signals once it listens
	local conf = readfile(CONF)
	local moved = conf:gsub("\nSocket [^\n]*", "%0.elsewhere") ..
	    "UMask 077\n"
	check(moved ~= conf .. "UMask 077\n", "no Socket line in milter.conf")

	reload(moved, 1)
	check(count(SOCKET_WORD) == 1, "a new Socket is not named once")
	check(count(UMASK_WORD) == 1, "a new UMask is not named once")

	reload(conf, 2)
	check(count(SOCKET_WORD) == 1, "the Socket in use, back in the " ..
	    "file, is named as changed")
	check(count(UMASK_WORD) == 1, "the UMask in use, back in the " ..
	    "file, is named as changed")

	reload(moved, 3)
	check(count(SOCKET_WORD) == 2 and count(UMASK_WORD) == 2,
	    "changed again, Socket and UMask are not named again")
	reload(conf, 4)

	expect_seed_pass(conn, 1)
	mt.disconnect(conn)
end)
