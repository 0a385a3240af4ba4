#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# relay_refusals.sh - every refusal of a relayed write (issue 15), with three merod processes on
# 127.0.0.1: an owner and two --mock-tee RelayTee nodes (r1 relays, r2 is the other relay a
# warrant may name). Each refused intent answers its status and reason, and nothing is applied
# anywhere (owner, r1, r2): forged signature, expired intent, intent for a context of another
# namespace, non-member, ReadOnly member, a warrant naming another relay, a delete. The same
# intent again, at the same or the other relay, is answered with the copy that counts (issue
# 30), not carried twice. Then the owner switches the namespace to replica mode: r1 is
# converted and refuses the next intent (403, the reference's text), and a relayed delta it
# forges anyway (test-only route) is refused at the cut by every peer (the owner's and r2's
# logs give the reason, once: the refusal is remembered, not repeated at every sync round).
. "$(dirname "$0")/relay_lib.bash"

REPLICA_MSG="this node is a TEE replica (ReadOnlyTee) and does not relay writes; the namespace must admit relays with mode=relay"

start_node owner --mock-tee
O=$(p2p_addr owner)
start_node r1 --mock-tee --test --bootstrap "$O"
start_node r2 --mock-tee --bootstrap "$O" --bootstrap "$(p2p_addr r1)"

req owner POST /admin-api/namespaces '{}'
NS=$(jq -r .data.namespaceId <<<"$RESP")
req owner POST "/admin-api/groups/$NS/contexts" '{}'
CTX=$(jq -r .data.contextId <<<"$RESP")
req owner POST /admin-api/namespaces '{}'
NS2=$(jq -r .data.namespaceId <<<"$RESP")
req owner POST "/admin-api/groups/$NS2/contexts" '{}'
CTX2=$(jq -r .data.contextId <<<"$RESP")
set_relay_policy owner "$NS" relay
check "policy mode=relay" status_is 200
fleet_join r1 "$NS" "[\"$O\"]"
check "r1 admitted" jq_is .data.admitted true
R1=$(jq -r .data.public_key <<<"$RESP")
sleep 5.2 # MIN_REISSUE: the owner offered r2 a challenge for r1's prompt window
fleet_join r2 "$NS" "[\"$O\"]"
check "r2 admitted" jq_is .data.admitted true
R2=$(jq -r .data.public_key <<<"$RESP")
check "r1 sees itself as RelayTee" wait_for 10 role_is r1 "$NS" "$R1" RelayTee

SEED=$(client_seed)
CLIENT=$(client_pk "$SEED")
RO_SEED=$(client_seed)
RO=$(client_pk "$RO_SEED")
member_add owner "$NS" "$CLIENT" Member
member_add owner "$NS" "$RO" ReadOnly
check "r1 sees both members" eval 'wait_for 10 role_is r1 "$NS" "$CLIENT" Member && wait_for 10 role_is r1 "$NS" "$RO" ReadOnly'
check "r2 sees both members" eval 'wait_for 10 role_is r2 "$NS" "$CLIENT" Member && wait_for 10 role_is r2 "$NS" "$RO" ReadOnly'

# nowhere KEY: the key holds no value on any node
nowhere() { kv_absent owner "$CTX" "$1" && kv_absent r1 "$CTX" "$1" && kv_absent r2 "$CTX" "$1"; }

submit r1 "$CTX" "$(sign_intent "$SEED" "$NS" "$CTX" forged v 0 600 '' 1)"
check "forged signature: 403 with the reason" err_has 403 "the intent's signature does not verify"

submit r1 "$CTX" "$(sign_intent "$SEED" "$NS" "$CTX" expired v -700 -100)"
check "expired intent: 403 with the reason" err_has 403 "the intent is not live"

