#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# relay_intent_once.sh - issue 30's second reproduction, made deterministic: one signed intent
# carried by two RelayTees, with three merod processes on 127.0.0.1 (an owner and two
# --mock-tee relays r1, r2 admitted under mode=relay). r1 is made to lag by restarting it with
# no peer (it misses three owner writes r2 sees), so the two copies of the client's intent
# div=OLD get different clocks (r1: 1, r2: 4) and different delta ids; then the client's later
# intent div=NEW goes through r1 alone (its clock still behind). Once r1 is back, all three
# nodes end with NEW (the client's last acknowledged write; docs/relay.md "One intent, one
# effect"), authored by the client, and no node logs a refusal, once or over several sync
# rounds. A retry of NEW at r2 answers the copy that counts, and two relays given the same
# intent at once (no lag) answer the same intent id and converge on one value.
. "$(dirname "$0")/relay_lib.bash"

start_node owner --mock-tee
O=$(p2p_addr owner)
start_node r1 --mock-tee --bootstrap "$O"
start_node r2 --mock-tee --bootstrap "$O"

req owner POST /admin-api/namespaces '{}'
NS=$(jq -r .data.namespaceId <<<"$RESP")
req owner POST "/admin-api/groups/$NS/contexts" '{}'
CTX=$(jq -r .data.contextId <<<"$RESP")
set_relay_policy owner "$NS" relay
check "policy mode=relay" status_is 200
fleet_join r1 "$NS" "[\"$O\"]"
check "r1 admitted" jq_is .data.admitted true
sleep 5.2 # MIN_REISSUE: the owner offered r2 a challenge for r1's prompt window
fleet_join r2 "$NS" "[\"$O\"]"
check "r2 admitted" jq_is .data.admitted true

SEED=$(client_seed)
CLIENT=$(client_pk "$SEED")
member_add owner "$NS" "$CLIENT" Member
check "the client is a Member" status_is 200
req owner PUT "/admin-api/contexts/$CTX/kv/w0" '{"value":"warm"}'
check "r1 holds the key and the membership" eval 'wait_for 15 kv_is r1 "$CTX" w0 warm && wait_for 10 role_is r1 "$NS" "$CLIENT" Member'
check "r2 holds the key and the membership" eval 'wait_for 15 kv_is r2 "$CTX" w0 warm && wait_for 10 role_is r2 "$NS" "$CLIENT" Member'

# ---- two relays given one intent at once (no lag) ----
ONCE=$(sign_intent "$SEED" "$NS" "$CTX" same once)
submit r1 "$CTX" "$ONCE"
check "r1 carries the intent (200)" status_is 200
I1=$(jq -r .data.intentId <<<"$RESP")
submit r2 "$CTX" "$ONCE"
check "r2 answers 200 with the same intent id" eval 'status_is 200 && jq_is .data.intentId "$I1"'
for n in owner r1 r2; do
    check "$n reads the intent's value" wait_for 15 kv_is "$n" "$CTX" same once
done

# ---- r1 lags: restarted with no peer, it misses three owner writes ----
stop_node r1
run_node r1 --mock-tee
for k in w1 w2 w3; do
    req owner PUT "/admin-api/contexts/$CTX/kv/$k" '{"value":"owner"}'
done
check "r2 sees the owner's three writes" wait_for 15 kv_is r2 "$CTX" w3 owner
check "r1 missed them" kv_absent r1 "$CTX" w1

OLD=$(sign_intent "$SEED" "$NS" "$CTX" div OLD)
submit r1 "$CTX" "$OLD"
check "OLD through r1: 200" status_is 200
D1=$(jq -r .data.deltaId <<<"$RESP")
IO=$(jq -r .data.intentId <<<"$RESP")
submit r2 "$CTX" "$OLD"
check "OLD through r2: 200, the same intent id, another delta id" eval 'status_is 200 && jq_is .data.intentId "$IO" && ! jq_is .data.deltaId "$D1"'
NEW=$(sign_intent "$SEED" "$NS" "$CTX" div NEW 2) # issued two seconds after OLD
submit r1 "$CTX" "$NEW"
check "NEW through r1 (still lagging): 200" status_is 200
DN=$(jq -r .data.deltaId <<<"$RESP")
check "r1 reads NEW" kv_is r1 "$CTX" div NEW
check "the owner reads OLD (r2's copy) while r1 is away" wait_for 15 kv_is owner "$CTX" div OLD

# ---- r1 is back ----
stop_node r1
run_node r1 --mock-tee --bootstrap "$O" --bootstrap "$(p2p_addr r2)"
check "r1 catches up on the owner's writes" wait_for 30 kv_is r1 "$CTX" w3 owner
for n in owner r2 r1; do
    check "$n ends with NEW, the client's last write" wait_for 30 kv_is "$n" "$CTX" div NEW
    check "$n: its author is the client" kv_author_is "$n" "$CTX" div "$CLIENT"
done

submit r2 "$CTX" "$NEW"
check "NEW retried at r2: 200, the copy that counts (r1's), nothing carried again" eval 'status_is 200 && jq_is .data.deltaId "$DN"'

# no refusal anywhere, and none repeating over several sync rounds (one every 2 s)
refusals() { grep -c "refused" "$WORK/$1.log"; }
before=$(refusals owner)
sleep 7
for n in owner r1 r2; do
    check "$n logs no refusal over three sync rounds" eval '[ "$(refusals '"$n"')" = 0 ]'
done
check "the owner's refusal count did not grow" eval '[ "$(refusals owner)" = "$before" ]'
for n in owner r1 r2; do
    check "$n still reads NEW" kv_is "$n" "$CTX" div NEW
done
check "no crash in any log" eval '! grep -qiE "panicked|AddressSanitizer|segmentation" "$WORK"/*.log'
finish
