#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# gen_net_corpus.py - writes the hand-made seed inputs for the net fuzz targets
# (multistream, noise_msg, yamux, gossip_rpc) into tests/fuzz/corpus/<target>/.
import os
import struct

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")


def uv(n):
    out = b""
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


def mss(s):
    b = s.encode() + b"\n"
    return uv(len(b)) + b


def pb(field, data):
    return uv(field << 3 | 2) + uv(len(data)) + data


def pbv(field, v):
    return uv(field << 3) + uv(v)


def yh(t, flags, sid, ln):
    return struct.pack(">BBHII", 0, t, flags, sid, ln)


def ydata(sid, data, flags=0):
    return yh(0, flags, sid, len(data)) + data


def write(target, name, data):
    d = os.path.join(ROOT, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


hdr = mss("/multistream/1.0.0")
write("multistream", "dialer-hello", b"\x05" + hdr + mss("/noise"))
write("multistream", "try-two", b"\x20" + hdr + mss("/tls/1.0.0") + mss("/noise"))
write("multistream", "ls", b"\x00" + hdr + mss("ls") + mss("/yamux/1.0.0"))
write("multistream", "na", b"\x00" + hdr + mss("na"))
write("multistream", "long", b"\x03" + uv(1025) + b"a" * 1025)

write("noise_msg", "msg1", bytes(range(32)))
write("noise_msg", "msg2-shape", bytes(range(32)) + bytes(48) + bytes(30))
key = pbv(1, 1) + pb(2, bytes(32))
write("noise_msg", "payload", pb(1, key) + pb(2, bytes(64)) + pb(4, pb(2, b"/yamux/1.0.0")))

rpc_sub = pb(1, pbv(1, 1) + pb(2, b"ns/ab"))
msg = pb(1, b"\x00\x24\x08\x01\x12\x20" + bytes(32)) + pb(2, b"hi") + pb(3, bytes(8)) + pb(4, b"ns/ab") + pb(5, bytes(64))
ctl = pb(1, pb(1, b"ns/ab") + pb(2, b"id1") + pb(2, b"id2")) + pb(2, pb(1, b"id1")) + pb(3, pb(1, b"ns/ab")) + pb(4, pb(1, b"ns/ab") + pbv(3, 60))
rpc = rpc_sub + pb(2, msg) + pb(3, ctl)
write("gossip_rpc", "full", rpc)
write("gossip_rpc", "subs-only", rpc_sub * 3)
write("gossip_rpc", "unsub", pb(1, pbv(1, 0) + pb(2, b"t")))

syn = yh(1, 1, 1, 0)
ident = ydata(1, hdr + mss("/ipfs/id/1.0.0"), 1) + yh(1, 4, 1, 0)
mesh = ydata(3, hdr + mss("/meshsub/1.1.0") + uv(len(rpc)) + rpc, 1)
req = ydata(5, hdr + mss("/f/1") + uv(4) + b"ping", 1) + yh(0, 4, 5, 0)
write("yamux", "identify", b"\x00" + ident)
write("yamux", "meshsub", b"\x00" + mesh)
write("yamux", "request", b"\x05" + req)
write("yamux", "ping-goaway", b"\x00" + yh(2, 1, 0, 7) + yh(3, 0, 0, 0))
write("yamux", "rst-window", b"\x02" + syn + yh(1, 0, 1, 1000) + yh(1, 8, 1, 0) + ydata(1, b"late"))
write("yamux", "unknown-proto", b"\x00" + ydata(7, hdr + mss("/nope") + mss("/f/1"), 1))
