#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# join_burst.sh - fleet scenario: 4/5 of the fleet are mock-TEE nodes that all fleet-join one
# admitter (the owner, named in admitterAddrs) at the same moment, through the fault proxy
# (no faults: the load is the fault); writes continue meanwhile. Every join must be
# admitted, then the fleet invariants hold (fleet_lib.bash fleet_check). Prints the time for
# all joins and the admissions per second. FLEET_N=50: 40 concurrent joiners.
. "$(dirname "$0")/fleet_lib.bash"
T=$((FLEET_N * 4 / 5))
M=$((FLEET_N - 1 - T))
t0=$SECONDS
check "fleet of $FLEET_N up (owner, $M members, $T TEE nodes)" fleet_build "$M" "$T"
echo "# fleet up in $((SECONDS - t0)) s"
start=$(date +%s%N)
for n in $(tees); do fleet_join_bg "$n" "[\"$(paddr owner)\"]"; done
i=0
for n in owner $(for k in $(seq "$M"); do echo "m$k"; done); do
    i=$((i + 1))
    fleet_write "$n" "burst-$i" "during the joins from $n"
done
fleet_join_wait $(tees)
ms=$((($(date +%s%N) - start) / 1000000))
echo "# $T concurrent joins: $(admitted_count) admitted in $ms ms ($(awk -v n="$(admitted_count)" -v m="$ms" 'BEGIN {printf "%.1f", (m > 0 ? n * 1000 / m : 0)}') admissions/s)"
check "all $T concurrent joiners admitted" eval '[ "$(admitted_count)" = "$T" ]'
fleet_write owner after-burst "written after the burst"
fleet_check 120
fleet_finish
