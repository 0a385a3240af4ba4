#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# reach_restricted_voucher.sh - a TEE member of a Restricted subgroup does not pull other TEEs
# into it (issue 32 item 2; docs/admission.md "Restricted subgroups: the boundary"). Three
# merod processes on 127.0.0.1: an owner and --mock-tee replicas t1, t2, both admitted at the
# root. The owner tee-admits t1 into Restricted SR; t1 reads SR's value. Then tee-admit of t2
# on t1's own API (whoever holds t1's admin token) is 403 "not an admin of the subgroup" and
# publishes nothing: t2 gets no row in SR (on the owner or on t2) and its read stays refused.
. "$(dirname "$0")/admission_lib.bash"

start_node owner --mock-tee
O=$(p2p_addr owner)
start_node t1 --mock-tee --bootstrap "$O"
start_node t2 --mock-tee --bootstrap "$O"

req owner POST /admin-api/namespaces '{}'
NS=$(jq -r .data.namespaceId <<<"$RESP")
set_zero_policy owner "$NS" true
fleet_join t1 "$NS"
check "t1 admitted at the root" eval 'status_is 200 && jq_is .data.admitted true'
T1=$(jq -r .data.public_key <<<"$RESP")
fleet_join t2 "$NS"
check "t2 admitted at the root" eval 'status_is 200 && jq_is .data.admitted true'
T2=$(jq -r .data.public_key <<<"$RESP")

req owner POST "/admin-api/groups/$NS/subgroups" '{"visibility":"restricted"}'
G=$(jq -r .data.groupId <<<"$RESP")
req owner POST "/admin-api/groups/$G/contexts" '{}'
C=$(jq -r .data.contextId <<<"$RESP")
req owner PUT "/admin-api/contexts/$C/kv/inside" '{"value":"behind the boundary"}'
check "owner writes in the Restricted subgroup's context" status_is 200

req owner POST "/admin-api/groups/$G/tee-admit" "{\"identity\":\"$T1\"}"
check "the owner tee-admits t1 into the Restricted subgroup" eval 'status_is 200 && jq_is .data.outcome admitted'
check "t1 reads the value" wait_for 20 kv_is t1 "$C" inside "behind the boundary"
t1row() { req t1 GET "/admin-api/groups/$G/members"; jq_is "[.data.members // .members | .[]|select(.identity==\"$T1\")][0].role" ReadOnlyTee; }
check "t1 holds its ReadOnlyTee row in the subgroup" wait_for 15 t1row

# the attack: t1's admin token pulls t2 in
req t1 POST "/admin-api/groups/$G/tee-admit" "{\"identity\":\"$T2\"}"
check "tee-admit of t2 on t1 (a TEE member, no admin) is 403" err_has 403 "not an admin of the subgroup"

no_row() {
    req "$1" GET "/admin-api/groups/$G/members"
    ! status_is 200 || [ "$(jq -r "[.data.members // .members | .[]|select(.identity==\"$T2\")]|length" <<<"$RESP")" = 0 ]
}
sleep 3
check "the owner records no row for t2 in the subgroup" no_row owner
check "t1 records no row for t2 in the subgroup" no_row t1
check "t2 records no row for itself in the subgroup" no_row t2
sealed() { req t2 GET "/admin-api/contexts/$C/kv/inside"; status_is 403; }
check "t2's read of the subgroup's data stays refused (403)" wait_for 10 sealed
check "t2 never read the value" eval '! kv_is t2 "$C" inside "behind the boundary"'

# the subgroup's admin still admits t2
req owner POST "/admin-api/groups/$G/tee-admit" "{\"identity\":\"$T2\"}"
check "the owner (the subgroup's admin) tee-admits t2" eval 'status_is 200 && jq_is .data.outcome admitted'
check "then t2 reads the value" wait_for 20 kv_is t2 "$C" inside "behind the boundary"

check "no crash in any log" eval '! grep -qiE "panicked|AddressSanitizer|segmentation" "$WORK"/*.log'
finish
