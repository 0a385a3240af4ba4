#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# api_policy.sh - PUT/GET /admin-api/groups/:group_id/settings/tee-admission-policy: both
# forms, mode, every validation rule of reference-calimero.md §4.5 (400 with the reason),
# auth, and the GET shape (enabled=false before any policy). Also through meroctl.
. "$(dirname "$0")/node_lib.bash"

start_node a --mock-tee
# a namespace when the node can create one, else any id (the policy store is per root)
req a POST /admin-api/namespaces '{}'
NS=$(jq -r '.data.namespaceId // empty' <<<"$RESP")
[ -n "$NS" ] || NS=$(hex64 42)
P=/admin-api/groups/$NS/settings/tee-admission-policy
M=$(hex96 1)
MEAS="\"allowedMrtd\":[\"$M\"],\"allowedRtmr1\":[\"$M\"],\"allowedRtmr2\":[\"$M\"],\"allowedRtmr3\":[\"$M\"]"

req a GET "$P"
check "GET before any policy: enabled false, empty lists" eval 'status_is 200 && jq_is .data.enabled false && jq_is ".data.allowedMrtd|length" 0 && jq_is .data.acceptMock false'
req a GET "$P" "" noauth
check "GET without token 401" status_is 401
req a PUT "$P" "{$MEAS}" noauth
check "PUT without token 401" status_is 401
req a PUT "$P" "{$MEAS}" "Bearer wrong"
check "PUT wrong token 401" status_is 401

UP=$(hex96 1 | tr 0 A)
req a PUT "$P" "{\"allowedMrtd\":[\"$UP\"],\"allowedRtmr1\":[\"$M\"],\"allowedRtmr2\":[\"$M\"],\"allowedRtmr3\":[\"$M\"],\"allowedTcbStatuses\":[\"UpToDate\",\"SWHardeningNeeded\"],\"acceptMock\":true,\"mode\":\"relay\"}"
check "PUT measurement form 200" status_is 200
req a GET "$P"
check "GET: enabled, lowercased lists, mode relay, acceptMock" eval 'jq_is .data.enabled true && jq_is ".data.allowedMrtd[0]" "$(hex96 1 | tr 0 a)" && jq_is .data.mode relay && jq_is .data.acceptMock true && jq_is ".data.allowedTcbStatuses|length" 2 && jq_is ".data|has(\"signedRelease\")" false'
req a PUT "$P" "{$MEAS}"
req a GET "$P"
check "last policy wins; mode defaults to replica" eval 'jq_is .data.mode replica && jq_is .data.acceptMock false'

req a PUT "$P" '{"signedRelease":{"allowedProfiles":["locked-read-only"],"minReleaseVersion":"2.3.87"},"mode":"replica"}'
check "PUT signedRelease form 200" status_is 200
req a GET "$P"
check "GET reports signedRelease" eval 'jq_is ".data.signedRelease.allowedProfiles[0]" locked-read-only && jq_is .data.signedRelease.minReleaseVersion 2.3.87 && jq_is ".data.allowedMrtd|length" 0'

# validation
for f in allowedMrtd allowedRtmr1 allowedRtmr2 allowedRtmr3; do
    body=$(jq -c "del(.$f)" <<<"{$MEAS}")
    req a PUT "$P" "$body"
    check "measurement form without $f: 400" err_has 400 "\`$f\` must not be empty"
done
body=$(jq -c 'del(.allowedRtmr3) + {acceptMock:true}' <<<"{$MEAS}")
req a PUT "$P" "$body"
check "RTMR3 required even with acceptMock" err_has 400 "allowedRtmr3"
req a PUT "$P" '{}'
check "empty body: 400 (MRTD required)" err_has 400 "\`allowedMrtd\` must not be empty"
req a PUT "$P" "{$MEAS,\"allowedRtmr0\":[\"$M\"]}"
check "RTMR0 optional, accepted" status_is 200
req a PUT "$P" "{\"allowedMrtd\":[\"abc\"],\"allowedRtmr1\":[\"$M\"],\"allowedRtmr2\":[\"$M\"],\"allowedRtmr3\":[\"$M\"]}"
check "short measurement 400" err_is 400 "\`allowedMrtd[0]\` must be 96 hex characters (48 bytes)"
req a PUT "$P" "{\"allowedMrtd\":\"$M\",\"allowedRtmr1\":[\"$M\"],\"allowedRtmr2\":[\"$M\"],\"allowedRtmr3\":[\"$M\"]}"
check "list as a string 400" err_is 400 "\`allowedMrtd\` must be an array of strings"
req a PUT "$P" "{$MEAS,\"allowedTcbStatuses\":[\"Revoked\"]}"
check "Revoked never allowed 400" err_has 400 "Revoked is never allowed"
req a PUT "$P" "{$MEAS,\"allowedTcbStatuses\":[\"uptodate\"]}"
check "unknown tcb status 400" err_has 400 "is not a TCB status name"
req a PUT "$P" "{$MEAS,\"mode\":\"Replica\"}"
check "mode is lowercase only 400" err_is 400 "\`mode\` must be \"replica\" or \"relay\""
req a PUT "$P" "{$MEAS,\"acceptMock\":1}"
check "acceptMock not a bool 400" err_is 400 "\`acceptMock\` must be a boolean"
req a PUT "$P" "{$MEAS,\"rootProof\":\"\"}"
check "rootProof empty string 400" err_is 400 "\`rootProof\` must be omitted, not empty"
req a PUT "$P" "{$MEAS,\"allowed_mrtdx\":[]}"
check "unknown field 400" err_has 400 "unknown field \`allowed_mrtdx\`"
req a PUT "$P" "{$MEAS,\"signedRelease\":{\"allowedProfiles\":[\"debug\"]}}"
check "signedRelease with measurement lists 400" err_has 400 "signedRelease form: \`allowedMrtd\` must be empty"
req a PUT "$P" '{"signedRelease":{"allowedProfiles":[]}}'
check "signedRelease without profiles 400" err_is 400 "\`signedRelease.allowedProfiles\` must not be empty"
req a PUT "$P" '{"signedRelease":{"allowedProfiles":["debug"],"minReleaseVersion":"2.3"}}'
check "bad minReleaseVersion 400" err_is 400 "\`signedRelease.minReleaseVersion\` must be X.Y.Z"
req a PUT "$P" '{"signedRelease":{"allowedProfiles":["Debug!"]}}'
check "bad profile name 400" err_has 400 "must be a profile name"
req a PUT "$P" '{"signedRelease":{"allowedProfiles":["debug"],"x":1}}'
check "unknown field in signedRelease 400" err_has 400 "signedRelease: unknown field \`x\`"
req a PUT /admin-api/groups/xyz/settings/tee-admission-policy "{$MEAS}"
check "bad group id 400" err_is 400 "group_id must be 64 hex chars (32 bytes)"

