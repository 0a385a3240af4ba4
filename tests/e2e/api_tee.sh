#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# api_tee.sh - HTTP-level tests of /admin-api/tee/{info,attest,registration-attest,fleet-join}
# against a running merod --mock-tee and a merod without a TEE: good input, every validation
# error with its status and text (reference-calimero.md §4), auth missing/wrong.
. "$(dirname "$0")/node_lib.bash"
# the admission layer's fleet-join runs its full budget (30 s) when nobody admits; shorten it
# below the client's 30 s timeout (test knob read by src/node/admission/hook.c)
export MERO_FLEET_JOIN_BUDGET_MS=3000
# no metadata server: /tee/info's host facts must stay "unknown" (a closed local port)
export MERO_GCP_METADATA_URL=http://127.0.0.1:9

start_node a --mock-tee
start_node none
N=$(hex64 7)

req a GET /admin-api/tee/info "" noauth
# exactly the three fields; no metadata server is reachable here (MERO_GCP_METADATA_URL points
# at a closed port), so both host facts are "unknown", and the MRTD is the mock quote's: all zeros
check "tee/info public, mock: 200 with exactly cloudProvider, osImage, mrtd" eval \
    'status_is 200 && jq_is "[.data|keys[]]|join(\",\")" cloudProvider,mrtd,osImage && jq_is "keys|join(\",\")" data'
check "tee/info mock: cloudProvider and osImage unknown, mrtd the mock quote's (96 zero hex)" eval \
    'jq_is .data.cloudProvider unknown && jq_is .data.osImage unknown && jq_is .data.mrtd "$(hex96 0)"'
req none GET /admin-api/tee/info "" noauth
check "tee/info without TEE: 501" err_is 501 "TDX attestation generation is only supported on Linux with TDX hardware"

req a POST /admin-api/tee/attest "{\"nonce\":\"$N\"}" noauth
check "attest: 200, public" status_is 200
Q=$(jq -r .data.quoteB64 <<<"$RESP" | base64 -d | od -An -tx1 -v | tr -d ' \n')
MH=$(printf MOCK_TDX_QUOTE_V1 | od -An -tx1 -v | tr -d ' \n')
check "attest: mock quote header" eval '[ "${Q:0:34}" = "$MH" ] && [ ${#Q} = 512 ]'
check "attest: report data = nonce || zeros" eval '[ "${Q:34:128}" = "$N$(hex64 0)" ]'
check "attest: quote json reportdata" jq_is .data.quote.body.reportdata "$N$(hex64 0)"
check "attest: no bound keys unless asked" eval 'jq_is ".data|has(\"boundPublicKey\")" false && jq_is ".data|has(\"transportPublicKey\")" false'

req a GET /admin-api/node
ID=$(jq -r .data.identity <<<"$RESP")
req a POST /admin-api/tee/attest "{\"nonce\":\"$N\",\"bindNodeKey\":true}" noauth
check "attest bindNodeKey: boundPublicKey is the node identity" jq_is .data.boundPublicKey "$ID"
WANT=$(python3 -c "import hashlib,sys;print(hashlib.sha256(b'calimero.tee-attest.key-binding.v1'+bytes(32)+bytes.fromhex(sys.argv[1])).hexdigest())" "$ID")
check "attest bindNodeKey: report data = nonce || key binding" jq_is .data.quote.body.reportdata "$N$WANT"

