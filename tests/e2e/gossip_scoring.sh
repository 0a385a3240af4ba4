#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# gossip_scoring.sh - issue 20, gossipsub v1.1 peer scoring: a hostile libp2p peer
# (mero_p2p_test, its own identity, on the owner's namespace topic) floods 200 undecodable ops
# (tag 0xA0 + junk). The owner rejects each it processes (P4, -10 x count^2), graylists the
# peer once its score is below -80 and drops its RPCs unprocessed from then on: the owner's
# log names the graylisting and shows at most 3 refused ops from that peer (a fresh peer
# crosses -80 at its 3rd invalid message; docs/network.md "Peer scoring"). An innocuous message
# of a kind the node does not know is ignored, not penalised. Meanwhile a mock TEE fleet-joins
# the namespace through the same owner and is admitted and reads the owner's data. Every wait is
# bounded; nothing asserts a duration.
. "$(dirname "$0")/admission_lib.bash"

FLOOD=200

start_node owner --mock-tee
O=$(p2p_addr owner)
start_node t1 --mock-tee --bootstrap "$O"

req owner POST /admin-api/namespaces '{}'
NS=$(jq -r .data.namespaceId <<<"$RESP")
req owner POST "/admin-api/groups/$NS/contexts" '{}'
CTX=$(jq -r .data.contextId <<<"$RESP")
set_zero_policy owner "$NS" true
req owner PUT "/admin-api/contexts/$CTX/kv/k" '{"value":"secret"}'
check "owner has a namespace, a context and a policy" status_is 200

# the hostile peer: connects to the owner, learns its subscription
mkfifo "$WORK/bad.in"
"$BIN/mero_p2p_test" <"$WORK/bad.in" >"$WORK/bad.out" 2>"$WORK/bad.err" &
PIDS[bad]=$!
exec {BFD}>"$WORK/bad.in"
echo "dial $O" >&"$BFD"
dialed() { grep -qs '^dial ok' "$WORK/bad.out"; }
check "the hostile peer connects to the owner" wait_for 20 dialed
BAD=$(sed -n 's/^id //p' "$WORK/bad.out" | head -1)
# an unknown message kind (text): ignored, not penalised; retried until the owner's
# subscription is known to the peer
reached() {
    echo "pub ns/$NS hello" >&"$BFD"
    sleep 0.2
    grep -qs '^pub [1-9]' "$WORK/bad.out"
}
check "the hostile peer reaches the owner's topic" wait_for 20 reached

# the flood, while t1 fleet-joins
JUNK=a0$(printf 'ff%.0s' $(seq 40))
echo "pubhex ns/$NS $FLOOD $JUNK" >&"$BFD"
fleet_join t1 "$NS" "[\"$O\"]"
check "t1 is admitted during the flood" jq_is .data.admitted true
check "t1 reads the owner's data" wait_for 20 kv_is t1 "$CTX" k secret

flooded() { grep -qs "^pubhex $FLOOD" "$WORK/bad.out"; }
check "the hostile peer sent all $FLOOD invalid ops" wait_for 30 flooded
graylisted() { grep -q "gossip peer $BAD graylisted" "$WORK/owner.log"; }
check "the owner graylists the hostile peer" wait_for 30 graylisted
# let the flood drain (bounded), then count what the owner processed from that peer
drained() {
    local a b
    a=$(wc -c <"$WORK/owner.log")
    sleep 1
    b=$(wc -c <"$WORK/owner.log")
    [ "$a" = "$b" ]
}
wait_for 20 drained
N=$(grep -c "op from $BAD refused" "$WORK/owner.log")
check "at most 3 invalid ops from it were processed (got $N of $FLOOD)" eval '[ "$N" -ge 1 ] && [ "$N" -le 3 ]'
check "the graylisting names its invalid-message count" \
    grep -qE "gossip peer $BAD graylisted \(score -[0-9.]+ after [1-3] invalid messages\)" \
    "$WORK/owner.log"
check "the unknown-kind message was not counted as invalid" \
    eval '! grep -q "gossip peer $BAD graylisted.*after 0 invalid" "$WORK/owner.log"'

# honest work goes on after the flood: the owner's write reaches t1
req owner PUT "/admin-api/contexts/$CTX/kv/after" '{"value":"flood"}'
check "a write after the flood reaches t1" wait_for 20 kv_is t1 "$CTX" after flood

echo "quit" >&"$BFD"
finish
