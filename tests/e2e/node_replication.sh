#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# node_replication.sh - three merod processes on 127.0.0.1 (temp homes, ephemeral ports):
# an admin creates a namespace and a context and adds a second node as a Member and a third
# as ReadOnly; the two writers write and read each other's keys; the ReadOnly member reads
# but its write is refused at the API (403 ReadOnlyWriteRefused) and the delta it forges
# (test-only route, merod run --test) is refused by both peers; a node stopped mid-run
# catches up on restart (ops and deltas pulled by /mero/sync/1).
. "$(dirname "$0")/node_lib.bash"

start_node a --mock-tee
A=$(p2p_addr a)
start_node b --mock-tee --bootstrap "$A"
init_node c
run_node c --test --bootstrap "$A"

req a POST /admin-api/namespaces '{}'
NS=$(jq -r .data.namespaceId <<<"$RESP")
req b POST "/admin-api/namespaces/$NS/join" '{}'
IDB=$(jq -r .data.identity <<<"$RESP")
req c POST "/admin-api/namespaces/$NS/join" '{}'
IDC=$(jq -r .data.identity <<<"$RESP")
check "two nodes join: identities" eval '[ ${#IDB} = 64 ] && [ ${#IDC} = 64 ] && [ "$IDB" != "$IDC" ]'
req a POST "/admin-api/groups/$NS/members" "{\"identity\":\"$IDB\",\"role\":\"Member\"}"
check "admin adds b as Member" status_is 200
req a POST "/admin-api/groups/$NS/members" "{\"identity\":\"$IDC\",\"role\":\"ReadOnly\"}"
check "admin adds c as ReadOnly" status_is 200
req a POST "/admin-api/groups/$NS/contexts" '{}'
CTX=$(jq -r .data.contextId <<<"$RESP")

members_on() { req "$1" GET "/admin-api/groups/$NS/members"; status_is 200 && jq_is ".members|length" 3; }
check "b learns the namespace and its members" wait_for 10 members_on b
check "c learns the namespace and its members" wait_for 10 members_on c
ctx_on() { req "$1" GET "/admin-api/groups/$NS/contexts"; jq_is ".data[0].contextId" "$CTX"; }
check "b sees the context" wait_for 10 ctx_on b

req a PUT "/admin-api/contexts/$CTX/kv/from-a" '{"value":"written by a"}'
check "a writes" status_is 200
check "b reads a's key" wait_for 10 kv_is b "$CTX" from-a "written by a"
req b PUT "/admin-api/contexts/$CTX/kv/from-b" '{"value":"written by b"}'
check "b (Member) writes" status_is 200
check "a reads b's key" wait_for 10 kv_is a "$CTX" from-b "written by b"
check "c (ReadOnly, holds the key) serves reads" wait_for 10 kv_is c "$CTX" from-b "written by b"

M=$(hex96 1)
req b PUT "/admin-api/groups/$NS/settings/tee-admission-policy" "{\"allowedMrtd\":[\"$M\"],\"allowedRtmr1\":[\"$M\"],\"allowedRtmr2\":[\"$M\"],\"allowedRtmr3\":[\"$M\"]}"
check "a Member (not admin) may not set the admission policy (403)" status_is 403
req b POST "/admin-api/groups/$NS/members" "{\"identity\":\"$(edpk)\",\"role\":\"Member\"}"
check "a Member (not admin) may not add members (403)" status_is 403
req a PUT "/admin-api/groups/$NS/settings/tee-admission-policy" "{\"allowedMrtd\":[\"$M\"],\"allowedRtmr1\":[\"$M\"],\"allowedRtmr2\":[\"$M\"],\"allowedRtmr3\":[\"$M\"],\"mode\":\"relay\"}"
policy_on_b() { req b GET "/admin-api/groups/$NS/settings/tee-admission-policy"; jq_is .data.mode relay; }
check "the admin's policy replicates to b" wait_for 10 policy_on_b
req c PUT "/admin-api/contexts/$CTX/kv/from-c" '{"value":"x"}'
check "ReadOnly member's write refused at the API: 403 ReadOnlyWriteRefused" err_is 403 "ReadOnlyWriteRefused"
req c POST "/admin-api/test/contexts/$CTX/forge/forged" '{"value":"forged by c"}'
check "c publishes a forged delta (test route)" status_is 200
# a later honest write from b proves gossip is flowing when the forged one is checked
req b PUT "/admin-api/contexts/$CTX/kv/after-forge" '{"value":"ok"}'
check "b's later write reaches a" wait_for 10 kv_is a "$CTX" after-forge ok
sleep 2.5 # one sync period: a pull would also have carried the forged delta if it were stored
req a GET "/admin-api/contexts/$CTX/kv/forged"
check "a refused the forged delta" status_is 404
req b GET "/admin-api/contexts/$CTX/kv/forged"
check "b refused the forged delta" status_is 404
check "a logged the refusal" grep -q "ReadOnlyWriteRefused" "$WORK/a.log"

