-- SPDX-License-Identifier: BSD-2-Clause
-- t-pg-back.lua - StateDatabase away and back (tests/t-pg.sh; PGCTL stop
-- and PGCTL start stop and start its server, the second writing to READY
-- when the server's log says it took connections; LOG is the milter's
-- log; no recorder).  An unsigned patch, whose author's signing habit
-- is read from the database, is judged with the server up; again after a
-- restart with no mail meanwhile (the milter's idle connections to the
-- old server are dead); temperror while the server is away for 4.3
-- seconds, each reason naming the database's error cut after a whole word
-- at most; and judged again less than a second after the server answers.
dofile(HARNESS)

-- now(): the time of day, in seconds with a fraction
local function now()
	local p = io.popen("date +%s.%N")
	local t = tonumber(p:read("l"))
	p:close()
	return t
end

local sent = 0

-- judge(): an unsigned patch under a Message-ID of its own through the
-- milter: its X-Patch-Attested, unfolded, and when it came
local function judge()
	sent = sent + 1
	local what = string.format("unsigned patch %d", sent)
	local msg = set_header(mail("unsigned"), "Message-ID",
	    string.format("<back-%d@pg.example>", sent))
	local conn = connect()
	local res = send(conn, msg)
	expect_accepted(res, what)
	local v = mt.getheader(conn, HDR, 0)
	check(v ~= nil, "%s: no %s header", what, HDR)
	mt.disconnect(conn)
	return unfold(v), now()
end

-- logged(): what the milter logged of the database going away, each
-- reason without an ellipsis at its end
local function logged()
	local out = {}
	for line in io.lines(LOG) do
		local why = line:match("patchattest%-milter: (.*): signer " ..
		    "memory and first%-use pins cannot be read")
		if why then
			out[#out + 1] = (why:gsub("%.%.%.$", ""))
		end
	end
	return out
end

-- whole(v): the reason of temperror v names why the database could not
-- be read, that reason the milter logged or the start of it up to the
-- end of a word, on one line
local function whole(v)
	local why = v:match("signer memory could not be consulted: (.-); " ..
	    "this one is unsigned")
	check(why ~= nil, "not the reason of signer memory away: %s", show(v))
	why = why:gsub("\\(.)", "%1"):gsub("%.%.%.$", "")
	check(not why:find("[\r\n\t]"), "a line end in the reason: %s",
	    show(v))
	for _, ref in ipairs(logged()) do
		local next = ref:sub(#why + 1, #why + 1)
		if ref:sub(1, #why) == why and (next == "" or next == " ") then
			return
		end
	end
	error(string.format("the reason %s is not the logged reason, nor " ..
	    "the start of it to the end of a word: %s", show(why),
	    table.concat(logged(), " | ")), 0)
end

run(function()
	local v = judge()
	local verdict = v:match("^([%w-]+);")
	check(verdict ~= nil and verdict ~= "temperror",
	    "with the database: header %s", show(v))

	check(os.execute(PGCTL .. " stop") and os.execute(PGCTL .. " start"),
	    "cannot restart the server")
	v = judge()
	check(v:match("^" .. verdict .. ";"), "the first patch after a " ..
	    "restart (no mail meanwhile): want %s, header %s", verdict, show(v))

	check(os.execute(PGCTL .. " stop"), "cannot stop the server")
	local t0, t, away = now(), 0, 0
	repeat
		v, t = judge()
		check(v:match("^temperror;"), "the database away: header %s",
		    show(v))
		whole(v)
		away = away + 1
	until t - t0 >= 4.3
	note("%d patches temperror in %.1f seconds away", away, t - t0)

	check(os.execute(PGCTL .. " start &"), "cannot start the server")
	local late = {}
	repeat
		v, t = judge()
		if v:match("^temperror;") then
			whole(v)
			late[#late + 1] = t
		end
		check(t - t0 < 60, "never judged again after the database " ..
		    "came back: header %s", show(v))
	until not v:match("^temperror;")
	check(v:match("^" .. verdict .. ";"), "the database back: want %s, " ..
	    "header %s", verdict, show(v))
	wait_for(function() return there(READY) end, "the server's start")
	local ready = tonumber(readfile(READY):match("^%S+"))
	check(ready ~= nil, "READY holds no time: %s", show(readfile(READY)))
	local after = 0
	for _, at in ipairs(late) do
		if at > ready then
			after = after + 1
		end
	end
	note("judged %.3f seconds after the server answered; %d patches " ..
	    "temperror after it answered", t - ready, after)
	check(t - ready < 1, "judged %.3f seconds after the server answered, " ..
	    "want less than 1", t - ready)
end)
