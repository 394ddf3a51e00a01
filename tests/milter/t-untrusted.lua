-- SPDX-License-Identifier: BSD-2-Clause
-- t-untrusted.lua - the series attested by a key in the keyring that
-- nobody certified (TrustModel gpg): "untrusted", and an
-- Authentication-Results result "neutral".  Configuration: AuthservID
-- mx.test.example.
dofile(HARNESS)

run(function()
	local conn = connect()
	local res = send(conn, mail("p1"))
	expect_accepted(res, "uncertified signer")
	local v = expect_verdict(conn, res, "p1", "uncertified signer")
	check(v:match("^untrusted; "), "uncertified signer: header %s",
	    show(v))
	expect_authres(conn, res, "mx.test.example", "neutral", "untrusted",
	    "2a02abe0-215cf3f1-2acb5798", "uncertified signer")
	expect_only(res, "i", "uncertified signer")
	mt.disconnect(conn)
end)
