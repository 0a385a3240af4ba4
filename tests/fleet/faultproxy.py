#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# faultproxy.py - the fleet harness's fault-injecting TCP proxy (docs/fleet-harness.md): one
# process, one asyncio loop, one listening port per node (the address the node announces),
# each forwarding to that node's real listen address. It names the node that opened a
# connection from the connecting socket's owner (/proc/net/tcp inode -> /proc/PID/fd of the
# registered node pids), so faults are per directed link (src -> dst): refuse a fraction of
# new connections, delay every chunk, hold a fraction of chunks for a retransmission timeout
# (what TCP turns packet loss into), close the connection on a fraction of chunks, cut a
# link, partition sets of nodes, heal. Upstream connections leave from 127.0.1.<index of the
# source node> so each node sees its peers at their own address (per-address budgets stay
# realistic); a source it cannot name leaves from 127.0.2.1.
#
# Control: a text protocol on a TCP port of 127.0.0.1 (written to --port-file), one command
# per line, one reply line per command ("ok ..." or "err <reason>"):
#   add NAME                    -> ok PORT       listen for NAME (once; survives restarts)
#   upstream NAME HOST PORT     -> ok            where NAME's real listener is now
#   pid NAME PID                -> ok            NAME's process (to name connecting sockets)
#   set SRC DST KEY=VAL...      -> ok            faults on links SRC->DST (* = any node):
#        refuse=F (fraction of new connections closed at once), delay=MS (each chunk),
#        loss=F (fraction of chunks held rto=MS, doubled on consecutive losses),
#        reset=F (fraction of chunks on which the connection is closed), cut=0|1
#   partition A,B,.. B1,B2,..   -> ok N          cut every link between the two sets both
#                                                ways; closes the N live ones at once
#   heal                        -> ok            clear every fault and partition
#   stats                       -> ok {json}     counters
# Invariants: a cut link carries no byte after the command's reply (its live connections are
# closed first); chunks of one direction are delivered in order; every random draw comes
# from the seeded RNG (--seed), so a run's fault pattern is reproducible given the same
# traffic.
import argparse
import asyncio
import json
import os
import random
import sys

CHUNK = 65536
FAULT_KEYS = {"refuse": float, "delay": float, "loss": float, "reset": float, "rto": float, "cut": int}


class Proxy:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.nodes = {}  # name -> dict(port, index, upstream, pid)
        self.faults = {}  # (src, dst) -> {key: value}
        self.cuts = set()  # (src, dst) pairs cut by partition
        self.links = set()  # live Link objects
        self.stats = {"accepted": 0, "refused": 0, "cut": 0, "unknown_src": 0, "resets": 0,
                      "losses": 0, "bytes": 0, "no_upstream": 0}

    # ---- who is connecting ----
    def _inode_of(self, sport, dport):
        want_l = ":%04X" % sport
        want_r = ":%04X" % dport
        for path in ("/proc/net/tcp", "/proc/net/tcp6"):
            try:
                with open(path) as f:
                    next(f)
                    for line in f:
                        p = line.split()
                        if p[1].endswith(want_l) and p[2].endswith(want_r):
                            return p[9]
            except OSError:
                pass
        return None

    def _owner(self, inode):
        target = "socket:[%s]" % inode
        for name, n in self.nodes.items():
            pid = n.get("pid")
            if not pid:
                continue
            d = "/proc/%d/fd" % pid
            try:
                for fd in os.listdir(d):
                    try:
                        if os.readlink(d + "/" + fd) == target:
                            return name
                    except OSError:
                        pass
            except OSError:
                pass
        return None

    async def source_of(self, sport, dport):
        for _ in range(5):
            inode = self._inode_of(sport, dport)
            if inode and inode != "0":
                name = self._owner(inode)
                if name:
                    return name
            await asyncio.sleep(0.02)
        return None

    # ---- faults ----
    def effective(self, src, dst):
        e = {"refuse": 0.0, "delay": 0.0, "loss": 0.0, "reset": 0.0, "rto": 200.0, "cut": 0}
        for key in (("*", "*"), (src, "*"), ("*", dst), (src, dst)):
            e.update(self.faults.get(key, {}))
        if (src, dst) in self.cuts:
            e["cut"] = 1
        return e

    def close_cut(self):
        n = 0
        for link in list(self.links):
            if self.effective(link.src, link.dst)["cut"]:
                link.close()
                n += 1
        self.stats["cut"] += n
        return n

    # ---- data path ----
    async def accept(self, name, reader, writer):
        self.stats["accepted"] += 1
        peer = writer.get_extra_info("peername")
        sock = writer.get_extra_info("sockname")
        src = await self.source_of(peer[1], sock[1]) if peer else None
        if src is None:
            self.stats["unknown_src"] += 1
            src = "?"
        e = self.effective(src, name)
        if e["cut"] or self.rng.random() < e["refuse"]:
            self.stats["refused"] += 1
            writer.transport.abort()
            return
        node = self.nodes[name]
        for _ in range(100):  # a restarting node: wait (bounded) for its listener
            if node.get("upstream"):
                break
            await asyncio.sleep(0.05)
        if not node.get("upstream"):
            self.stats["no_upstream"] += 1
            writer.transport.abort()
            return
        idx = self.nodes[src]["index"] if src in self.nodes else None
        local = "127.0.1.%d" % idx if idx else "127.0.2.1"
        try:
            ur, uw = await asyncio.wait_for(
                asyncio.open_connection(node["upstream"][0], node["upstream"][1], local_addr=(local, 0)), 5)
        except (OSError, asyncio.TimeoutError):
            writer.transport.abort()
            return
        link = Link(self, src, name, writer, uw)
        self.links.add(link)
        await asyncio.gather(link.pump(reader, uw, src, name), link.pump(ur, writer, name, src))
        link.close()
        self.links.discard(link)


