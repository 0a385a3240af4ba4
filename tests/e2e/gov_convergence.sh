#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# gov_convergence.sh - issue 30, reproduction 1, made deterministic: owner A and node B are
# both Admins of a namespace; while they cannot reach each other, B removes A and A removes B
# (each answers 200: neither has seen the other's op). Once they meet again both hold the
# same op log (heads and count), the same members and roles - exactly one of A and B is still
# an Admin, the same one on both - and the losing removal is kept without effect, logged once
# ("kept without effect"), never refused again at each sync round, and counted in /metrics.
. "$(dirname "$0")/node_lib.bash"

two_admins

# a partition: each admin removes the other while the other is away
b_removes_a_unseen
req a DELETE "/admin-api/groups/$NS/members/$IDB"
check "a removes b (200)" status_is 200
run_node b --bootstrap "$(p2p_addr a)"

members_of() {
    req "$1" GET "/admin-api/groups/$NS/members"
    jq -c '[.members[]|{identity,role}]|sort_by(.identity)' <<<"$RESP"
}
same_log() { [ "$(log_of a)" = "$(log_of b)" ] && [ "$(jq -r .opCount <<<"$(log_of a)")" -ge 6 ]; }
check "after the heal both hold the same op log (heads, count)" wait_for 30 same_log
same_members() { [ "$(members_of a)" = "$(members_of b)" ]; }
check "both list the same members and roles" wait_for 15 same_members
MA=$(members_of a)
admins=$(jq '[.[]|select(.role=="Admin")]|length' <<<"$MA")
a_admin=$(jq "[.[]|select(.identity==\"$IDA\" and .role==\"Admin\")]|length" <<<"$MA")
b_admin=$(jq "[.[]|select(.identity==\"$IDB\" and .role==\"Admin\")]|length" <<<"$MA")
check "exactly one of the two is still an Admin (one admin in all)" \
    eval '[ "$admins" = 1 ] && [ $((a_admin + b_admin)) = 1 ]'
if [ "$a_admin" = 1 ]; then WINNER=a LOSER_ID=$IDB; else WINNER=b LOSER_ID=$IDA; fi
check "the loser is a member on neither node" \
    eval '! grep -q "$LOSER_ID" <<<"$(members_of a)" && ! grep -q "$LOSER_ID" <<<"$(members_of b)"'
# the losing removal reached the winner after the winner's own: it is kept without effect
kept() { grep -c "kept without effect" "$WORK/$WINNER.log"; }
check "the winner kept the losing removal without effect (logged)" wait_for 10 eval '[ "$(kept)" -ge 1 ]'
refusals() { cat "$WORK/a.log" "$WORK/b.log" | grep -cE "op from .* (refused|kept without effect)"; }
n1=$(refusals)
sleep 6 # three sync rounds: a refusal loop would log again
n2=$(refusals)
check "no refusal loop: no op refused again over three sync rounds ($n1 -> $n2)" eval '[ "$n1" = "$n2" ]'
req "$WINNER" GET /metrics
check "/metrics counts the op kept without effect" \
    eval 'grep -q "^mero_gov_ops_rejected_total [1-9]" <<<"$RESP"'
check "the logs still agree after the rounds" same_log
finish
