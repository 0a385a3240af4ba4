#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# admission_replica.sh - the reference scenario (reference-calimero.md §8, merobox
# tee-admission-mode-relay) in replica mode, with three merod processes on 127.0.0.1: an owner
# and two --mock-tee nodes. Without a policy a direct request is refused with its reason and
# nothing is admitted; with a policy (acceptMock, zero-measurement lists for MRTD and
# RTMR1-3) one TEE joins by prompt only and one by admitterAddrs (admitted_by = the owner);
# both are ReadOnlyTee members holding the key; the owner writes a key and is stopped; a
# client reads the key from each replica; a write on a replica is refused (403).
. "$(dirname "$0")/admission_lib.bash"

start_node owner --mock-tee
O=$(p2p_addr owner)
OID=$(jq -r .peerId "$WORK/owner/run.json")
start_node t1 --mock-tee --bootstrap "$O"
start_node t2 --mock-tee --bootstrap "$O"

req owner POST /admin-api/namespaces '{}'
NS=$(jq -r .data.namespaceId <<<"$RESP")
check "owner creates a namespace" eval '[ ${#NS} = 64 ]'
req owner POST "/admin-api/groups/$NS/contexts" '{}'
CTX=$(jq -r .data.contextId <<<"$RESP")
check "owner creates a context" eval '[ ${#CTX} = 64 ]'

fleet_join t2 "$NS" "[\"$O\"]"
check "no policy: not admitted, announced" eval 'status_is 200 && jq_is .data.admitted false && jq_is .data.status announced'
check "no policy: the refusal names the owner and the reason" eval 'jq_is ".data.refusals[0].peer" "$OID" && jq -r ".data.refusals[0].reason" <<<"$RESP" | grep -q "no TeeAdmissionPolicy"'
check "no policy: no admission published" no_tee_member owner

set_zero_policy owner "$NS" true
check "policy set (acceptMock, zero measurements)" status_is 200

fleet_join t1 "$NS"
check "t1 joins by prompt only: admitted" eval 'status_is 200 && jq_is .data.admitted true && jq_is .data.status joined'
check "t1: auto-follow on, admitted_by null (prompt path)" eval 'jq_is .data.auto_follow_enabled true && jq_is .data.admitted_by null'
check "t1 joined the namespace's context" jq_is '.data.contexts_joined[0]' "$CTX"
T1=$(jq -r .data.public_key <<<"$RESP")

sleep 5.2 # MIN_REISSUE: the owner offered t2 a challenge for its earlier prompts
fleet_join t2 "$NS" "[\"$O\"]"
check "t2 joins by admitterAddrs: admitted by the owner" eval 'jq_is .data.admitted true && jq_is .data.admitted_by "$OID"'
T2=$(jq -r .data.public_key <<<"$RESP")

role_on() { req "$1" GET "/admin-api/groups/$NS/members"; jq_is "[.members[]|select(.identity==\"$2\")][0].role" ReadOnlyTee; }
check "owner records t1 as ReadOnlyTee" wait_for 10 role_on owner "$T1"
check "owner records t2 as ReadOnlyTee" wait_for 10 role_on owner "$T2"
check "t1 sees t2 as ReadOnlyTee" wait_for 10 role_on t1 "$T2"

req owner PUT "/admin-api/contexts/$CTX/kv/greeting" '{"value":"hello from the owner"}'
check "owner writes a key" status_is 200
check "t1 (holding the key) reads it" wait_for 15 kv_is t1 "$CTX" greeting "hello from the owner"
check "t2 (holding the key) reads it" wait_for 15 kv_is t2 "$CTX" greeting "hello from the owner"

stop_node owner
check "owner offline: t1 serves the read" kv_is t1 "$CTX" greeting "hello from the owner"
check "owner offline: t2 serves the read" kv_is t2 "$CTX" greeting "hello from the owner"
req t1 PUT "/admin-api/contexts/$CTX/kv/x" '{"value":"y"}'
check "a write on a replica is refused (403)" eval 'status_is 403'

check "owner logged the answered offer" grep -q "TEE answered the challenge offered for its prompt" "$WORK/owner.log"
check "no node presented an unissued challenge" eval '! grep -q "presented a challenge this node did not issue" "$WORK"/*.log'
check "no crash in any log" eval '! grep -qiE "panicked|AddressSanitizer|segmentation" "$WORK"/*.log'
finish
