#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# node_snapshot_removed_author.sh - issue 30 (no refusal loops) meets issue 37 (catch-up by live
# state), three merod processes on 127.0.0.1. A Member m writes a context beside the admin a,
# and a removes m afterwards: a still serves m's value (it took effect before the removal). A
# replica r that comes back knowing the removal judges m's write against that governance and
# refuses it. That refusal is the state of governance here, not a fault of a: r must not refuse
# a's live state whole, ban a and skip the context round after round (it did: the context was
# never caught up). It pulls the history instead, serves a's values, refuses m's write once,
# and sync settles: no refusal repeats, and the live state is not asked for again. m's write is
# kept without effect on r and takes effect there once a adds m back.
. "$(dirname "$0")/node_lib.bash"

start_node a
A=$(p2p_addr a)
start_node m --bootstrap "$A"
start_node r --bootstrap "$A"

req a POST /admin-api/namespaces '{}'
NS=$(jq -r .data.namespaceId <<<"$RESP")
for n in m r; do
    req "$n" POST "/admin-api/namespaces/$NS/join" '{}'
    declare "ID_$n=$(jq -r .data.identity <<<"$RESP")"
done
stop_node r # r holds the namespace's first ops, nothing of the context made next
for n in m r; do
    id="ID_$n"
    req a POST "/admin-api/groups/$NS/members" "{\"identity\":\"${!id}\",\"role\":\"Member\"}"
    check "a adds $n as Member" status_is 200
done
req a POST "/admin-api/groups/$NS/contexts" '{}'
CTX=$(jq -r .data.contextId <<<"$RESP")
check "m sees the context" wait_for 20 eval 'req m GET "/admin-api/contexts/$CTX/kv/none"; [ "$STATUS" = 404 ]'
req a PUT "/admin-api/contexts/$CTX/kv/mine" '{"value":"from a"}'
req m PUT "/admin-api/contexts/$CTX/kv/theirs" '{"value":"from m"}'
check "m writes the context" status_is 200
check "a takes m's write" wait_for 20 kv_is a "$CTX" theirs "from m"
req a DELETE "/admin-api/groups/$NS/members/$ID_m"
check "a removes m" status_is 200
req a PUT "/admin-api/contexts/$CTX/kv/after" '{"value":"after the removal"}'
check "a still serves m's earlier write" kv_is a "$CTX" theirs "from m"
stop_node m

MERO_LOG=debug run_node r --bootstrap "$A"
check "r learns m's removal" wait_for 20 role_on r "$ID_m" null
check "r catches up on a's values" wait_for 20 kv_is r "$CTX" mine "from a"
check "r serves a's write made after the removal" wait_for 20 kv_is r "$CTX" after "after the removal"
PID_A=$(jq -r .peerId "$WORK/a/run.json")
check "r does not refuse a's live state as a bad peer's" \
    eval '! grep -q "live state of context .* from $PID_A refused" "$WORK/r.log"'
check "r says why it pulls the history" \
    grep -q "live state of context .* from $PID_A holds a write the governance held here refuses" \
    "$WORK/r.log"
# r logs at DEBUG: each delta refusal, and each live state asked for
refusals() { grep -c "synced delta refused" "$WORK/r.log" || true; }
asked() { grep -c "live state of context" "$WORK/r.log" || true; }
check "r refuses m's write once, judged by the governance it holds" \
    wait_for 10 eval '[ "$(refusals)" -ge 1 ]'
before=$(refusals)
sleep 3 # more sync rounds
check "no refusal repeats once sync settled ($before, then $(refusals))" \
    eval '[ "$(refusals)" = "$before" ]'
check "the live state was asked for once ($(asked))" eval '[ "$(asked)" = 1 ]'
# r keeps m's write without effect (m held a row: a principal); once m is a member again, the
# governance event has r judge it again, and it takes effect without a fetch
check "r does not serve m's write" eval '! kv_is r "$CTX" theirs "from m"'
req a POST "/admin-api/groups/$NS/members" "{\"identity\":\"$ID_m\",\"role\":\"Member\"}"
check "a adds m back" status_is 200
check "r learns it" wait_for 20 role_on r "$ID_m" Member
check "r serves m's write now" wait_for 10 kv_is r "$CTX" theirs "from m"
finish
