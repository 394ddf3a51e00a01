#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""milter-hold.py SOCKET PID N - the milter's memory with N sessions open.

Prints the resident memory, threads and descriptors of process PID
before, then with N sessions open on the milter's unix SOCKET, each in
the middle of a message (negotiated, connected, HELO and MAIL FROM
sent), as "name value unit" lines for make bench.
"""
import socket
import struct
import sys
import time


def packet(cmd, data=b""):
    return struct.pack(">I", len(data) + 1) + cmd + data


def reply(s):
    # every command sent here gets exactly one reply packet
    head = b""
    while len(head) < 4:
        head += s.recv(4 - len(head))
    n = struct.unpack(">I", head)[0]
    while n > 0:
        n -= len(s.recv(n))


def session(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    s.sendall(packet(b"O", struct.pack(">III", 6, 0x1FF, 0)))
    reply(s)
    s.sendall(packet(b"C", b"client.example.net\0U"))
    reply(s)
    s.sendall(packet(b"H", b"client.example.net\0"))
    reply(s)
    s.sendall(packet(b"M", b"<dev@example.org>\0"))
    reply(s)
    return s


def usage(pid):
    fields = {}
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            key, _, value = line.partition(":")
            fields[key] = value.split()
    fds = 0
    try:
        import os
        fds = len(os.listdir("/proc/%d/fd" % pid))
    except OSError:
        pass
    return int(fields["VmRSS"][0]), int(fields["Threads"][0]), fds


def main():
    path, pid, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rss, threads, fds = usage(pid)
    print("milter_idle_rss %.1f MB" % (rss / 1024))
    held = [session(path) for _ in range(n)]
    time.sleep(0.5)
    rss, threads, fds = usage(pid)
    print("milter_sessions_%d_rss %.1f MB" % (n, rss / 1024))
    print("milter_sessions_%d_threads %d threads" % (n, threads))
    print("milter_sessions_%d_fds %d descriptors" % (n, fds))
    for s in held:
        s.close()


if __name__ == "__main__":
    main()
