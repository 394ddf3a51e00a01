-- SPDX-License-Identifier: BSD-2-Clause
-- t-pg-away.lua - StateDatabase away (tests/t-pg.sh stops its server;
-- no recorder: the header is read from miltertest): a patch signed by a
-- key only the mail offers, under PatattTOFU, cannot be judged
-- (temperror, OnError's action, the reason saying that the pin could not
-- be consulted and why); nor can an unsigned patch, whose author's habit
-- is unknown (temperror, the reason saying that signer memory could not
-- be consulted, and that the patch is unsigned).
dofile(HARNESS)

-- header(conn, what): the X-Patch-Attested the milter inserted, unfolded
local function header(conn, what)
	local v = mt.getheader(conn, HDR, 0)
	check(v ~= nil, "%s: no %s header", what, HDR)
	return unfold(v)
end

run(function()
	local conn = connect()
	local res = send(conn, mail("tofu"))
	expect_accepted(res, "TOFU, database away")
	local v = header(conn, "TOFU, database away")
	check(v:match("^temperror;") and v:match("the key pinned on first " ..
	    "use could not be consulted: [^\"]*state database"),
	    "TOFU, database away: header %s", show(v))
	mt.disconnect(conn)

	conn = connect()
	res = send(conn, mail("unsigned"))
	expect_accepted(res, "unsigned, database away")
	v = header(conn, "unsigned, database away")
	check(v:match("^temperror;") and v:match("signer memory could not " ..
	    "be consulted: [^\"]*state database[^\"]*; this one is unsigned"),
	    "unsigned, database away: header %s", show(v))
	mt.disconnect(conn)
end)
