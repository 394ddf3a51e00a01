-- SPDX-License-Identifier: BSD-2-Clause
-- t-replaced.lua - the index changed under the running milter, each
-- change followed at once by a message (no reload, no waiting):
--   MODE=rebuild  the index (made from an archive without the document)
--                 removed and made again by "patchattest index" (REBUILD:
--                 the command) from one with it: seed 002 goes from none
--                 to pass;
--   MODE=emptied  its data file (DATA_MDB) cut to 0 bytes: temperror,
--                 never a new empty index ("none"), until the file is
--                 put back: pass;
--   MODE=random   random bytes written over seed 002's entries in the
--                 file (PATCHATTEST: the command, for seed 002's hashes):
--                 temperror, never "fail", until the file is put back.
dofile(HARNESS)

local function sh(cmd, what)
	check(os.execute(cmd), "%s: %s failed", what, cmd)
end

-- bytes - hex digits as the bytes they spell
local function bytes(hex)
	return (hex:gsub("..", function(h)
		return string.char(tonumber(h, 16))
	end))
end

-- scramble - random bytes over m and p wherever i|m|p of seed 002 is
-- stored (its att and byi entries); the count of places
local function scramble(file)
	local p = assert(io.popen(string.format("'%s' hash --tsv '%s/p1.eml'",
	    PATCHATTEST, DATA)))
	local line = p:read("l")
	p:close()
	local i, m, pp = line:match("\t[^\t]+\t(%x+)\t(%x+)\t(%x+)$")
	check(i ~= nil, "hashes of seed 002: %s", show(line or ""))
	local needle = bytes(i .. m .. pp)
	local data = readfile(file)
	local rnd = assert(io.open("/dev/urandom", "rb"))
	local f = assert(io.open(file, "r+b"))
	local n, at = 0, 1
	while true do
		at = data:find(needle, at, true)
		if at == nil then
			break
		end
		f:seek("set", at - 1 + 32)
		f:write(rnd:read(64))
		n = n + 1
		at = at + 96
	end
	f:close()
	rnd:close()
	return n
end

run(function()
	local conn = connect()
	if MODE == "rebuild" then
		expect_seed(conn, "none;", "seed 002, no document in the index")
		sh(REBUILD, "rebuild the index")
		expect_seed(conn, "pass;", "seed 002 after the rebuild")
	elseif MODE == "emptied" then
		expect_seed(conn, "pass;", "seed 002, index whole")
		sh(string.format("cp '%s' '%s.whole' && : >'%s'", DATA_MDB,
		    DATA_MDB, DATA_MDB), "empty the index's file")
		local v = expect_seed(conn, "temperror;",
		    "seed 002, file emptied")
		check(v:match("damaged"), "the reason says damaged: %s", show(v))
		mt.sleep(1)	-- the worker has had time to reopen it
		expect_seed(conn, "temperror;", "seed 002, file still empty")
		sh(string.format("cat '%s.whole' >'%s'", DATA_MDB, DATA_MDB),
		    "put the file back")
		expect_seed(conn, "pass;", "seed 002, file put back")
	else
		expect_seed(conn, "pass;", "seed 002, index whole")
		sh(string.format("cp '%s' '%s.whole'", DATA_MDB, DATA_MDB),
		    "keep a copy")
		local n = scramble(DATA_MDB)
		check(n > 0, "seed 002's entries found in the file")
		local v = expect_seed(conn, "temperror;",
		    "seed 002, random bytes")
		check(v:match("damaged"), "the reason says damaged: %s", show(v))
		sh(string.format("cat '%s.whole' >'%s'", DATA_MDB, DATA_MDB),
		    "put the file back")
		expect_seed(conn, "pass;", "seed 002, file put back")
	end
	mt.disconnect(conn)
end)
