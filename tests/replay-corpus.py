#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""replay-corpus.py - the corpus of list mail for t-replay.sh.

  replay-corpus.py send --port P CORPUS OUT
      Every messages/NNNNN.eml of CORPUS, in the order of NNNNN (the
      order the list archived them), to maint@test.example on
      127.0.0.1:P in one SMTP session, byte for byte: each line ends in
      CRLF on the wire and a leading dot is doubled, as SMTP wants, and
      nothing else is changed.  OUT gets "file<TAB>SMTP code" a line.
      Prints "sent N", "accepted N"; exit 0 when every one was accepted.

  replay-corpus.py check CORPUS JSON
      The classes of CORPUS's messages beside "patchattest arrived
      --json"'s lines (JSON, one per message file): patch mails (an
      attid in expected.tsv), cover letters (a subject "[... 0/N]" that
      is not a reply) and signed mails (patatt-expected.tsv).  Prints
      "CLASS count N" and "CLASS OUTCOME N" (OUTCOME identical,
      never-arrived, ...; found by patch-id counts as "by-patch-id"), then
      "odd FILE CLASS OUTCOME" for each message of a class whose outcome
      is not identical found by its Message-ID.

  replay-corpus.py series CORPUS MBOX [RANK]
      A series of the corpus whose patches are all there: "[PATCH vN
      k/N]" for k = 1..N (N >= 2), one thread, one version.  They are
      ranked by how many of their patches have review trailers (Reviewed-,
      Acked-, Tested-by) in a reply, then by the messages of the thread,
      then the oldest first; RANK (default 0) picks one, exit 1 when there
      are fewer.  MBOX gets the corpus messages of its thread, oldest
      first, in mboxrd form.  Prints the Message-ID of the thread's root,
      then a line per patch, 1..N: its file, then the trailers of the
      replies to it, tab-separated.
"""

import csv
import email.parser
import email.policy
import json
import os
import re
import smtplib
import sys

FROM = "dev@example.org"
TO = "maint@test.example"
COUNTER = re.compile(r"\[([^\]]*?)\s*(\d+)/(\d+)\s*\]")
TRAILER = re.compile(r"^((?:Reviewed|Acked|Tested)-by: .*)$", re.M)
REPLY = re.compile(r"^\s*(re|aw|sv)\s*:", re.I)


def files(corpus):
    d = os.path.join(corpus, "messages")
    return sorted(os.path.join("messages", f) for f in os.listdir(d)
                  if re.fullmatch(r"\d+\.eml", f))


def send(port, corpus, out):
    accepted = 0
    names = files(corpus)
    conn = smtplib.SMTP("127.0.0.1", port, timeout=120)
    conn.ehlo("replay.test")
    with open(out, "w") as tsv:
        for name in names:
            with open(os.path.join(corpus, name), "rb") as f:
                data = f.read()
            # lore keeps LF line ends: CRLF on the wire is SMTP's
            data = data.replace(b"\n", b"\r\n")
            try:
                # sendmail() doubles leading dots and ends with CRLF.CRLF
                conn.sendmail(FROM, [TO], data)
                code = 250
            except smtplib.SMTPResponseException as e:
                code = e.smtp_code
                conn.rset()
            tsv.write("%s\t%d\n" % (name, code))
            accepted += code == 250
    conn.quit()
    print("sent %d" % len(names))
    print("accepted %d" % accepted)
    return 0 if accepted == len(names) else 1


def headers(corpus, name):
    with open(os.path.join(corpus, name), "rb") as f:
        return email.parser.BytesHeaderParser(
            policy=email.policy.compat32).parse(f)


def text(msg, field):
    v = msg.get(field)
    return re.sub(r"\s+", " ", str(v)).strip() if v is not None else ""


def is_cover(subject):
    """The last n/N among the leading [...] prefixes' words has n 0."""
    m = re.match(r"\s*((?:\[[^\]]*\]\s*)+)", subject)
    n = None
    for word in re.findall(r"[^\s\[\]]+", m.group(1)) if m else []:
        c = re.fullmatch(r"(\d{1,3})/\d{1,3}", word.rstrip(",;"))
        n = int(c.group(1)) if c else n
    return n == 0


def classes(corpus):
    out = {}
    with open(os.path.join(corpus, "expected.tsv")) as f:
        for row in csv.DictReader(f, delimiter="\t"):
            if row["attid"] != "-":
                out.setdefault(row["name"], set()).add("patch")
    with open(os.path.join(corpus, "patatt-expected.tsv")) as f:
        for row in csv.DictReader(f, delimiter="\t"):
            out.setdefault(row["name"], set()).add("signed")
    for name in files(corpus):
        if is_cover(text(headers(corpus, name), "Subject")):
            out.setdefault(name, set()).add("cover")
    return out


