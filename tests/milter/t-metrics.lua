-- SPDX-License-Identifier: BSD-2-Clause
-- t-metrics.lua - the Prometheus endpoint counts the mail as it went: a
-- pass with one forged field, a tampered patch, an unattested patch
-- deferred under AttestationWait (scheme none: no scheme attested it),
-- mail that is no patch (not counted) and, with patatt (PATATT set),
-- seed 002 signed, signed then tampered, and signed with a b= that is no
-- Base64 (a signature of a known algorithm that is none).  Every series
-- that moved moved by what the mail says, and no other; the series of
-- messages and signatures served are those that can occur, each of them
-- and no other; the decision latency histogram counts each decided
-- message; StateFile's size is the file's, its bytes in use fewer, its
-- bound StateMaxSize.  A patch sent twice under one Message-ID and
-- another under it too count one copy the same as the first and one
-- differing.  Any other path is 404, any other method 405.  Eight
-- clients that trickle a request, a byte a second, hold up no scrape
-- nor mail, and each is cut at its deadline, 10 seconds after it
-- connected.
--   METRICS  the endpoint's URL (http://127.0.0.1:PORT)
--   SCRAPE   where the last scrape is left, for promtool and the
--            dashboard's check (and the files of curl and the clients)
--   PATATT   set when the milter has the patatt keyring
dofile(HARNESS)

-- scrape(): GET /metrics, kept in SCRAPE, as samples()
local function scrape()
	local status, body = metrics_get("/metrics", "GET")
	check(status == "200", "GET /metrics: %s", show(status))
	local f = assert(io.open(SCRAPE, "wb"))
	f:write(body)
	f:close()
	return metrics_samples(body)
end

-- scrape_quietly(): samples(), or nil when GET /metrics is not served
local function scrape_quietly()
	local status, body = metrics_get("/metrics", "GET")
	return status == "200" and metrics_samples(body) or nil
end

local function messages(result, scheme)
	return string.format('patchattest_messages_total{result="%s",' ..
	    'scheme="%s"}', result, scheme)
end

-- moved(before, after, want, what): each series of want moved by that
-- much, every other counter (a _total or a _count) not at all
local function moved(before, after, want, what)
	for series, n in pairs(want) do
		check(after[series] ~= nil, "%s: %s is not served", what,
		    series)
		check(after[series] - (before[series] or 0) == n,
		    "%s: %s moved by %s, not %d", what, series,
		    tostring(after[series] - (before[series] or 0)), n)
	end
	for series, v in pairs(after) do
		local name = series:match("^[^{]+")
		if want[series] == nil and (name:match("_total$") or
		    name:match("_count$")) then
			check(v == (before[series] or 0),
			    "%s: %s moved (%s to %s)", what, series,
			    tostring(before[series]), tostring(v))
		end
	end
end

-- sh(cmd): the first line cmd prints
local function sh(cmd)
	local p = io.popen(cmd)
	local line = p:read("l")
	p:close()
	return line
end