submit r1 "$CTX" "$(sign_intent "$SEED" "$NS2" "$CTX" otherns v)"
check "intent naming another namespace than the context's: 400" err_has 400 "another namespace"
submit r1 "$CTX2" "$(sign_intent "$SEED" "$NS2" "$CTX2" otherns v)"
check "a context of a namespace the relay is not in: 404" err_has 404 "context not found"

submit r1 "$CTX" "$(sign_intent "$(client_seed)" "$NS" "$CTX" stranger v)"
check "non-member: 403 with the reason" err_has 403 "author is not a member"

submit r1 "$CTX" "$(sign_intent "$RO_SEED" "$NS" "$CTX" readonly v)"
check "ReadOnly member: 403 ReadOnlyWriteRefused" err_has 403 "ReadOnlyWriteRefused"

submit r1 "$CTX" "$(sign_intent "$SEED" "$NS" "$CTX" warrant v 0 600 "$R2")"
check "a warrant naming another relay: 403" err_has 403 "warrant names another relay"

submit r1 "$CTX" "not base64!"
check "malformed intent: 400" err_has 400 "base64"
submit r1 "$CTX" "AQID"
check "an intent that does not decode: 400 with the reason" err_has 400 "the intent does not decode"

ONCE=$(sign_intent "$SEED" "$NS" "$CTX" once first)
submit r1 "$CTX" "$ONCE"
check "a valid intent: 200" status_is 200
D1=$(jq -r .data.deltaId <<<"$RESP")
submit r1 "$CTX" "$ONCE"
check "the same intent again: 200, the same delta (issue 30: carried once)" eval 'status_is 200 && jq_is .data.deltaId "$D1"'
check "the retried intent's write is there once, on the owner" wait_for 15 kv_is owner "$CTX" once first
check "the other relay holds it" wait_for 15 kv_is r2 "$CTX" once first
submit r2 "$CTX" "$ONCE"
check "the same intent at the other relay: 200, the copy that counts" eval 'status_is 200 && jq_is .data.deltaId "$D1"'

sleep 2 # anything a refused intent had published would have arrived by now
for k in forged expired otherns stranger readonly warrant; do
    check "refused ($k): nothing applied on the owner, r1 or r2" nowhere "$k"
done

# conversion back to replica
set_relay_policy owner "$NS" replica
check "the owner switches the namespace to replica" status_is 200
check "r1 is converted to ReadOnlyTee (on r1)" wait_for 15 role_is r1 "$NS" "$R1" ReadOnlyTee
check "r2 is converted to ReadOnlyTee (on r2)" wait_for 15 role_is r2 "$NS" "$R1" ReadOnlyTee
submit r1 "$CTX" "$(sign_intent "$SEED" "$NS" "$CTX" converted v)"
check "the converted relay refuses the next intent (403, the text)" err_is 403 "$REPLICA_MSG"

submit r1 "$CTX" "$(sign_intent "$SEED" "$NS" "$CTX" injected hello-secret-value)" forge
check "the converted relay forges a relayed delta anyway (test-only route)" status_is 200
refused_on() { grep -q "relayed delta .* refused: the executor .* may not relay in the context's group (its root row is ReadOnlyTee)" "$WORK/$1.log"; }
check "the owner refuses it at the cut, with the reason in its log" wait_for 15 refused_on owner
check "r2 refuses it at the cut, with the reason in its log" wait_for 15 refused_on r2
refusal_lines() { grep -c "relayed delta .* refused" "$WORK/$1.log"; }
n_owner=$(refusal_lines owner)
sleep 5 # two sync rounds
check "the refusal is not logged again on the owner (remembered)" eval '[ "$(refusal_lines owner)" = "$n_owner" ]'
check "its value is absent on the owner and r2" eval 'kv_absent owner "$CTX" injected && kv_absent r2 "$CTX" injected'
check "no log holds a refused value" eval '! grep -q "hello-secret-value" "$WORK"/*.log'
check "no crash in any log" eval '! grep -qiE "panicked|AddressSanitizer|segmentation" "$WORK"/*.log'
finish
