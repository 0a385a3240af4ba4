#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# net_flood.sh - issue 21 item 5 (128 silent or established peers locked everyone out), kept
# found: two merod nodes on 127.0.0.1 share a namespace (b is a Member; its writes applied on
# a, so a counts it as a member peer). Then a is flooded from its own address, bounded in
# count: 140 established idle libp2p strangers (mero_p2p_test's `flood`, one process) and
# 300 silent TCP connections held open. a keeps at most max_inbound_per_ip (16) strangers
# from the address and 16 handshakes; b, restarted during the flood after 20 more strangers
# went for the slot it left, still gets in and replicates both ways; the budget log lines are
# rate-limited (not one per refused connection). Time-bounded: every wait has a limit, nothing
# asserts a duration. Before the fix (one shared max_conns of 128) the strangers took every
# slot and b was locked out. Last, config.json's "net" budgets: bad ones refuse to start, a
# good one is applied.
. "$(dirname "$0")/node_lib.bash"

FLOOD_PEERS=140
SILENT=300

start_node a
A=$(p2p_addr a)
start_node b --bootstrap "$A"

req a POST /admin-api/namespaces '{}'
NS=$(jq -r .data.namespaceId <<<"$RESP")
req b POST "/admin-api/namespaces/$NS/join" '{}'
IDB=$(jq -r .data.identity <<<"$RESP")
req a POST "/admin-api/groups/$NS/members" "{\"identity\":\"$IDB\",\"role\":\"Member\"}"
check "a adds b as a Member" status_is 200
req a POST "/admin-api/groups/$NS/contexts" '{}'
CTX=$(jq -r .data.contextId <<<"$RESP")
ctx_on() { req "$1" GET "/admin-api/groups/$NS/contexts"; jq_is ".data[0].contextId" "$CTX"; }
check "b sees the context" wait_for 15 ctx_on b
put_ok() { req "$1" PUT "/admin-api/contexts/$CTX/kv/$2" "{\"value\":\"$3\"}"; status_is 200; }
check "b writes" wait_for 10 put_ok b before b1
check "a applies b's write (b is now a member peer of a)" wait_for 15 kv_is a "$CTX" before b1

# 140 established idle strangers
FLOOD_START=$SECONDS
mkfifo "$WORK/flood.in"
"$BIN/mero_p2p_test" <"$WORK/flood.in" >"$WORK/flood.out" 2>"$WORK/flood.err" &
PIDS[flood]=$!
exec {FFD}>"$WORK/flood.in"
echo "flood $FLOOD_PEERS $A" >&"$FFD"
flood_done() { grep -qs '^flood done' "$WORK/flood.out"; }
check "the flood's $FLOOD_PEERS dials ran" wait_for 90 flood_done
check "a refused strangers over its per-address cap" \
    grep -q "per-address limit of established strangers reached" "$WORK/a.log"

# 300 silent TCP connections, held open until the end
PORT=${A#/ip4/127.0.0.1/tcp/}
PORT=${PORT%%/*}
# (the script writes "OPENED CLOSED" once all are open and a has closed all but its 16
# handshake slots' worth, or after 20 s)
python3 - "$PORT" "$SILENT" "$WORK/silent.ready" <<'EOF' &
import os, select, socket, sys, time
port, n, ready = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
held, closed = [], set()
for _ in range(n):
    s = socket.socket()
    s.settimeout(10)
    try:
        s.connect(("127.0.0.1", port))
        s.setblocking(False)
        held.append(s)
    except OSError:
        s.close()
end = time.time() + 20
while len(held) - len(closed) > 16 and time.time() < end:
    r, _, _ = select.select([s for s in held if s not in closed], [], [], 0.5)
    for s in r:
        try:
            if s.recv(64) == b"":
                closed.add(s)
        except OSError:
            closed.add(s)
with open(ready + ".tmp", "w") as f:
    f.write("%d %d\n" % (len(held), len(closed)))
os.rename(ready + ".tmp", ready)
time.sleep(120)
EOF
PIDS[silent]=$!
silent_ready() { [ -s "$WORK/silent.ready" ]; }
check "the $SILENT silent connections were opened" wait_for 40 silent_ready
read -r OPENED CLOSED <"$WORK/silent.ready"
check "a holds at most 16 of them (per-address handshake slots): closed $CLOSED of $OPENED" \
    eval '[ "$OPENED" -eq "$SILENT" ] && [ $((OPENED - CLOSED)) -le 16 ]'

# b comes back during the flood, after more strangers tried to take the slot it left: a
# member still gets in, both ways
stop_node b
echo "flood 20 $A" >&"$FFD"
flood_done2() { [ "$(grep -c '^flood done' "$WORK/flood.out")" -ge 2 ]; }
check "20 more strangers dialed while b was down" wait_for 60 flood_done2
run_node b --bootstrap "$A"
check "b, restarted during the flood, writes" wait_for 10 put_ok b during b2
check "a receives b's write during the flood" wait_for 20 kv_is a "$CTX" during b2
check "a writes during the flood" put_ok a from-a a1
check "b receives a's write during the flood" wait_for 20 kv_is b "$CTX" from-a a1

# the log: rate-limited (one line per 10 s and a summary), not one line per closed connection
LINES=$(grep -c -e "such closes in the last" -e "closed by the connection budgets" "$WORK/a.log")
BOUND=$((3 + (SECONDS - FLOOD_START) / 10))
check "budget log lines are rate-limited ($LINES lines, at most $BOUND)" \
    eval '[ "$LINES" -ge 1 ] && [ "$LINES" -le "$BOUND" ]'
check "no per-connection 'connection limit' lines" \
    eval '[ "$(grep -c "connection limit reached" "$WORK/a.log")" -le "$BOUND" ]'

# the budgets come from config.json's "net" object; a bad one is refused (fail closed)
init_node c
set_net() { jq ". + {net: $2}" "$WORK/$1/config.json" >"$WORK/cfg.tmp" && cat "$WORK/cfg.tmp" >"$WORK/$1/config.json"; }
set_net c '{"maxInboundPerIp": 0}'
OUT=$(timeout 10 "$BIN/merod" run --home "$WORK/c" 2>&1)
RC=$?
check "config net.maxInboundPerIp 0 refused (exit 2, names the field)" \
    eval '[ $RC -eq 2 ] && grep -q "net.maxInboundPerIp" <<<"$OUT"'
set_net c '{"maxConns": 5}'
OUT=$(timeout 10 "$BIN/merod" run --home "$WORK/c" 2>&1)
RC=$?
check "config with an unknown net field refused (exit 2)" \
    eval '[ $RC -eq 2 ] && grep -q "unknown field \"net.maxConns\"" <<<"$OUT"'
set_net c '{"maxInboundPerIp": 2, "maxInbound": 300, "maxPending": 8, "maxOutbound": 16}'
run_node c
C=$(p2p_addr c)
echo "flood 4 $C" >&"$FFD"
flood_done3() { [ "$(grep -c '^flood done' "$WORK/flood.out")" -ge 3 ]; }
check "4 strangers dialed c" wait_for 30 flood_done3
refused_on_c() { grep -q "per-address limit of established strangers reached" "$WORK/c.log"; }
check "c applies maxInboundPerIp 2 from config.json (the third stranger is refused)" \
    wait_for 10 refused_on_c

exec {FFD}>&-
finish
