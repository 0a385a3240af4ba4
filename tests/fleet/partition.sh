#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# partition.sh - fleet scenario: a quarter of the fleet are admitted mock-TEE replicas, the
# rest writer members. The proxy then splits the owner (and the first half of the start
# order) from the other half; writes continue on both sides (the owner and members on side
# A, members on side B: ordinary member writes, not relayed ones), and a TEE joins on side A.
# Then the partition heals and the fleet invariants must hold: both sides' writes reach
# every reader and every node ends on the same op-log heads.
. "$(dirname "$0")/fleet_lib.bash"
T=$((FLEET_N / 4))
M=$((FLEET_N - 1 - T))
check "fleet of $FLEET_N up (owner, $M members, $T TEE nodes)" fleet_build "$M" "$((T + 1))"
# all but the last TEE join before the partition
LATE=t$((T + 1))
for n in $(tees); do [ "$n" != "$LATE" ] && fleet_join_bg "$n"; done
fleet_join_wait $(tees | grep -vx "$LATE")
check "$T TEEs admitted before the partition" eval '[ "$(admitted_count)" = "$T" ]'
fleet_write owner before "before the partition"
wait_for 30 acked_everywhere
# side A: the first half of the start order (owner first), side B: the rest
half=$((${#NODES[@]} / 2))
A=$(IFS=,; echo "${NODES[*]:0:half}")
B=$(IFS=,; echo "${NODES[*]:half}")
check "partition: owner's side {$A} | {$B}" pctl partition "$A" "$B"
echo "# partition closed ${PREPLY#ok } live connections"
wa=0 wb=0
for round in 1 2 3; do
    for n in "${NODES[@]:0:half}" "${NODES[@]:half}"; do
        [ "${ROLE[$n]}" = tee ] && continue
        if fleet_write "$n" "p$round-$n" "round $round from $n"; then
            [[ ",$A," == *",$n,"* ]] && wa=$((wa + 1)) || wb=$((wb + 1))
        fi
    done
    sleep 1
done
echo "# acknowledged during the partition: $wa on the owner's side, $wb on the other"
check "writes were acknowledged on both sides" eval '[ "$wa" -gt 0 ] && [ "$wb" -gt 0 ]'
cut_holds() { # a key written on side A is not readable on side B during the partition
    local n
    for n in "${NODES[@]:half}"; do
        [ "${ROLE[$n]}" = tee ] && continue
        req "$n" GET "/admin-api/contexts/$CTX/kv/p3-owner"
        status_is 200 && return 1
    done
    return 0
}
check "the partition holds: side B does not see side A's last write" cut_holds
if [[ ",$A," == *",$LATE,"* ]]; then
    fleet_join_bg "$LATE"
    fleet_join_wait "$LATE"
    check "a TEE on the owner's side joins during the partition" eval '[ "${JOINED[$LATE]}" = true ]'
else
    pctl heal
    fleet_join_bg "$LATE"
    fleet_join_wait "$LATE"
    check "a TEE of the other side joins once the partition healed" eval '[ "${JOINED[$LATE]}" = true ]'
fi
fleet_check 120
fleet_finish
