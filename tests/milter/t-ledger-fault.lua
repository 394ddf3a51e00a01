-- SPDX-License-Identifier: BSD-2-Clause
-- t-ledger-fault.lua - the state file (STATEFILE) written over with
-- garbage under the running milter, which then reloads (PIDFILE): a
-- judged patch cannot be recorded, a fault of the milter's, so OnError
-- decides (ONERROR=tempfail: 451, the MTA keeps the mail and tries again;
-- else accepted, its verdict kept and "not recorded" in the reason).
-- Once the file is whole again and the milter reloads, patches are
-- recorded and pass as before.  With METRICS, the endpoint counts the one
-- reload that could not open the file and the mail not recorded.
dofile(HARNESS)

-- reload - SIGHUP, and wait for the milter to be done with it: patches
-- are sent until want(result of the last) holds, at most 10 s
local function reload(conn, want, what)
	check(os.execute(string.format("kill -HUP $(cat '%s')", PIDFILE)),
	    "%s: reload", what)
	local res
	for _ = 1, 50 do
		os.execute("sleep 0.2")
		res = send(conn, mail("p1"))
		if want(res) then
			return res
		end
	end
	check(false, "%s: the reload took no effect: %s", what,
	    describe(res.acts))
end

local function passes(res)
	return accepted(res) and #inserted(res, HDR) == 1 and
	    inserted(res, HDR)[1].value:match("^pass;") ~= nil and
	    not inserted(res, HDR)[1].value:find("not recorded", 1, true)
end

local function faulted(res)
	if ONERROR == "tempfail" then
		return res.reply == SMFIR_REPLYCODE
	end
	return accepted(res) and #inserted(res, HDR) == 1 and
	    inserted(res, HDR)[1].value:find("not recorded", 1, true) ~= nil
end

run(function()
	local conn = connect()
	local res = send(conn, mail("p1"))
	expect_accepted(res, "seed 002, recorded")
	check(passes(res), "seed 002, recorded: %s", describe(res.acts))

	check(os.execute(string.format("cp '%s' '%s.whole' && " ..
	    "head -c 65536 /dev/urandom >'%s.junk' && mv '%s.junk' '%s'",
	    STATEFILE, STATEFILE, STATEFILE, STATEFILE, STATEFILE)),
	    "garbage over %s", STATEFILE)
	res = reload(conn, faulted, "garbage")
	if ONERROR == "tempfail" then
		local text = expect_reply(res, "451 4.7.1", "not recorded")
		check(text:find("not recorded: ", 1, true),
		    "not recorded: reply %s", show(text))
	else
		local v = unfold(verdict(conn, res, "not recorded"))
		check(v:match("^pass; ") and v:find("not recorded: ", 1, true),
		    "not recorded: the verdict stays, header %s", show(v))
	end

	-- mail that is no patch is not recorded, and not held up
	res = send(conn, mail("plain"))
	expect_accepted(res, "plain mail, state file damaged")
	expect_no_verdict(conn, res, "plain mail, state file damaged")

	check(os.execute(string.format("cp '%s.whole' '%s'", STATEFILE,
	    STATEFILE)), "restore %s", STATEFILE)
	reload(conn, passes, "restored")
	if METRICS then
		local status, body = metrics_get("/metrics", "GET")
		check(status == "200", "GET /metrics: %s", show(status))
		local m = metrics_samples(body)
		local ledger = 'patchattest_state_errors_total{kind="ledger"}'
		local unrecorded =
		    'patchattest_state_errors_total{kind="unrecorded"}'
		check(m[ledger] == 1, "%s is %s, not 1", ledger,
		    tostring(m[ledger]))
		check(m[unrecorded] ~= nil and m[unrecorded] >= 1,
		    "%s is %s, not 1 or more", unrecorded,
		    tostring(m[unrecorded]))
	end
	mt.disconnect(conn)
end)
