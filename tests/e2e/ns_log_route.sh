#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# ns_log_route.sh - GET /admin-api/namespaces/:id/log (issue 20, the fleet harness's
# convergence check): the op count and sorted heads of a namespace; a second node that joined
# answers the same once it pulled the log; a new op changes the heads and the count on both;
# an unknown namespace is 404, a malformed id 400, no token 401.
. "$(dirname "$0")/node_lib.bash"

start_node a
start_node b --bootstrap "$(p2p_addr a)"
req a POST /admin-api/namespaces '{}'
NS=$(jq -r .data.namespaceId <<<"$RESP")
req a GET "/admin-api/namespaces/$NS/log"
check "a fresh namespace: one head, opCount >= 1" eval 'status_is 200 && jq_is ".data.heads|length" 1 && [ "$(jq -r .data.opCount <<<"$RESP")" -ge 1 ]'
check "heads are 64 lowercase hex" eval 'jq -e ".data.heads|all(test(\"^[0-9a-f]{64}$\"))" <<<"$RESP" >/dev/null'
N1=$(jq -r .data.opCount <<<"$RESP")
req b POST "/admin-api/namespaces/$NS/join" '{}'
IDB=$(jq -r .data.identity <<<"$RESP")
req a POST "/admin-api/groups/$NS/members" "{\"identity\":\"$IDB\",\"role\":\"Member\"}"
state() { req "$1" GET "/admin-api/namespaces/$NS/log" && jq -c .data <<<"$RESP"; }
same() { [ "$(state a)" = "$(state b)" ]; }
check "b reaches a's heads and count" wait_for 20 same
check "adding a member added ops" eval '[ "$(jq -r .opCount <<<"$(state a)")" -gt "$N1" ]'
req a GET "/admin-api/namespaces/$(hex64 7)/log"
check "unknown namespace: 404" err_is 404 "namespace not found"
req a GET "/admin-api/namespaces/xyz/log"
check "malformed id: 400" status_is 400
req a GET "/admin-api/namespaces/$NS/log" "" noauth
check "no token: 401" status_is 401
finish
