#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# loss.sh - fleet scenario: every link gets 200 ms of delay on each chunk, 10% of chunks held
# for a retransmission timeout (200 ms, doubling on consecutive losses: what TCP makes of
# packet loss) and 10% of new connections refused; half the TEE nodes fleet-join and the
# owner and members write under those faults, then the faults heal and the fleet invariants
# must hold.
. "$(dirname "$0")/fleet_lib.bash"
T=$((FLEET_N / 3))
M=$((FLEET_N - 1 - T))
check "fleet of $FLEET_N up (owner, $M members, $T TEE nodes)" fleet_build "$M" "$T"
check "faults on every link: delay 200 ms, loss 10%, 10% of connections refused" \
    pctl set '*' '*' delay=200 loss=0.1 rto=200 refuse=0.1
for n in $(tees); do fleet_join_bg "$n"; done
for round in 1 2; do
    for n in "${NODES[@]}"; do
        [ "${ROLE[$n]}" = tee ] && continue
        fleet_write "$n" "lossy$round-$n" "round $round from $n under loss"
    done
done
fleet_join_wait $(tees)
echo "# under faults: $(admitted_count) of $T joins admitted, $(wc -l <"$WORK/acked") writes acknowledged"
check "every join admitted under loss and delay" eval '[ "$(admitted_count)" = "$T" ]'
reached() { acked_everywhere; }
t0=$SECONDS
check "acknowledged writes reach every reader while the faults last" wait_for 90 reached
echo "# writes reached every reader under faults within $((SECONDS - t0)) s"
fleet_check 120
fleet_finish
