-- SPDX-License-Identifier: BSD-2-Clause
-- t-wait.lua - AttestationWait 60: an unattested patch dated less than an
-- hour ago is deferred with 451 4.7.1 (its attestation may be on its
-- way); dated earlier, or undated, it is accepted as "none".  Patches
-- with an attestation are never deferred.
dofile(HARNESS)

-- dated(name, seconds): DATA/name.eml with a Date that many seconds ago;
-- nil: without Date
local function dated(name, seconds)
	local msg = mail(name)
	if seconds == nil then
		return set_header(msg, "Date", nil)
	end
	return set_header(msg, "Date",
	    os.date("!%a, %d %b %Y %H:%M:%S +0000", os.time() - seconds))
end

run(function()
	local conn = connect()
	local res = send(conn, dated("none", 0))
	expect_reply(res, "451 4.7.1", "unattested patch dated now")
	res = send(conn, dated("none", 30 * 60))
	expect_reply(res, "451 4.7.1", "unattested patch 30 minutes old")

	res = send(conn, dated("none", 2 * 3600))
	expect_accepted(res, "unattested patch two hours old")
	expect_verdict(conn, res, "none", "unattested patch two hours old")
	res = send(conn, mail("none"))
	expect_accepted(res, "unattested patch of 2020")
	expect_verdict(conn, res, "none", "unattested patch of 2020")
	res = send(conn, dated("none", nil))
	expect_accepted(res, "unattested patch without Date")
	expect_verdict(conn, res, "none", "unattested patch without Date")

	res = send(conn, dated("p1", 0))
	expect_accepted(res, "seed 002 dated now")
	check(expect_verdict(conn, res, "p1", "seed 002 dated now")
	    :match("^pass; "), "seed 002 dated now does not pass")
	res = send(conn, dated("fail-m", 0))
	expect_accepted(res, "tampered patch dated now")
	expect_verdict(conn, res, "fail-m", "tampered patch dated now")
	mt.disconnect(conn)
end)
