-- SPDX-License-Identifier: BSD-2-Clause
-- t-abort.lua - the client aborts messages part way (after some body,
-- after the headers); the next message on the same connection gets its
-- own verdict, and nothing of the aborted one (its forged headers, its
-- hashes) leaks into it.
dofile(HARNESS)

run(function()
	local conn = connect()
	local msg = mail("fail-m")
	add_header(msg, 1, "X-Patch-Attested", "pass")
	add_header(msg, 4, "X-Patch-Attested", "pass")
	send(conn, msg, { upto = "body" })
	check(mt.abort(conn) == nil, "abort failed")

	local res = send(conn, mail("p2"))
	expect_accepted(res, "seed 003 after an abort")
	local v = expect_verdict(conn, res, "p2", "seed 003 after an abort")
	check(v:match("^pass; attid=75937bcc%-99055a61%-86ed600d;"),
	    "seed 003 after an abort: header %s", show(v))
	expect_deleted(res, HDR, {}, "seed 003 after an abort")
	expect_only(res, "i", "seed 003 after an abort")

	send(conn, mail("p3"), { upto = "headers" })
	check(mt.abort(conn) == nil, "abort failed")
	res = send(conn, mail("none"))
	expect_accepted(res, "unattested patch after an abort")
	expect_verdict(conn, res, "none", "unattested patch after an abort")
	expect_only(res, "i", "unattested patch after an abort")

	-- an abort right after MAIL FROM, then a tampered patch
	mt.macro(conn, SMFIC_MAIL, "i", "ABORTQ")
	check(mt.mailfrom(conn, "<dev@example.org>") == nil, "MAIL FROM")
	check(mt.abort(conn) == nil, "abort failed")
	res = send(conn, mail("fail-p"))
	expect_accepted(res, "tampered patch after an abort")
	expect_verdict(conn, res, "fail-p", "tampered patch after an abort")
	mt.disconnect(conn)
end)
