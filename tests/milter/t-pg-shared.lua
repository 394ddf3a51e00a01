-- SPDX-License-Identifier: BSD-2-Clause
-- t-pg-shared.lua - two milters, A (SOCK_A) and B (SOCK_B), sharing one
-- StateDatabase (tests/t-pg.sh; no recorder: the header is read from
-- miltertest; WAIT_HABIT: a script that waits for A's records to reach
-- the database).  Three patches signed by dev@example.org's key (in the
-- keyring) through A make a signing habit; an unsigned patch in its
-- name through B is then unsigned-by-signer.  A patch of new@example.net
-- signed by a key only the mail offers pins it through A; the same
-- identity with another key through B then fails.
dofile(HARNESS)

run(function()
	for _, name in ipairs({ "h1", "h2", "h3" }) do
		local v = through(SOCK_A, name)
		check(v:match("^pass;"), "%s through A: header %s", name,
		    show(v))
	end
	-- the habit reaches the database from A's journal within a batch:
	-- WAIT_HABIT (a script) waits for it
	check(os.execute(WAIT_HABIT), "the habit never reached the database")
	local v = through(SOCK_B, "u4")
	check(v:match("^unsigned%-by%-signer;"),
	    "unsigned patch through B after A learnt the habit: header %s",
	    show(v))

	v = through(SOCK_A, "n5")
	check(v:match("^pass;"), "first use through A: header %s", show(v))
	v = through(SOCK_B, "n6")
	check(v:match("^fail;") and v:match("not the one first used"),
	    "another key through B: header %s", show(v))
end)
