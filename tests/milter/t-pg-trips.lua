-- SPDX-License-Identifier: BSD-2-Clause
-- t-pg-trips.lua - what one message asks StateDatabase (tests/t-pg.sh:
-- SOCK, a milter with UIDMatch strict; TRIPS, a script that counts the
-- statements on pins and habits the server logged since "TRIPS start").
-- x7, from dev@example.org (a habitual signer) but signed by a key only
-- the mail offers for x@example.net (no pin), is nokey and then breaks
-- dev's habit: it needs a pin and a habit, and waits on one statement.
-- tofu, signed by new@example.net's pinned key, passes on one statement
-- that writes no pin.  soon-pn, soon with its diff changed (t-pg-soon.lua
-- sent both before) and signed anew by new@example.net with a key it
-- offers beside dev's signature of soon, fails naming the diff: the
-- first copy of its Message-ID (for dev's signature, which no longer
-- verifies), its signers' pins (new@example.net's first use) and its
-- sender's habit come in one statement.
dofile(HARNESS)

run(function()
	check(os.execute(TRIPS .. " start"), "TRIPS start failed")
	local v = through(SOCK, "x7")
	check(v:match("^unsigned%-by%-signer;") and v:match("patatt=nokey"),
	    "x7: header %s", show(v))
	check(os.execute(TRIPS .. " 1"), "x7 (a pin and a habit read): " ..
	    "not one statement (" .. TRIPS .. ".out says which)")

	check(os.execute(TRIPS .. " start"), "TRIPS start failed")
	v = through(SOCK, "tofu")
	check(v:match("^pass;"), "tofu: header %s", show(v))
	check(os.execute(TRIPS .. " 1 'INSERT INTO pins'"), "tofu (pinned " ..
	    "already): not one statement, or a pin written (" .. TRIPS ..
	    ".out says which)")

	check(os.execute(TRIPS .. " start"), "TRIPS start failed")
	v = through(SOCK, "soon-pn")
	check(v:find('reason="the signed body changed: its diff differs ' ..
	    'from the copy that arrived first"', 1, true) ~= nil,
	    "soon-pn: header %s", show(v))
	check(os.execute(TRIPS .. " 1"), "soon-pn (pins, a habit and the " ..
	    "first copy read): not one statement (" .. TRIPS ..
	    ".out says which)")
end)
