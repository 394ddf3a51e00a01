-- SPDX-License-Identifier: BSD-2-Clause
-- t-tofu.lua - PatattTOFU through the milter, with a keyring that has no
-- key for dev@example.org and only an OpenPGP file for dev2@example.org:
-- a signed cover letter pins nothing (nokey); a patch signed by key t2 as
-- DEV@Example.ORG is the first use of dev@example.org (pass); the patch
-- signed by key t1 as dev@example.org is then another key for the same
-- identity (fail); an ed25519 patch as dev2@example.org is nokey, its
-- OpenPGP key file speaking for it.  Then the keyring folder is renamed
-- away: a new identity's patch is temperror, and pins nothing.
dofile(HARNESS)

run(function()
	local conn = connect()
	local res = send(conn, mail("patatt-cover"))
	expect_accepted(res, "signed cover letter")
	local v = unfold(verdict(conn, res, "signed cover letter"))
	check(v:match("^nokey;"), "cover letter: header %s", show(v))

	res = send(conn, mail("tofu-case"))
	expect_accepted(res, "t2 as DEV@Example.ORG")
	v = unfold(verdict(conn, res, "t2 as DEV@Example.ORG"))
	check(v:match("^pass;") and v:match("patatt=pass$"),
	    "first use: header %s", show(v))

	res = send(conn, mail("patatt"))
	expect_accepted(res, "t1 as dev@example.org")
	v = unfold(verdict(conn, res, "t1 as dev@example.org"))
	check(v:match("^fail;") and v:match("patatt=fail$"),
	    "another key, same identity in another case: header %s", show(v))

	res = send(conn, mail("tofu-pgponly"))
	expect_accepted(res, "ed25519 as dev2@example.org")
	v = unfold(verdict(conn, res, "ed25519 as dev2@example.org"))
	check(v:match("^nokey;"), "OpenPGP key file only: header %s", show(v))

	local ok, err = os.rename(KEYRING, KEYRING .. ".gone")
	check(ok, "rename %s: %s", KEYRING, tostring(err))
	res = send(conn, mail("tofu-new"))
	expect_accepted(res, "keyring gone, new identity")
	v = unfold(verdict(conn, res, "keyring gone, new identity"))
	check(v:match("^temperror;"), "keyring gone: header %s", show(v))
	ok, err = os.rename(KEYRING .. ".gone", KEYRING)
	check(ok, "rename back: %s", tostring(err))
	mt.disconnect(conn)
end)
