-- SPDX-License-Identifier: BSD-2-Clause
-- t-keyfaults.lua - the patatt keyring (KEYRING) damaged in every way an
-- admin or a checkout can under the running milter, which runs as a user
-- that the file modes bind, with OnNoKey reject: a key file or folder
-- that cannot be read is temperror (OnError: accepted, or 451 when
-- ONERROR is tempfail), never nokey (550) or none; once repaired, the
-- same mail passes.  No header or reply names a path of the server.
-- An OpenPGP signature by a key that has no file is nokey (550): there
-- is no GnuPG home, so patatt's verdict is the milter's.
dofile(HARNESS)

local KEY = KEYRING .. "/ed25519/example.org/dev/t1"
local USERDIR = KEYRING .. "/ed25519/example.org/dev"

local function sh(cmd)
	local ok = os.execute(cmd)
	check(ok == true or ok == 0, "%s failed", cmd)
end

-- fault(conn, what): the signed patch meets a keyring fault
local function fault(conn, what)
	local res = send(conn, mail("patatt"))
	if ONERROR == "tempfail" then
		local text = expect_reply(res, "451 4.7.1", what)
		check(not text:find(ROOT, 1, true),
		    "%s: the reply names a server path: %s", what, show(text))
		check(text:find("temperror", 1, true), "%s: reply %s", what,
		    show(text))
		return
	end
	expect_accepted(res, what)
	local v = unfold(verdict(conn, res, what))
	check(v:match("^temperror;"), "%s: header %s", what, show(v))
	check(not v:find(ROOT, 1, true),
	    "%s: the header names a server path: %s", what, show(v))
end

-- passes(conn, what): the signed patch passes
local function passes(conn, what)
	local res = send(conn, mail("patatt"))
	expect_accepted(res, what)
	local v = unfold(verdict(conn, res, what))
	check(v:match("^pass; scheme=patatt; "), "%s: header %s", what,
	    show(v))
end

run(function()
	local conn = connect()
	passes(conn, "keyring intact")

	sh("chmod 000 " .. KEYRING)
	fault(conn, "keyring folder mode 000")
	sh("chmod 755 " .. KEYRING)
	passes(conn, "keyring folder readable again")

	sh("chmod 000 " .. USERDIR)
	fault(conn, "user folder mode 000")
	sh("chmod 755 " .. USERDIR)

	sh("chmod 000 " .. KEY)
	fault(conn, "key file mode 000")
	sh("chmod 644 " .. KEY)
	passes(conn, "key file readable again")

	sh("mv " .. KEY .. " " .. KEY .. ".real && mkfifo " .. KEY)
	fault(conn, "a FIFO as key file")
	sh("rm " .. KEY .. " && ln -s /dev/zero " .. KEY)
	fault(conn, "a symbolic link to /dev/zero as key file")
	sh("rm " .. KEY .. " && mv " .. KEY .. ".real " .. KEY)

	sh("mv " .. KEYRING .. " " .. KEYRING .. ".gone")
	fault(conn, "keyring folder moved away")
	sh("mv " .. KEYRING .. ".gone " .. KEYRING)
	passes(conn, "keyring folder back")

	local res = send(conn, mail("patatt-pgp"))
	local text = expect_reply(res, "550 5.7.1",
	    "OpenPGP signature, no key file, no GnuPG home")
	check(text:find("nokey", 1, true), "OpenPGP without key file: %s",
	    show(text))
	check(not text:find(ROOT, 1, true),
	    "the reply names a server path: %s", show(text))
	mt.disconnect(conn)
end)
