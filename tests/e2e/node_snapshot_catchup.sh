#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# node_snapshot_catchup.sh - issue 37, catch-up by live state (docs/sync.md), four merod processes
# on 127.0.0.1: an admin (a) writes a context; two Members replicate it and serve bad snapshots
# through the test-only seam (merod run --test, MERO_TEST_SNAPSHOT_FAULT): p a forged signature,
# q each key's stale earliest write. A replica r, added while stopped, comes back knowing only p
# and q: it refuses both snapshots whole and serves nothing of the context (never a bad value);
# once the honest admin reaches it, r takes a's live state, serves every latest value at once,
# holds the live state rather than the history, and keeps up by ordinary delta sync.
. "$(dirname "$0")/node_lib.bash"

KEYS=12
start_node a
A=$(p2p_addr a)
init_node p
MERO_TEST_SNAPSHOT_FAULT=forge run_node p --test --bootstrap "$A"
P=$(p2p_addr p)
init_node q
MERO_TEST_SNAPSHOT_FAULT=stale run_node q --test --bootstrap "$A"
Q=$(p2p_addr q)
init_node r
run_node r --bootstrap "$P" --bootstrap "$Q"

req a POST /admin-api/namespaces '{}'
NS=$(jq -r .data.namespaceId <<<"$RESP")
for n in p q r; do
    req "$n" POST "/admin-api/namespaces/$NS/join" '{}'
    declare "ID_$n=$(jq -r .data.identity <<<"$RESP")"
done
stop_node r # r holds the namespace's first ops, nothing of the context made next
for n in p q r; do
    id="ID_$n"
    req a POST "/admin-api/groups/$NS/members" "{\"identity\":\"${!id}\",\"role\":\"Member\"}"
    check "admin adds $n as Member" status_is 200
done
req a POST "/admin-api/groups/$NS/contexts" '{}'
CTX=$(jq -r .data.contextId <<<"$RESP")
# every key written twice, then k0 a third time: each key's earliest write is stale, and the
# newest writes (the snapshot's heads) include k0's
for round in 1 2; do
    for i in $(seq 0 $((KEYS - 1))); do
        req a PUT "/admin-api/contexts/$CTX/kv/k$i" "{\"value\":\"r$round-$i\"}"
    done
done
req a PUT "/admin-api/contexts/$CTX/kv/k0" '{"value":"latest"}'
check "a writes the context" status_is 200
check "p replicates the context" wait_for 20 kv_is p "$CTX" k0 latest
check "q replicates the context" wait_for 20 kv_is q "$CTX" k0 latest
check "p and q hold every key" eval 'kv_is p "$CTX" k11 r2-11 && kv_is q "$CTX" k11 r2-11'
stop_node a

run_node r --bootstrap "$P" --bootstrap "$Q"
refused_by() { grep -q "live state of context .* from $1 refused" "$WORK/r.log"; }
PID_P=$(jq -r .peerId "$WORK/p/run.json")
PID_Q=$(jq -r .peerId "$WORK/q/run.json")
check "r refuses p's forged snapshot" wait_for 20 refused_by "$PID_P"
check "r refuses q's stale snapshot" wait_for 20 refused_by "$PID_Q"
check "the forged one by its signature" grep -q "from $PID_P refused: .*signature" "$WORK/r.log"
check "the stale one as stale" grep -q "from $PID_Q refused: .*stale" "$WORK/r.log"
sleep 2.5 # one more sync round: still nothing of the context is taken from p or q
never_served() {
    for i in $(seq 0 $((KEYS - 1))); do
        req r GET "/admin-api/contexts/$CTX/kv/k$i"
        [ "$STATUS" != 200 ] || return 1
    done
}
check "r serves no value of the refused snapshots" never_served

R=$(p2p_addr r)
run_node a --bootstrap "$R"
check "r takes a's live state and serves the latest value" wait_for 20 kv_is r "$CTX" k0 latest
PID_A=$(jq -r .peerId "$WORK/a/run.json")
check "caught up by live state from a" grep -q "caught up by live state from $PID_A" "$WORK/r.log"
all_latest() {
    for i in $(seq 1 $((KEYS - 1))); do
        kv_is r "$CTX" "k$i" "r2-$i" || return 1
    done
}
check "r serves every key's latest value" all_latest
req a PUT "/admin-api/contexts/$CTX/kv/after" '{"value":"next"}'
check "a writes after the snapshot" status_is 200
check "r keeps up by ordinary delta sync" wait_for 20 kv_is r "$CTX" after next
stop_node r
check "merod check passes on r" eval '"$BIN/merod" check --home "$WORK/r" >"$WORK/r.check"'
check "merod check names the context held as live state" \
    grep -q "context $CTX holds live state from a snapshot" "$WORK/r.check"
finish
