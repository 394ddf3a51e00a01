-- SPDX-License-Identifier: BSD-2-Clause
-- t-learn.lua - LearnFromMail yes, an archive without the document: the
-- patch is "none"; then the attestation document arrives by mail and
-- passes untouched (it is no patch); a moment later the patches pass.
-- DATA/p*.hdr were made with the document indexed.
dofile(HARNESS)

run(function()
	local conn = connect()
	local res = send(conn, mail("p1"))
	expect_accepted(res, "seed 002 before the document")
	local v = verdict(conn, res, "seed 002 before the document")
	check(v:match("^none; "), "seed 002 before the document: %s "..
	    "(the archive should not have it)", show(v))

	res = send(conn, mail("doc"))
	expect_accepted(res, "the attestation document")
	expect_no_verdict(conn, res, "the attestation document")
	expect_only(res, "", "the attestation document")

	-- Learning runs in the background: give it up to ten seconds.
	local t0 = os.time()
	mt.sleep(1)
	for _ = 1, 19 do
		res = send(conn, mail("p1"))
		v = verdict(conn, res, "seed 002 after the document")
		if v:match("^pass; ") then
			break
		end
		mt.sleep(0.5)
	end
	expect_accepted(res, "seed 002 after the document")
	expect_verdict(conn, res, "p1", "seed 002 after the document")
	note("learnt within %d s", os.time() - t0)

	res = send(conn, mail("p6"))
	expect_accepted(res, "seed 007 after the document")
	expect_verdict(conn, res, "p6", "seed 007 after the document")
	mt.disconnect(conn)
end)
