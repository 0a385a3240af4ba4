#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# js_libp2p.sh - interop with js-libp2p (libp2p@2, @libp2p/tcp, @chainsafe/libp2p-noise,
# -yamux, -gossipsub, @libp2p/identify from tests/js/node_modules): our node dials a js node
# and a js node dials ours; in both directions Noise + yamux come up, a gossipsub message on
# ns/<64 hex> published by each side reaches the other (signed `from` = the publisher), and a
# request/response exchange on a custom protocol works both ways.
set -u
ROOT=${MERO_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${MERO_BIN:-$ROOT/build/release/bin}
. "$ROOT/tests/interop/lib/p2p.bash"
p2p_init
p2p_js_deps
TOPIC="ns/$(printf 'ab%.0s' $(seq 32))"
JS="node $ROOT/tests/js/p2p_peer.mjs"
C="$BIN/mero_p2p_test"

run_pair() { # DIRECTION: c2js (we dial) | js2c (js dials)
    local dir=$1 c=c_$1 j=js_$1
    p2p_start "$j" $JS --listen /ip4/127.0.0.1/tcp/0 --echo /mero/test/echo-js/1 --sub "$TOPIC"
    p2p_start "$c" "$C" --listen /ip4/127.0.0.1/tcp/0 --echo /mero/test/echo-c/1 --sub "$TOPIC"
    p2p_wait "$j" '^listen ' 30 && p2p_wait "$c" '^listen '
    local jid cid jaddr caddr
    jid=$(p2p_field "$j" id)
    cid=$(p2p_field "$c" id)
    jaddr=$(p2p_field "$j" listen)
    caddr=$(p2p_field "$c" listen)
    if [ "$dir" = c2js ]; then
        p2p_send "$c" "dial $jaddr"
        check "$dir: our node dials js (Noise + yamux, authenticated id)" \
            p2p_wait "$c" "^dial ok $jid" 20
    else
        p2p_send "$j" "dial $caddr"
        check "$dir: js dials our node (Noise + yamux, authenticated id)" \
            p2p_wait "$j" "^dial ok $cid" 20
    fi
    check "$dir: both report the peer up" \
        bash -c "grep -q '^peer up $jid' '$T/$c.out' || sleep 2; grep -q '^peer up $jid' '$T/$c.out' && grep -q '^peer up $cid' '$T/$j.out'"
    # wait until each side sees the other's subscription (identify -> meshsub streams)
    local i
    for ((i = 0; i < 50; i++)); do
        : >"$T/tp"
        p2p_send "$c" "topicpeers $TOPIC"
        p2p_send "$j" "topicpeers $TOPIC"
        sleep 0.3
        if [ "$(grep -c '^topicpeers 1' "$T/$c.out")" -gt 0 ] && [ "$(grep -c '^topicpeers 1' "$T/$j.out")" -gt 0 ]; then
            break
        fi
    done
    check "$dir: subscriptions exchanged over /meshsub/1.1.0" \
        bash -c "grep -q '^topicpeers 1' '$T/$c.out' && grep -q '^topicpeers 1' '$T/$j.out'"
    p2p_send "$c" "pub $TOPIC hello-from-c-$dir"
    check "$dir: our gossipsub message reaches js (from = our id)" \
        p2p_wait "$j" "^msg $TOPIC $cid hello-from-c-$dir\$" 10
    p2p_send "$j" "pub $TOPIC hello-from-js-$dir"
    check "$dir: js gossipsub message reaches us (from = js id)" \
        p2p_wait "$c" "^msg $TOPIC $jid hello-from-js-$dir\$" 10
    p2p_send "$c" "req $jid /mero/test/echo-js/1 ping-c-$dir"
    check "$dir: request/response, we ask js" p2p_wait "$c" "^reply ok echo:ping-c-$dir\$" 10
    p2p_send "$j" "req $cid /mero/test/echo-c/1 ping-js-$dir"
    check "$dir: request/response, js asks us" p2p_wait "$j" "^reply ok echo:ping-js-$dir\$" 10
    p2p_send "$c" "req $jid /mero/test/not-there/1 x"
    check "$dir: unknown protocol id is refused (EUNSUPPORTED)" \
        p2p_wait "$c" "^reply err EUNSUPPORTED" 10
    p2p_quit "$j"
    p2p_quit "$c"
}

run_pair c2js
run_pair js2c

# a js node dialing our address with a wrong /p2p/ id is refused by the js side; ours refuses too
p2p_start c3 "$C" --listen /ip4/127.0.0.1/tcp/0
p2p_start j3 $JS --listen /ip4/127.0.0.1/tcp/0
p2p_wait j3 '^listen ' 30 && p2p_wait c3 '^listen '
jaddr=$(p2p_field j3 listen)
cid=$(p2p_field c3 id)
wrong=${jaddr%/p2p/*}/p2p/$cid
p2p_send c3 "dial $wrong"
check "dialing js under another peer id is refused (EPEERID)" p2p_wait c3 '^dial err EPEERID' 15
p2p_quit j3
p2p_quit c3
# a mixed mesh: c4 - js5 - c6 (chain through the js node); messages cross js's mesh both ways
p2p_start j5 $JS --listen /ip4/127.0.0.1/tcp/0 --sub "$TOPIC"
p2p_start c4 "$C" --listen /ip4/127.0.0.1/tcp/0 --sub "$TOPIC"
p2p_start c6 "$C" --listen /ip4/127.0.0.1/tcp/0 --sub "$TOPIC"
p2p_wait j5 '^listen ' 30 && p2p_wait c4 '^listen ' && p2p_wait c6 '^listen '
jaddr=$(p2p_field j5 listen)
c4id=$(p2p_field c4 id)
c6id=$(p2p_field c6 id)
p2p_send c4 "dial $jaddr"
p2p_send c6 "dial $jaddr"
p2p_wait c4 '^dial ok' 20 && p2p_wait c6 '^dial ok' 20
sleep 3 # subscriptions and GRAFTs (js heartbeat 0.7 s, ours 1 s)
p2p_send c4 "pub $TOPIC via-js-1"
check "js forwards our message to another of our nodes (signed from intact)" \
    p2p_wait c6 "^msg $TOPIC $c4id via-js-1\$" 15
p2p_send c6 "pub $TOPIC via-js-2"
check "and the other way round" p2p_wait c4 "^msg $TOPIC $c6id via-js-2\$" 15
p2p_quit j5
p2p_quit c4
p2p_quit c6
if [ "$FAILS" -gt 0 ]; then
    for f in "$T"/*.out "$T"/*.err; do
        echo "# == $f"
        tail -n 20 "$f" | sed 's/^/#   /'
    done
fi
exit 0
