-- SPDX-License-Identifier: BSD-2-Clause
-- t-pgp-crafted.lua - patatt OpenPGP signatures for an identity whose key
-- is only in the GnuPG home, checked without running gpg.  Seed 002 signed
-- by patatt with alice's key passes; the first mails read the GnuPG home
-- (a listing and an export, through the gpg wrapper that counts runs in
-- GPGCALLS).  Then b= replaced by an unknown packet in front of the real
-- signature, compression bombs (BZip2, ZIP, ZLIB) and random bytes each
-- fail, and nine copies of the good signature are not verified (none);
-- for all these no gpg runs at all.
dofile(HARNESS)

-- gpg_runs: gpg and gpgconf runs so far, one line each
local function gpg_runs()
	local _, n = readfile(GPGCALLS):gsub("\n", "")
	return n
end

local function good(conn, what)
	local res = send(conn, mail("pgp"))
	expect_accepted(res, what)
	local v = unfold(verdict(conn, res, what))
	check(v:match("^pass; scheme=patatt; ") and
	    v:match("signer=\"Alice Developer <alice@example%.org>\"") and
	    v:match("patatt=pass$"), "%s: header %s", what, show(v))
end

run(function()
	local conn = connect()
	local start = gpg_runs()
	good(conn, "signed by alice")
	check(gpg_runs() > start, "the GnuPG home is read through the " ..
	    "wrapper (%d runs)", gpg_runs() - start)
	-- the first listing may touch the trust database: one more listing
	good(conn, "signed by alice, again")
	local settled = gpg_runs()
	good(conn, "signed by alice, a third time")
	check(gpg_runs() == settled, "a good signature runs no gpg: %d runs",
	    gpg_runs() - settled)

	for _, k in ipairs({ "tag60", "bzip2", "zip", "zlib", "random" }) do
		local res = send(conn, mail("pgp-" .. k))
		expect_accepted(res, k)
		local v = unfold(verdict(conn, res, k))
		check(v:match("^fail; scheme=patatt; ") and
		    v:match("patatt=fail$"), "%s: header %s", k, show(v))
	end
	local res = send(conn, mail("pgp-many"))
	expect_accepted(res, "nine signatures")
	local v = unfold(verdict(conn, res, "nine signatures"))
	check(v:match("^none; ") and v:match("patatt=none$"),
	    "nine signatures: header %s", show(v))
	check(gpg_runs() == settled, "no gpg ran for the crafted mails: " ..
	    "%d runs", gpg_runs() - settled)
	mt.disconnect(conn)
end)
