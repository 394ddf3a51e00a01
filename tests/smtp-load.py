#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""smtp-load.py - SMTP load for t-load.sh and bench/bench-milter.sh.

  smtp-load.py send --port P [--sessions S] [--count N] [--tag TAG]
                    [--out TSV] [--timeout SECS] [--deadline SECS]
                    [--id-header NAME] TEMPLATE...
      N messages (default 1000) over S parallel SMTP sessions (default 10)
      to maint@test.example on 127.0.0.1:P.  Message k is TEMPLATE number
      k mod (number of templates) with "Message-ID: <k.TAG@load.test>" on
      top, so each delivered copy can be told apart (--id-header names
      another field, for templates whose own Message-ID is signed).  Each session keeps
      its connection for many messages (a new one after the server drops
      it; the message it was sending counts as code 0, never resent).
      TSV gets one line per message as soon as it is answered (the caller
      may watch it grow): k, template name, SMTP code, latency in seconds
      (MAIL FROM to the reply to the final dot).  Prints "name value unit"
      lines: messages, accepted, elapsed, rate and the latency p50/p99.
      Exit 0 when every message was accepted.
      A server that hangs must not hang the caller: a reply may take
      --timeout seconds (default 60), a session gives up after three
      connection failures in a row, and no session takes a message after
      --deadline seconds (default 900); what is left is not sent.

  smtp-load.py audit TSV MAILDIR
      Every accepted message of TSV delivered exactly once into MAILDIR
      (new/ and cur/), and its X-Patch-Attested headers as the template's
      name says: a name starting with "plain" wants none, "pass", "fail"
      or "none" exactly one with that result, "grow" exactly one that is
      pass or none (its document is added while the load runs).  Prints
      each problem (at most 20 of each kind) and a summary; exit 0 when
      there is none.
"""

import argparse
import os
import re
import smtplib
import sys
import threading
import time

FROM = "dev@example.org"
TO = "maint@test.example"


def load_templates(paths):
    """(name, CRLF bytes) per template; name is the file's base name."""
    out = []
    for p in paths:
        with open(p, "rb") as f:
            data = f.read()
        data = re.sub(rb"\r?\n", b"\r\n", data)
        out.append((os.path.basename(p), data))
    return out


def percentile(sorted_values, q):
    if not sorted_values:
        return 0.0
    i = min(len(sorted_values) - 1, int(q * len(sorted_values)))
    return sorted_values[i]


