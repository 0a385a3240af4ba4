#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# churn.sh - fleet scenario: while every TEE node fleet-joins and members write, a third of
# the non-owner nodes, picked at random (seeded: FLEET_SEED), are killed (SIGKILL: a crash)
# one after another at random moments and restarted. A TEE whose join died with it asks
# again after its restart. Then the fleet invariants must hold: no acknowledged write lost,
# no TEE a member on one node and refused on another, every node on the same op-log heads.
. "$(dirname "$0")/fleet_lib.bash"
T=$((FLEET_N / 2))
M=$((FLEET_N - 1 - T))
check "fleet of $FLEET_N up (owner, $M members, $T TEE nodes)" fleet_build "$M" "$T"
others=("${NODES[@]:1}")
K=$(((FLEET_N + 2) / 3))
victims=()
while [ "${#victims[@]}" -lt "$K" ]; do
    v=${others[$((RANDOM % ${#others[@]}))]}
    [[ " ${victims[*]} " == *" $v "* ]] || victims+=("$v")
done
echo "# victims (seed $FLEET_SEED): ${victims[*]}"
for n in $(tees); do fleet_join_bg "$n"; done
restarted=0
for v in "${victims[@]}"; do
    sleep "0.$((RANDOM % 10))"
    fleet_kill "$v" KILL
    fleet_write owner "churn-$v" "while $v was down"
    fleet_spawn "$v" && restarted=$((restarted + 1))
done
check "$K nodes killed and restarted" eval '[ "$restarted" = "$K" ]'
fleet_join_wait $(tees)
again=()
for n in $(tees); do [ "${JOINED[$n]}" = true ] || again+=("$n"); done
echo "# joins that did not finish through the churn (asked again): ${again[*]:-none}"
for n in "${again[@]}"; do fleet_join_bg "$n"; done
fleet_join_wait "${again[@]}"
check "every TEE admitted in the end" eval '[ "$(admitted_count)" = "$T" ]'
for n in "${NODES[@]}"; do
    [ "${ROLE[$n]}" = tee ] || fleet_write "$n" "after-$n" "after the churn from $n"
done
fleet_check 120
fleet_finish
