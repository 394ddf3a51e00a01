-- SPDX-License-Identifier: BSD-2-Clause
-- t-pass.lua - the seed series, attested by a trusted key, passes: each
-- patch gets one X-Patch-Attested at index 0 with the value that
-- "patchattest check --header" gives, and nothing else changes (no
-- Authentication-Results without AuthservID).  t-milter.sh then looks
-- for the log line of the first message (queue ID PASSQID01).
dofile(HARNESS)

run(function()
	local conn = connect()
	local msg = mail("p1")
	add_header(msg, 99, "Message-ID", "<t-pass-1@example.org>")
	local res = send(conn, msg, { qid = "PASSQID01" })
	expect_accepted(res, "seed 002")
	local v = expect_verdict(conn, res, "p1", "seed 002")
	check(unfold(v):match('^pass; attid=2a02abe0%-215cf3f1%-2acb5798; ' ..
	    'signer="Alice Developer <alice@example%.org>"; key=%x+; ' ..
	    'signed=%d%d%d%d%-%d%d%-%d%d$'), "seed 002: header %s", show(v))
	expect_only(res, "i", "seed 002")

	for i = 2, 6 do
		local res_i, what = expect_seed_pass(conn, i)
		expect_only(res_i, "i", what)
	end
	mt.disconnect(conn)
end)
