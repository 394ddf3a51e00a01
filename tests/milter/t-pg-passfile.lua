-- SPDX-License-Identifier: BSD-2-Clause
-- t-pg-passfile.lua - a milter started as root with root's HOME, as
-- start-stop-daemon starts it, that became its UserID (tests/t-pg-users.sh;
-- no recorder: the header is read from miltertest): the password comes
-- from that user's ~/.pgpass, so an unsigned patch, which needs its
-- author's signing habit from the database, is judged (none), not
-- temperror for a database the milter could not log in to.
dofile(HARNESS)

run(function()
	local conn = connect()
	local res = send(conn, mail("unsigned"))
	expect_accepted(res, "unsigned patch")
	local v = mt.getheader(conn, HDR, 0)
	check(v ~= nil, "unsigned patch: no %s header", HDR)
	v = unfold(v)
	check(v:match("^none;"), "unsigned patch: header %s", show(v))
	mt.disconnect(conn)
end)