class Link:
    def __init__(self, proxy, src, dst, w1, w2):
        self.p, self.src, self.dst, self.w = proxy, src, dst, (w1, w2)
        self.closed = False

    def close(self):
        if not self.closed:
            self.closed = True
            for w in self.w:
                w.transport.abort()

    async def pump(self, reader, writer, a, b):
        """Copy reader -> writer for the direction a -> b, applying that direction's faults."""
        loop = asyncio.get_running_loop()
        q = asyncio.Queue(maxsize=64)
        lost_run = 0

        async def deliver():
            while True:
                at, data = await q.get()
                if data is None:
                    return
                wait = at - loop.time()
                if wait > 0:
                    await asyncio.sleep(wait)
                if self.closed:
                    continue  # discard until the reader side stops
                try:
                    writer.write(data)
                    await writer.drain()
                except (OSError, ConnectionError):
                    self.close()

        sender = asyncio.ensure_future(deliver())
        last = 0.0
        abort = False
        try:
            while not self.closed:
                data = await reader.read(CHUNK)
                if not data:
                    break
                e = self.p.effective(a, b)
                if e["cut"]:
                    abort = True
                    break
                if e["reset"] and self.p.rng.random() < e["reset"]:
                    self.p.stats["resets"] += 1
                    abort = True
                    break
                hold = e["delay"]
                if e["loss"] and self.p.rng.random() < e["loss"]:
                    lost_run += 1
                    self.p.stats["losses"] += 1
                    hold += e["rto"] * (2 ** min(lost_run - 1, 5))
                else:
                    lost_run = 0
                self.p.stats["bytes"] += len(data)
                last = max(last, loop.time() + hold / 1000.0)
                await q.put((last, data))
        except (OSError, ConnectionError):
            abort = True
        if abort:
            self.close()
            sender.cancel()
        else:
            await q.put((last, None))  # EOF: deliver what is queued, then close both sides
        try:
            await sender
        except (OSError, ConnectionError, asyncio.CancelledError):
            pass
        self.close()


async def control(proxy, reader, writer):
    while True:
        line = await reader.readline()
        if not line:
            break
        try:
            reply = await command(proxy, line.decode().split())
        except Exception as ex:  # a bad command answers, never kills the proxy
            reply = "err %s" % ex
        writer.write((reply + "\n").encode())
        await writer.drain()
    writer.close()


async def command(p, w):
    if not w:
        return "err empty"
    op, args = w[0], w[1:]
    if op == "add":
        name = args[0]
        if name in p.nodes:
            return "ok %d" % p.nodes[name]["port"]
        if name in ("*", "?"):
            return "err reserved name"
        idx = len(p.nodes) + 1
        if idx > 254:
            return "err too many nodes"
        server = await asyncio.start_server(lambda r, wr, n=name: p.accept(n, r, wr), "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        p.nodes[name] = {"port": port, "index": idx, "server": server}
        return "ok %d" % port
    if op == "upstream":
        p.nodes[args[0]]["upstream"] = (args[1], int(args[2]))
        return "ok"
    if op == "pid":
        p.nodes[args[0]]["pid"] = int(args[1])
        return "ok"
    if op == "set":
        src, dst = args[0], args[1]
        f = p.faults.setdefault((src, dst), {})
        for kv in args[2:]:
            k, v = kv.split("=", 1)
            if k not in FAULT_KEYS:
                return "err unknown fault %s" % k
            f[k] = FAULT_KEYS[k](v)
        return "ok %d" % p.close_cut()
    if op == "partition":
        a, b = args[0].split(","), args[1].split(",")
        for x in a:
            for y in b:
                p.cuts.add((x, y))
                p.cuts.add((y, x))
        return "ok %d" % p.close_cut()
    if op == "heal":
        p.faults.clear()
        p.cuts.clear()
        return "ok"
    if op == "stats":
        s = dict(p.stats)
        s["live"] = len(p.links)
        return "ok " + json.dumps(s, sort_keys=True)
    return "err unknown command %s" % op


async def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--seed", type=int, default=1)
    o = ap.parse_args()
    proxy = Proxy(o.seed)
    srv = await asyncio.start_server(lambda r, w: control(proxy, r, w), "127.0.0.1", 0)
    tmp = o.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % srv.sockets[0].getsockname()[1])
    os.rename(tmp, o.port_file)
    print("faultproxy: control on port %d, seed %d" % (srv.sockets[0].getsockname()[1], o.seed),
          file=sys.stderr, flush=True)
    await asyncio.Event().wait()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        pass
