#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""milter-stall.py SOCKET HALF HELD READY OUT [HOLD] - clients that stall.

Opens HALF connections to the milter's unix SOCKET that send half a
packet (a length of 100 bytes, then 3 of them) and HELD ones that
negotiate and announce a connection, then say nothing more.  Creates the
file READY once all are open, then waits (60 seconds at most) for the
milter to close each half one, and, when HOLD is given, for the file HOLD
to exist; closes the held ones itself, and writes to OUT one line per
half connection: the seconds until it was closed, or "open" when it never
was.  (Between commands libmilter closes a connection only after Timeout,
and looks for such ones every ten minutes: the held ones count against
MaximumConnections.)  The descriptor limit is raised to the hard one.
"""
import os
import resource
import select
import socket
import struct
import sys
import time


def packet(cmd, data=b""):
    return struct.pack(">I", len(data) + 1) + cmd + data


def held(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    # version 6, all actions, no protocol steps left out
    s.sendall(packet(b"O", struct.pack(">III", 6, 0x1FF, 0)))
    s.recv(4096)
    s.sendall(packet(b"C", b"client.example.net\0U"))
    return s


def half(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    s.sendall(struct.pack(">I", 100) + b"O\0\0")
    return s


def main():
    path, nhalf, nheld, ready, out = sys.argv[1:6]
    hold = sys.argv[6] if len(sys.argv) > 6 else None
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    # the sessions first: a half packet holds one of libmilter's workers
    # until Timeout, and a session would wait for a free one
    conns = [("held", held(path)) for _ in range(int(nheld))]
    start = time.monotonic()
    conns += [("half", half(path)) for _ in range(int(nhalf))]
    open(ready, "w").close()
    closed = {}
    halves = [s for kind, s in conns if kind == "half"]
    while len(closed) < len(halves) and time.monotonic() - start < 60:
        live = [s for s in halves if s not in closed]
        readable, _, _ = select.select(live, [], [], 1)
        for s in readable:
            try:
                data = s.recv(4096)
            except OSError:
                data = b""
            if not data:
                closed[s] = time.monotonic() - start
    while hold and not os.path.exists(hold) and \
            time.monotonic() - start < 60:
        time.sleep(0.1)
    for _, s in conns:
        s.close()
    with open(out + ".tmp", "w") as f:
        for s in halves:
            f.write("half %s\n" % ("%.1f" % closed[s] if s in closed
                                   else "open"))
    os.rename(out + ".tmp", out)


main()