req a PUT /admin-api/groups/$(hex64 5)/settings/tee-admission-policy "{$MEAS}"
check "unknown group 404" err_is 404 "group not found"
req a POST "/admin-api/groups/$NS/subgroups" '{"visibility":"open"}'
SUB=$(jq -r '.data.groupId // empty' <<<"$RESP")
req a PUT "/admin-api/groups/$SUB/settings/tee-admission-policy" "{$MEAS}"
check "policy on a subgroup refused 400" err_has 400 "namespace root, not a subgroup"
req a GET "/admin-api/groups/$SUB/settings/tee-admission-policy"
check "GET on a subgroup resolves to the root policy" eval 'status_is 200 && jq_is .data.enabled true'

# the TD-attribute knobs (issue 14): safe defaults, both travel in the op and come back
req a PUT "$P" "{$MEAS}"
check "TD knobs default: requireSeptVeDisable true, allowServiceTd false" eval 'status_is 200 && jq_is .data.requireSeptVeDisable true && jq_is .data.allowServiceTd false'
req a GET "$P"
check "GET reports the TD knobs' defaults" eval 'jq_is .data.requireSeptVeDisable true && jq_is .data.allowServiceTd false'
req a PUT "$P" "{$MEAS,\"requireSeptVeDisable\":false,\"allowServiceTd\":true}"
check "PUT with the TD knobs relaxed 200" status_is 200
req a GET "$P"
check "GET reports the relaxed TD knobs" eval 'jq_is .data.requireSeptVeDisable false && jq_is .data.allowServiceTd true'
req a PUT "$P" "{$MEAS,\"allowServiceTd\":\"yes\"}"
check "allowServiceTd not a bool: 400" status_is 400
req a PUT "$P" "{$MEAS,\"requireSeptVeDisable\":1}"
check "requireSeptVeDisable not a bool: 400" status_is 400

# meroctl
MC=("$BIN/meroctl" --node "${URL[a]}" --token-file "$WORK/a/admin-token")
"${MC[@]}" group settings set-tee-admission-policy "$NS" --mrtd "$M" --rtmr1 "$M" --rtmr2 "$M" \
    --rtmr3 "$M" --tcb-status UpToDate --accept-mock --mode relay >/dev/null
check "meroctl set-tee-admission-policy exit 0" test $? -eq 0
OUT=$("${MC[@]}" --json group settings get-tee-admission-policy "$NS")
check "meroctl get-tee-admission-policy --json" eval '[ "$(jq -r .mode <<<"$OUT")" = relay ] && [ "$(jq -r .acceptMock <<<"$OUT")" = true ]'
"${MC[@]}" group settings set-tee-admission-policy "$NS" --mrtd "$M" --rtmr1 "$M" --rtmr2 "$M" \
    --rtmr3 "$M" --allow-sept-ve-enabled --allow-service-td --mode replica >/dev/null
OUT=$("${MC[@]}" --json group settings get-tee-admission-policy "$NS")
check "meroctl --allow-sept-ve-enabled --allow-service-td" eval '[ "$(jq -r .requireSeptVeDisable <<<"$OUT")" = false ] && [ "$(jq -r .allowServiceTd <<<"$OUT")" = true ]'
"${MC[@]}" group settings set-tee-admission-policy "$NS" --mrtd "$M" --mode relay 2>/dev/null
check "meroctl: refused policy exits 1" test $? -eq 1
"${MC[@]}" group settings set-tee-admission-policy "$NS" --mrtd "$M" 2>/dev/null
check "meroctl: --mode required, exit 1" test $? -eq 1
"${MC[@]}" group settings set-tee-admission-policy "$NS" --profile locked-read-only --min-release 2.3.87 --mode replica >/dev/null
check "meroctl signed-release form exit 0" test $? -eq 0
"$BIN/meroctl" --node "${URL[a]}" --token-file /dev/null group settings get-tee-admission-policy "$NS" 2>/dev/null
check "meroctl: token file not 0600 refused (exit 1)" test $? -eq 1
echo nottoken >"$WORK/bad-token" && chmod 600 "$WORK/bad-token"
"$BIN/meroctl" --node "${URL[a]}" --token-file "$WORK/bad-token" group settings get-tee-admission-policy "$NS" 2>/dev/null
check "meroctl: wrong token exits 4" test $? -eq 4
"$BIN/meroctl" --node http://127.0.0.1:1 tee info 2>/dev/null
check "meroctl: unreachable node exits 3" test $? -eq 3
finish
