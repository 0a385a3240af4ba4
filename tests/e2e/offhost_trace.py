#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# offhost_trace.py TRACE... - issue 32 item 1: read strace output (-f, -e trace=connect,sendto,
# sendmsg,sendmmsg) and print every call that addresses something off this host, one line each:
# `offhost: FILE: REASON: LINE`. Exit 1 when there is one, 0 when there is none.
#
# On the host: AF_UNIX/AF_LOCAL, AF_NETLINK, AF_UNSPEC (a UDP disconnect), AF_INET in
# 127.0.0.0/8, AF_INET6 ::1 (and ::ffff:127.x.y.z), a send on a connected socket (no address).
# Off the host: any other address, any port 53 even on loopback (a name lookup: a stub
# resolver such as 127.0.0.53 forwards it off the host), any other family, and a connect or an
# AF_INET/AF_INET6 address whose address strace did not decode (a format this parser does not
# know fails loudly rather than passing).
import ipaddress
import re
import sys

CALL = re.compile(r"^(?:\d+ +)?(?:\[pid +\d+\] )?(connect|sendto|sendmsg|sendmmsg)\(")
FAMILY = re.compile(r"sa_family=(AF_[A-Z0-9_]+)")
V4 = re.compile(r'sa_family=AF_INET, sin_port=htons\((\d+)\), sin_addr=inet_addr\("([^"]+)"\)')
V6 = re.compile(r'sa_family=AF_INET6, sin6_port=htons\((\d+)\), [^{}]*?inet_pton\(AF_INET6, "([^"]+)"')
LOCAL = {"AF_UNIX", "AF_LOCAL", "AF_NETLINK", "AF_UNSPEC"}


def on_host(ip):
    if ip.is_loopback:
        return True
    return ip.version == 6 and ip.ipv4_mapped is not None and ip.ipv4_mapped.is_loopback


def reasons(line):
    """Why this trace line leaves the host (empty: it does not)."""
    m = CALL.match(line)
    if m is None:
        return []
    out = []
    fams = list(FAMILY.finditer(line))
    if m.group(1) == "connect" and not fams:
        out.append("connect with an address strace did not decode")
    for f in fams:
        fam = f.group(1)
        if fam in LOCAL:
            continue
        pat = V4 if fam == "AF_INET" else V6 if fam == "AF_INET6" else None
        if pat is None:
            out.append("family %s" % fam)
            continue
        a = pat.match(line, f.start())
        if a is None:
            out.append("%s address not decoded" % fam)
            continue
        port, addr = int(a.group(1)), a.group(2)
        try:
            ip = ipaddress.ip_address(addr)
        except ValueError:
            out.append("%s address %r not understood" % (fam, addr))
            continue
        if not on_host(ip):
            out.append("%s %s port %d is off the host" % (fam, addr, port))
        elif port == 53:
            out.append("name lookup (port 53 on %s): a resolver forwards it off the host" % addr)
    return out


def main(paths):
    bad = 0
    for path in paths:
        with open(path, errors="replace") as fh:
            for line in fh:
                for r in reasons(line):
                    print("offhost: %s: %s: %s" % (path, r, line.rstrip("\n")))
                    bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
