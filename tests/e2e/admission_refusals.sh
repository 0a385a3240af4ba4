#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# admission_refusals.sh - refusals across merod processes, each with its reason on the direct
# path and no admission published: mock without acceptMock; an MRTD outside the lists; a
# plain Member asked to vouch ("neither an admin nor an admitted TEE"). Then the owner's
# admitted TEE vouches for a third TEE while the owner is offline. (Replayed, lapsed,
# foreign-peer and oversized claims cannot be produced through merod's API; they are tested
# at unit level in test_admission and in-process in test_fleet_admission.)
. "$(dirname "$0")/admission_lib.bash"

start_node owner --mock-tee
O=$(p2p_addr owner)
start_node t1 --mock-tee --bootstrap "$O"
start_node plain --mock-tee --bootstrap "$O"
start_node t3 --mock-tee --bootstrap "$O"
OID=$(jq -r .peerId "$WORK/owner/run.json")

# mock quote without acceptMock
req owner POST /admin-api/namespaces '{}'
NS=$(jq -r .data.namespaceId <<<"$RESP")
set_zero_policy owner "$NS" false
fleet_join t1 "$NS" "[\"$O\"]"
check "mock without acceptMock: refused with its reason" eval 'jq_is .data.admitted false && refusal_has "mock attestation rejected by group policy"'
check "mock without acceptMock: nothing admitted" no_tee_member owner "$NS"

# MRTD outside the policy's lists
req owner POST /admin-api/namespaces '{}'
NS2=$(jq -r .data.namespaceId <<<"$RESP")
set_zero_policy owner "$NS2" true "$(printf '%096d' 1)"
fleet_join t1 "$NS2" "[\"$O\"]"
check "measurement not in the lists: refused with its reason" eval 'jq_is .data.admitted false && refusal_has "MRTD not in policy allowlist"'
check "measurement not in the lists: nothing admitted" no_tee_member owner "$NS2"

# a plain Member may not vouch
req owner POST /admin-api/namespaces '{}'
NS3=$(jq -r .data.namespaceId <<<"$RESP")
set_zero_policy owner "$NS3" true
req plain POST "/admin-api/namespaces/$NS3/join" '{}'
PID=$(jq -r .data.identity <<<"$RESP")
req owner POST "/admin-api/groups/$NS3/members" "{\"identity\":\"$PID\",\"role\":\"Member\"}"
check "owner adds plain as Member" status_is 200
member_on_plain() { req plain GET "/admin-api/groups/$NS3/members"; jq_is "[.members[]|select(.identity==\"$PID\")][0].role" Member; }
check "plain learns it is a Member" wait_for 10 member_on_plain
P=$(p2p_addr plain)
fleet_join t3 "$NS3" "[\"$P\"]"
check "a plain Member asked directly says it may not vouch (admitted_by stays null)" eval 'jq_is .data.admitted_by null && jq_is ".data.refusals[0].peer" "$(jq -r .peerId "$WORK/plain/run.json")" && jq_is ".data.refusals[0].reason" "this node is neither an admin nor an admitted TEE of the namespace, so it may not vouch; ask another admitter"'
check "plain never offered a challenge for the prompts it heard" eval '! grep -q "offered a challenge" "$WORK/plain.log"'

# the owner admits t1 in NS3; with the owner offline, t1 vouches for a new TEE t4
sleep 5.2 # MIN_REISSUE for the owner's earlier offers to t1
fleet_join t1 "$NS3" "[\"$O\"]"
check "t1 admitted by the owner" eval 'jq_is .data.admitted true && jq_is .data.admitted_by "$OID"'
T1ADDR=$(p2p_addr t1)
T1ID=$(jq -r .peerId "$WORK/t1/run.json")
stop_node owner
start_node t4 --mock-tee --bootstrap "$T1ADDR"
fleet_join t4 "$NS3" "[\"$T1ADDR\"]"
check "owner offline: the admitted TEE t1 vouches for t4" eval 'jq_is .data.admitted true && jq_is .data.admitted_by "$T1ID"'
T4=$(jq -r .data.public_key <<<"$RESP")
role_on() { req "$1" GET "/admin-api/groups/$NS3/members"; jq_is "[.members[]|select(.identity==\"$T4\")][0].role" ReadOnlyTee; }
check "t1 and t4 record t4 as ReadOnlyTee" eval 'wait_for 10 role_on t1 && wait_for 10 role_on t4'
check "no crash in any log" eval '! grep -qiE "panicked|AddressSanitizer|segmentation" "$WORK"/*.log'
finish
