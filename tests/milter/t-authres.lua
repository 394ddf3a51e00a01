-- SPDX-License-Identifier: BSD-2-Clause
-- t-authres.lua - AuthservID mx.test.example: each patch gets an
-- Authentication-Results at index 0 with the result, the verdict and the
-- attestation ID; incoming ones that claim our authserv-id (in any case)
-- are deleted, last to first, before ours goes in; those of other hosts
-- stay.  RFC 8601 section 5 asks the same of non-patch mail.
dofile(HARNESS)

local ID = "mx.test.example"

run(function()
	local conn = connect()

	-- Authentication-Results 1 and 3 are ours, 2 and 4 not (4 only
	-- starts like ours).
	local msg = mail("p1")
	add_header(msg, 1, AR, ID .. "; x-patch-attest=pass reason=\"pass\"")
	add_header(msg, 3, "authentication-results",
	    "other.example; spf=pass smtp.mailfrom=example.org")
	add_header(msg, 5, AR, "MX.Test.Example;\n\tx-patch-attest=pass")
	add_header(msg, 99, AR, ID .. ".evil.example; x-patch-attest=pass")
	local res = send(conn, msg)
	expect_accepted(res, "seed 002 with four incoming A-R")
	expect_deleted(res, AR, { 3, 1 }, "seed 002 with four incoming A-R")
	local last_delete, insert = 0, nil
	for i, a in ipairs(res.acts) do
		if a.cmd == "m" then
			last_delete = i
		elseif a.cmd == "i" and a.name == AR then
			insert = i
		end
	end
	check(insert ~= nil and insert > last_delete,
	    "our A-R must come after the deletions: %s", describe(res.acts))
	expect_verdict(conn, res, "p1", "seed 002 with four incoming A-R")
	expect_authres(conn, res, ID, "pass", "pass",
	    "2a02abe0-215cf3f1-2acb5798", "seed 002")
	expect_only(res, "mi", "seed 002 with four incoming A-R")

	res = send(conn, mail("fail-p"))
	expect_accepted(res, "diff changed")
	local v = expect_verdict(conn, res, "fail-p", "diff changed")
	expect_authres(conn, res, ID, "fail", "fail", attid(v), "diff changed")
	expect_deleted(res, AR, {}, "diff changed")

	res = send(conn, mail("none"))
	expect_accepted(res, "unattested patch")
	expect_verdict(conn, res, "none", "unattested patch")
	expect_authres(conn, res, ID, "none", "none",
	    "b439783a-eebcc597-e4de069a", "unattested patch")

	-- Not a patch: no verdict, no A-R of ours, but no forged one either.
	msg = add_header(mail("plain"), 2, AR, ID .. "; x-patch-attest=pass")
	res = send(conn, msg)
	expect_accepted(res, "plain mail with a forged A-R")
	expect_no_verdict(conn, res, "plain mail with a forged A-R")
	check(#inserted(res, AR) == 0, "plain mail: an A-R was added: %s",
	    describe(res.acts))
	expect_deleted(res, AR, { 1 }, "plain mail with a forged A-R")
	mt.disconnect(conn)
end)
