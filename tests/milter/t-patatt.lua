-- SPDX-License-Identifier: BSD-2-Clause
-- t-patatt.lua - patatt's X-Developer-Signature: seed 002 signed by the
-- real patatt tool passes on its signature alone (the index has no
-- document, so the 2020 scheme says none), with the scheme named in the
-- header and a part of its own in Authentication-Results; the same mail
-- with one line of its diff changed fails, again by patatt; the signed
-- cover letter passes on patatt's verdict alone.  The headers are what
-- "patchattest check --header" says under the same settings.
dofile(HARNESS)

local ID = "mx.test.example"

run(function()
	local conn = connect()
	local res = send(conn, mail("patatt"))
	expect_accepted(res, "signed seed 002")
	local v = unfold(expect_verdict(conn, res, "patatt", "signed seed 002"))
	check(v:match("^pass; scheme=patatt; attid=2a02abe0%-215cf3f1%-" ..
	    "2acb5798; signer=\"dev@example%.org\"; " ..
	    "key=ed25519/example%.org/dev/t1; signed=%d+%-%d+%-%d+; " ..
	    "v0%.1=none; patatt=pass$"), "signed: header %s", show(v))
	local ar = inserted(res, AR)
	check(#ar == 1 and unfold(ar[1].value) ==
	    ID .. '; x-patch-attest=none reason="none" ' ..
	    'policy.attid=2a02abe0-215cf3f1-2acb5798; x-patatt=pass ' ..
	    'reason="pass" header.i=dev@example.org header.a=ed25519-sha256',
	    "signed: %s %s", AR, ar[1] and show(ar[1].value) or "missing")

	res = send(conn, mail("patatt-fail"))
	expect_accepted(res, "signed, diff changed")
	v = unfold(expect_verdict(conn, res, "patatt-fail",
	    "signed, diff changed"))
	check(v:match("^fail; scheme=patatt; ") and
	    v:match("v0%.1=none; patatt=fail$"),
	    "diff changed: header %s", show(v))

	-- a signed cover letter has no patch, and patatt's verdict all
	-- the same: no attid, no 2020 part
	res = send(conn, mail("patatt-cover"))
	expect_accepted(res, "signed cover letter")
	v = unfold(expect_verdict(conn, res, "patatt-cover",
	    "signed cover letter"))
	check(v:match("^pass; scheme=patatt; signer=\"dev@example%.org\"; " ..
	    "key=ed25519/example%.org/dev/t1; signed=%d+%-%d+%-%d+; " ..
	    "patatt=pass$"), "cover letter: header %s", show(v))
	ar = inserted(res, AR)
	check(#ar == 1 and unfold(ar[1].value) ==
	    ID .. '; x-patatt=pass reason="pass" header.i=dev@example.org ' ..
	    'header.a=ed25519-sha256', "cover letter: %s %s", AR,
	    ar[1] and show(ar[1].value) or "missing")
	mt.disconnect(conn)
end)
