#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# gov_race.sh - fleet scenario (issue 30, Jepsen-style, seeded by FLEET_SEED): the owner
# promotes three members to Admin, on both sides of the partition the proxy then makes; the
# two sides' admins first remove each other, then on both sides admins
# race each other - removing and demoting admins, changing members' roles, removing members -
# while writers write, TEEs fleet-join on the owner's side and the owner switches the policy
# during those admissions. Then the partition heals and every node holding the namespace
# must end with one state: the same op-log heads, the same members and roles, the same policy
# (one hash of all of it compared across nodes), at least one admin, every acknowledged write
# of a writer no governance op touched readable everywhere, and no op refused again and again.
. "$(dirname "$0")/fleet_lib.bash"
T=$((FLEET_N / 4))
M=$((FLEET_N - 1 - T))
[ "$M" -ge 6 ] || M=6
check "fleet of $((1 + M + T)) up (owner, $M members, $T TEE nodes)" fleet_build "$M" "$T"
# the racers (promoted to Admin) sit on both sides of the coming partition: the first member
# of the owner's side and the first two of the other; two more members are the targets of
# role changes and removals; every other member (and the owner) writes and is never
# targeted, so all of their acknowledged writes must survive
half=$((${#NODES[@]} / 2))
side_a=("${NODES[@]:0:half}")
side_b=("${NODES[@]:half}")
members_of_side() { local n; for n in "$@"; do [ "${ROLE[$n]}" = member ] && echo "$n"; done; }
mapfile -t ma < <(members_of_side "${side_a[@]}")
mapfile -t mb < <(members_of_side "${side_b[@]}")
racers=("${ma[0]}" "${mb[0]}" "${mb[1]}")
targets=("${ma[1]}" "${ma[2]}")
writers=()
for n in "${ma[@]:3}" "${mb[@]:2}"; do writers+=("$n"); done
echo "# racers ${racers[*]}, targets ${targets[*]}, writers owner ${writers[*]}"
for n in "${racers[@]}"; do
    req owner PUT "/admin-api/groups/$NS/members/${IDENT[$n]}/role" '{"role":"Admin"}'
done
admin_on() { # NODE ID: NODE sees ID as an Admin
    req "$1" GET "/admin-api/groups/$NS/members"
    jq_is ".members|map(select(.identity==\"$2\"))[0].role" Admin
}
all_racers_admin() {
    local n
    for n in "${racers[@]}"; do admin_on "$n" "${IDENT[$n]}" || return 1; done
}
check "three racers promoted to Admin, each sees it" wait_for 60 all_racers_admin
fleet_write owner before "before the race"
# side A: the first half of the start order (owner first), side B: the rest
A=$(IFS=,; echo "${NODES[*]:0:half}")
B=$(IFS=,; echo "${NODES[*]:half}")
side_of() { [[ ",$A," == *",$1,"* ]] && echo A || echo B; }
check "partition: {$A} | {$B}" pctl partition "$A" "$B"
roles=(Admin Member ReadOnly)
ops=0
gov_op() { # NODE: one random governance op signed by NODE (an admin, as far as it knows)
    local n=$1 t r
    case $((RANDOM % 4)) in
    0) t=${racers[$((RANDOM % 3))]} # an admin removes another admin
        [ "$t" = "$n" ] && return 0
        req "$n" DELETE "/admin-api/groups/$NS/members/${IDENT[$t]}" ;;
    1) t=${racers[$((RANDOM % 3))]} # an admin demotes another
        [ "$t" = "$n" ] && return 0
        req "$n" PUT "/admin-api/groups/$NS/members/${IDENT[$t]}/role" '{"role":"Member"}' ;;
    2) t=${targets[$((RANDOM % 2))]} r=${roles[$((RANDOM % 3))]}
        req "$n" PUT "/admin-api/groups/$NS/members/${IDENT[$t]}/role" "{\"role\":\"$r\"}" ;;
    3) t=${targets[$((RANDOM % 2))]}
        req "$n" DELETE "/admin-api/groups/$NS/members/${IDENT[$t]}" ;;
    esac
    status_is 200 && ops=$((ops + 1))
    return 0
}
joining=()
# the certain conflict first: the two sides' racers remove each other
req "${racers[0]}" DELETE "/admin-api/groups/$NS/members/${IDENT[${racers[1]}]}"
status_is 200 && ops=$((ops + 1))
req "${racers[1]}" DELETE "/admin-api/groups/$NS/members/${IDENT[${racers[0]}]}"
status_is 200 && ops=$((ops + 1))
for round in 1 2 3; do
    for n in owner "${racers[@]}"; do gov_op "$n"; done
    for n in owner "${writers[@]}"; do fleet_write "$n" "r$round-$n" "round $round from $n" || true; done
    if [ "$round" = 2 ]; then
        # TEEs on the owner's side join while the owner switches the policy's mode
        for n in $(tees); do [ "$(side_of "$n")" = A ] && { fleet_join_bg "$n"; joining+=("$n"); }; done
        req owner PUT "/admin-api/groups/$NS/settings/tee-admission-policy" \
            "{\"allowedMrtd\":[\"$ZERO96\"],\"allowedRtmr1\":[\"$ZERO96\"],\"allowedRtmr2\":[\"$ZERO96\"],\"allowedRtmr3\":[\"$ZERO96\"],\"acceptMock\":true,\"mode\":\"relay\"}"
        echo "# the owner switched the policy to relay mode: HTTP $STATUS"
    fi
    sleep 1
