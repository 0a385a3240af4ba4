#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# node_snapshot_removed_author.sh - issue 30 (what a removal vouches for) meets issue 37 (catch-up
# by live state), three merod processes on 127.0.0.1. A Member m writes a context beside the admin
# a, and a removes m afterwards: a still serves m's value (it took effect before the removal), and
# a's removal names m's newest write in the context (its cut). A replica r that comes back knowing
# the removal used to refuse m's write by that governance (and before that, a's whole live state,
# banning a round after round): values differed between a and r for good. Now the cut vouches for
# m's write: r serves what a serves, from the live state, with no refusal and no ban, and sync
# settles. The live state of a write no cut names still gives
# way to the history (tests/unit/test_sync_snapshot.c).
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
check "r serves m's write made before the removal, as a does" \
    wait_for 20 kv_is r "$CTX" theirs "from m"
check "r does not refuse a's live state" \
    eval '! grep -q "live state of context .* from $PID_A refused" "$WORK/r.log"'
check "r needs no history for it" \
    eval '! grep -q "holds a write the governance held here refuses" "$WORK/r.log"'
# r logs at DEBUG: each delta refusal; at INFO, a live state installed
refusals() { grep -c "synced delta refused" "$WORK/r.log" || true; }
installed() { grep -c "caught up by live state from $PID_A" "$WORK/r.log" || true; }
before=$(refusals)
sleep 3 # more sync rounds
check "no refusal repeats once sync settled ($before, then $(refusals))" \
    eval '[ "$(refusals)" = "$before" ]'
check "m's write was never refused ($(refusals))" eval '[ "$(refusals)" = 0 ]'
check "r took a's live state, once ($(installed))" eval '[ "$(installed)" = 1 ]'
same() { kv_is a "$CTX" "$1" "$2" && kv_is r "$CTX" "$1" "$2"; }
check "a and r serve the same values" \
    eval 'same mine "from a" && same theirs "from m" && same after "after the removal"'
finish
