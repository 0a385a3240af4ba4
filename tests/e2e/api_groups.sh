#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# api_groups.sh - HTTP-level tests of the namespace routes on one merod: GET /node,
# POST /namespaces, /namespaces/:id/join, subgroups, members (add/list/remove), leave,
# contexts (create/list) and kv (put/get): good input, every validation error, unknown ids,
# auth missing/wrong on each route. Also meroctl for each.
. "$(dirname "$0")/node_lib.bash"

start_node a --mock-tee
X=$(hex64 5)

# auth on every protected route
for r in "GET /admin-api/node" "POST /admin-api/namespaces" "POST /admin-api/namespaces/$X/join" \
    "POST /admin-api/groups/$X/subgroups" "POST /admin-api/groups/$X/members" \
    "GET /admin-api/groups/$X/members" "DELETE /admin-api/groups/$X/members/$X" \
    "POST /admin-api/groups/$X/leave" "POST /admin-api/groups/$X/contexts" \
    "GET /admin-api/groups/$X/contexts" "PUT /admin-api/contexts/$X/kv/k" \
    "GET /admin-api/contexts/$X/kv/k"; do
    set -- $r
    req a "$1" "$2" '{}' noauth
    S1=$STATUS
    req a "$1" "$2" '{}' "Bearer $(hex64 9)"
    check "$1 ${2/$X/<id>}: 401 without / with a wrong token" eval '[ "$S1" = 401 ] && status_is 401'
done

req a GET /admin-api/node
check "node: peerId, listenAddrs, identity" eval 'status_is 200 && jq -e ".data.peerId|startswith(\"12D3KooW\")" <<<"$RESP" >/dev/null && jq_is ".data.identity|length" 64 && jq -e ".data.listenAddrs[0]|contains(\"/p2p/\")" <<<"$RESP" >/dev/null'
check "node: listen address is the real (ephemeral) port" eval '! jq -r ".data.listenAddrs[0]" <<<"$RESP" | grep -q "/tcp/0/"'
req a POST /admin-api/namespaces '{}'
NS=$(jq -r .data.namespaceId <<<"$RESP")
ME=$(jq -r .data.identity <<<"$RESP")
check "namespace create: namespaceId and identity" eval 'status_is 200 && [ ${#NS} = 64 ] && [ ${#ME} = 64 ]'
req a POST /admin-api/namespaces '{"color":"x"}'
check "namespace create: unknown field 400" err_has 400 "unknown field \`color\`"
req a POST /admin-api/namespaces ''
check "namespace create: empty body accepted" status_is 200
req a GET /admin-api/node
check "node lists its namespaces" eval 'jq -e ".data.namespaces|map(.namespaceId)|index(\"$NS\")" <<<"$RESP" >/dev/null'

req a GET "/admin-api/groups/$NS/members"
check "members list: creator is Admin" eval 'status_is 200 && jq_is ".members[0].identity" "$ME" && jq_is ".members[0].role" Admin'
req a GET "/admin-api/groups/$X/members"
check "members list: unknown group 404" err_is 404 "group not found"
req a GET "/admin-api/groups/zz/members"
check "members list: bad group id 400" err_is 400 "group_id must be 64 hex chars (32 bytes)"

B1=$(edpk)
req a POST "/admin-api/groups/$NS/members" "{\"identity\":\"$B1\",\"role\":\"ReadOnly\"}"
check "members add ReadOnly 200" eval 'status_is 200 && jq_is .data.role ReadOnly'
req a POST "/admin-api/groups/$NS/members" "{\"identity\":\"$(edpk)\"}"
check "members add: role defaults to Member" jq_is .data.role Member
req a POST "/admin-api/groups/$NS/members" '{"identity":"abc","role":"Member"}'
check "members add: bad identity 400" err_is 400 "identity must be 64 hex chars (32 bytes)"
req a POST "/admin-api/groups/$NS/members" '{"role":"Member"}'
check "members add: missing identity 400" err_has 400 "missing field \`identity\`"
req a POST "/admin-api/groups/$NS/members" "{\"identity\":\"$B1\",\"role\":\"Owner\"}"
check "members add: unknown role 400" err_has 400 "\`role\` must be"
req a POST "/admin-api/groups/$NS/members" "{\"identity\":\"$B1\",\"role\":\"ReadOnlyTee\"}"
check "members add: TEE role refused 403 (attestation only)" err_has 403 "TeeMemberRoleLocked"
req a POST "/admin-api/groups/$NS/members" "{\"identity\":\"$B1\",\"role\":\"Member\",\"x\":1}"
check "members add: unknown field 400" err_has 400 "unknown field"
req a POST "/admin-api/groups/$X/members" "{\"identity\":\"$B1\"}"
check "members add: unknown group 404" status_is 404
req a GET "/admin-api/groups/$NS/members"
check "members list shows 3 rows" jq_is ".members|length" 3
req a DELETE "/admin-api/groups/$NS/members/$B1"
check "members remove 200" eval 'status_is 200 && jq_is .data.removed true'
req a DELETE "/admin-api/groups/$NS/members/xyz"
check "members remove: bad identity 400" err_is 400 "identity must be 64 hex chars (32 bytes)"
req a GET "/admin-api/groups/$NS/members"
check "removed member gone" jq_is ".members|map(select(.identity==\"$B1\"))|length" 0

