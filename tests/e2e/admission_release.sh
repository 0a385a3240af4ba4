#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# admission_release.sh - the release claim across merod processes: a --mock-tee node run with
# MERO_TEE_VERSION names its release on both paths (the offer reply's release_version and
# TeeReleaseAdmissionRequest), and under a signed-release policy a mock quote is judged by
# acceptMock alone: admitted with it, refused without it, nothing admitted then.
. "$(dirname "$0")/admission_lib.bash"

start_node owner --mock-tee
O=$(p2p_addr owner)
MERO_TEE_VERSION=2.3.87 start_node t1 --mock-tee --bootstrap "$O"
MERO_TEE_VERSION=2.3.87 start_node t2 --mock-tee --bootstrap "$O"
REL='"signedRelease":{"allowedProfiles":["locked-read-only"],"minReleaseVersion":"2.3.0"}'

req owner POST /admin-api/namespaces '{}'
NS=$(jq -r .data.namespaceId <<<"$RESP")
req owner PUT "/admin-api/groups/$NS/settings/tee-admission-policy" "{$REL,\"acceptMock\":false}"
check "signed-release policy without acceptMock set" status_is 200
fleet_join t1 "$NS" "[\"$O\"]"
check "release policy, mock without acceptMock: refused with its reason" eval 'jq_is .data.admitted false && refusal_has "mock attestation rejected by group policy"'
check "nothing admitted" no_tee_member owner "$NS"

req owner POST /admin-api/namespaces '{}'
NS2=$(jq -r .data.namespaceId <<<"$RESP")
req owner PUT "/admin-api/groups/$NS2/settings/tee-admission-policy" "{$REL,\"acceptMock\":true}"
check "signed-release policy with acceptMock set" status_is 200
fleet_join t2 "$NS2"
check "prompt path: mock admitted under the release policy (acceptMock alone)" jq_is .data.admitted true
sleep 5.2 # MIN_REISSUE for the owner's offers to t1 in NS
fleet_join t1 "$NS2" "[\"$O\"]"
check "direct path: admitted, naming its release" eval 'jq_is .data.admitted true && jq_is .data.admitted_by "$(jq -r .peerId "$WORK/owner/run.json")"'
check "the owner saw the release named on the offered path" grep -q "(offered path).*(release 2.3.87)" "$WORK/owner.log"
check "the owner saw the release named on the direct path" grep -q "(direct path).*(release 2.3.87)" "$WORK/owner.log"
finish