req a POST /admin-api/tee/attest "{\"nonce\":\"$N\",\"bindNodeKey\":true,\"bindTransportKey\":true}" noauth
TK=$(jq -r .data.transportPublicKey <<<"$RESP")
WANT2=$(python3 -c "import hashlib,sys;print(hashlib.sha256(b'calimero.tee-attest.transport-key.v1'+bytes.fromhex(sys.argv[1])+bytes.fromhex(sys.argv[2])).hexdigest())" "$WANT" "$TK")
check "attest bindTransportKey: key + transport binding nested" eval 'status_is 200 && [ ${#TK} = 64 ] && jq_is .data.quote.body.reportdata "$N$WANT2"'
req a POST /admin-api/tee/attest "{\"nonce\":\"$N\",\"bindTransportKey\":true}" noauth
TK2=$(jq -r .data.transportPublicKey <<<"$RESP")
check "attest: transport key stable while running" eval '[ "$TK" = "$TK2" ]'
req a POST /admin-api/tee/attest "{\"nonce\":\"$N\",\"includeCollateral\":true}" noauth
check "attest includeCollateral on mock: collateral null" eval 'status_is 200 && jq_is ".data|has(\"collateral\")" true && jq_is .data.collateral null'

# validation
req a POST /admin-api/tee/attest '{}' noauth
check "attest: missing nonce 400" err_is 400 "missing field \`nonce\`"
req a POST /admin-api/tee/attest '{"nonce":"xyz1"}' noauth
check "attest: non-hex nonce 400" err_is 400 "Invalid nonce format (must be hex string)"
req a POST /admin-api/tee/attest '{"nonce":12}' noauth
check "attest: numeric nonce 400" err_is 400 "Invalid nonce format (must be hex string)"
req a POST /admin-api/tee/attest '{"nonce":"abcd"}' noauth
check "attest: short nonce 400" err_is 400 "Nonce must be exactly 32 bytes (64 hex characters)"
req a POST /admin-api/tee/attest "{\"nonce\":\"${N}00\"}" noauth
check "attest: long nonce 400" err_is 400 "Nonce must be exactly 32 bytes (64 hex characters)"
req a POST /admin-api/tee/attest "{\"nonce\":\"$N\",\"extra\":true}" noauth
check "attest: unknown field 400 (deny_unknown_fields)" err_has 400 "unknown field \`extra\`"
req a POST /admin-api/tee/attest "{\"nonce\":\"$N\",\"bindNodeKey\":\"yes\"}" noauth
check "attest: non-bool flag 400" err_is 400 "\`bindNodeKey\` must be a boolean"
req a POST /admin-api/tee/attest "{\"nonce\":\"$N\",\"applicationId\":\"app1\"}" noauth
check "attest: unknown application 404" err_is 404 "Application 'app1' not found"
req a POST /admin-api/tee/attest "{\"nonce\":\"$N\",\"bindTlsKey\":true}" noauth
check "attest: bindTlsKey without certificate 409" status_is 409
req a POST /admin-api/tee/attest "{\"nonce\":\"$N\",\"eventLog\":true}" noauth
check "attest: eventLog refused for a mock quote 400" err_is 400 "eventLog is not available for a mock quote"
req a POST /admin-api/tee/attest "{\"nonce\":\"$N\",\"nonce\":\"$N\"}" noauth
check "attest: duplicate key 400" err_has 400 "request body is not valid JSON"
req a POST /admin-api/tee/attest '[1,2]' noauth
check "attest: array body 400" err_is 400 "request body must be a JSON object"
req a POST /admin-api/tee/attest '{"nonce":' noauth
check "attest: truncated JSON 400" err_has 400 "request body is not valid JSON"
req a POST /admin-api/tee/attest "{\"nonce\":\"$N\"} x" noauth
check "attest: trailing garbage 400" err_has 400 "request body is not valid JSON"
req none POST /admin-api/tee/attest "{\"nonce\":\"$N\"}" noauth
check "attest without TEE or --mock-tee: 501" err_is 501 "TDX attestation generation is only supported on Linux with TDX hardware"

