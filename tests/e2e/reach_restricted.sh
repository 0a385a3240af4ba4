#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# reach_restricted.sh - a Restricted subgroup is reached only through tee-admit (issue 16;
# docs/admission.md "Reach", docs/api.md "tee-admit"), with two merod processes on 127.0.0.1:
# an owner and a --mock-tee replica t1 admitted at the root. The owner writes in a Restricted
# subgroup's context; t1 holds the sealed delta but cannot read it (403, a clear reason). The
# route's refusals: malformed body and id (400), unknown group (404), the root (400), an
# identity that is no admitted TEE (409), a node that is no admin of the subgroup (403). Then
# `meroctl group tee-admit` on the owner admits t1: t1 gets a direct ReadOnlyTee row there and
# the subgroup key, and reads the value.
. "$(dirname "$0")/admission_lib.bash"

start_node owner --mock-tee
O=$(p2p_addr owner)
start_node t1 --mock-tee --bootstrap "$O"

req owner POST /admin-api/namespaces '{}'
NS=$(jq -r .data.namespaceId <<<"$RESP")
set_zero_policy owner "$NS" true
fleet_join t1 "$NS"
check "t1 admitted at the root" eval 'status_is 200 && jq_is .data.admitted true'
T1=$(jq -r .data.public_key <<<"$RESP")

req owner POST "/admin-api/groups/$NS/subgroups" '{"visibility":"restricted"}'
G=$(jq -r .data.groupId <<<"$RESP")
check "owner creates a Restricted subgroup" eval 'status_is 200 && jq_is .data.visibility restricted'
req owner POST "/admin-api/groups/$G/contexts" '{}'
C=$(jq -r .data.contextId <<<"$RESP")
req owner PUT "/admin-api/contexts/$C/kv/inside" '{"value":"behind the boundary"}'
check "owner writes in the Restricted subgroup's context" status_is 200

sealed() { req t1 GET "/admin-api/contexts/$C/kv/inside"; status_is 403; }
check "before tee-admit: t1's read is refused (403)" wait_for 20 sealed
check "before tee-admit: the reason says why" msg_has "Restricted subgroup is reached only through tee-admit"

req owner POST "/admin-api/groups/$G/tee-admit" '{"identity":"zz"}'
check "tee-admit: a malformed identity is 400" err_has 400 "identity must be 64 hex chars"
req owner POST "/admin-api/groups/$G/tee-admit" '{}'
check "tee-admit: a missing identity is 400" err_has 400 "identity is required"
req owner POST "/admin-api/groups/$G/tee-admit" "{\"identity\":\"$T1\",\"extra\":1}"
check "tee-admit: an unknown field is 400" status_is 400
req owner POST "/admin-api/groups/$(hex64 7)/tee-admit" "{\"identity\":\"$T1\"}"
check "tee-admit: an unknown group is 404" status_is 404
req owner POST "/admin-api/groups/$NS/tee-admit" "{\"identity\":\"$T1\"}"
check "tee-admit: the namespace root is 400" err_has 400 "fleet-join"
req owner POST "/admin-api/groups/$G/tee-admit" "{\"identity\":\"$(edpk)\"}"
check "tee-admit: an identity that is no admitted TEE is 409" err_has 409 "not an admitted TEE"
req owner POST "/admin-api/groups/$G/tee-admit" "{\"identity\":\"$T1\"}" noauth
check "tee-admit: without the token 401" status_is 401
# t1 knows the subgroup (it synced the op) but administers nothing
tknows() { req t1 GET "/admin-api/groups/$G/members"; status_is 200; }
wait_for 10 tknows
req t1 POST "/admin-api/groups/$G/tee-admit" "{\"identity\":\"$T1\"}"
check "tee-admit on a node that is no admin of the subgroup is 403" err_has 403 "not an admin"

OUT=$("$BIN/meroctl" --json --node "${URL[owner]}" --token-file "$WORK/owner/admin-token" group tee-admit "$G" "$T1" 2>&1)
check "meroctl group tee-admit on the owner admits t1" eval 'jq -e "(.data // .).outcome == \"admitted\"" <<<"$OUT" >/dev/null'
row() { req "$1" GET "/admin-api/groups/$G/members"; jq_is "[.members[]|select(.identity==\"$T1\")][0].role" ReadOnlyTee; }
check "the owner records t1's direct ReadOnlyTee row in the subgroup" row owner
check "t1 sees its own row there" wait_for 15 row t1
check "after tee-admit: t1 reads the value" wait_for 20 kv_is t1 "$C" inside "behind the boundary"
OUT=$("$BIN/meroctl" --json --node "${URL[owner]}" --token-file "$WORK/owner/admin-token" group tee-admit "$G" "$T1" 2>&1)
check "tee-admit again: already a member" eval 'jq -e "(.data // .).outcome == \"already_member\"" <<<"$OUT" >/dev/null'

check "no crash in any log" eval '! grep -qiE "panicked|AddressSanitizer|segmentation" "$WORK"/*.log'
finish