-- The series of messages and of patatt signatures that can occur: a
-- message no scheme attested is scheme none, and v0.1 never says none;
-- a signature is never unsigned-by-signer (a message's verdict), only
-- an OpenPGP one untrusted, and one of an unknown algorithm none or
-- temperror (its signatures could not be read).
local function possible()
	local verdicts = { "pass", "stale", "uidmismatch", "untrusted",
	    "nokey", "fail", "unsigned-by-signer", "none", "temperror" }
	local can = {}
	local function allow(fmt, but)
		for _, v in ipairs(verdicts) do
			if not but[v] then
				can[fmt:format(v)] = true
			end
		end
	end
	local everything_but = function(...)
		local t = {}
		for _, v in ipairs({ ... }) do
			t[v] = true
		end
		return t
	end
	allow('patchattest_messages_total{result="%s",scheme="none"}',
	    everything_but("pass", "stale", "uidmismatch", "untrusted",
	    "nokey", "fail"))
	allow('patchattest_messages_total{result="%s",scheme="v0.1"}',
	    everything_but("none"))
	allow('patchattest_messages_total{result="%s",scheme="patatt"}', {})
	local sig = 'patchattest_patatt_signatures_total{algorithm="%s",' ..
	    'result="%%s"}'
	for _, a in ipairs({ "ed25519-sha256", "openssh-sha256" }) do
		allow(sig:format(a), everything_but("unsigned-by-signer",
		    "untrusted"))
	end
	allow(sig:format("openpgp-sha256"),
	    everything_but("unsigned-by-signer"))
	allow(sig:format("unknown"), everything_but("pass", "stale",
	    "uidmismatch", "untrusted", "nokey", "fail",
	    "unsigned-by-signer"))
	return can
end

-- served_as_possible(samples): the series of messages and signatures are
-- those that can occur, each of them and no other
local function served_as_possible(samples)
	local can, n = possible(), 0
	for series in pairs(samples) do
		if series:match("^patchattest_messages_total{") or
		    series:match("^patchattest_patatt_signatures_total{") then
			check(can[series], "%s is served: it cannot occur",
			    series)
			n = n + 1
		end
	end
	for series in pairs(can) do
		check(samples[series] ~= nil, "%s is not served", series)
	end
	check(n == 44, "%d series of messages and signatures, not 20 and 24",
	    n)
end

-- timed_scrape(): the status of GET /metrics and the seconds it took
local function timed_scrape()
	local line = sh(string.format("curl -sS --max-time 20 -o /dev/null " ..
	    "-w '%%{http_code} %%{time_total}' '%s/metrics' 2>&1", METRICS))
	local status, took = (line or ""):match("^(%d+) ([%d.]+)$")
	return status or line, tonumber(took)
end

-- trickle(conn): eight clients that each send a request a byte a second
-- and never end it hold up neither a scrape nor the mail of conn, and
-- each is cut 10 seconds after it connected (METRICS_DEADLINE), though
-- it never stopped sending
local function trickle(conn)
	local out = SCRAPE .. ".trickled"
	local port = METRICS:match(":(%d+)$")
	local script = SCRAPE .. ".py"
	local f = assert(io.open(script, "wb"))
	f:write([==[
import select, socket, sys, time
port, out = int(sys.argv[1]), sys.argv[2]
req = b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 100
clients = []
for i in range(8):
    s = socket.create_connection(("127.0.0.1", port))
    s.send(req[:1])
    clients.append({"s": s, "at": time.monotonic(), "end": None})
open(out + ".ready", "w").close()
sent = 1
while any(c["end"] is None for c in clients) and \
    time.monotonic() - clients[0]["at"] < 30:
    time.sleep(1)
    for c in clients:
        if c["end"] is not None:
            continue
        try:
            if select.select([c["s"]], [], [], 0)[0]:
                got = c["s"].recv(4096)
                c["end"] = "answered" if got else "cut"
            else:
                c["s"].send(req[sent:sent + 1])
        except OSError:
            c["end"] = "cut"
        if c["end"] is not None:
            c["after"] = time.monotonic() - c["at"]
    sent += 1
with open(out, "w") as f:
    for c in clients:
        f.write("%s %.1f\n" % (c["end"] or "held", c.get("after", 0)))
]==])
	f:close()
	local pid = sh(string.format("${PYTHON3:-python3} '%s' %s '%s' " ..
	    ">/dev/null 2>&1 & echo $!", script, port, out))
	check(pid ~= nil and pid:match("^%d+$"), "no client started")
	local ok, err = pcall(function()
		wait_for(function() return io.open(out .. ".ready") ~= nil end,
		    "the trickling clients")
		sh("sleep 2")	-- each has sent some of its request
		local status, took = timed_scrape()
		check(status == "200" and took ~= nil and took < 2,
		    "a scrape with 8 clients trickling: %s in %s s, not 200 " ..
		    "within a second or two", show(status), tostring(took))
		note("a scrape with 8 clients trickling: %.3f s", took)
		expect_accepted(send(conn, mail("p1")),
		    "seed 002 while the clients trickle")
		wait_for(function() return io.open(out) ~= nil end,
		    "the trickling clients' end")
		local n = 0
		for line in io.lines(out) do
			local how, after = line:match("^(%S+) (%S+)$")
			check(how == "cut" and tonumber(after) >= 9 and
			    tonumber(after) <= 14, "a trickling client: %s, " ..
			    "not cut 10 seconds after it connected", line)
			n = n + 1
		end
		check(n == 8, "%d trickling clients, not 8", n)
	end)
	sh("kill " .. pid .. " 2>/dev/null")
	check(ok, "%s", tostring(err))
	check(scrape()[messages("pass", "v0.1")] ~= nil,
	    "no scrape after the trickling clients")
end

-- reload_elsewhere(): a reload that moves MetricsListen says that it takes
-- effect at the next start, and the endpoint stays where it was
local function reload_elsewhere()
	local dir = DATA .. "/.."
	local conf = readfile(dir .. "/milter.conf")
	local moved_conf = conf:gsub("MetricsListen 127%.0%.0%.1:",
	    "MetricsListen 127.0.0.2:")
	check(moved_conf ~= conf, "no MetricsListen line in milter.conf")
	local f = assert(io.open(dir .. "/milter.conf", "wb"))
	f:write(moved_conf)
	f:close()
	sh("kill -HUP " .. MILTER_PID)
	wait_for(function()
		return readfile(dir .. "/milter.log"):find("reload: " ..
		    "MetricsListen or MetricsRemote changed; they take " ..
		    "effect at the next start", 1, true) ~= nil
	end, "the reload's word on MetricsListen")
	check(scrape()[messages("pass", "v0.1")] ~= nil,
	    "the endpoint is gone after the reload")
end

run(function()
	-- once the milter listens, so does the endpoint (bound before)
	local conn = connect()
	local before = scrape()
	served_as_possible(before)

	local msg = add_header(mail("p1"), 2, "X-Patch-Attested",
	    "pass; attid=2a02abe0-215cf3f1-2acb5798")
	expect_accepted(send(conn, msg), "seed 002 with a forged field")
	expect_accepted(send(conn, mail("fail-m")), "tampered patch")
	msg = set_header(mail("none"), "Date",
	    os.date("!%a, %d %b %Y %H:%M:%S +0000"))
	expect_reply(send(conn, msg), "451 4.7.1", "unattested patch now")
	expect_accepted(send(conn, mail("plain")), "no patch")
	local want = {
		[messages("pass", "v0.1")] = 1,
		[messages("fail", "v0.1")] = 1,
		[messages("none", "none")] = 1,
		['patchattest_actions_total{action="accept"}'] = 2,
		['patchattest_actions_total{action="tempfail"}'] = 1,
		["patchattest_awaiting_document_total"] = 1,
		["patchattest_forged_fields_removed_total"] = 1,
		["patchattest_decision_duration_seconds_count"] = 3,
		['patchattest_decision_duration_seconds_bucket{le="+Inf"}'] = 3,
	}
	if PATATT then
		expect_accepted(send(conn, mail("patatt")), "signed seed 002")
		expect_accepted(send(conn, mail("patatt-fail")),
		    "signed and tampered")
		msg = mail("patatt")
		for _, h in ipairs(msg.headers) do
			if h[1]:lower() == "x-developer-signature" then
				h[2] = h[2]:gsub("b=[^;]*$", "b=!!!")
			end
		end
		expect_accepted(send(conn, msg), "signed, b= no Base64")
		-- seed 002 is attested too: patatt's pass is the verdict;
		-- its diff changed contradicts the document first; the
		-- signature that cannot be read is none, and the document's
		-- pass the verdict
		want[messages("pass", "patatt")] = 1
		want[messages("fail", "v0.1")] = 2
		want[messages("pass", "v0.1")] = 2
		want['patchattest_patatt_signatures_total{' ..
		    'algorithm="ed25519-sha256",result="pass"}'] = 1
		want['patchattest_patatt_signatures_total{' ..
		    'algorithm="ed25519-sha256",result="fail"}'] = 1
		want['patchattest_patatt_signatures_total{' ..
		    'algorithm="ed25519-sha256",result="none"}'] = 1
		want['patchattest_actions_total{action="accept"}'] = 5
		want["patchattest_decision_duration_seconds_count"] = 6
		want['patchattest_decision_duration_seconds_bucket{' ..
		    'le="+Inf"}'] = 6
	end
	local after = scrape()
	moved(before, after, want, "after the mail")

	check(after["patchattest_decision_duration_seconds_sum"] >
	    (before["patchattest_decision_duration_seconds_sum"] or 0),
	    "the latency sum did not grow")
	local size = sh("stat -c %s '" .. DATA .. "/../index/data.mdb'")
	check(after["patchattest_index_size_bytes"] == tonumber(size),
	    "index_size_bytes %s, the data file %s bytes",
	    tostring(after["patchattest_index_size_bytes"]), tostring(size))
	check(after["patchattest_index_age_seconds"] ~= nil and
	    after["patchattest_index_age_seconds"] >= 0,
	    "the index's age is not served")
	check(after["patchattest_state_journal_depth"] ~= nil,
	    "the journal depth is not served")
	-- StateFile's size as stat() has it, once the records are written
	local state = DATA .. "/../state.mdb"
	local served, size
	wait_for(function()
		served = scrape()
		size = tonumber(sh("stat -c %s '" .. state .. "'"))
		return served["patchattest_state_journal_depth"] == 0 and
		    served["patchattest_state_file_size_bytes"] == size
	end, "StateFile's size served as the file's")
	check(served["patchattest_state_file_used_bytes"] > 0 and
	    served["patchattest_state_file_used_bytes"] <= size,
	    "state_file_used_bytes %s of a file of %d bytes",
	    tostring(served["patchattest_state_file_used_bytes"]), size)
	check(served["patchattest_state_file_max_bytes"] == 4096 * 1048576,
	    "state_file_max_bytes %s, not StateMaxSize's default, 4096 MiB",
	    tostring(served["patchattest_state_file_max_bytes"]))
	if PATATT then
		check(after["patchattest_keyring_keys"] > 0,
		    "no key file counted in the patatt keyring")
	end

	local status = metrics_get("/", "GET")
	check(status == "404", "GET /: %s, not 404", show(status))
	status = metrics_get("/metricsx", "GET")
	check(status == "404", "GET /metricsx: %s, not 404", show(status))
	status = metrics_get("/metrics", "POST")
	check(status == "405", "POST /metrics: %s, not 405", show(status))
	status = metrics_get("/metrics", "DELETE")
	check(status == "405", "DELETE /metrics: %s, not 405", show(status))
	moved(after, scrape(), {}, "after the bad requests")

	-- copies of one Message-ID, counted once their batch is written:
	-- the same patch again, then another patch under its Message-ID
	local id = "<metrics-copies@example.org>"
	local copies = 'patchattest_copies_total{content="%s"}'
	local was = scrape()
	for _, name in ipairs({ "p1", "p1", "fail-m" }) do
		expect_accepted(send(conn, add_header(mail(name), 1,
		    "Message-ID", id)), name .. " under one Message-ID")
	end
	wait_for(function()
		local now = scrape_quietly()
		return now ~= nil and
		    now[copies:format("identical")] ==
		    was[copies:format("identical")] + 1 and
		    now[copies:format("differing")] ==
		    was[copies:format("differing")] + 1
	end, "a copy the same and one differing counted")

	trickle(conn)
	reload_elsewhere()
	mt.disconnect(conn)
end)
