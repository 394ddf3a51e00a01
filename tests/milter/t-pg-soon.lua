-- SPDX-License-Identifier: BSD-2-Clause
-- t-pg-soon.lua - with StateDatabase, a copy sent right after the first
-- (before the sender has taken the first copy's record from the journal
-- to the database) is set beside it all the same: a patch signed by
-- patatt passes, and the same with its diff changed, sent at once, fails
-- with the reason naming the diff (no recorder: the header is read from
-- miltertest).
--   SOCK  the milter
dofile(HARNESS)

run(function()
	local v = through(SOCK, "soon")
	check(v:match("^pass; "), "signed: header %s", show(v))
	v = through(SOCK, "soon-p")
	check(v:find('reason="the signed body changed: its diff differs ' ..
	    'from the copy that arrived first"', 1, true) ~= nil,
	    "its diff changed, sent at once: header %s", show(v))
end)
