# SPDX-License-Identifier: Apache-2.0
# admission_lib.bash - helpers for the admission e2e scripts (sourced): node_lib.bash plus
# fleet-join with a long client timeout, the zero-measurement mock policy, and membership
# checks. The fleet-join budget is shortened (MERO_FLEET_JOIN_BUDGET_MS, a test knob) so an
# "announced" outcome takes seconds, not 30 s.
. "$(dirname "${BASH_SOURCE[0]}")/node_lib.bash"
export MERO_FLEET_JOIN_BUDGET_MS=${MERO_FLEET_JOIN_BUDGET_MS:-5000}
ZERO96=$(printf '%096d' 0)

# fleet_join NODE NS [ADMITTER_ADDRS_JSON_ARRAY]: sets STATUS and RESP
fleet_join() {
    local n=$1 ns=$2 addrs=${3:-}
    local body="{\"groupId\":\"$ns\"}"
    [ -n "$addrs" ] && body="{\"groupId\":\"$ns\",\"admitterAddrs\":$addrs}"
    STATUS=$(curl -s -o "$WORK/resp" -w '%{http_code}' -X POST --max-time 120 \
        -H "Authorization: Bearer ${TOKEN[$n]}" -H 'Content-Type: application/json' \
        --data-binary "$body" "${URL[$n]}/admin-api/tee/fleet-join")
    RESP=$(cat "$WORK/resp" 2>/dev/null)
}

# set_zero_policy NODE NS ACCEPT_MOCK [MRTD]: the reference scenario's policy
set_zero_policy() {
    local n=$1 ns=$2 mock=$3 mrtd=${4:-$ZERO96}
    req "$n" PUT "/admin-api/groups/$ns/settings/tee-admission-policy" \
        "{\"allowedMrtd\":[\"$mrtd\"],\"allowedRtmr1\":[\"$ZERO96\"],\"allowedRtmr2\":[\"$ZERO96\"],\"allowedRtmr3\":[\"$ZERO96\"],\"acceptMock\":$mock}"
}

# no_tee_member NODE [NS]: the namespace has no TEE row on NODE
no_tee_member() {
    req "$1" GET "/admin-api/groups/${2:-$NS}/members"
    status_is 200 && jq_is '[.members[]|select(.tee==true)]|length' 0
}

# refusal_has TEXT: the first refusal's reason contains TEXT
refusal_has() { jq -r '.data.refusals[0].reason' <<<"$RESP" | grep -qF -- "$1"; }

# The owner's namespace with one context holding k=secret under the zero-measurement mock
# policy, and node t1 fleet-joined into it and reading k (two checks). Sets NS, CTX, T1.
owner_ns_with_tee_t1() {
    req owner POST /admin-api/namespaces '{}'
    NS=$(jq -r .data.namespaceId <<<"$RESP")
    req owner POST "/admin-api/groups/$NS/contexts" '{}'
    CTX=$(jq -r .data.contextId <<<"$RESP")
    set_zero_policy owner "$NS" true
    req owner PUT "/admin-api/contexts/$CTX/kv/k" '{"value":"secret"}'
    fleet_join t1 "$NS"
    check "t1 admitted" jq_is .data.admitted true
    T1=$(jq -r .data.public_key <<<"$RESP")
    check "t1 reads the owner's key" wait_for 15 kv_is t1 "$CTX" k secret
}