# registration-attest (protected)
req a POST /admin-api/tee/registration-attest "{\"nonce\":\"$N\"}" noauth
check "registration-attest: no token 401" err_is 401 "missing or invalid bearer token"
req a POST /admin-api/tee/registration-attest "{\"nonce\":\"$N\"}" "Bearer $(hex64 1)"
check "registration-attest: wrong token 401" status_is 401
req a POST /admin-api/tee/registration-attest "{\"nonce\":\"$N\"}" "Basic ${TOKEN[a]}"
check "registration-attest: not Bearer 401" status_is 401
req a POST /admin-api/tee/registration-attest "{\"nonce\":\"$N\"}"
RB=$(python3 -c "import hashlib;print(hashlib.sha256(b'calimero.tee-attest.registration.v1').hexdigest())")
check "registration-attest: 200, report data = nonce || registration binding" eval 'status_is 200 && jq_is .data.quote.body.reportdata "$N$RB" && jq_is ".data|has(\"boundPublicKey\")" false'
req a POST /admin-api/tee/registration-attest '{"nonce":"00"}'
check "registration-attest: bad nonce 400" err_is 400 "Nonce must be exactly 32 bytes (64 hex characters)"
req a POST /admin-api/tee/registration-attest "{\"nonce\":\"$N\",\"bindNodeKey\":true}"
check "registration-attest: unknown field 400" err_has 400 "unknown field"
req none POST /admin-api/tee/registration-attest "{\"nonce\":\"$N\"}"
check "registration-attest without TEE: 501" status_is 501

# fleet-join (protected; admission itself is installed by the admission layer)
req a POST /admin-api/tee/fleet-join "{\"groupId\":\"$N\"}" noauth
check "fleet-join: no token 401" status_is 401
req a POST /admin-api/tee/fleet-join '{"groupId":"abc"}'
check "fleet-join: bad groupId 400" err_is 400 "group_id must be 64 hex chars (32 bytes)"
req a POST /admin-api/tee/fleet-join '{}'
check "fleet-join: missing groupId 400" err_is 400 "missing field \`groupId\`"
# issue 35: the spec's group_id is the same field as groupId (tests/e2e/api_snake_case.sh);
# giving both is refused
req a POST /admin-api/tee/fleet-join "{\"group_id\":\"$N\",\"groupId\":\"$N\"}"
check "fleet-join: group_id with groupId refused 400" err_has 400 "\`group_id\` and \`groupId\` are the same field"
req a POST /admin-api/tee/fleet-join "{\"groupId\":\"$N\",\"admitterAddrs\":[\"/ip4/127.0.0.1/tcp/1\"]}"
check "fleet-join: admitter without /p2p/ 400" err_has 400 "admitterAddrs[0] must be a multiaddr"
req a POST /admin-api/tee/fleet-join "{\"groupId\":\"$N\",\"admitterAddrs\":\"x\"}"
check "fleet-join: admitterAddrs not a list 400" err_has 400 "must be an array"
PEER=$(jq -r .peerId "$WORK/a/run.json")
req a POST /admin-api/tee/fleet-join "{\"groupId\":\"$N\",\"admitterAddrs\":[\"/ip4/127.0.0.1/tcp/4001/p2p/$PEER\"]}"
# the only admitter named is the node itself: nobody admits, the budget runs out, and the answer
# is 200 "announced", not admitted, for exactly the group asked (docs/admission.md)
check "fleet-join: valid body, nobody admits: 200 announced, not admitted" eval \
    'status_is 200 && jq_is .data.status announced && jq_is .data.admitted false && jq_is .data.admitted_by null'
check "fleet-join: the answer names the group asked, with the namespace identity" eval \
    'jq_is .data.group_id "$N" && jq_is .data.namespace_id "$N" && jq_is ".data.public_key|test(\"^[0-9a-f]{64}\$\")" true && jq_is ".data.refusals|length" 0'

# routing
req a GET /admin-api/nope "" noauth
check "unknown route 404" err_is 404 "no route for this path"
req a GET /admin-api/tee/attest "" noauth
check "known route, wrong method 405" status_is 405
req a DELETE /admin-api/tee/info "" noauth
check "DELETE on tee/info 405" status_is 405
finish
