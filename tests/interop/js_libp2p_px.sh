#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# js_libp2p_px.sh - gossipsub v1.1 peer exchange (issue 33) with js-libp2p's gossipsub
# (@chainsafe/libp2p-gossipsub from tests/js/node_modules), loopback only, both directions:
#
#  1. we send PX, js takes it: our node (mero_p2p_test --max-inbound 1) holds one inbound link,
#     to js node B (subscribed, so B's signed peer record from identify is ours to offer); js
#     node A dials us and is turned away with a goodbye: a PRUNE whose PX carries B's signed
#     record. A has never been told B's address: it must receive our PRUNE, accept the record
#     into its peer store and dial B from it. js takes PX only from a peer scoring at least
#     acceptPXThreshold (default 10; a fresh peer scores 0), so A runs with --accept-px 1
#     (threshold 0).
#  2. js sends PX, we take it: js node J with doPX (off by default in js; --do-px 1) has our
#     node C and js node B in its mesh; J unsubscribes, so it PRUNEs both with PX, C's PRUNE
#     carrying B's js-signed record. C takes PX only from a peer scoring 10 or ranked a member
#     (docs/network.md), so J is set to MERO_NET_PRIO_MEMBER (the rank merod gives its bootstrap
#     peers); C must count the verified record (px_records_accepted) and dial B from it.
set -u
ROOT=${MERO_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${MERO_BIN:-$ROOT/build/release/bin}
. "$ROOT/tests/interop/lib/p2p.bash"
p2p_init
p2p_js_deps
TOPIC="ns/$(printf 'cd%.0s' $(seq 32))"
JS="node $ROOT/tests/js/p2p_peer.mjs"
C="$BIN/mero_p2p_test"
PRIO_MEMBER=1 # MERO_NET_PRIO_MEMBER (include/mero/net.h)

# topic_peers NAME N: 0 once NAME counts at least N peers subscribed to TOPIC (bounded poll)
topic_peers() {
    local i
    for ((i = 0; i < 60; i++)); do
        p2p_send "$1" "topicpeers $TOPIC"
        sleep 0.3
        if grep "^topicpeers " "$T/$1.out" | tail -n 1 | awk -v n="$2" '$2 >= n {f = 1} END {exit !f}'; then
            return 0
        fi
    done
    return 1
}

# ---- 1. our PRUNE with PX, taken by js ----
p2p_start b1 $JS --listen /ip4/127.0.0.1/tcp/0 --sub "$TOPIC"
p2p_start c1 "$C" --listen /ip4/127.0.0.1/tcp/0 --sub "$TOPIC" --max-inbound 1
p2p_start a1 $JS --listen /ip4/127.0.0.1/tcp/0 --sub "$TOPIC" --accept-px 1
p2p_wait b1 '^listen ' 30 && p2p_wait a1 '^listen ' 30 && p2p_wait c1 '^listen '
bid=$(p2p_field b1 id)
cid=$(p2p_field c1 id)
caddr=$(p2p_field c1 listen)
p2p_send b1 "dial $caddr"
check "px out: js node B dials our node (its one inbound slot)" p2p_wait b1 "^dial ok $cid" 20
check "px out: our node sees B subscribed (B's signed record from identify)" topic_peers c1 1
p2p_send a1 "dial $caddr"
check "px out: js node A's dial is answered (then turned away: inbound limit 1)" \
    p2p_wait a1 "^dial ok $cid" 20
check "px out: A's gossipsub receives our PRUNE for the topic" \
    p2p_wait a1 "^prune $TOPIC $cid\$" 15
p2p_send c1 pxstats
check "px out: our node counts a signed record sent in PX" \
    bash -c "sleep 0.5; grep -E '^pxstats [1-9]' '$T/c1.out'"
check "px out: A dials B, whose address it learned only from our PX (js accepted the record)" \
    p2p_wait a1 "^peer up $bid\$" 20
p2p_send a1 "record $bid"
check "px out: A's peer store holds B's signed peer record" p2p_wait a1 "^record $bid [1-9][0-9]* 1\$" 10
p2p_quit a1
p2p_quit c1
p2p_quit b1

# ---- 2. js's PRUNE with PX, taken by our node ----
p2p_start j2 $JS --listen /ip4/127.0.0.1/tcp/0 --sub "$TOPIC" --do-px 1
p2p_start b2 $JS --listen /ip4/127.0.0.1/tcp/0 --sub "$TOPIC"
p2p_start c2 "$C" --listen /ip4/127.0.0.1/tcp/0 --sub "$TOPIC"
p2p_wait j2 '^listen ' 30 && p2p_wait b2 '^listen ' 30 && p2p_wait c2 '^listen '
jid=$(p2p_field j2 id)
bid=$(p2p_field b2 id)
jaddr=$(p2p_field j2 listen)
p2p_send b2 "dial $jaddr"
p2p_send c2 "dial $jaddr"
check "px in: js node B dials js node J" p2p_wait b2 "^dial ok $jid" 20
check "px in: our node dials J" p2p_wait c2 "^dial ok $jid" 20
p2p_send c2 "prio $jid $PRIO_MEMBER"
check "px in: J ranked a member here (we take PX from members)" p2p_wait c2 '^prio ok' 5
check "px in: J sees both subscribed" topic_peers j2 2
# J's heartbeat (0.7 s) grafts both into its mesh; its PRUNE on leaving goes to mesh peers only
mesh_full() {
    local i
    for ((i = 0; i < 60; i++)); do
        p2p_send j2 "mesh $TOPIC"
        sleep 0.3
        if grep '^mesh ' "$T/j2.out" | tail -n 1 | grep -q '^mesh [2-9]'; then
            return 0
        fi
    done
    return 1
}
check "px in: J has both in its mesh" mesh_full
check "px in: our node has no link to B yet" bash -c "! grep -q '^peer up $bid' '$T/c2.out'"
p2p_send j2 "unsub $TOPIC"
check "px in: our node dials B, learned from J's PX (js's signed record verified here)" \
    p2p_wait c2 "^peer up $bid\$" 20
p2p_send c2 pxstats
check "px in: our node counts the record accepted and the dial" \
    bash -c "sleep 0.5; grep -E '^pxstats [0-9]+ [1-9][0-9]* [1-9]' '$T/c2.out'"
p2p_quit j2
p2p_quit b2
p2p_quit c2
if [ "$FAILS" -gt 0 ]; then
    for f in "$T"/*.out "$T"/*.err; do
        echo "# == $f"
        tail -n 20 "$f" | sed 's/^/#   /'
    done
fi
exit 0
