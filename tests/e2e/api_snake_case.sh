#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# api_snake_case.sh - the spec chapter's own request bodies (issue 35 item 4): its examples
# spell fields in snake_case (`group_id`, `admitter_addrs`, `application_id`, `allowed_mrtd`,
# `allowed_rtmr1..3`, `allowed_tcb_statuses`, `accept_mock`); every field of the chapter's
# routes (tee/attest, tee/fleet-join, the TEE admission policy with its signedRelease object)
# is accepted in either spelling, a body giving one field in both is 400 naming both, and the
# answers keep the reference's camelCase. The spec's curl example for the policy is sent as
# printed (its placeholders filled in).
. "$(dirname "$0")/node_lib.bash"

start_node a --mock-tee
req a POST /admin-api/namespaces '{}'
NS=$(jq -r '.data.namespaceId // empty' <<<"$RESP")
P=/admin-api/groups/$NS/settings/tee-admission-policy
M=$(hex96 1)
M2=$(hex96 2)

# the spec's example body, placeholders filled in
req a PUT "$P" "{ \"allowed_mrtd\": [\"$M\"],
       \"allowed_rtmr1\": [\"$M\"],
       \"allowed_rtmr2\": [\"$M\"],
       \"allowed_rtmr3\": [\"$M\"],
       \"allowed_tcb_statuses\": [\"UpToDate\"],
       \"accept_mock\": false }"
check "PUT policy with the spec's snake_case body: 200, answered in camelCase" eval 'status_is 200 && jq_is ".data.allowedMrtd[0]" "$M" && jq_is ".data.allowedTcbStatuses[0]" UpToDate && jq_is ".data|has(\"allowed_mrtd\")" false'
req a GET "$P"
check "GET after it: the policy as sent, camelCase" eval 'jq_is .data.enabled true && jq_is ".data.allowedRtmr3[0]" "$M" && jq_is .data.acceptMock false && jq_is ".data|keys|map(select(test(\"_\")))|length" 0'
req a PUT "$P" "{\"allowed_mrtd\":[\"$M\"],\"allowed_rtmr0\":[\"$M2\"],\"allowedRtmr1\":[\"$M\"],\"allowed_rtmr2\":[\"$M\"],\"allowed_rtmr3\":[\"$M\"],\"accept_mock\":true,\"mode\":\"relay\",\"require_sept_ve_disable\":false,\"allow_service_td\":true}"
req a GET "$P"
check "every policy field in snake_case (mixed with camelCase) is read" eval 'jq_is ".data.allowedRtmr0[0]" "$M2" && jq_is .data.acceptMock true && jq_is .data.mode relay && jq_is .data.requireSeptVeDisable false && jq_is .data.allowServiceTd true'
req a PUT "$P" '{"signed_release":{"allowed_profiles":["locked-read-only"],"min_release_version":"2.3.87"}}'
check "signed_release with allowed_profiles and min_release_version: 200" status_is 200
req a GET "$P"
check "  GET reports signedRelease in camelCase" eval 'jq_is ".data.signedRelease.allowedProfiles[0]" locked-read-only && jq_is .data.signedRelease.minReleaseVersion 2.3.87'
req a PUT "$P" "{\"allowed_mrtd\":[\"$M\"],\"allowedMrtd\":[\"$M\"],\"allowed_rtmr1\":[\"$M\"],\"allowed_rtmr2\":[\"$M\"],\"allowed_rtmr3\":[\"$M\"]}"
check "a field in both spellings: 400 naming both" err_has 400 '`allowed_mrtd` and `allowedMrtd` are the same field'
req a PUT "$P" '{"signedRelease":{"allowed_profiles":["a"],"allowedProfiles":["a"]}}'
check "  also inside signedRelease" err_has 400 '`allowed_profiles` and `allowedProfiles`'
req a PUT "$P" "{\"allowed_mrtd\":[\"abc\"],\"allowed_rtmr1\":[\"$M\"],\"allowed_rtmr2\":[\"$M\"],\"allowed_rtmr3\":[\"$M\"]}"
check "a bad snake_case value is checked like the camelCase one" err_is 400 "\`allowedMrtd[0]\` must be 96 hex characters (48 bytes)"
req a PUT "$P" "{\"allowed__mrtd\":[\"$M\"]}"
check "a name that is not snake_case of a field stays unknown" err_has 400 'unknown field `allowed__mrtd`'

# tee/attest: application_id, bind_node_key, ...
N=$(hex64 7)
req a POST /admin-api/tee/attest "{\"nonce\":\"$N\",\"bind_node_key\":true}"
check "attest with bind_node_key: 200, camelCase answer" eval 'status_is 200 && jq -e ".data.quoteB64|length > 0" <<<"$RESP" >/dev/null'
A1=$(jq -r .data.quoteB64 <<<"$RESP" | base64 -d | od -An -v -tx1 -j 17 -N 64 | tr -d ' \n')
req a POST /admin-api/tee/attest "{\"nonce\":\"$N\",\"bindNodeKey\":true}"
A2=$(jq -r .data.quoteB64 <<<"$RESP" | base64 -d | od -An -v -tx1 -j 17 -N 64 | tr -d ' \n')
req a POST /admin-api/tee/attest "{\"nonce\":\"$N\"}"
A0=$(jq -r .data.quoteB64 <<<"$RESP" | base64 -d | od -An -v -tx1 -j 17 -N 64 | tr -d ' \n')
check "  the same report data as with bindNodeKey, not the unbound one (bind_node_key was read)" eval '[ ${#A1} -eq 128 ] && [ "$A1" = "$A2" ] && [ "$A1" != "$A0" ]'
req a POST /admin-api/tee/attest "{\"nonce\":\"$N\",\"application_id\":\"my-app\"}"
S1=$RESP
req a POST /admin-api/tee/attest "{\"nonce\":\"$N\",\"applicationId\":\"my-app\"}"
check "  application_id is looked up like applicationId" eval 'status_is 404 && [ "$S1" = "$RESP" ] && msg_has "my-app"'
req a POST /admin-api/tee/attest "{\"nonce\":\"$N\",\"application_id\":\"bad app!\"}"
check "  a bad application_id is refused like applicationId" err_has 400 '`applicationId` holds an invalid character'
req a POST /admin-api/tee/attest "{\"nonce\":\"$N\",\"include_collateral\":\"yes\"}"
check "  include_collateral is read (type checked)" err_has 400 '`includeCollateral` must be a boolean'
req a POST /admin-api/tee/attest "{\"nonce\":\"$N\",\"event_log\":true,\"eventLog\":true}"
check "  event_log and eventLog together: 400" err_has 400 '`event_log` and `eventLog` are the same field'

# tee/fleet-join: group_id, admitter_addrs (checked before any join runs)
req a POST /admin-api/tee/fleet-join "{\"group_id\":\"$NS\",\"admitter_addrs\":\"x\"}"
check "fleet-join with group_id and admitter_addrs: both read" err_has 400 '`admitterAddrs` must be an array of multiaddrs'
req a POST /admin-api/tee/fleet-join '{"group_id":"zz"}'
check "  a bad group_id: 400" err_has 400 'group_id must be 64 hex chars'
req a POST /admin-api/tee/fleet-join "{\"group_id\":\"$NS\",\"groupId\":\"$NS\"}"
check "  group_id and groupId together: 400" err_has 400 '`group_id` and `groupId` are the same field'
finish
