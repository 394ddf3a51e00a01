-- SPDX-License-Identifier: BSD-2-Clause
-- t-state-size.lua - StateMaxSize 1 (MiB) over a StateFile that holds
-- more (tests/arrival-record filled it): the log says once that its use
-- is over 80% of the bound, however many mails come; the mail is
-- recorded, the oldest records go and the bytes in use are back within
-- the bound, as the endpoint serves them; a reload to StateMaxSize 64
-- says once that the use is under 75% again.
--   METRICS  the endpoint's URL (http://127.0.0.1:PORT)
dofile(HARNESS)

local LOG = DATA .. "/../milter.log"
local CONF = DATA .. "/../milter.conf"
local OVER = "StateFile [^\n]+: %d+ of 1048576 bytes in use " ..
    "%(StateMaxSize%), over 80%%"
local UNDER = "StateFile [^\n]+: %d+ of 67108864 bytes in use " ..
    "%(StateMaxSize%), under 75%% again"

-- lines(pattern): the lines of the milter's log that match it
local function lines(pattern)
	local n = 0
	for _ in readfile(LOG):gmatch(pattern) do
		n = n + 1
	end
	return n
end

-- written(): the scrape once every record queued is written
local function written()
	local s
	wait_for(function()
		local status, body = metrics_get("/metrics", "GET")
		s = status == "200" and metrics_samples(body) or nil
		return s ~= nil and s["patchattest_state_journal_depth"] == 0
	end, "the records written")
	return s
end

run(function()
	local conn = connect()
	wait_for(function() return lines(OVER) == 1 end,
	    "the log's word, at the start, that StateFile is over 80% of " ..
	    "StateMaxSize")
	for i = 1, 6 do
		expect_accepted(send(conn, mail("p" .. i)), "seed patch " .. i)
	end
	local s = written()
	check(s["patchattest_state_file_max_bytes"] == 1048576,
	    "state_file_max_bytes %s, not StateMaxSize 1 MiB",
	    tostring(s["patchattest_state_file_max_bytes"]))
	check(s["patchattest_state_file_used_bytes"] <= 1048576 and
	    s["patchattest_state_file_used_bytes"] >= 1048576 * 8 // 10,
	    "state_file_used_bytes %s: not within StateMaxSize, and full",
	    tostring(s["patchattest_state_file_used_bytes"]))
	check(lines(OVER) == 1, "after six mails, the log says %d times " ..
	    "that StateFile is over 80%%, not once", lines(OVER))

	-- a larger bound: back under 75%, said once
	local conf = readfile(CONF)
	local larger = conf:gsub("StateMaxSize 1\n", "StateMaxSize 64\n")
	check(larger ~= conf, "no StateMaxSize line in milter.conf")
	local f = assert(io.open(CONF, "wb"))
	f:write(larger)
	f:close()
	os.execute("kill -HUP " .. MILTER_PID)
	wait_for(function() return lines(UNDER) == 1 end,
	    "the log's word that StateFile is under 75% again")
	expect_accepted(send(conn, mail("p1")), "seed patch 1 again")
	s = written()
	check(s["patchattest_state_file_max_bytes"] == 67108864,
	    "state_file_max_bytes %s after the reload, not 64 MiB",
	    tostring(s["patchattest_state_file_max_bytes"]))
	check(lines(OVER) == 1 and lines(UNDER) == 1,
	    "the log says %d times over 80%%, %d times under 75%%, not once " ..
	    "each", lines(OVER), lines(UNDER))
	mt.disconnect(conn)
end)
