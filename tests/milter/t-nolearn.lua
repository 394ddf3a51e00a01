-- SPDX-License-Identifier: BSD-2-Clause
-- t-nolearn.lua - LearnFromMail no: an attestation document arriving by
-- mail is let through and ignored; the patch stays "none".
dofile(HARNESS)

run(function()
	local conn = connect()
	local res = send(conn, mail("doc"))
	expect_accepted(res, "the attestation document")
	expect_no_verdict(conn, res, "the attestation document")
	mt.sleep(2)
	res = send(conn, mail("p1"))
	expect_accepted(res, "seed 002 after the document")
	local v = verdict(conn, res, "seed 002 after the document")
	check(v:match("^none; "), "seed 002 after the document: %s", show(v))
	mt.disconnect(conn)
end)
