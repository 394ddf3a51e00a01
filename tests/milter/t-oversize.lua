-- SPDX-License-Identifier: BSD-2-Clause
-- t-oversize.lua - MaximumBodySize MAXBODY: a bigger message is not
-- checked and says so ("temperror", the reason naming the limit); it
-- passes even under OnError tempfail (ONERROR=tempfail), since a retry
-- would be as big; forged X-Patch-Attested headers are still deleted
-- (last to first); a smaller one is decided as usual.
dofile(HARNESS)

run(function()
	local max = tonumber(MAXBODY)
	local conn = connect()

	local small = mail("p1")
	check(#small.body < max - 200, "the small message is not small")
	local res = send(conn, small)
	expect_accepted(res, "seed 002 under the limit")
	expect_verdict(conn, res, "p1", "seed 002 under the limit")

	local big = mail("p2")
	check(#big.body > max, "the big message is not big")
	local forged = "pass; attid=75937bcc-99055a61-86ed600d"
	add_header(big, 1, "X-Patch-Attested", forged)
	add_header(big, 3, "X-Patch-Attested", forged)
	add_header(big, 99, "X-Patch-Attested", forged)
	res = send(conn, big)
	expect_accepted(res, "seed 003 over the limit")
	local v = unfold(verdict(conn, res, "seed 003 over the limit"))
	check(v == 'temperror; reason="over MaximumBodySize (' .. MAXBODY ..
	    ' bytes): not checked"', "seed 003 over the limit: header %s",
	    show(v))
	expect_deleted(res, HDR, { 3, 2, 1 }, "seed 003 over the limit")
	expect_only(res, "mi", "seed 003 over the limit")

	-- The next message on the connection is decided again.
	res = send(conn, mail("p3"))
	expect_accepted(res, "seed 004 after an oversized message")
	expect_verdict(conn, res, "p3", "seed 004 after an oversized message")
	mt.disconnect(conn)
end)
