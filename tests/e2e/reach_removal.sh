#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# reach_removal.sh - removing a TEE from the namespace root rotates the key of every group it
# could read (issue 16; docs/admission.md "Reach"), with three merod processes on 127.0.0.1:
# an owner, a --mock-tee replica t1 and a plain member m1. t1 reads a root context and an Open
# subgroup's context; the key ids it holds are noted. The owner removes t1 at the root: the
# owner's current key of the root and of the subgroup change, the owner's next writes are
# sealed under key ids t1 never held, and m1 (a member reaching both) reads them.
. "$(dirname "$0")/admission_lib.bash"

start_node owner --mock-tee
O=$(p2p_addr owner)
start_node t1 --mock-tee --bootstrap "$O"
start_node m1 --bootstrap "$O"

req owner POST /admin-api/namespaces '{}'
NS=$(jq -r .data.namespaceId <<<"$RESP")
set_zero_policy owner "$NS" true
req owner POST "/admin-api/groups/$NS/contexts" '{}'
R=$(jq -r .data.contextId <<<"$RESP")
req owner POST "/admin-api/groups/$NS/subgroups" '{"visibility":"open"}'
G=$(jq -r .data.groupId <<<"$RESP")
req owner POST "/admin-api/groups/$G/contexts" '{}'
C=$(jq -r .data.contextId <<<"$RESP")
check "owner has a root context and an Open subgroup's context" eval '[ ${#R} = 64 ] && [ ${#C} = 64 ]'
req owner PUT "/admin-api/contexts/$R/kv/k" '{"value":"root before"}'
req owner PUT "/admin-api/contexts/$C/kv/k" '{"value":"subgroup before"}'

req m1 POST "/admin-api/namespaces/$NS/join" '{}'
M1=$(jq -r .data.identity <<<"$RESP")
req owner POST "/admin-api/groups/$NS/members" "{\"identity\":\"$M1\",\"role\":\"Member\"}"
check "owner adds m1 as a member at the root" status_is 200
check "m1 reads the subgroup's value (its key pulled)" wait_for 20 kv_is m1 "$C" k "subgroup before"

fleet_join t1 "$NS"
check "t1 admitted" eval 'status_is 200 && jq_is .data.admitted true'
T1=$(jq -r .data.public_key <<<"$RESP")
check "t1 reads the root value" wait_for 20 kv_is t1 "$R" k "root before"
check "t1 reads the subgroup's value" wait_for 20 kv_is t1 "$C" k "subgroup before"

held() { sqlite3 "$WORK/t1/gov.db" "SELECT hex(key_id) FROM group_keys" | sort; }
T1KEYS=$(held)
check "t1 holds keys of the root and the subgroup" eval '[ "$(wc -l <<<"$T1KEYS")" -ge 2 ]'
cur() { sqlite3 "$WORK/owner/gov.db" "SELECT hex(key_id) FROM group_keys WHERE grp = X'$1' ORDER BY seq DESC LIMIT 1"; }
ROOT0=$(cur "$NS")
SUB0=$(cur "$G")

req owner DELETE "/admin-api/groups/$NS/members/$T1"
check "owner removes t1 at the root" status_is 200
check "the owner's root key changed" eval '[ -n "$ROOT0" ] && [ "$(cur "$NS")" != "$ROOT0" ]'
check "the owner's subgroup key changed" eval '[ -n "$SUB0" ] && [ "$(cur "$G")" != "$SUB0" ]'
check "the owner logged the subgroup's rotation" grep -q "key rotated after the TEE's removal" "$WORK/owner.log"

req owner PUT "/admin-api/contexts/$R/kv/k" '{"value":"root after"}'
check "owner writes at the root after the removal" status_is 200
req owner PUT "/admin-api/contexts/$C/kv/k" '{"value":"subgroup after"}'
check "owner writes in the subgroup after the removal" status_is 200
last_key() { sqlite3 "$WORK/owner/node.db" "SELECT hex(substr(bytes, 74, 32)) FROM ctx_delta WHERE context = X'$1' ORDER BY seq DESC LIMIT 1"; }
RK=$(last_key "$R")
SK=$(last_key "$C")
check "the root write is sealed under the new root key" eval '[ "$RK" = "$(cur "$NS")" ]'
check "the subgroup write is sealed under the new subgroup key" eval '[ "$SK" = "$(cur "$G")" ]'
check "t1 never held the key of either write" eval '! grep -qx "$RK" <<<"$T1KEYS" && ! grep -qx "$SK" <<<"$T1KEYS"'
check "m1 (wrapped in the rotation) reads the new root value" wait_for 20 kv_is m1 "$R" k "root after"
check "m1 reads the new subgroup value" wait_for 20 kv_is m1 "$C" k "subgroup after"
gone() { req t1 GET "/admin-api/contexts/$C/kv/k"; ! status_is 200; }
check "t1 cannot read the subgroup's value any more" wait_for 20 gone

check "no crash in any log" eval '! grep -qiE "panicked|AddressSanitizer|segmentation" "$WORK"/*.log'
finish
