-- SPDX-License-Identifier: BSD-2-Clause
-- t-forged-one.lua - an incoming X-Patch-Attested is deleted and replaced
-- by the milter's own: on a genuine patch, and on a tampered one whose
-- sender claims "pass".
dofile(HARNESS)

run(function()
	local conn = connect()
	local forged = "pass; attid=2a02abe0-215cf3f1-2acb5798"

	local msg = add_header(mail("p1"), 2, "X-Patch-Attested", forged)
	local res = send(conn, msg)
	expect_accepted(res, "seed 002, one forged header")
	expect_deleted(res, HDR, { 1 }, "seed 002, one forged header")
	expect_verdict(conn, res, "p1", "seed 002, one forged header")
	expect_only(res, "mi", "seed 002, one forged header")

	msg = add_header(mail("fail-m"), 3, "X-Patch-Attested", forged)
	res = send(conn, msg)
	expect_accepted(res, "tampered patch claiming pass")
	expect_deleted(res, HDR, { 1 }, "tampered patch claiming pass")
	local v = expect_verdict(conn, res, "fail-m",
	    "tampered patch claiming pass")
	check(v:match("^fail; "), "tampered patch claiming pass: header %s",
	    show(v))
	expect_only(res, "mi", "tampered patch claiming pass")
	mt.disconnect(conn)
end)
