#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# relay_mode.sh - the reference scenario tee-admission-mode-relay (reference-calimero.md §8),
# three merod processes on 127.0.0.1: an owner and two --mock-tee nodes fleet-join two
# namespaces that differ only in mode. The one admitted under relay is a RelayTee and carries a
# member's signed intent (200, the delta and intent ids, the author); the write syncs to the
# owner, authored by the member. The one admitted under replica is a ReadOnlyTee and refuses an
# intent by role (403, the reference's text); a node that is no TEE of the namespace refuses
# too (403, docs/relay.md). Nothing is written by the refused intents.
. "$(dirname "$0")/relay_lib.bash"

REPLICA_MSG="this node is a TEE replica (ReadOnlyTee) and does not relay writes; the namespace must admit relays with mode=relay"
NOT_TEE_MSG="this node is not a TEE relay of the namespace; submit the intent to a RelayTee"

start_node owner --mock-tee
O=$(p2p_addr owner)
start_node relay --mock-tee --bootstrap "$O"
start_node replica --mock-tee --bootstrap "$O"

ns_with_ctx() {
    req owner POST /admin-api/namespaces '{}'
    local ns
    ns=$(jq -r .data.namespaceId <<<"$RESP")
    req owner POST "/admin-api/groups/$ns/contexts" '{}'
    echo "$ns $(jq -r .data.contextId <<<"$RESP")"
}
read -r NSR CTXR < <(ns_with_ctx)
read -r NSP CTXP < <(ns_with_ctx)
check "two namespaces with a context each" eval '[ ${#CTXR} = 64 ] && [ ${#CTXP} = 64 ]'
set_relay_policy owner "$NSR" relay
check "namespace R: policy mode=relay" status_is 200
set_relay_policy owner "$NSP" replica
check "namespace P: policy mode=replica" status_is 200

fleet_join relay "$NSR" "[\"$O\"]"
check "the relay is admitted into R" jq_is .data.admitted true
TR=$(jq -r .data.public_key <<<"$RESP")
fleet_join replica "$NSP" "[\"$O\"]"
check "the replica is admitted into P" jq_is .data.admitted true
TP=$(jq -r .data.public_key <<<"$RESP")
check "the owner records the relay as RelayTee" wait_for 10 role_is owner "$NSR" "$TR" RelayTee
check "the owner records the replica as ReadOnlyTee" wait_for 10 role_is owner "$NSP" "$TP" ReadOnlyTee
check "the relay records itself as RelayTee" wait_for 10 role_is relay "$NSR" "$TR" RelayTee

SEED=$(client_seed)
CLIENT=$(client_pk "$SEED")
member_add owner "$NSR" "$CLIENT" Member
check "the client is a Member of R" status_is 200
member_add owner "$NSP" "$CLIENT" Member
check "the client is a Member of P" status_is 200
check "the relay sees the client's membership" wait_for 10 role_is relay "$NSR" "$CLIENT" Member
check "the replica sees the client's membership" wait_for 10 role_is replica "$NSP" "$CLIENT" Member

B64=$(sign_intent "$SEED" "$NSR" "$CTXR" greeting "hello through the relay")
submit relay "$CTXR" "$B64"
check "the relay carries the member's intent (200)" eval 'status_is 200 && jq_is .data.author "$CLIENT" && [ "$(jq -r .data.deltaId <<<"$RESP" | wc -c)" = 65 ] && [ "$(jq -r .data.intentId <<<"$RESP" | wc -c)" = 65 ]'
check "the relay reads the write" kv_is relay "$CTXR" greeting "hello through the relay"
check "the write syncs to the owner" wait_for 15 kv_is owner "$CTXR" greeting "hello through the relay"
check "its author on the owner is the member, not the relay" kv_author_is owner "$CTXR" greeting "$CLIENT"

B64P=$(sign_intent "$SEED" "$NSP" "$CTXP" greeting "hello through the replica")
submit replica "$CTXP" "$B64P"
check "the replica refuses by role (403, the reference's text)" err_is 403 "$REPLICA_MSG"
check "the replica wrote nothing" kv_absent replica "$CTXP" greeting
submit owner "$CTXP" "$B64P"
check "a node that is no TEE of the namespace refuses (403)" err_is 403 "$NOT_TEE_MSG"
sleep 1
check "nothing reached the owner in P" kv_absent owner "$CTXP" greeting

check "no crash in any log" eval '! grep -qiE "panicked|AddressSanitizer|segmentation" "$WORK"/*.log'
finish
