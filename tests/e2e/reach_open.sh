#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# reach_open.sh - a TEE's reach over Open subgroups and over every earlier key (issue 16;
# docs/admission.md "Reach"), with two merod processes on 127.0.0.1: an owner and a
# --mock-tee replica. Before the replica exists the owner writes `a` at the root, removes a
# member (the root key rotates), writes `b`, and creates an Open subgroup with a context
# holding `before`. The replica fleet-joins and reads `a` (sealed under the key before the
# rotation, pulled page by page with GroupKeysRequest), `b` and `before` (the subgroup's key
# delivered with the admission). Then the owner creates a second Open subgroup and context
# and writes `after`: the replica reads it (the key delivered on creation).
. "$(dirname "$0")/admission_lib.bash"

start_node owner --mock-tee
O=$(p2p_addr owner)
start_node t1 --mock-tee --bootstrap "$O"

req owner POST /admin-api/namespaces '{}'
NS=$(jq -r .data.namespaceId <<<"$RESP")
set_zero_policy owner "$NS" true
check "owner sets the mock policy" status_is 200
req owner POST "/admin-api/groups/$NS/contexts" '{}'
CTX=$(jq -r .data.contextId <<<"$RESP")
check "owner creates a root context" eval '[ ${#CTX} = 64 ]'

# key history at the root: a (first key), a member removed (rotation), b (second key)
req owner PUT "/admin-api/contexts/$CTX/kv/a" '{"value":"written under the first key"}'
check "owner writes a" status_is 200
M=$(edpk)
req owner POST "/admin-api/groups/$NS/members" "{\"identity\":\"$M\",\"role\":\"Member\"}"
check "owner adds a member" status_is 200
req owner DELETE "/admin-api/groups/$NS/members/$M"
check "owner removes it (the root key rotates)" status_is 200
req owner PUT "/admin-api/contexts/$CTX/kv/b" '{"value":"written under the second key"}'
check "owner writes b" status_is 200
# the two writes are sealed under two different keys (key id: bytes 73..105 of the delta)
keyids() { sqlite3 "$WORK/owner/node.db" "SELECT DISTINCT hex(substr(bytes, 74, 32)) FROM ctx_delta" | wc -l; }
check "a and b are sealed under two keys" eval '[ "$(keyids)" = 2 ]'

# an Open subgroup and a context in it, before the replica joins
req owner POST "/admin-api/groups/$NS/subgroups" '{"visibility":"open"}'
G1=$(jq -r .data.groupId <<<"$RESP")
check "owner creates an Open subgroup" eval 'status_is 200 && [ ${#G1} = 64 ]'
req owner POST "/admin-api/groups/$G1/contexts" '{}'
C1=$(jq -r .data.contextId <<<"$RESP")
req owner PUT "/admin-api/contexts/$C1/kv/before" '{"value":"in a subgroup made before"}'
check "owner writes in the subgroup's context" status_is 200

fleet_join t1 "$NS"
check "t1 admitted" eval 'status_is 200 && jq_is .data.admitted true'
T1=$(jq -r .data.public_key <<<"$RESP")
check "t1 reads b (the current key)" wait_for 20 kv_is t1 "$CTX" b "written under the second key"
check "t1 reads a (the key before the rotation, pulled)" wait_for 20 kv_is t1 "$CTX" a "written under the first key"
check "t1 reads the Open subgroup's context made before it joined" \
    wait_for 20 kv_is t1 "$C1" before "in a subgroup made before"
check "t1 holds no row in the subgroup (reach is inherited)" eval \
    'req t1 GET "/admin-api/groups/$G1/members" && jq_is "[.members[]|select(.identity==\"$T1\")]|length" 0'

# an Open subgroup made after the replica joined
req owner POST "/admin-api/groups/$NS/subgroups" '{"visibility":"open"}'
G2=$(jq -r .data.groupId <<<"$RESP")
req owner POST "/admin-api/groups/$G2/contexts" '{}'
C2=$(jq -r .data.contextId <<<"$RESP")
req owner PUT "/admin-api/contexts/$C2/kv/after" '{"value":"in a subgroup made after"}'
check "owner writes in a subgroup made after t1 joined" status_is 200
check "t1 reads the Open subgroup's context made after it joined" \
    wait_for 20 kv_is t1 "$C2" after "in a subgroup made after"
req t1 PUT "/admin-api/contexts/$C2/kv/x" '{"value":"y"}'
check "a write by t1 in the subgroup is refused (read-only there too)" status_is 403

check "t1 logged the pulled keys" grep -q "recovered through a GroupKeysRequest" "$WORK/t1.log"
check "no crash in any log" eval '! grep -qiE "panicked|AddressSanitizer|segmentation" "$WORK"/*.log'
finish
