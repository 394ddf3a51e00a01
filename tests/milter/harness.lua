-- SPDX-License-Identifier: BSD-2-Clause
-- harness.lua - shared steps of the patchattest-milter scenarios (t-*.lua),
-- loaded with dofile(HARNESS).  tests/t-milter.sh starts the milter and
-- tests/milter-record in front of it, then runs each scenario with
-- miltertest and these globals (-D):
--
--   SOCK     socket of the recorder, e.g. "unix:/tmp/x/rec.sock"
--   RECORD   the recorder's log: one line per milter protocol packet
--            (unset when the scenario speaks to the milter directly:
--            then send() reports no actions)
--   DATA     directory of prepared mail: p1.eml..p6.eml (seeds 002..007),
--            fail-m.eml and fail-p.eml (seed 002 with a line of its
--            commit message or diff changed), none.eml (a patch
--            nobody attested), plain.eml, cover.eml (the series' cover
--            letter), doc.eml (the attestation document mail),
--            clock-*.eml (t-clock.lua); and NAME.hdr: what "patchattest
--            check --header" says of NAME.eml under this scenario's
--            configuration
--   METRICS  the milter's Prometheus endpoint (http://127.0.0.1:PORT),
--            when the scenario has one (metrics_get())
--   MILTER_PID  the milter's process ID (DATA/../milter.conf is its
--            configuration, DATA/../milter.log its log)
--   (scenario-specific ones are named in each t-*.lua)
--
-- A failing error() or assert() ends miltertest with status 1 and no word,
-- so run() catches the error, prints it with mt.echo and fails then.

HDR = "X-Patch-Attested"
AR = "Authentication-Results"

-- located(err): err prefixed with the scenario's file and line that led
-- to it (the innermost frame outside this file)
local function located(err)
	if type(err) ~= "string" then
		-- miltertest raises whatever is on its stack when the milter
		-- closes the connection or does not answer in time
		err = "miltertest gave up (the milter closed the connection " ..
		    "or did not answer; see its log)"
	end
	for level = 2, 40 do
		local info = debug.getinfo(level, "Sl")
		if info == nil then
			break
		end
		if info.currentline > 0 and
		    not info.source:find("harness%.lua$") then
			local file = info.source:match("([^/\"]+%.lua)") or
			    info.short_src
			return file .. ":" .. info.currentline .. ": " .. err
		end
	end
	return err
end

-- run(fn): the scenario; prints "PASS" or "FAIL: why" and sets the status
function run(fn)
	local ok, err = xpcall(fn, located)
	if ok then
		mt.echo("PASS")
	else
		mt.echo("FAIL: " .. err)
		error(err)
	end
end

-- check(cond, fmt, ...): fail the scenario with a message unless cond
function check(cond, fmt, ...)
	if not cond then
		error(string.format(fmt, ...), 0)
	end
end

-- note(fmt, ...): a diagnostic line in the scenario's output
function note(fmt, ...)
	mt.echo("  " .. string.format(fmt, ...))
end

-- readfile(path): the whole file, or an error
function readfile(path)
	local f, err = io.open(path, "rb")
	check(f ~= nil, "cannot read %s: %s", path, tostring(err))
	local s = f:read("a")
	f:close()
	return s
end

-- there(path): whether the file exists yet
function there(path)
	local f = io.open(path, "rb")
	if f then
		f:close()
	end
	return f ~= nil
end

-- wait_for(fn, what): poll fn every half second, 30 s at most
function wait_for(fn, what)
	for _ = 1, 60 do
		if fn() then
			return
		end
		os.execute("sleep 0.5")
	end
	error(what .. ": not within 30 seconds", 0)
end

