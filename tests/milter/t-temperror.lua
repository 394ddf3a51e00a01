-- SPDX-License-Identifier: BSD-2-Clause
-- t-temperror.lua - IndexPath names a corrupt index: patches get
-- "temperror" and pass (OnError accept), or 451 4.7.1 with ONERROR=tempfail;
-- mail without a patch needs no index and is handled as usual.
-- Configuration: AuthservID mx.test.example.
dofile(HARNESS)

run(function()
	local conn = connect()
	local res = send(conn, mail("p1"))
	if ONERROR == "tempfail" then
		expect_reply(res, "451 4.7.1", "seed 002, index unusable")
	else
		expect_accepted(res, "seed 002, index unusable")
		local v = verdict(conn, res, "seed 002, index unusable")
		check(v:match("^temperror"), "seed 002, index unusable: " ..
		    "header %s", show(v))
		local ar = inserted(res, AR)
		check(#ar == 1 and unfold(ar[1].value):match(
		    '^mx%.test%.example; x%-patch%-attest=temperror ' ..
		    'reason="temperror"'),
		    "seed 002, index unusable: A-R %s", describe(res.acts))
	end

	local msg = add_header(mail("plain"), 1, "X-Patch-Attested", "pass")
	res = send(conn, msg)
	expect_accepted(res, "plain mail, index unusable")
	expect_no_verdict(conn, res, "plain mail, index unusable")
	expect_deleted(res, HDR, { 1 }, "plain mail, index unusable")

	-- the milter keeps answering: a second patch gets the same
	res = send(conn, mail("p2"))
	if ONERROR == "tempfail" then
		expect_reply(res, "451 4.7.1", "seed 003, index unusable")
	else
		expect_accepted(res, "seed 003, index unusable")
	end
	mt.disconnect(conn)
end)
