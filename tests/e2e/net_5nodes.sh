#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# net_5nodes.sh - C-to-C gossipsub and request/response with 5 mero_p2p_test nodes on
# 127.0.0.1 (plus a late joiner): a message published by one reaches every subscriber of the
# topic and no one else; a node that joins late receives later messages; killing a node (the
# hub) does not stall the others; duplicate dials collapse into one connection per pair.
set -u
ROOT=${MERO_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${MERO_BIN:-$ROOT/build/release/bin}
. "$ROOT/tests/interop/lib/p2p.bash"
p2p_init
C="$BIN/mero_p2p_test"
TOPIC="ns/$(printf 'cd%.0s' $(seq 32))"
OTHER="ns/$(printf 'ef%.0s' $(seq 32))"

for n in 1 2 3 4 5; do
    sub=(--sub "$TOPIC")
    [ "$n" = 5 ] && sub=(--sub "$OTHER")
    p2p_start "n$n" "$C" --listen /ip4/127.0.0.1/tcp/0 --echo /mero/test/echo/1 "${sub[@]}"
done
for n in 1 2 3 4 5; do p2p_wait "n$n" '^listen ' 10; done
declare -A ADDR ID
for n in 1 2 3 4 5; do
    ADDR[$n]=$(p2p_field "n$n" listen)
    ID[$n]=$(p2p_field "n$n" id)
done
# a star on n1 plus a chain 2-3-4-5, and a duplicate dial 3 -> 2 (already connected 2 -> 3?)
for n in 2 3 4 5; do p2p_send "n$n" "dial ${ADDR[1]}"; done
p2p_send n2 "dial ${ADDR[3]}"
p2p_send n3 "dial ${ADDR[4]}"
p2p_send n4 "dial ${ADDR[5]}"
p2p_send n3 "dial ${ADDR[2]}"
sleep 3 # identify, subscriptions, one heartbeat
all_dialed() {
    local n
    for n in 2 3 4 5; do grep -q '^dial ok' "$T/n$n.out" || return 1; done
}
check "all dials complete" all_dialed
p2p_send n3 peers
check "one connection per peer pair (n3: n1 n2 n4)" p2p_wait n3 '^peers 3$' 5

p2p_send n2 "pub $TOPIC first"
check "publish reports the peers it went to" p2p_wait n2 '^pub [1-9]' 5
for n in 1 3 4; do
    check "subscriber n$n receives the message from n2" p2p_wait "n$n" "^msg $TOPIC ${ID[2]} first\$" 10
done
sleep 1
none() { ! grep -q "$2" "$T/$1.out"; }
once() {
    local n
    for n in 1 3 4; do [ "$(grep -c ' first$' "$T/n$n.out")" = 1 ] || return 1; done
}
check "non-subscriber n5 receives nothing" none n5 '^msg '
check "each subscriber got it exactly once" once

p2p_send n5 "pub $TOPIC nobody-else"
check "n5 (not subscribed) can still publish to topic peers" p2p_wait n5 '^pub [1-9]' 5
check "n1 receives n5's message" p2p_wait n1 "^msg $TOPIC ${ID[5]} nobody-else\$" 10

# late joiner: n6 knows only n4
p2p_start n6 "$C" --listen /ip4/127.0.0.1/tcp/0 --sub "$TOPIC"
p2p_wait n6 '^listen ' 10
p2p_send n6 "dial ${ADDR[4]}"
p2p_wait n6 '^dial ok' 10
sleep 2.5 # subscription + GRAFT at the next heartbeat
p2p_send n2 "pub $TOPIC second"
check "late joiner n6 receives a later message via the mesh" \
    p2p_wait n6 "^msg $TOPIC ${ID[2]} second\$" 10
check "late joiner did not get the earlier message" none n6 ' first$'

# request/response across the mesh (n4 asks n2 by id: dial on demand through the address book)
p2p_send n4 "addr ${ADDR[2]}"
p2p_send n4 "req ${ID[2]} /mero/test/echo/1 ping"
check "request/response n4 -> n2" p2p_wait n4 '^reply ok echo:ping$' 10

# kill the hub hard
P=P2P_PID_n1
kill -9 "${!P}"
sleep 0.5
p2p_send n2 "pub $TOPIC third"
check "publishing after the hub died does not stall" p2p_wait n2 '^pub [1-9]' 5
for n in 3 4 6; do
    check "n$n still receives after the hub died" p2p_wait "n$n" "^msg $TOPIC ${ID[2]} third\$" 10
done
p2p_send n3 "req ${ID[4]} /mero/test/echo/1 after-kill"
check "request/response still works after the kill" p2p_wait n3 '^reply ok echo:after-kill$' 10
p2p_send n4 "req ${ID[1]} /mero/test/echo/1 dead"
check "request to the dead node fails with an error (no hang)" p2p_wait n4 '^reply err ' 15

for n in 2 3 4 5 6; do p2p_quit "n$n"; done
clean() { ! grep -qE 'Sanitizer|runtime error' "$T"/*.err; }
check "nodes exit cleanly" clean
if [ "$FAILS" -gt 0 ]; then
    for f in "$T"/*.out "$T"/*.err; do
        echo "# == $f"
        tail -n 15 "$f" | sed 's/^/#   /'
    done
fi
exit 0
