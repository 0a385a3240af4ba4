#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# api_slow_clients.sh - issue 21 item 6: slow clients must not take the admin API down. 2,000
# loopback connections (more than the node's total cap of 256 and ten times the per-address cap
# of 64) trickle their headers one byte at a time, 60 more send their headers and trickle the
# body; meanwhile a legitimate client, on loopback too, must get /tee/attest and an
# authenticated /admin-api/node answered 200, several times. Trickling must not extend a
# connection's life: none of them is still open once the flood has run for 14 s (the header
# deadline is 5 s, the body deadline 10 s), and the node writes a few rate-limited warnings,
# not a line per connection. Bounded: 2,060 sockets, about 16 s.
. "$(dirname "$0")/node_lib.bash"

STATUS= RESP=
start_node a --mock-tee
U=${URL[a]}
PORT=${U##*:}
N=$(hex64 5)

cat >"$WORK/slow.py" <<'EOF'
import os, resource, socket, sys, time
port, nhead, nbody, ready, dur = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], float(sys.argv[5])
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
want = nhead + nbody + 64
if soft < want:
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(want, hard), hard))
    soft = min(want, hard)
nhead = min(nhead, soft - nbody - 64)
socks = []
def opened(first):
    s = socket.socket()
    s.connect(("127.0.0.1", port))
    s.setblocking(False)
    try:
        s.send(first)
    except OSError:
        pass
    return s
for i in range(nhead):
    socks.append(opened(b"GET /admin-api/tee/info HTTP/1.1\r\nHost: x\r\nX-Pad: "))
for i in range(nbody):
    socks.append(opened(b"POST /admin-api/tee/attest HTTP/1.1\r\nHost: x\r\nContent-Length: 60000\r\n\r\n{"))
open(ready, "w").write("%d\n" % len(socks))
alive = [True] * len(socks)
end = time.time() + dur
while time.time() < end:
    for i, s in enumerate(socks):
        if not alive[i]:
            continue
        try:
            if s.recv(4096) == b"":
                alive[i] = False
                continue
        except BlockingIOError:
            pass
        except OSError:
            alive[i] = False
            continue
        try:
            s.send(b"a")
        except BlockingIOError:
            pass
        except OSError:
            alive[i] = False
    time.sleep(0.5)
print("%d %d" % (len(socks), sum(alive)))
EOF
python3 "$WORK/slow.py" "$PORT" 2000 60 "$WORK/ready" 14 >"$WORK/slow.out" 2>"$WORK/slow.err" &
SLOW=$!
wait_for 20 test -s "$WORK/ready"
check "the flood opened its connections" test "$(cat "$WORK/ready")" -ge 2000

served=0
for round in 1 2 3; do
    sleep 1
    req a POST /admin-api/tee/attest "{\"nonce\":\"$N\"}" noauth
    [ "$STATUS" = 200 ] && served=$((served + 1))
    req a GET /admin-api/node
    [ "$STATUS" = 200 ] && served=$((served + 1))
    echo "# round $round: served $served"
done
check "legitimate client served 6 of 6 during the flood (public and admin routes)" test "$served" -eq 6
wait "$SLOW"
read -r total still <"$WORK/slow.out"
echo "# slow connections: $total, still open after 14 s: $still"
check "no trickling connection outlives its deadline" test "${still:-999}" -eq 0
check "node alive after the flood" kill -0 "${PIDS[a]}"
req a POST /admin-api/tee/attest "{\"nonce\":\"$N\"}" noauth
check "node serves after the flood" status_is 200
warn=$(grep -c 'api: ' "$WORK/a.log")
echo "# guard warnings in the log: $warn, log lines: $(wc -l <"$WORK/a.log")"
check "the flood is reported, rate-limited (1-3 warnings)" eval '[ "$warn" -ge 1 ] && [ "$warn" -le 3 ]'
check "no log line per connection" test "$(wc -l <"$WORK/a.log")" -lt 100
finish