def check(corpus, path):
    got = {}
    with open(path) as f:
        for line in f:
            o = json.loads(line)
            name = os.path.relpath(o["name"], corpus)
            r = o["result"]
            if r != "never-arrived" and o["found_by"] != "message-id":
                r += "-by-" + o["found_by"]
            got[name] = r
    counts = {}
    odd = []
    for name, cs in sorted(classes(corpus).items()):
        for c in sorted(cs):
            r = got.get(name, "unread")
            counts[(c, "count")] = counts.get((c, "count"), 0) + 1
            counts[(c, r)] = counts.get((c, r), 0) + 1
            if r != "identical":
                odd.append("odd %s %s %s" % (name, c, r))
    for (c, r), n in sorted(counts.items()):
        print("%s %s %d" % (c, r, n))
    for line in odd:
        print(line)
    return 0


def ids(value):
    return re.findall(r"<([^<>\s]+)>", value or "")


def trailers(corpus, msgs, thread, patch):
    """The trailer lines of the replies to patch in thread, sorted."""
    out = set()
    for name in thread:
        # a reply names what it answers last: In-Reply-To, after References
        if msgs[name]["refs"][-1:] != [msgs[patch]["id"]] or \
                not REPLY.match(msgs[name]["subject"]):
            continue
        with open(os.path.join(corpus, name), "rb") as f:
            body = f.read().split(b"\n\n", 1)[-1].decode("utf-8", "replace")
        out.update(m.strip() for m in TRAILER.findall(body))
    return sorted(out)


def series(corpus, mbox, rank):
    msgs = {}
    for name in files(corpus):
        h = headers(corpus, name)
        msgs[name] = {
            "id": (ids(text(h, "Message-ID")) or [""])[0],
            "subject": text(h, "Subject"),
            "refs": ids(text(h, "References")) +
            ids(text(h, "In-Reply-To")),
        }
    by_id = {m["id"]: n for n, m in msgs.items() if m["id"]}

    def root(name):
        # the first reference that is in the corpus, else itself
        for r in msgs[name]["refs"]:
            if r in by_id:
                return msgs[by_id[r]]["id"]
        return msgs[name]["id"]

    groups = {}
    for name, m in msgs.items():
        c = COUNTER.search(m["subject"])
        if REPLY.match(m["subject"]) or c is None or "PATCH" not in \
                c.group(1).upper():
            continue
        k, n = int(c.group(2)), int(c.group(3))
        key = (root(name), c.group(1), n)
        groups.setdefault(key, {}).setdefault(k, name)
    found = []
    for (rid, prefix, n), parts in sorted(groups.items()):
        if n < 2 or any(k not in parts for k in range(1, n + 1)):
            continue
        thread = sorted(name for name in msgs
                        if msgs[name]["id"] == rid or
                        rid in msgs[name]["refs"])
        patches = [parts[k] for k in range(1, n + 1)]
        given = [trailers(corpus, msgs, thread, p) for p in patches]
        score = (sum(1 for g in given if g), len(thread),
                 -min(int(t[9:14]) for t in thread))
        found.append((score, rid, patches, thread, given))
    found.sort(key=lambda f: f[0], reverse=True)
    if rank >= len(found):
        return 1
    best = found[rank]
    with open(mbox, "wb") as out:
        for name in best[3]:
            with open(os.path.join(corpus, name), "rb") as f:
                data = f.read()
            # mboxrd: a body line ">*From " gains one more ">"
            data = re.sub(rb"(?m)^(>*From )", rb">\1", data)
            if not data.endswith(b"\n"):
                data += b"\n"
            out.write(b"From replay@test Thu Jan  1 00:00:00 1970\n" +
                      data + b"\n")
    print(best[1])
    for name, given in zip(best[2], best[4]):
        print("\t".join([name] + given))
    return 0


def main():
    if len(sys.argv) == 6 and sys.argv[1:3] == ["send", "--port"]:
        return send(int(sys.argv[3]), sys.argv[4], sys.argv[5])
    if len(sys.argv) == 4 and sys.argv[1] == "check":
        return check(sys.argv[2], sys.argv[3])
    if len(sys.argv) in (4, 5) and sys.argv[1] == "series":
        return series(sys.argv[2], sys.argv[3],
                      int(sys.argv[4]) if len(sys.argv) == 5 else 0)
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
