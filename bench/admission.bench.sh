#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# admission.bench.sh - time from POST /admin-api/tee/fleet-join to {admitted: true} on
# loopback (merod --mock-tee): by the direct path (admitterAddrs) and by the prompt path,
# medians over fresh namespaces; then 20 replicas joining one admitter at once (total wall
# time and the slowest join). Prints `bench <name> <value> <unit>` lines.
# Env: MERO_BIN (binaries), ROUNDS (default 7), FLEET (default 20).
set -u
BIN=${MERO_BIN:-$(cd "$(dirname "$0")/.." && pwd)/build/release/bin}
ROUNDS=${ROUNDS:-7}
FLEET=${FLEET:-20}
DIR=$(mktemp -d "${TMPDIR:-/tmp}/mero-bench.XXXXXX")
PIDS=()
cleanup() {
    for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null; done
    sleep 0.3
    for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
    rm -rf "$DIR"
}
trap cleanup EXIT
declare -A URL TOK

start() { # name [run flags...]
    local n=$1
    shift
    "$BIN/merod" init --home "$DIR/$n" --name "$n" --api 127.0.0.1:0 --listen /ip4/127.0.0.1/tcp/0 >/dev/null || return 1
    MERO_LOG=warn "$BIN/merod" run --home "$DIR/$n" "$@" >>"$DIR/$n.log" 2>&1 &
    PIDS+=($!)
    for _ in $(seq 200); do [ -s "$DIR/$n/run.json" ] && break; sleep 0.05; done
    URL[$n]=$(jq -r .apiUrl "$DIR/$n/run.json")
    TOK[$n]=$(tr -d '\n' <"$DIR/$n/admin-token")
}
api() { # name method path [body]
    local n=$1 m=$2 p=$3 body=${4-}
    local args=(-s -X "$m" --max-time 120 -H "Authorization: Bearer ${TOK[$n]}")
    [ -n "$body" ] && args+=(-H 'Content-Type: application/json' --data-binary "$body")
    curl "${args[@]}" "${URL[$n]}$p"
}
# join NAME NS [ADDRS_JSON]: prints "<ms> <admitted>"
join() {
    local n=$1 ns=$2 addrs=${3:-}
    local body="{\"groupId\":\"$ns\"}"
    [ -n "$addrs" ] && body="{\"groupId\":\"$ns\",\"admitterAddrs\":$addrs}"
    local t0 t1 out
    t0=$(date +%s%N)
    out=$(api "$n" POST /admin-api/tee/fleet-join "$body")
    t1=$(date +%s%N)
    echo "$(((t1 - t0) / 1000000)) $(jq -r .data.admitted <<<"$out")"
}
median() { sort -n | awk '{a[NR]=$1} END {if (NR == 0) {print "nan"} else if (NR % 2) {print a[(NR+1)/2]} else {print (a[NR/2]+a[NR/2+1])/2}}'; }
Z=$(printf '%096d' 0)
POLICY="{\"allowedMrtd\":[\"$Z\"],\"allowedRtmr1\":[\"$Z\"],\"allowedRtmr2\":[\"$Z\"],\"allowedRtmr3\":[\"$Z\"],\"acceptMock\":true}"
new_ns() { # admitter -> prints the namespace id with the mock policy set
    local ns
    ns=$(api "$1" POST /admin-api/namespaces '{}' | jq -r .data.namespaceId)
    api "$1" PUT "/admin-api/groups/$ns/settings/tee-admission-policy" "$POLICY" >/dev/null
    echo "$ns"
}

start owner || exit 1
O=$(jq -r '.listenAddrs[0]' "$DIR/owner/run.json")
start replica --mock-tee --bootstrap "$O" || exit 1
# a fresh replica per prompt round: a node answers one offering peer at most every 10 s
# (MIN_ATTEST_INTERVAL_PER_PEER), so back-to-back rounds on one replica would measure that
for i in $(seq "$ROUNDS"); do start "p$i" --mock-tee --bootstrap "$O" || exit 1; done
sleep 0.5

direct=()
prompt=()
for i in $(seq "$ROUNDS"); do
    ns=$(new_ns owner)
    read -r ms ok < <(join replica "$ns" "[\"$O\"]")
    [ "$ok" = true ] && direct+=("$ms") || echo "# direct round $i not admitted"
    ns=$(new_ns owner)
    read -r ms ok < <(join "p$i" "$ns")
    [ "$ok" = true ] && prompt+=("$ms") || echo "# prompt round $i not admitted"
done
echo "bench admission_direct_median $(printf '%s\n' "${direct[@]}" | median) ms"
echo "bench admission_prompt_median $(printf '%s\n' "${prompt[@]}" | median) ms"

# FLEET replicas join one admitter at once (direct path)
for i in $(seq "$FLEET"); do start "r$i" --mock-tee --bootstrap "$O" || exit 1; done
sleep 1
ns=$(new_ns owner)
t0=$(date +%s%N)
jp=()
for i in $(seq "$FLEET"); do
    join "r$i" "$ns" "[\"$O\"]" >"$DIR/fleet.$i" &
    jp+=($!)
done
for j in "${jp[@]}"; do wait "$j" 2>/dev/null; done
t1=$(date +%s%N)
admitted=0
slowest=0
for i in $(seq "$FLEET"); do
    read -r ms ok <"$DIR/fleet.$i"
    [ "$ok" = true ] && admitted=$((admitted + 1))
    [ "$ms" -gt "$slowest" ] && slowest=$ms
done
echo "bench admission_fleet${FLEET}_total $(((t1 - t0) / 1000000)) ms"
echo "bench admission_fleet${FLEET}_slowest $slowest ms"
echo "bench admission_fleet${FLEET}_admitted $admitted count"
echo "bench admission_fleet${FLEET}_median $(for i in $(seq "$FLEET"); do cut -d' ' -f1 "$DIR/fleet.$i"; done | median) ms"
