#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# gov_nominee.sh - issue 30: an op whose signer lost its row in resolution is kept on every
# node, so every node ends with the same op log. Owner A and node B are Admins; while they
# cannot reach each other, B removes A, and A, not knowing it, adds X (node x), X creates a
# context, and A adds one more member over X's op. B's removal sorts first, so A's additions and
# X's op lose their effect. Once the nodes meet, all three hold the same op log (heads and
# count) - B keeps X's op without effect though it never saw X hold a row, and so applies A's
# last op, which names X's op as a parent - and nothing is refused again at every sync round.
. "$(dirname "$0")/node_lib.bash"

two_admins

# B removes A while A is away; then A, not knowing it, adds X, who creates a context
b_removes_a_unseen
start_node x --bootstrap "$(p2p_addr a)"
req x POST "/admin-api/namespaces/$NS/join" '{}'
IDX=$(jq -r .data.identity <<<"$RESP")
check "x joins with an identity of its own" \
    eval '[ ${#IDB} = 64 ] && [ ${#IDX} = 64 ] && [ "$IDB" != "$IDX" ]'
req a POST "/admin-api/groups/$NS/members" "{\"identity\":\"$IDX\",\"role\":\"Member\"}"
check "a adds x (200)" status_is 200
check "x sees itself a Member" wait_for 20 role_on x "$IDX" Member
req x POST "/admin-api/groups/$NS/contexts" '{}'
check "x creates a context (200)" status_is 200
CTX=$(jq -r .data.contextId <<<"$RESP")
a_has_ctx() { req a GET "/admin-api/groups/$NS/contexts"; grep -q "$CTX" <<<"$RESP"; }
check "a holds x's op" wait_for 20 a_has_ctx
req a POST "/admin-api/groups/$NS/members" "{\"identity\":\"$(edpk)\",\"role\":\"Member\"}"
check "a adds one more member over x's op (200)" status_is 200
run_node b --bootstrap "$(p2p_addr a)"

same_log() {
    local la
    la=$(log_of a)
    [ "$la" = "$(log_of b)" ] && [ "$la" = "$(log_of x)" ] && [ "$(jq -r .opCount <<<"$la")" -ge 8 ]
}
check "after the heal a, b and x hold the same op log (heads, count)" wait_for 40 same_log
check "x lost its row on a (b's removal of a sorts first)" wait_for 10 eval '! role_on a "$IDX" Member'
check "and on b" eval '! role_on b "$IDX" Member'
check "a is an Admin nowhere" eval '! role_on a "$IDA" Admin && ! role_on b "$IDA" Admin'
refusals() { cat "$WORK/a.log" "$WORK/b.log" "$WORK/x.log" | grep -cE "op from .* refused"; }
n1=$(refusals)
sleep 6 # three sync rounds: a refusal loop would log again
n2=$(refusals)
check "no refusal loop: no op refused again over three sync rounds ($n1 -> $n2)" eval '[ "$n1" = "$n2" ]'
check "the logs still agree after the rounds" same_log
finish
