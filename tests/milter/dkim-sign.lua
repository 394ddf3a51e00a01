-- SPDX-License-Identifier: BSD-2-Clause
-- dkim-sign.lua - a signing pass for t-dkim.sh: the mail IN sent through
-- the OpenDKIM that listens on SOCK (in signing mode, the client
-- 192.0.2.10 one of its InternalHosts), and OUT written as IN with the
-- DKIM-Signature field OpenDKIM added on top.  Globals (-D): HARNESS,
-- SOCK, IN, OUT.
dofile(HARNESS)

run(function()
	local conn = connect()
	local text = readfile(IN)
	local res = send(conn, parse(text))
	check(res.reply == SMFIR_ACCEPT or res.reply == SMFIR_CONTINUE,
	    "OpenDKIM answered %s", replyname(res.reply))
	local sig = mt.getheader(conn, "DKIM-Signature", 0)
	check(sig ~= nil, "OpenDKIM added no DKIM-Signature to %s", IN)
	mt.disconnect(conn)
	local f = io.open(OUT, "wb")
	check(f ~= nil, "cannot write %s", OUT)
	f:write("DKIM-Signature: " .. sig:gsub("\r\n", "\n") .. "\n" .. text)
	f:close()
end)