done
echo "# governance ops acknowledged during the partition: $ops"
check "governance ops were acknowledged during the partition" eval '[ "$ops" -gt 0 ]'
[ ${#joining[@]} -gt 0 ] && fleet_join_wait "${joining[@]}"
pctl heal
# one hash of the whole governance state per node
gov_state() { # NODE: heads, count, members with roles, policy mode and lists
    local l m p
    req "$1" GET "/admin-api/namespaces/$NS/log" || return 1
    status_is 200 || return 1
    l=$(jq -c '.data|{heads,opCount}' <<<"$RESP")
    req "$1" GET "/admin-api/groups/$NS/members"
    status_is 200 || return 1
    m=$(jq -c '[.members[]|{identity,role}]|sort_by(.identity)' <<<"$RESP")
    req "$1" GET "/admin-api/groups/$NS/settings/tee-admission-policy"
    p=$(jq -c '.data // null' <<<"$RESP")
    printf '%s|%s|%s' "$l" "$m" "$p" | sha256sum | cut -c1-16
}
same_gov_state() {
    local n ref="" s
    for n in $(participants); do
        s=$(gov_state "$n") || return 1
        [ -z "$ref" ] && ref=$s
        [ "$s" = "$ref" ] || { GOV_DIFF="$n: $s vs $ref"; return 1; }
    done
    GOV_REF=$ref
}
GOV_DIFF=
check "every node holding the namespace ends with one governance state (heads, members, roles, policy)" \
    wait_for 120 same_gov_state
echo "# state hash ${GOV_REF:-?}${GOV_DIFF:+; last difference $GOV_DIFF}"
admins_left() {
    req owner GET "/admin-api/groups/$NS/members"
    [ "$(jq '[.members[]|select(.role=="Admin")]|length' <<<"$RESP")" -ge 1 ]
}
check "the namespace still has an admin" admins_left
# the racers and targets the resolution removed read nothing new: not readers any more
req owner GET "/admin-api/groups/$NS/members"
final=$(jq -r '[.members[].identity]|join(",")' <<<"$RESP")
for n in "${racers[@]}" "${targets[@]}"; do
    [[ ",$final," == *",${IDENT[$n]},"* ]] || { ROLE[$n]=evicted; echo "# $n was removed"; }
done
kept=$(cat "$WORK"/*.log | grep -c "kept without effect")
echo "# ops kept without effect (refused at their place) across the fleet: $kept"
r1=$(cat "$WORK"/*.log | grep -cE "op from .* (refused|kept without effect)")
sleep 6
r2=$(cat "$WORK"/*.log | grep -cE "op from .* (refused|kept without effect)")
check "no refusal loop: no op refused again over three sync rounds ($r1 -> $r2)" eval '[ "$r1" = "$r2" ]'
fleet_check 120
fleet_finish
