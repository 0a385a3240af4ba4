#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# admission_purge.sh - self-purge across merod processes (spec "Eviction and self-purge"): a
# mock TEE admitted into a namespace reads its data; the owner removes it (MemberRemoved with
# the captured role ReadOnlyTee); the evicted node reacts to its own TeeMemberRemoved, purges
# the namespace (data, keys, op log, identity) and leaves the topic, and cannot read anymore;
# a plain Member removed the same way keeps its local rows (soft leave, no purge); after a
# restart the evicted TEE's namespace stays gone (nothing re-pulled).
. "$(dirname "$0")/admission_lib.bash"

start_node owner --mock-tee
O=$(p2p_addr owner)
start_node t1 --mock-tee --bootstrap "$O"
start_node m --mock-tee --bootstrap "$O"

req owner POST /admin-api/namespaces '{}'
NS=$(jq -r .data.namespaceId <<<"$RESP")
req owner POST "/admin-api/groups/$NS/contexts" '{}'
CTX=$(jq -r .data.contextId <<<"$RESP")
set_zero_policy owner "$NS" true
req owner PUT "/admin-api/contexts/$CTX/kv/k" '{"value":"secret"}'
fleet_join t1 "$NS"
check "t1 admitted" jq_is .data.admitted true
T1=$(jq -r .data.public_key <<<"$RESP")
check "t1 reads the owner's key" wait_for 15 kv_is t1 "$CTX" k secret

req m POST "/admin-api/namespaces/$NS/join" '{}'
MID=$(jq -r .data.identity <<<"$RESP")
req owner POST "/admin-api/groups/$NS/members" "{\"identity\":\"$MID\",\"role\":\"Member\"}"
check "m added as a plain Member" status_is 200
check "m reads the key" wait_for 15 kv_is m "$CTX" k secret

req owner DELETE "/admin-api/groups/$NS/members/$T1"
check "owner removes the TEE" status_is 200
check "t1 self-purged the namespace" wait_for 15 grep -q "self-purge: evicted TEE; namespace" "$WORK/t1.log"
gone() { req t1 GET "/admin-api/contexts/$CTX/kv/k"; ! status_is 200; }
check "t1 no longer serves the namespace's data" wait_for 5 gone
req t1 GET "/admin-api/groups/$NS/members"
check "t1 holds no rows of the namespace" eval '! status_is 200 || jq_is ".members|length" 0'

req owner DELETE "/admin-api/groups/$NS/members/$MID"
check "owner removes the plain Member" status_is 200
sleep 2.5
check "a non-TEE removal does not purge" eval '! grep -q "self-purge" "$WORK/m.log"'

stop_node t1
run_node t1 --mock-tee --bootstrap "$O"
sleep 3
check "after a restart the purged namespace stays gone" gone
check "no crash in any log" eval '! grep -qiE "panicked|AddressSanitizer|segmentation" "$WORK"/*.log'
finish
