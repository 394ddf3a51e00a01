-- SPDX-License-Identifier: BSD-2-Clause
-- t-stalled.lua - Timeout 5, MaximumConnections 4: 4 clients stall in a
-- session and 3 more in half a packet, all straight on the milter's
-- socket.  A patch sent meanwhile is one connection too many: marked
-- temperror (OnError accept), its forged field still deleted.  Within
-- the timeout (twice, at worst) every half packet is dropped; once the
-- sessions end the next patch is judged as usual.  Without a timeout
-- libmilter waited two hours, and nothing limited the connections.  (A
-- half packet holds one of libmilter's workers until Timeout ends it, so
-- the sessions are opened first and the half packets are few.)
dofile(HARNESS)

local READY, OUT = DATA .. "/stall.ready", DATA .. "/stall.out"

run(function()
	os.execute(string.format("%s %s 3 4 %s %s &", STALL, MSOCK, READY,
	    OUT))
	local t = 0
	while not there(READY) and t < 300 do
		os.execute("sleep 0.1")
		t = t + 1
	end
	check(there(READY), "the stalled clients did not connect")

	local conn = connect()
	local msg = add_header(mail("p1"), 1, "X-Patch-Attested", "pass")
	local res = send(conn, msg)
	expect_accepted(res, "seed 002 over MaximumConnections")
	local v = verdict(conn, res, "seed 002 over MaximumConnections")
	check(unfold(v):match('^temperror; reason="over MaximumConnections"'),
	    "seed 002 over MaximumConnections: header %s", show(v))
	expect_deleted(res, HDR, { 1 }, "seed 002 over MaximumConnections")
	mt.disconnect(conn)

	t = 0
	while not there(OUT) and t < 70 do
		os.execute("sleep 1")
		t = t + 1
	end
	check(there(OUT), "the stalled clients never finished")
	local out = readfile(OUT)
	local n = 0
	for kind, secs in out:gmatch("(%a+) (%S+)\n") do
		n = n + 1
		check(secs ~= "open" and tonumber(secs) >= 4 and
		    tonumber(secs) <= 12, "a %s client was closed after %s " ..
		    "seconds, want the 5 of Timeout", kind, secs)
	end
	check(n == 3, "want 3 half packets, got %d", n)
	os.execute("sleep 1")	-- the milter sees the held ones closed

	conn = connect()
	res = send(conn, mail("p1"))
	expect_accepted(res, "seed 002 once the stalled ones are gone")
	expect_verdict(conn, res, "p1", "seed 002 once the stalled ones are gone")
	mt.disconnect(conn)
end)
