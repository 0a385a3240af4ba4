#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# node_lamport.sh - issue 21 item 2, "a member can freeze a context": n1 Admin, n2 and n3
# Members of context CTX. n3's node.db is edited to give key m the lamport 2^63-2 and n3
# writes m: the write cannot become the current value on n3, so it is answered 409 with the
# winning write's author and clock (meroctl exits 2), never 200. n3 then publishes a delta
# claiming lamport 2^63-1 (test-only forge route): n1 and n2 refuse it at apply (context clock
# bound, docs/node.md "Context clock"), and every later write by n1, to m and to other keys,
# is answered 200 and is the current value on n1 and n2: no acknowledged write is lost.
. "$(dirname "$0")/node_lib.bash"

start_node n1 --mock-tee
A=$(p2p_addr n1)
start_node n2 --bootstrap "$A"
init_node n3
run_node n3 --test --bootstrap "$A"

req n1 POST /admin-api/namespaces '{}'
NS=$(jq -r .data.namespaceId <<<"$RESP")
req n2 POST "/admin-api/namespaces/$NS/join" '{}'
ID2=$(jq -r .data.identity <<<"$RESP")
req n3 POST "/admin-api/namespaces/$NS/join" '{}'
ID3=$(jq -r .data.identity <<<"$RESP")
req n1 POST "/admin-api/groups/$NS/members" "{\"identity\":\"$ID2\",\"role\":\"Member\"}"
check "n1 (Admin) adds n2 as Member" status_is 200
req n1 POST "/admin-api/groups/$NS/members" "{\"identity\":\"$ID3\",\"role\":\"Member\"}"
check "n1 (Admin) adds n3 as Member" status_is 200
req n1 POST "/admin-api/groups/$NS/contexts" '{}'
CTX=$(jq -r .data.contextId <<<"$RESP")

req n1 PUT "/admin-api/contexts/$CTX/kv/m" '{"value":"v0"}'
check "n1 writes m" status_is 200
check "n3 reads m" wait_for 15 kv_is n3 "$CTX" m v0
check "n2 reads m" wait_for 15 kv_is n2 "$CTX" m v0

# the attack: n3's own database claims m was written at lamport 2^63-2
stop_node n3
sqlite3 "$WORK/n3/node.db" "update ctx_kv set lamport=9223372036854775806 where k='m'"
run_node n3 --test --bootstrap "$A" --bootstrap "$(p2p_addr n2)"
req n3 PUT "/admin-api/contexts/$CTX/kv/m" '{"value":"from-n3"}'
check "n3's write that cannot become m's value is answered 409, not 200" \
    err_has 409 "clock 9223372036854775806"
check "the 409 names the winning write's author" msg_has "author "
OUT=$("$BIN/meroctl" --node "${URL[n3]}" --token-file "$WORK/n3/admin-token" kv put "$CTX" m again 2>&1)
RC=$?
check "meroctl kv put exits 2 on that 409" [ "$RC" = 2 ]
check "meroctl prints the reason" grep -qF "clock 9223372036854775806" <<<"$OUT"

# n3 publishes a delta that claims lamport 2^63-1 (what n3's clock would have produced); it
# publishes again (a new delta each time) until the peer has received one, since n3 refuses
# its own delta and so no sync pull can carry it
req n3 POST "/admin-api/test/contexts/$CTX/forge/m" '{"value":"inflated","lamport":9223372036854775807}'
check "n3 publishes a delta claiming lamport 2^63-1 (test route)" status_is 200
forged_refused_by() {
    req n3 POST "/admin-api/test/contexts/$CTX/forge/m" '{"value":"inflated","lamport":9223372036854775807}'
    grep -q "delta lamport 9223372036854775807 is beyond the context clock" "$WORK/$1.log"
}
check "n1 refuses it at apply: beyond the context clock" wait_for 15 forged_refused_by n1
check "n2 refuses it at apply: beyond the context clock" wait_for 15 forged_refused_by n2

req n1 PUT "/admin-api/contexts/$CTX/kv/m" '{"value":"from-n1"}'
check "n1's later write to m: 200" status_is 200
check "... and it is m's value on n1" kv_is n1 "$CTX" m from-n1
check "... and on n2" wait_for 15 kv_is n2 "$CTX" m from-n1
check "the inflated delta is not m's value anywhere but n3's own edited row" \
    eval '! kv_is n1 "$CTX" m inflated && ! kv_is n2 "$CTX" m inflated'
lost=0
for i in 1 2 3 4 5; do
    req n1 PUT "/admin-api/contexts/$CTX/kv/other" "{\"value\":\"o$i\"}"
    if ! status_is 200 || ! kv_is n1 "$CTX" other "o$i"; then
        lost=$((lost + 1))
    fi
done
check "n1's five writes to another key are each acknowledged and current" [ "$lost" = 0 ]
check "n2 converges on n1's last write" wait_for 15 kv_is n2 "$CTX" other o5
req n2 PUT "/admin-api/contexts/$CTX/kv/m" '{"value":"from-n2"}'
check "n2 (Member) writes m after the attack: 200" status_is 200
check "n1 reads n2's write to m" wait_for 15 kv_is n1 "$CTX" m from-n2
finish
