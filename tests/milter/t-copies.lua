-- SPDX-License-Identifier: BSD-2-Clause
-- t-copies.lua - a patch and an attacker's version of it under its
-- Message-ID, sent straight to the MX from a host of the attacker's: under
-- one Message-ID the attacker's copy comes after the genuine one, which
-- came through the list's host; under another it comes first.  Each is
-- judged on its own (seed 002 passes, its tampered copy fails); then
-- t-milter.sh asks patchattest arrived about the genuine patches
-- (copies-differ, every copy with its host) and reads the warnings in
-- the log.
dofile(HARNESS)

-- copy(host, addr, name, id, qid, from, what): mail name under id sent
-- from host (a connection of its own), its header
local function copy(host, addr, name, id, qid, from, what)
	local conn = connect(host, addr)
	local res = send(conn, add_header(mail(name), 1, "Message-ID", id),
	    { qid = qid, from = from })
	expect_accepted(res, what)
	local v = unfold(verdict(conn, res, what))
	mt.disconnect(conn)
	return v
end

local function list(name, id, qid, what)
	return copy("lists.example.org", "192.0.2.20", name, id, qid, nil,
	    what)
end

local function attacker(name, id, qid, what)
	return copy("mx.attacker.example", "203.0.113.9", name, id, qid,
	    "<mallory@attacker.example>", what)
end

run(function()
	local v

	v = list("p1", "<copies-after@example.org>", "LISTAFTER",
	    "the genuine patch")
	check(v:match("^pass; "), "the genuine patch: %s", show(v))
	v = attacker("fail-m", "<copies-after@example.org>", "EVILAFTER",
	    "the attacker's copy after it")
	check(v:match("^fail; "), "the attacker's copy after: %s", show(v))

	v = attacker("fail-m", "<copies-before@example.org>", "EVILBEFORE",
	    "the attacker's copy first")
	check(v:match("^fail; "), "the attacker's copy first: %s", show(v))
	v = list("p1", "<copies-before@example.org>", "LISTBEFORE",
	    "the genuine patch after it")
	check(v:match("^pass; "), "the genuine patch after: %s", show(v))
	-- the records are written, and the copies told, a batch later
	os.execute("sleep 1")
end)
