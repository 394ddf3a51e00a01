-- SPDX-License-Identifier: BSD-2-Clause
-- t-yield.lua - MaximumConnections 1, IdleConnectionGrace 1: connection A
-- (straight on the milter's socket MSOCK) sends seed 002's envelope and
-- header fields, then is silent; 2 s later connection B takes its place
-- and its patch is judged.  A is not cut: the rest of its message is a
-- fault (temperror, the reason saying that its place went to another
-- connection), and once B is gone its next patch is judged as usual, in a
-- place of its own again.
dofile(HARNESS)

-- step(conn, what, err): one step sent, and the milter's answer to it
local function step(conn, what, err)
	check(err == nil, "%s: %s", what, tostring(err))
	local r = mt.getreply(conn)
	check(r == SMFIR_CONTINUE or r == SMFIR_SKIP,
	    "the milter answered %s to %s", replyname(r), what)
end

-- finish(conn, msg): the end of the headers, the body and the end of
-- msg, begun by send(conn, msg, { upto = "headers" }); the milter's
-- X-Patch-Attested, unfolded
local function finish(conn, msg)
	if not mt.test_option(conn, SMFIP_NOEOH) then
		step(conn, "end of headers", mt.eoh(conn))
	end
	if not mt.test_option(conn, SMFIP_NOBODY) then
		step(conn, "body", mt.bodystring(conn, msg.body))
	end
	check(mt.eom(conn) == nil, "end of message")
	expect_accepted({ reply = mt.getreply(conn), acts = {} }, "A's patch")
	local v = mt.getheader(conn, HDR, 0)
	check(v ~= nil, "A's patch: no %s header", HDR)
	return unfold(v)
end

run(function()
	local sock = SOCK
	SOCK = "unix:" .. MSOCK
	local a = connect()
	SOCK = sock
	local msg = mail("p1")
	send(a, msg, { upto = "headers" })
	os.execute("sleep 2")

	local b = connect()
	local res = send(b, mail("p1"))
	expect_accepted(res, "seed 002 in A's place")
	expect_verdict(b, res, "p1", "seed 002 in A's place")
	mt.disconnect(b)

	local v = finish(a, msg)
	check(v:match('^temperror; reason="over MaximumConnections %(its ' ..
	    'place went to another connection while its MTA was silent%)"'),
	    "A's patch, its place taken: header %s", show(v))
	os.execute("sleep 1.5")	-- B's place free, or silent long enough
	res = send(a, mail("p1"))
	expect_accepted({ reply = res.reply, acts = {} }, "A's next patch")
	v = mt.getheader(a, HDR, 0)
	check(v == expected("p1"), "A's next patch: header %s, want %s",
	    show(v or "none"), show(expected("p1")))
	mt.disconnect(a)
end)
