-- SPDX-License-Identifier: BSD-2-Clause
-- t-keyring-gone.lua - the GnuPG home taken away under the running milter
-- (GNUPG names it): an attested patch is "temperror", not "nokey", and
-- passes (OnError accept) or is deferred (ONERROR=tempfail); once the
-- home is back, the same patch passes again without a reload.  The
-- milter looks at the home once a second: each change is given that long.
dofile(HARNESS)

run(function()
	local conn = connect()
	local res = send(conn, mail("p1"))
	expect_accepted(res, "seed 002, keyring there")
	local v = verdict(conn, res, "seed 002, keyring there")
	check(v:match("^pass;"), "keyring there: header %s", show(v))

	local ok, err = os.rename(GNUPG, GNUPG .. ".gone")
	check(ok, "rename %s: %s", GNUPG, tostring(err))
	os.execute("sleep 1.2")
	res = send(conn, mail("p1"))
	if ONERROR == "tempfail" then
		expect_reply(res, "451 4.7.1", "seed 002, keyring gone")
	else
		expect_accepted(res, "seed 002, keyring gone")
		v = unfold(verdict(conn, res, "seed 002, keyring gone"))
		check(v:match("^temperror;") and v:match("cannot be used"),
		    "keyring gone: header %s", show(v))
	end

	ok, err = os.rename(GNUPG .. ".gone", GNUPG)
	check(ok, "rename back: %s", tostring(err))
	os.execute("sleep 1.2")
	res = send(conn, mail("p1"))
	expect_accepted(res, "seed 002, keyring back")
	v = verdict(conn, res, "seed 002, keyring back")
	check(v:match("^pass;"), "keyring back: header %s", show(v))
	mt.disconnect(conn)
end)
