-- SPDX-License-Identifier: BSD-2-Clause
-- t-learn-stall.lua - a mail that is no patch with 400 signed documents
-- (STALL; each costs a GnuPG run, none verifies), learnt in the
-- background.  LOG is the milter's log, PIDFILE its pid file.
--   MODE=cap    LearnMaxDocuments 8 (the default): 8 are verified,
--               the rest are not, and the log says so;
--   MODE=stop   LearnMaxDocuments 1000: a SIGHUP while it learns is
--               carried out within 5 seconds, and so is a SIGTERM.
dofile(HARNESS)

-- within - whether the shell command cmd succeeds within 5 seconds
local function within(cmd)
	for _ = 1, 50 do
		if os.execute(cmd) then
			return true
		end
		os.execute("sleep 0.1")
	end
	return false
end

local function logged(text)
	return within(string.format("grep -q '%s' '%s'", text, LOG))
end

-- send_stall - the mail with 400 documents, passed untouched
local function send_stall(conn, what)
	local res = send(conn, parse(readfile(STALL)))
	expect_accepted(res, what)
	expect_no_verdict(conn, res, what)
end

run(function()
	local conn = connect()
	send_stall(conn, "400 documents")
	if MODE == "cap" then
		check(logged("more than 8 attestation documents in one mail " ..
		    "(LearnMaxDocuments): the rest are not learnt"),
		    "the cap is logged")
		check(logged("learnt from mail: 8 document(s)"),
		    "8 documents were verified")
		mt.disconnect(conn)
		return
	end
	mt.sleep(1)		-- the worker is at them now
	os.execute(string.format("kill -HUP $(cat '%s')", PIDFILE))
	check(logged("reloaded "), "a SIGHUP while learning is carried " ..
	    "out within 5 s")
	send_stall(conn, "400 documents again")
	mt.disconnect(conn)
	mt.sleep(1)
	os.execute(string.format("kill -TERM $(cat '%s')", PIDFILE))
	check(within(string.format("! kill -0 $(cat '%s') 2>/dev/null",
	    PIDFILE)), "a SIGTERM while learning ends the milter within 5 s")
end)
