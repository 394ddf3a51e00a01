-- SPDX-License-Identifier: BSD-2-Clause
-- t-habit.lua - signer memory: dev@example.org sends three patches signed
-- by the real patatt tool with a key of the keyring folder (habit-1..3),
-- then a patch in dev's name comes unsigned (habit-forged): it is
-- unsigned-by-signer, the reason naming the habit; another author's
-- unsigned patch (habit-other) is none, and the same again a second later
-- is judged the same (its second copy is recorded beside the first, and
-- logged: t-milter.sh looks); so is a second copy, with other content,
-- of a Message-ID of 900 bytes (the record keeps its first 511 and finds
-- it by the hash of all of it).  Then, all unsigned: dev's reply to the
-- series with a diff of its own (habit-reply) is none, and teaches no
-- habit; carol's patch that dev sends (habit-relay, an in-body From) is
-- judged by dev's habit, the reason naming both; dev's patch that carol
-- sends (habit-for-dev) by carol's, none, and it teaches dev's nothing;
-- dev's patch relayed by the kernel's web endpoint (habit-endpoint,
-- X-Original-From) by dev's.  ACTION=reject: the configuration
-- has OnUnsignedBySigner reject, and the forged patch is refused.
-- Configuration: AuthservID mx.test.example.
dofile(HARNESS)

local ID = "mx.test.example"

run(function()
	local conn = connect()
	for i = 1, 3 do
		local what = "dev's signed patch " .. i
		local res = send(conn, mail("habit-" .. i))
		expect_accepted(res, what)
		local v = unfold(verdict(conn, res, what))
		check(v:match("^pass; scheme=patatt; ") and
		    v:match("key=ed25519/example%.org/dev/t1;"),
		    "%s: header %s", what, show(v))
	end
	-- the records are committed by the ledger's own thread: a forger
	-- comes later than a burst of mail takes to commit
	os.execute("sleep 1")

	local res = send(conn, mail("habit-forged"))
	local reason = "dev@example.org signed 3 of its last 3 patches " ..
	    "with ed25519/example.org/dev/t1; this one is unsigned"
	if ACTION == "reject" then
		local text = expect_reply(res, "550 5.7.1", "forged, reject")
		check(text:find("Patch attestation unsigned-by-signer: ", 1,
		    true) and text:find(reason, 1, true),
		    "forged, reject: reply %s", show(text))
		mt.disconnect(conn)
		return
	end
	expect_accepted(res, "forged")
	local v = unfold(verdict(conn, res, "forged"))
	check(v:match("^unsigned%-by%-signer; attid=[%x%-]+; ") and
	    v:find('reason="' .. reason .. '"', 1, true),
	    "forged: header %s", show(v))
	expect_authres(conn, res, ID, "policy", "unsigned-by-signer",
	    attid(v), "forged")

	res = send(conn, mail("habit-other"))
	expect_accepted(res, "another author, unsigned")
	v = unfold(verdict(conn, res, "another author, unsigned"))
	check(v:match("^none; attid=[%x%-]+$"),
	    "another author, unsigned: header %s", show(v))
	os.execute("sleep 1")
	res = send(conn, mail("habit-other"), { qid = "HABITCOPY2" })
	expect_accepted(res, "the same again")
	check(unfold(verdict(conn, res, "the same again")) == v,
	    "the same again: the same header")

	-- name sent once the records before it are committed (what: a
	-- description): none, or unsigned-by-signer for the reason why
	local function judged(name, what, why)
		os.execute("sleep 1")
		local res = send(conn, mail(name))
		expect_accepted(res, what)
		local v = unfold(verdict(conn, res, what))
		check((why == nil and v:match("^none; attid=[%x%-]+$")) or
		    (why ~= nil and
		    v:match("^unsigned%-by%-signer; attid=[%x%-]+; ") and
		    v:find('reason="' .. why .. '"', 1, true)),
		    "%s: header %s", what, show(v))
	end
	local key = "ed25519/example.org/dev/t1"
	judged("habit-reply", "dev's reply with a diff")
	-- 3 of the last 4: the reply taught dev's habit nothing
	judged("habit-relay", "carol's patch sent by dev",
	    "dev@example.org signed 3 of its last 4 patches with " .. key ..
	    "; this one, sent for author carol@example.net, is unsigned")
	judged("habit-for-dev", "dev's patch sent by carol")
	-- 3 of the last 5: the relay counted for dev, carol's sending not
	judged("habit-endpoint", "dev's patch through the web endpoint",
	    "dev@example.org signed 3 of its last 5 patches with " .. key ..
	    "; this one is unsigned")

	local long = "<" .. string.rep("x", 888) .. "@example.org>"
	res = send(conn, add_header(mail("p6"), 1, "Message-ID", long))
	expect_accepted(res, "a long Message-ID")
	os.execute("sleep 1")
	res = send(conn, add_header(mail("p5"), 1, "Message-ID", long),
	    { qid = "LONGCOPY2" })
	expect_accepted(res, "another mail, the same long Message-ID")
	mt.disconnect(conn)
end)
