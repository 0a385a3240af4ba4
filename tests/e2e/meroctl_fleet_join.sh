#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# meroctl_fleet_join.sh - fleet-join tells the truth (issue 18). With the node's full 30 s wait
# (the test knob MERO_FLEET_JOIN_BUDGET_MS is set to 60 s here, so a run that waited it out
# would end with the timeout message): a replica refused on the prompt path (no --admitter)
# learns the owner's reason through TeeAdmissionVerdict; `meroctl tee fleet-join` exits 2,
# prints the reason on stderr and in refusals[], and did not end with the "not admitted within"
# timeout message; the same on the direct path; an admitted join exits 0 and says by whom.
# While it waits, meroctl prints the join's states on stderr (issue 18), each once and in order,
# read from GET /admin-api/tee/fleet-join/<NS>/progress (404 where no join ran).
export MERO_FLEET_JOIN_BUDGET_MS=60000
. "$(dirname "$0")/admission_lib.bash"

start_node owner --mock-tee
O=$(p2p_addr owner)
OID=$(jq -r .peerId "$WORK/owner/run.json")
start_node t1 --mock-tee --bootstrap "$O"
c() { "$BIN/meroctl" --node "${URL[$1]}" --token-file "$WORK/$1/admin-token" "${@:2}"; }
# in_order FILE LINE...: each LINE is a whole line of FILE exactly once, in the order given
in_order() {
    local f=$1 prev=0 n l
    shift
    for l in "$@"; do
        [ "$(grep -cxF -- "$l" "$f")" -eq 1 ] || { echo "# not once: $l" >&2; return 1; }
        n=$(grep -nxF -- "$l" "$f" | cut -d: -f1)
        [ "$n" -gt "$prev" ] || { echo "# out of order: $l" >&2; return 1; }
        prev=$n
    done
}

req owner POST /admin-api/namespaces '{}'
NS=$(jq -r .data.namespaceId <<<"$RESP")
set_zero_policy owner "$NS" false # a mock quote is refused: acceptMock is false
check "the policy is set" status_is 200
REASON="mock attestation rejected by group policy"

req t1 GET "/admin-api/tee/fleet-join/$NS/progress"
check "progress: 404 while no join has run for the namespace" \
    eval 'status_is 404 && grep -qF "no fleet join has run" <<<"$RESP"'
req t1 GET "/admin-api/tee/fleet-join/$NS/progress" "" noauth
check "progress: the route is protected (401 without the token)" status_is 401
req t1 GET "/admin-api/tee/fleet-join/xyz/progress"
check "progress: a malformed groupId is 400" status_is 400

# the prompt path: no --admitter, so only the owner's offer reaches t1
c t1 --json tee fleet-join "$NS" >"$WORK/out" 2>"$WORK/err"
RC=$?
check "prompt path, refused: exit 2" test $RC -eq 2
check "  the owner's reason on stderr" grep -qF "refused by $OID: $REASON" "$WORK/err"
check "  the reason in refusals[] of the JSON answer" \
    eval 'jq -e --arg p "$OID" --arg r "$REASON" ".admitted == false and .refusals[0].peer == \$p and (.refusals[0].reason | contains(\$r))" "$WORK/out" >/dev/null'
check "  it ended on the refusal, not on the node's timeout" eval '! grep -q "not admitted within" "$WORK/err" && ! grep -q "not admitted within" "$WORK/t1.log"'
check "  the replica logged the owner's verdict" grep -qF "refused the quote we answered its offer with" "$WORK/t1.log"
check "  progress went to stderr before the wait" grep -qF "fleet-join: asking to be admitted to namespace" "$WORK/err"
check "  while it waited: prompted, challenged, answered, refused; each once, in order" \
    in_order "$WORK/err" "fleet-join: prompted; waiting for an admitter's offer" \
    "fleet-join: challenged by $OID" "fleet-join: answered $OID with a quote" \
    "fleet-join: refused by $OID: $REASON"
check "  stdout is still one JSON document" eval '[ "$(jq -s length "$WORK/out")" = 1 ]'
req t1 GET "/admin-api/tee/fleet-join/$NS/progress"
check "  the finished join's progress stays readable: refused by the owner, not running" \
    eval 'status_is 200 && jq -e --arg p "$OID" ".data.state == \"refused\" and .data.peer == \$p and .data.running == false and .data.seq == 4 and (.data.steps | length) == 4" <<<"$RESP" >/dev/null'
req owner GET "/admin-api/tee/fleet-join/$NS/progress"
check "  the owner ran no join: 404 there" \
    eval 'status_is 404 && grep -qF "no fleet join has run" <<<"$RESP"'
check "  nothing was admitted" no_tee_member owner "$NS"

# the direct path: the same refusal, from the admission request's answer
sleep 5.2 # MIN_REISSUE after the owner's offer to t1
c t1 tee fleet-join "$NS" --admitter "$O" >"$WORK/out" 2>"$WORK/err"
RC=$?
check "direct path, refused: exit 2 with the reason" eval '[ $RC -eq 2 ] && grep -qF "refused by $OID: $REASON" "$WORK/err"'
check "  human output lists the refusal too" grep -qF "$REASON" "$WORK/out"

# admitted: exit 0, by whom
set_zero_policy owner "$NS" true
sleep 5.2
c t1 tee fleet-join "$NS" --admitter "$O" >"$WORK/out" 2>"$WORK/err"
RC=$?
check "admitted: exit 0, says by whom" eval '[ $RC -eq 0 ] && grep -qF "fleet-join: admitted by $OID" "$WORK/err"'
check "  while it waited: asked, challenged, answered, waiting for the key; each once, in order" \
    in_order "$WORK/err" "fleet-join: asking $OID for a challenge" \
    "fleet-join: challenged by $OID" "fleet-join: answered $OID with a quote" \
    "fleet-join: admitted by $OID; waiting for the key"
finish
