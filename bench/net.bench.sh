#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# net.bench.sh - our libp2p stack against js-libp2p, side by side in the same run on
# 127.0.0.1: one yamux stream's throughput (MB/s) and gossipsub deliveries per second to 4
# subscribers. Prints `bench ...` lines for both and `ratio net_* ours/js`.
# Each figure is the median of NET_BENCH_ROUNDS rounds (default 7) over the same connections;
# `#` lines give each side's min/median/max.
# Env: NET_BENCH_MB (default 64, both sides: the same exchange), NET_BENCH_MSGS (20000 ours,
# 1000 js, per round; the figures are rates), NET_BENCH_ROUNDS.
set -u
ROOT=${MERO_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
BUILD=${MERO_BUILD:-$ROOT/build/release}
out_c=$(MERO_LOG=error MERO_NET_BENCH=1 "$BUILD/bench/bench_net" "${NET_BENCH_MB:-64}" \
    "${NET_BENCH_MSGS:-20000}" "${NET_BENCH_ROUNDS:-7}" 2>/dev/null)
echo "$out_c"
if [ ! -d "$ROOT/tests/js/node_modules/libp2p" ]; then
    echo "# net.bench: js-libp2p not installed (tests/js), no ratios"
    exit 0
fi
out_js=$(cd "$ROOT/tests/js" && timeout 600 node bench_net.mjs "${NET_BENCH_JS_MB:-${NET_BENCH_MB:-64}}" \
    "${NET_BENCH_JS_MSGS:-1000}" "${NET_BENCH_ROUNDS:-7}" 2>/dev/null)
echo "$out_js"
val() { echo "$1" | awk -v k="$2" '$1 == "bench" && $2 == k {print $3}'; }
ratio() { # name ours js
    if [ -n "$2" ] && [ -n "$3" ]; then
        awk -v a="$2" -v b="$3" -v n="$1" 'BEGIN { if (b > 0) printf "ratio %s %.1f\n", n, a / b }'
    fi
}
ratio net_yamux_stream "$(val "$out_c" net_yamux_stream_c)" "$(val "$out_js" net_yamux_stream_js)"
ratio net_gossip_4subs "$(val "$out_c" net_gossip_4subs_c)" "$(val "$out_js" net_gossip_4subs_js)"