def send(args):
    templates = load_templates(args.templates)
    lock = threading.Lock()
    state = {"next": 0}
    results = []
    out = open(args.out, "w") if args.out else None

    def take():
        with lock:
            k = state["next"]
            if k >= args.count:
                return None
            state["next"] = k + 1
            return k

    def record(k, name, code, latency):
        with lock:
            results.append((code, latency))
            if out:
                out.write("%d\t%s\t%d\t%.6f\n" % (k, name, code, latency))
                out.flush()

    deadline = time.monotonic() + args.deadline

    def session():
        conn = None
        broken = 0      # connection failures in a row
        while broken < 3 and time.monotonic() < deadline:
            k = take()
            if k is None:
                break
            name, body = templates[k % len(templates)]
            msg = b"%s: <%d.%s@load.test>\r\n" % (
                args.id_header.encode(), k, args.tag.encode()) + body
            t0 = time.monotonic()
            try:
                if conn is None:
                    conn = smtplib.SMTP("127.0.0.1", args.port,
                                        timeout=args.timeout)
                    conn.ehlo("load.test")
                t0 = time.monotonic()
                conn.sendmail(FROM, [TO], msg)
                code = 250
            except smtplib.SMTPResponseException as e:
                code = e.smtp_code
            except smtplib.SMTPRecipientsRefused as e:
                code = list(e.recipients.values())[0][0]
            except (smtplib.SMTPException, OSError):
                # Not sent again: the server may have taken it.
                conn = None
                code = 0
            broken = broken + 1 if code == 0 else 0
            latency = time.monotonic() - t0
            record(k, name, code, latency)
            if code != 250 and conn is not None:
                try:
                    conn.rset()
                except (smtplib.SMTPException, OSError):
                    conn = None
        if conn is not None:
            try:
                conn.quit()
            except (smtplib.SMTPException, OSError):
                pass

    start = time.monotonic()
    threads = [threading.Thread(target=session)
               for _ in range(args.sessions)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - start
    if out:
        out.close()

    accepted = sum(1 for c, _ in results if c == 250)
    lat = sorted(l for c, l in results if c == 250)
    print("messages %d messages" % len(results))
    print("accepted %d messages" % accepted)
    print("elapsed %.3f s" % elapsed)
    print("rate %.1f messages/s" % (accepted / elapsed if elapsed else 0))
    print("latency_p50 %.2f ms" % (percentile(lat, 0.50) * 1e3))
    print("latency_p99 %.2f ms" % (percentile(lat, 0.99) * 1e3))
    return 0 if accepted == args.count else 1


HDR_RE = re.compile(rb"^x-patch-attested:[ \t]*([a-z]*)", re.I | re.M)
MSGID_RE = re.compile(rb"^message-id:[ \t]*<([0-9]+)\.[^@>]*@load\.test>",
                      re.I | re.M)


def audit(args):
    want = {}
    with open(args.tsv) as f:
        for line in f:
            k, name, code, _ = line.rstrip("\n").split("\t")
            if code == "250":
                want[int(k)] = name
    seen = {}
    for sub in ("new", "cur"):
        d = os.path.join(args.maildir, sub)
        for fn in os.listdir(d) if os.path.isdir(d) else []:
            with open(os.path.join(d, fn), "rb") as f:
                data = f.read()
            head = data.split(b"\n\n", 1)[0]
            m = MSGID_RE.search(head)
            k = int(m.group(1)) if m else -1
            seen.setdefault(k, []).append(HDR_RE.findall(head))
    problems = {}

    def problem(kind, text):
        problems.setdefault(kind, []).append(text)

    for k, name in sorted(want.items()):
        copies = seen.get(k, [])
        if len(copies) != 1:
            problem("delivered", "message %d (%s) delivered %d times"
                    % (k, name, len(copies)))
            if not copies:
                continue
        results = [r.decode() for r in copies[0]]
        kind = name.split("-", 1)[0]
        if kind == "plain":
            ok = results == []
        elif kind == "grow":
            ok = results in (["pass"], ["none"])
        else:
            ok = results == [kind]
        if not ok:
            problem("header", "message %d (%s): X-Patch-Attested %s"
                    % (k, name, results))
    for k in seen:
        if k not in want:
            problem("unexpected", "a delivered message %d that was not "
                    "accepted" % k)
    for kind, texts in sorted(problems.items()):
        for t in texts[:20]:
            print(t)
        if len(texts) > 20:
            print("... and %d more" % (len(texts) - 20))
    print("accepted %d" % len(want))
    print("delivered %d" % sum(len(v) for k, v in seen.items()))
    for kind in ("delivered", "header", "unexpected"):
        print("problems_%s %d" % (kind, len(problems.get(kind, []))))
    return 1 if problems else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("send")
    s.add_argument("--port", type=int, required=True)
    s.add_argument("--sessions", type=int, default=10)
    s.add_argument("--count", type=int, default=1000)
    s.add_argument("--tag", default="load")
    s.add_argument("--out")
    s.add_argument("--timeout", type=float, default=60)
    s.add_argument("--deadline", type=float, default=900)
    s.add_argument("--id-header", default="Message-ID")
    s.add_argument("templates", nargs="+")
    a = sub.add_parser("audit")
    a.add_argument("tsv")
    a.add_argument("maildir")
    args = ap.parse_args()
    return send(args) if args.cmd == "send" else audit(args)


if __name__ == "__main__":
    sys.exit(main())
