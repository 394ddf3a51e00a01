-- SPDX-License-Identifier: BSD-2-Clause
-- t-patatt-changed.lua - a patatt signature that no longer verifies names
-- what changed.  Seed 002 signed by the real patatt tool with a
-- Message-ID passes and is recorded; copies of it with a line of the
-- commit message, a line of the diff or the Subject changed then fail,
-- the reason naming that part, found by setting each beside the first
-- copy of its Message-ID, sent right after it (before the record of the
-- first is written: the read sees it all the same).  Under a Message-ID no copy of which arrived
-- before, the signature alone says only the body, or one of the headers
-- it signs.
dofile(HARNESS)

-- reason(conn, res, name, what): the fail's reason in the header
local function reason(conn, res, name, what)
	expect_accepted(res, what)
	local v = unfold(verdict(conn, res, what))
	check(v:match("^fail; scheme=patatt; ") and
	    v:match("v0%.1=none; patatt=fail$"), "%s: header %s", what,
	    show(v))
	return v:match('reason="([^"]*)"') or ""
end

local function expect_reason(conn, name, want, what)
	local res = send(conn, mail(name))
	local got = reason(conn, res, name, what)
	check(got == want, "%s: reason\n    %s\n  want\n    %s", what,
	    show(got), show(want))
end

run(function()
	local conn = connect()
	local res = send(conn, mail("patatt-id"))
	expect_accepted(res, "signed seed 002")
	local v = unfold(verdict(conn, res, "signed seed 002"))
	check(v:match("^pass; scheme=patatt; "), "signed: header %s", show(v))
	-- at once: the first copy is read before the ledger's own thread
	-- has written it

	expect_reason(conn, "patatt-id-m", "the signed body changed: its " ..
	    "commit message differs from the copy that arrived first",
	    "commit message changed")
	expect_reason(conn, "patatt-id-p", "the signed body changed: its " ..
	    "diff differs from the copy that arrived first", "diff changed")
	expect_reason(conn, "patatt-id-subject", "the signed Subject " ..
	    "changed since the copy that arrived first", "Subject changed")

	res = send(conn, mail("patatt-other-p"))
	local got = reason(conn, res, "patatt-other-p",
	    "diff changed, another Message-ID")
	check(got:find("the body changed (the signature does not say " ..
	    "which part): body hash mismatch", 1, true) == 1,
	    "diff changed, another Message-ID: reason %s", show(got))
	expect_reason(conn, "patatt-other-subject", "one of the headers " ..
	    "it signs changed (From, Subject, Message-ID)",
	    "Subject changed, another Message-ID")
	mt.disconnect(conn)
end)
