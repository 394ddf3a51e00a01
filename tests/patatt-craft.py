#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
# patatt-craft.py - hostile variants of a mail signed by patatt with an
# OpenPGP key, for the milter's tests: its b= replaced by a crafted
# signed message, or its signature field repeated.  The signed part of
# the field (everything before b=) is kept, so only b= is wrong.
#
# usage: patatt-craft.py KIND IN OUT
#   tag60     an unknown packet (tag 60) in front of the real signature
#   bzip2     a BZip2 compressed packet of 64 MiB of zeros
#   zip       a ZIP (raw deflate) compressed packet of 256 KiB of zeros
#   zlib      a ZLIB compressed packet of 256 KiB of zeros
#   random    300 random bytes (the same on every run)
# (deflate packs at most about 1000:1, and miltertest takes header fields
# under 1 KiB only)
#   many      the signature field nine times

import base64
import bz2
import random
import re
import sys
import zlib

FIELD = re.compile(rb"^X-Developer-Signature:.*\n(?:[ \t].*\n)*",
                   re.MULTILINE | re.IGNORECASE)


def compressed(algo, data):
    """An old-format compressed packet of indeterminate length."""
    return bytes([0xA3, algo]) + data


def zeros(kib):
    return b"\0" * (kib << 10)


def crafted(kind, sig):
    if kind == "tag60":
        return bytes([0xFC, 0x01, 0x00]) + sig
    if kind == "bzip2":
        return compressed(3, bz2.compress(zeros(64 << 10), 9))
    if kind == "zip":
        z = zlib.compressobj(9, zlib.DEFLATED, -15)
        return compressed(1, z.compress(zeros(256)) + z.flush())
    if kind == "zlib":
        return compressed(2, zlib.compress(zeros(256), 9))
    if kind == "random":
        return random.Random(19).randbytes(300)
    raise SystemExit("patatt-craft.py: unknown kind " + kind)


def folded(b64):
    return b"".join(b"\n " + b64[i:i + 72] for i in range(0, len(b64), 72))


def main():
    kind, src, dst = sys.argv[1:4]
    with open(src, "rb") as f:
        msg = f.read()
    m = FIELD.search(msg)
    if m is None:
        raise SystemExit("patatt-craft.py: no X-Developer-Signature in " + src)
    field = m.group(0)
    if kind == "many":
        new = field * 9
    else:
        cut = field.rindex(b"b=") + 2
        sig = base64.b64decode(re.sub(rb"\s", b"", field[cut:]))
        b64 = base64.b64encode(crafted(kind, sig))
        new = field[:cut] + folded(b64)[2:] + b"\n"
    with open(dst, "wb") as f:
        f.write(msg[:m.start()] + new + msg[m.end():])


main()
