#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# join_unheld.sh - fleet scenario (issue 33): a member that joins a namespace while no node
# that holds it can be reached gets the namespace once one can. A join pulls from the peers
# connected at that moment, and the sync tick asked peers only for namespaces held here, so a
# member that joined while its only holder was away (a partition, or a hub's connection
# manager that had trimmed it) was never asked for its namespace again: at N=200 none of the
# 39 members got theirs (docs/scaling.md). Here the owner is cut off from m1 while m1 joins
# and the owner adds it, and long enough that the add has left the owner's gossip history
# (so only a pull can bring it); once the cut heals, m1 must hold the namespace and write.
. "$(dirname "$0")/fleet_lib.bash"
check "the owner up with its namespace" fleet_build 0 0
check "member m1 up" fleet_node m1 member
check "partition {owner} | {m1}" pctl partition owner m1
req m1 POST "/admin-api/namespaces/$NS/join" '{}'
check "m1 joins the namespace while cut off from its holder" status_is 200
IDENT[m1]=$(jq -r .data.identity <<<"$RESP")
req owner POST "/admin-api/groups/$NS/members" \
    "{\"members\":[{\"identity\":\"${IDENT[m1]}\",\"role\":\"Member\"}]}"
check "the owner adds m1 as a Member" status_is 200
check "m1 holds nothing of the namespace yet" eval '! member_can_write m1'
sleep 6 # past the gossip history (5 heartbeats): the add is no longer announced
check "the partition heals" pctl heal
check "m1 gets the namespace and writes (60 s at most)" wait_for 60 member_can_write m1
fleet_check 60
fleet_finish
