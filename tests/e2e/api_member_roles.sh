#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# api_member_roles.sh - PUT /admin-api/groups/:group_id/members/:identity/role (update_member_role)
# and the role locks, on an owner and a --mock-tee replica: a member moves between Admin,
# Member and ReadOnly; bad input is 400, an unknown member 404, no token 401; a TEE role set
# by hand and a TEE row moved to a plain role are 403 TeeMemberRoleLocked (spec "Locked to the
# TEE roles"); the admitted TEE cannot be made an Admin or Member of an Open subgroup either
# (the regression of issue 14); the namespace's last admin cannot demote, remove itself or
# leave (409, issue 21 item 10). Also meroctl group members set-role.
. "$(dirname "$0")/admission_lib.bash"

start_node owner --mock-tee
O=$(p2p_addr owner)
start_node t1 --mock-tee --bootstrap "$O"
X=$(hex64 5)

req owner POST /admin-api/namespaces '{}'
NS=$(jq -r .data.namespaceId <<<"$RESP")
ME=$(jq -r .data.identity <<<"$RESP")
check "owner creates a namespace" eval '[ ${#NS} = 64 ]'
B=$(edpk)
req owner POST "/admin-api/groups/$NS/members" "{\"identity\":\"$B\",\"role\":\"Member\"}"
check "B added as Member" status_is 200

R="/admin-api/groups/$NS/members/$B/role"
req owner PUT "$R" '{"role":"Admin"}' noauth
check "set-role: 401 without a token" status_is 401
req owner PUT "$R" '{"role":"ReadOnly"}'
check "set-role Member -> ReadOnly 200" eval 'status_is 200 && jq_is .data.role ReadOnly && jq_is .data.identity "$B"'
req owner GET "/admin-api/groups/$NS/members"
check "members list shows ReadOnly" jq_is ".members|map(select(.identity==\"$B\"))[0].role" ReadOnly
req owner PUT "$R" '{"role":"Member"}'
check "set-role ReadOnly -> Member 200" eval 'status_is 200 && jq_is .data.role Member'
req owner PUT "$R" '{"role":"ReadOnlyTee"}'
check "set-role to a TEE role by hand: 403 TeeMemberRoleLocked" err_has 403 "TeeMemberRoleLocked"
req owner PUT "$R" '{"role":"Owner"}'
check "set-role unknown role 400" err_has 400 "\`role\` must be"
req owner PUT "$R" '{}'
check "set-role missing role 400" err_has 400 "missing field \`role\`"
req owner PUT "$R" '{"role":"Member","x":1}'
check "set-role unknown field 400" err_has 400 "unknown field"
req owner PUT "/admin-api/groups/$NS/members/$X/role" '{"role":"Member"}'
check "set-role on a non-member 404" status_is 404
req owner PUT "/admin-api/groups/$NS/members/zz/role" '{"role":"Member"}'
check "set-role bad identity 400" err_is 400 "identity must be 64 hex chars (32 bytes)"
req owner PUT "/admin-api/groups/$X/members/$B/role" '{"role":"Member"}'
check "set-role unknown group 404" status_is 404

# the last admin stays
req owner PUT "/admin-api/groups/$NS/members/$ME/role" '{"role":"Member"}'
check "last admin demoting itself: 409 with the reason" err_has 409 "last admin"
req owner DELETE "/admin-api/groups/$NS/members/$ME"
check "last admin removing itself: 409" err_has 409 "last admin"
req owner POST "/admin-api/groups/$NS/leave" '{}'
check "last admin leaving: 409" err_has 409 "last admin"
req owner GET "/admin-api/groups/$NS/members"
check "the owner is still Admin" jq_is ".members|map(select(.identity==\"$ME\"))[0].role" Admin

# the TEE roles are locked
set_zero_policy owner "$NS" true
check "policy set" status_is 200
fleet_join t1 "$NS" "[\"$O\"]"
check "t1 admitted as a replica" eval 'status_is 200 && jq_is .data.admitted true'
T1=$(jq -r .data.public_key <<<"$RESP")
req owner PUT "/admin-api/groups/$NS/members/$T1/role" '{"role":"Admin"}'
check "TEE row to Admin: 403 TeeMemberRoleLocked" err_has 403 "TeeMemberRoleLocked"
req owner PUT "/admin-api/groups/$NS/members/$T1/role" '{"role":"ReadOnly"}'
check "TEE row to ReadOnly: 403 TeeMemberRoleLocked" err_has 403 "TeeMemberRoleLocked"
req owner POST "/admin-api/groups/$NS/subgroups" '{"visibility":"open"}'
SUB=$(jq -r .data.groupId <<<"$RESP")
req owner POST "/admin-api/groups/$SUB/members" "{\"identity\":\"$T1\",\"role\":\"Admin\"}"
check "TEE made Admin of an Open subgroup: 403 TeeMemberRoleLocked" err_has 403 "TeeMemberRoleLocked"
req owner POST "/admin-api/groups/$SUB/members" "{\"identity\":\"$T1\",\"role\":\"Member\"}"
check "TEE made Member of an Open subgroup: 403" err_has 403 "TeeMemberRoleLocked"
req owner GET "/admin-api/groups/$NS/members"
check "the TEE row is still ReadOnlyTee" jq_is ".members|map(select(.identity==\"$T1\"))[0].role" ReadOnlyTee

# meroctl
MC=("$BIN/meroctl" --node "${URL[owner]}" --token-file "$WORK/owner/admin-token")
check "meroctl group members set-role" eval '"${MC[@]}" --json group members set-role "$NS" "$B" ReadOnly | jq -e ".role==\"ReadOnly\"" >/dev/null'
"${MC[@]}" group members set-role "$NS" "$T1" Member >/dev/null 2>&1
check "meroctl set-role on a TEE row exits 2 (refused, 403)" test $? -eq 2
"${MC[@]}" group members set-role "$NS" "$B" 2>/dev/null
check "meroctl set-role without a role exits 1" test $? -eq 1
# with a second admin the first may step down
check "meroctl: B made Admin" eval '"${MC[@]}" --json group members set-role "$NS" "$B" Admin | jq -e ".role==\"Admin\"" >/dev/null'
req owner PUT "/admin-api/groups/$NS/members/$ME/role" '{"role":"Member"}'
check "with two admins the owner may step down" eval 'status_is 200 && jq_is .data.role Member'
finish