req a POST "/admin-api/groups/$NS/subgroups" '{"visibility":"restricted"}'
SUB=$(jq -r .data.groupId <<<"$RESP")
check "subgroup create restricted" eval 'status_is 200 && jq_is .data.visibility restricted && jq_is .data.parentId "$NS"'
req a POST "/admin-api/groups/$NS/subgroups" '{}'
check "subgroup create: default open" jq_is .data.visibility open
req a POST "/admin-api/groups/$NS/subgroups" '{"visibility":"public"}'
check "subgroup create: bad visibility 400" err_is 400 "\`visibility\` must be \"open\" or \"restricted\""
req a POST "/admin-api/groups/$X/subgroups" '{}'
check "subgroup create: unknown parent 404" status_is 404

req a POST "/admin-api/groups/$NS/contexts" '{}'
CTX=$(jq -r .data.contextId <<<"$RESP")
check "context create: contextId" eval 'status_is 200 && [ ${#CTX} = 64 ]'
req a POST "/admin-api/groups/$SUB/contexts" '{}'
CTX2=$(jq -r .data.contextId <<<"$RESP")
req a POST "/admin-api/groups/$NS/contexts" '{"app":"x"}'
check "context create: unknown field 400" status_is 400
req a POST "/admin-api/groups/$X/contexts" '{}'
check "context create: unknown group 404" status_is 404
req a GET "/admin-api/groups/$NS/contexts"
check "context list: the group's contexts only" eval 'status_is 200 && jq_is ".data|length" 1 && jq_is ".data[0].contextId" "$CTX"'

req a PUT "/admin-api/contexts/$CTX/kv/greeting" '{"value":"hello \"world\" ü"}'
check "kv put 200" status_is 200
req a GET "/admin-api/contexts/$CTX/kv/greeting"
check "kv get returns the value as a JSON string" jq_is .data.value 'hello "world" ü'
req a PUT "/admin-api/contexts/$CTX/kv/greeting" '{"value":"second"}'
req a GET "/admin-api/contexts/$CTX/kv/greeting"
check "kv overwrite: latest wins" jq_is .data.value second
req a PUT "/admin-api/contexts/$CTX2/kv/k" '{"value":""}'
req a GET "/admin-api/contexts/$CTX2/kv/k"
check "kv: empty value in a subgroup context" eval 'status_is 200 && jq_is .data.value ""'
req a GET "/admin-api/contexts/$CTX/kv/missing"
check "kv get: unknown key 404" err_is 404 "key not found"
req a GET "/admin-api/contexts/$X/kv/k"
check "kv get: unknown context 404" err_is 404 "context not found"
req a PUT "/admin-api/contexts/$CTX/kv/k" '{"value":5}'
check "kv put: non-string value 400" err_is 400 "\`value\` must be a string"
req a PUT "/admin-api/contexts/$CTX/kv/k" '{}'
check "kv put: missing value 400" err_has 400 "missing field \`value\`"
req a PUT "/admin-api/contexts/$CTX/kv/b%20d" '{"value":"x"}'
check "kv put: bad key 400" err_has 400 "key may hold only"
BIGV=$(head -c 20000 /dev/zero | tr '\0' v)
req a PUT "/admin-api/contexts/$CTX/kv/big" "{\"value\":\"$BIGV\"}"
check "kv put: value over 16 KiB 400" err_has 400 "longer than"
req a POST "/admin-api/test/contexts/$CTX/forge/k" '{"value":"x"}'
check "test-only forge route absent without --test (404)" status_is 404

# meroctl
MC=("$BIN/meroctl" --node "${URL[a]}" --token-file "$WORK/a/admin-token")
check "meroctl node info" eval '"${MC[@]}" node info | grep -q "^peerId: 12D3KooW"'
NS3=$("${MC[@]}" --json namespace create | jq -r .namespaceId)
check "meroctl namespace create" test ${#NS3} -eq 64
check "meroctl group members add" eval '"${MC[@]}" --json group members add "$NS3" "$B1" --role ReadOnly | jq -e ".members[0].role==\"ReadOnly\"" >/dev/null'
check "meroctl group members list" eval '"${MC[@]}" --json group members list "$NS3" | jq -e ".members|length==2" >/dev/null'
check "meroctl group members remove" eval '"${MC[@]}" --json group members remove "$NS3" "$B1" >/dev/null'
check "meroctl group subgroup create" eval '"${MC[@]}" --json group subgroup create "$NS3" --visibility restricted | jq -e ".visibility==\"restricted\"" >/dev/null'
C3=$("${MC[@]}" --json context create "$NS3" | jq -r .contextId)
check "meroctl context create/list" eval '"${MC[@]}" --json context list "$NS3" | jq -e ".[0].contextId==\"$C3\"" >/dev/null'
check "meroctl kv put/get" eval '"${MC[@]}" kv put "$C3" k v1 >/dev/null && [ "$("${MC[@]}" --json kv get "$C3" k | jq -r .value)" = v1 ]'
"${MC[@]}" kv get "$C3" nokey 2>/dev/null
check "meroctl kv get missing key exits 1 (404)" test $? -eq 1
"${MC[@]}" group members add "$NS3" short 2>/dev/null
check "meroctl bad identity exits 1 before any request" test $? -eq 1
check "meroctl --help on a subcommand" eval '"${MC[@]}" kv put --help | grep -q "usage: meroctl kv put"'
check "meroctl group leave (sole admin) answers" eval '"${MC[@]}" group leave "$NS3" >/dev/null 2>&1; [ $? -le 2 ]'
finish