# concurrent writes to one key converge (last-writer-wins by lamport, hash)
req a PUT "/admin-api/contexts/$CTX/kv/same" '{"value":"va"}'
req b PUT "/admin-api/contexts/$CTX/kv/same" '{"value":"vb"}'
same_equal() {
    req a GET "/admin-api/contexts/$CTX/kv/same"; local va=$(jq -r .data.value <<<"$RESP")
    req b GET "/admin-api/contexts/$CTX/kv/same"; local vb=$(jq -r .data.value <<<"$RESP")
    [ "$va" = "$vb" ] && [ -n "$va" ] && [ "$va" != null ]
}
check "a and b converge on one value for a key both wrote" wait_for 10 same_equal

# restart mid-run: b stops, a writes, b comes back and catches up
stop_node b
for i in 1 2 3 4 5; do
    req a PUT "/admin-api/contexts/$CTX/kv/while-down-$i" "{\"value\":\"v$i\"}"
done
req a POST "/admin-api/groups/$NS/contexts" '{}'
CTX2=$(jq -r .data.contextId <<<"$RESP")
req a PUT "/admin-api/contexts/$CTX2/kv/new-ctx" '{"value":"n"}'
check "a keeps working while b is down" status_is 200
run_node b --mock-tee --bootstrap "$A"
check "restarted b keeps its old state" kv_is b "$CTX" from-a "written by a"
check "restarted b catches up on writes it missed" wait_for 15 kv_is b "$CTX" while-down-5 v5
check "restarted b catches up on a context created while down" wait_for 15 kv_is b "$CTX2" new-ctx n
check "c (connected throughout) has everything too" wait_for 10 kv_is c "$CTX" while-down-5 v5
req b PUT "/admin-api/contexts/$CTX/kv/after-restart" '{"value":"r"}'
check "b writes after restart and a reads it" wait_for 10 kv_is a "$CTX" after-restart r

# removal: a removes c; c's later forged write is refused (not a member)
req a DELETE "/admin-api/groups/$NS/members/$IDC"
check "admin removes c" status_is 200
gone_on_b() { req b GET "/admin-api/groups/$NS/members"; jq_is ".members|map(select(.identity==\"$IDC\"))|length" 0; }
check "b applies the removal" wait_for 10 gone_on_b

# leave: b leaves; a sees it; b's writes are refused from then on
req b POST "/admin-api/groups/$NS/leave" '{}'
check "b leaves the namespace group" status_is 200
b_gone_on_a() { req a GET "/admin-api/groups/$NS/members"; jq_is ".members|map(select(.identity==\"$IDB\"))|length" 0; }
check "a applies b's leave" wait_for 10 b_gone_on_a
req b PUT "/admin-api/contexts/$CTX/kv/after-leave" '{"value":"x"}'
check "a former member's write is refused (403)" status_is 403
finish