-- connect(host, addr): a connection to the milter, with connection
-- information: the client host and address (client.example.net,
-- 192.0.2.10 when not given)
function connect(host, addr)
	mt.set_timeout(30)
	local conn = mt.connect(SOCK, 40, 0.25)
	check(conn ~= nil, "cannot connect to %s", SOCK)
	if not mt.test_option(conn, SMFIP_NOCONNECT) then
		local err = mt.conninfo(conn, host or "client.example.net",
		    addr or "192.0.2.10")
		check(err == nil, "conninfo: %s", tostring(err))
		check(mt.getreply(conn) == SMFIR_CONTINUE,
		    "the milter refused the connection (reply %s)",
		    replyname(mt.getreply(conn)))
	end
	-- HELO now: sent later, implicitly, it would make libmilter drop
	-- the MAIL macros (the queue ID) that send() gives first
	if not mt.test_option(conn, SMFIP_NOHELO) then
		local err = mt.helo(conn, "client.example.net")
		check(err == nil, "HELO: %s", tostring(err))
	end
	return conn
end

-- parse(text): a message as {headers = {{name, value}, ...}, body = CRLF
-- text}.  Values are what an MTA passes: continuation lines joined with
-- a bare "\n", the one space after the colon removed.
function parse(text)
	local msg = { headers = {}, body = "" }
	local pos = 1
	text = text:gsub("\r\n", "\n")
	if text:sub(1, 5) == "From " then	-- an mbox separator line
		pos = (text:find("\n", 1, true) or #text) + 1
	end
	while pos <= #text do
		local nl = text:find("\n", pos, true) or (#text + 1)
		local line = text:sub(pos, nl - 1)
		pos = nl + 1
		if line == "" then
			break
		end
		local h = msg.headers[#msg.headers]
		if line:match("^[ \t]") and h ~= nil then
			h[2] = h[2] .. "\n" .. line
		else
			local name, value = line:match("^([^:]+):(.*)$")
			check(name ~= nil, "not a header line: %q", line)
			msg.headers[#msg.headers + 1] =
			    { name, (value:gsub("^ ", "")) }
		end
	end
	msg.body = text:sub(pos):gsub("\n", "\r\n")
	return msg
end

-- mail(name): DATA/name.eml parsed
function mail(name)
	return parse(readfile(DATA .. "/" .. name .. ".eml"))
end

-- set_header(msg, name, value): replace the value of every copy of name;
-- a nil value removes them
function set_header(msg, name, value)
	local out = {}
	for _, h in ipairs(msg.headers) do
		if h[1]:lower() ~= name:lower() then
			out[#out + 1] = h
		elseif value ~= nil then
			out[#out + 1] = { h[1], value }
		end
	end
	msg.headers = out
	return msg
end

-- add_header(msg, pos, name, value): insert a header before position pos
-- (1 = first); pos beyond the end appends
function add_header(msg, pos, name, value)
	if pos > #msg.headers + 1 then
		pos = #msg.headers + 1
	end
	table.insert(msg.headers, pos, { name, value })
	return msg
end

local names = {}
for _, k in ipairs({ "SMFIR_CONTINUE", "SMFIR_ACCEPT", "SMFIR_REJECT",
    "SMFIR_TEMPFAIL", "SMFIR_DISCARD", "SMFIR_REPLYCODE", "SMFIR_SKIP" }) do
	if _G[k] ~= nil then
		names[_G[k]] = k
	end
end

-- replyname(code): SMFIR_* name of a reply code
function replyname(code)
	return names[code] or string.format("%q", string.char(code))
end

local qids = 0

-- send(conn, msg, opts): one message through the milter up to the end of
-- message.  opts.qid sets the queue ID macro "i" (default Q<n>);
-- opts.from the envelope sender (default <dev@example.org>);
-- opts.upto = "headers" or "body" stops early (for aborts);
-- opts.before_eom is called before the end of message is sent.  Returns
-- {reply = SMFIR_*, acts = what the milter asked for at end of message}.
function send(conn, msg, opts)
	opts = opts or {}
	qids = qids + 1
	local qid = opts.qid or string.format("Q%04d", qids)
	local function step(what, err)
		check(err == nil, "%s: %s", what, tostring(err))
		local r = mt.getreply(conn)
		local skip = what == "body" and r == SMFIR_SKIP
		check(r == SMFIR_CONTINUE or skip,
		    "the milter answered %s to %s", replyname(r), what)
		return r
	end

	mt.macro(conn, SMFIC_MAIL, "i", qid)
	step("MAIL FROM", mt.mailfrom(conn, opts.from or "<dev@example.org>"))
	if not mt.test_option(conn, SMFIP_NORCPT) then
		step("RCPT TO", mt.rcptto(conn, "<maint@test.example>"))
	end
	if not mt.test_option(conn, SMFIP_NOHDRS) then
		for _, h in ipairs(msg.headers) do
			-- miltertest copies a header into a 1 KiB buffer
			check(#h[1] + #h[2] < 1000, "header %s too long", h[1])
			step("header " .. h[1], mt.header(conn, h[1], h[2]))
		end
	end
	if opts.upto == "headers" then
		return nil
	end
	if not mt.test_option(conn, SMFIP_NOEOH) then
		step("end of headers", mt.eoh(conn))
	end
	if not mt.test_option(conn, SMFIP_NOBODY) then
		-- chunks of at most 64 KiB, as MTAs send them; SKIP: enough
		local body, at = msg.body, 1
		while at <= #body do
			local r = step("body", mt.bodystring(conn,
			    body:sub(at, at + 65535 - 1)))
			at = at + 65535
			if r == SMFIR_SKIP then
				break
			end
			if opts.upto == "body" then
				return nil
			end
		end
	end
	if opts.upto == "body" then
		return nil
	end
	if opts.before_eom then
		opts.before_eom()
	end
	local err = mt.eom(conn)
	check(err == nil, "end of message: %s", tostring(err))
	return { reply = mt.getreply(conn), acts = RECORD and actions() or {},
	    qid = qid }
end

-- unescape(s): a field of the recorder's log (\\ \t \n \r \xHH)
local escapes = { n = "\n", t = "\t", r = "\r" }
local function unescape(s)
	local out, i = {}, 1
	while i <= #s do
		local c, n = s:sub(i, i), s:sub(i + 1, i + 1)
		if c ~= "\\" then
			out[#out + 1] = c
			i = i + 1
		elseif n == "x" then
			out[#out + 1] = string.char(tonumber(s:sub(i + 2,
			    i + 3), 16))
			i = i + 4
		else
			out[#out + 1] = escapes[n] or n
			i = i + 2
		end
	end
	return table.concat(out)
end

-- actions(): the packets the milter sent after the last end of message,
-- in order, from the recorder's log: {cmd, idx, name, value, text}
function actions()
	local lines = {}
	for line in io.lines(RECORD) do
		lines[#lines + 1] = line
	end
	local last
	for i = #lines, 1, -1 do
		if lines[i] == ">\tE" then
			last = i
			break
		end
	end
	check(last ~= nil, "the recorder saw no end of message")
	local acts = {}
	for i = last + 1, #lines do
		local f = {}
		for field in (lines[i] .. "\t"):gmatch("([^\t]*)\t") do
			f[#f + 1] = unescape(field)
		end
		if f[1] == "<" then
			local a = { cmd = f[2] }
			if a.cmd == "m" or a.cmd == "i" then
				a.idx = tonumber(f[3])
				a.name, a.value = f[4], f[5]
			elseif a.cmd == "h" then
				a.name, a.value = f[3], f[4]
			elseif a.cmd == "y" or a.cmd == "q" then
				a.text = f[3]
			end
			acts[#acts + 1] = a
		end
	end
	return acts
end

-- show(s): a string quoted on one line
function show(s)
	local esc = { ["\n"] = "\\n", ["\t"] = "\\t", ["\r"] = "\\r",
	    ['"'] = '\\"', ["\\"] = "\\\\" }
	return '"' .. s:gsub('[\n\t\r"\\]', esc) .. '"'
end

-- describe(acts): the actions in one line, for messages
function describe(acts)
	local out = {}
	for _, a in ipairs(acts) do
		local s = a.cmd
		if a.idx then s = s .. " " .. a.idx end
		if a.name then s = s .. " " .. a.name end
		if a.value and a.value ~= "" then
			s = s .. " " .. show(a.value)
		end
		if a.text then s = s .. " " .. show(a.text) end
		out[#out + 1] = s
	end
	return "[" .. table.concat(out, "; ") .. "]"
end

-- inserted(res, name): values of headers named name that the milter
-- added or inserted, each as {value, idx, cmd}
function inserted(res, name)
	local out = {}
	for _, a in ipairs(res.acts) do
		if (a.cmd == "i" or a.cmd == "h") and
		    a.name:lower() == name:lower() then
			out[#out + 1] = { value = a.value, idx = a.idx,
			    cmd = a.cmd, name = a.name }
		end
	end
	return out
end

-- deleted(res, name): indices of the deletions of name, in order sent
function deleted(res, name)
	local out = {}
	for _, a in ipairs(res.acts) do
		if a.cmd == "m" and a.value == "" and
		    a.name:lower() == name:lower() then
			out[#out + 1] = a.idx
		end
	end
	return out
end

-- unfold(v): a folded header value on one line
function unfold(v)
	return (v:gsub("\r?\n[ \t]+", " "))
end

-- expected(name): the X-Patch-Attested value patchattest check --header
-- gives for DATA/name.eml, with its folding ("\n\t")
function expected(name)
	local s = readfile(DATA .. "/" .. name .. ".hdr")
	s = s:gsub("\n$", "")
	local v = s:match("^X%-Patch%-Attested: (.*)$")
	check(v ~= nil, "%s.hdr holds no X-Patch-Attested header: %s",
	    name, show(s))
	return v
end

-- accepted(res): the milter let the message through
function accepted(res)
	return res.reply == SMFIR_ACCEPT or res.reply == SMFIR_CONTINUE
end

-- expect_accepted(res, what)
function expect_accepted(res, what)
	check(accepted(res), "%s: want the message accepted, got %s %s",
	    what, replyname(res.reply), describe(res.acts))
end

-- expect_reply(res, code, what): an SMTP reply starting with code (such
-- as "451 4.7.1"); returns its text
function expect_reply(res, code, what)
	check(res.reply == SMFIR_REPLYCODE,
	    "%s: want a %s reply, got %s %s", what, code,
	    replyname(res.reply), describe(res.acts))
	local text
	for _, a in ipairs(res.acts) do
		if a.cmd == "y" then text = a.text end
	end
	check(text ~= nil, "%s: the recorder saw no reply text", what)
	check(text:sub(1, #code + 1) == code .. " ",
	    "%s: want a reply starting %q, got %q", what, code, text)
	return text
end

-- verdict(conn, res, what): the one X-Patch-Attested the milter inserted
-- at index 0; fails when there is none, more than one, or it is misplaced.
-- Checks the recorder against miltertest's own record as well.
function verdict(conn, res, what)
	local got = inserted(res, HDR)
	check(#got == 1, "%s: want one %s header inserted, got %d %s",
	    what, HDR, #got, describe(res.acts))
	local h = got[1]
	check(h.cmd == "i" and h.idx == 0,
	    "%s: %s must be inserted at index 0, got %s %s", what, HDR,
	    h.cmd, tostring(h.idx))
	check(h.name == HDR, "%s: header name %q, want %q", what, h.name, HDR)
	check(mt.getheader(conn, HDR, 0) == h.value and
	    mt.getheader(conn, HDR, 1) == nil and
	    mt.eom_check(conn, MT_HDRINSERT, HDR, h.value, 0),
	    "%s: miltertest and the recorder disagree", what)
	return h.value
end

-- through(sock, name): DATA/name.eml sent to the milter at sock (SOCK
-- from then on) on a connection of its own, accepted; its X-Patch-Attested
-- header, unfolded
function through(sock, name)
	SOCK = sock
	local conn = connect()
	local res = send(conn, mail(name))
	expect_accepted(res, name)
	local v = mt.getheader(conn, HDR, 0)
	check(v ~= nil, "%s: no %s header", name, HDR)
	mt.disconnect(conn)
	return unfold(v)
end

-- expect_verdict(conn, res, name, what): the header equals the one
-- patchattest check --header gives for DATA/name.eml
function expect_verdict(conn, res, name, what)
	local v = verdict(conn, res, what)
	local want = expected(name)
	check(v == want, "%s: header\n    %s\n  want\n    %s", what, show(v),
	    show(want))
	return v
end

-- expect_seed_pass(conn, i): seed patch pi is accepted and passes, with
-- the header "patchattest check --header" gives; returns the result and
-- its name ("seed 003" for p2)
function expect_seed_pass(conn, i)
	local what = string.format("seed %03d", i + 1)
	local res = send(conn, mail("p" .. i))
	expect_accepted(res, what)
	local v = expect_verdict(conn, res, "p" .. i, what)
	check(v:match("^pass; "), "%s: header %s", what, show(v))
	return res, what
end

-- expect_seed(conn, want, what): seed 002 (DATA/p1.eml) is accepted, and
-- its header, unfolded, starts with want (a Lua pattern); returns it
function expect_seed(conn, want, what)
	local res = send(conn, mail("p1"))
	expect_accepted(res, what)
	local v = unfold(verdict(conn, res, what))
	check(v:match("^" .. want), "%s: header %s", what, show(v))
	return v
end

-- expect_no_verdict(conn, res, what): no X-Patch-Attested added
function expect_no_verdict(conn, res, what)
	local got = inserted(res, HDR)
	check(#got == 0 and not mt.eom_check(conn, MT_HDRINSERT, HDR) and
	    not mt.eom_check(conn, MT_HDRADD, HDR),
	    "%s: want no %s header, got %s", what, HDR, describe(res.acts))
end

-- expect_deleted(res, name, want, what): the deletions of name, in order,
-- are exactly the list want (e.g. {3, 2, 1})
function expect_deleted(res, name, want, what)
	local got = deleted(res, name)
	check(table.concat(got, ",") == table.concat(want, ","),
	    "%s: want %s deleted at {%s} in that order, got {%s} %s",
	    what, name, table.concat(want, ","), table.concat(got, ","),
	    describe(res.acts))
end

-- expect_only(res, allowed, what): every action but the final accept or
-- continue is one of the commands in allowed (a string of letters:
-- m change or delete, i insert, h add, q quarantine, y reply)
function expect_only(res, allowed, what)
	for _, a in ipairs(res.acts) do
		check(a.cmd == "a" or a.cmd == "c" or
		    allowed:find(a.cmd, 1, true) ~= nil,
		    "%s: unexpected action %s in %s", what, a.cmd,
		    describe(res.acts))
	end
end

-- attid(v): the attestation ID named in a header value, or nil
function attid(v)
	return unfold(v):match("attid=([%x]+%-[%x]+%-[%x]+)")
end

-- expect_authres(conn, res, id, result, reason, aid, what): one
-- Authentication-Results inserted at index 0, exactly
-- "ID; x-patch-attest=RESULT reason="REASON" policy.attid=AID"
-- (no policy.attid when aid is nil); folding is ignored
function expect_authres(conn, res, id, result, reason, aid, what)
	local got = inserted(res, AR)
	check(#got == 1, "%s: want one %s inserted, got %d %s", what, AR,
	    #got, describe(res.acts))
	check(got[1].cmd == "i" and got[1].idx == 0 and got[1].name == AR,
	    "%s: %s must be inserted at index 0: %s", what, AR,
	    describe(res.acts))
	local want = string.format('%s; x-patch-attest=%s reason="%s"', id,
	    result, reason)
	if aid ~= nil then
		want = want .. " policy.attid=" .. aid
	end
	check(unfold(got[1].value) == want, "%s: %s is\n    %s\n  want\n    %s",
	    what, AR, show(got[1].value), show(want))
end

-- metrics_get(path, method): the HTTP status and body of METRICS .. path,
-- by curl (the body passes through a file beside DATA)
function metrics_get(path, method)
	local out = DATA .. "/../metrics.body"
	local p = io.popen(string.format("curl -sS --max-time 10 -X %s " ..
	    "-o '%s' -w '%%{http_code}' '%s%s' 2>&1", method, out, METRICS,
	    path))
	local status = p:read("a")
	p:close()
	local f = io.open(out, "rb")
	local body = f and f:read("a") or ""
	if f then
		f:close()
	end
	return status, body
end

-- metrics_samples(body): each sample of a scrape as
-- {["name{labels}"] = value}
function metrics_samples(body)
	local out = {}
	for line in body:gmatch("[^\n]+") do
		if line:sub(1, 1) ~= "#" then
			local series, value = line:match("^(%S+) (%S+)$")
			check(series ~= nil, "not a sample line: %s", show(line))
			out[series] = tonumber(value)
		end
	end
	return out
end
