#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# admitter_kill.sh - fleet scenario: every TEE node fleet-joins naming the owner as its one
# admitter, and the owner is killed (SIGKILL) while those admissions are in flight, then
# restarted. Joins that the kill cut off are asked again. A TEE must end a member on every
# node or on none: no TEE admitted on one node and refused on another, and the owner's
# half-done admissions leave no op that the others lack (same op-log heads everywhere).
. "$(dirname "$0")/fleet_lib.bash"
T=$((FLEET_N / 2))
M=$((FLEET_N - 1 - T))
check "fleet of $FLEET_N up (owner, $M members, $T TEE nodes)" fleet_build "$M" "$T"
for n in $(tees); do fleet_join_bg "$n" "[\"$(paddr owner)\"]"; done
# kill the owner as soon as its first admission is logged (bounded poll), the rest in flight
for _ in $(seq 500); do
    grep -q "admitted to namespace" "$WORK/owner.log" && break
    sleep 0.02
done
fleet_kill owner KILL
echo "# owner killed after $(grep -c 'admitted to namespace' "$WORK/owner.log") of $T admissions"
fleet_write m1 "while-owner-down" "m1 wrote while the owner was down"
sleep 1
check "owner restarted" fleet_spawn owner
fleet_join_wait $(tees)
again=()
for n in $(tees); do [ "${JOINED[$n]}" = true ] || again+=("$n"); done
echo "# joins cut off by the kill (asked again): ${again[*]:-none}"
for n in "${again[@]}"; do fleet_join_bg "$n" "[\"$(paddr owner)\"]"; done
fleet_join_wait "${again[@]}"
check "every TEE admitted in the end" eval '[ "$(admitted_count)" = "$T" ]'
fleet_write owner after "after the restart"
fleet_check 120
fleet_finish
