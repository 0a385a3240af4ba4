#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# admin_ui.sh - the admin page (/admin-ui/, issue 19) in a real headless browser: Debian's
# chromium driven by puppeteer-core (tests/js/admin_ui.mjs). The scene: an owner and two
# --mock-tee replicas fleet-joined under the zero-measurement policy, then a third mock TEE
# refused (the policy briefly allows another MRTD only, so MrtdNotAllowed). The page logs in
# with the token, lists the namespace, shows both replicas with their role and an evidence
# age and the refusal with its rule and reason; a wrong token and an unreachable node show an
# error. Issue 35: members show their names (an admin's label, the node's own --name) with the
# full id on hover, the node's own row was last seen now, and at 700 px wide no column or cell
# is cut off. The fleet page's "TEE timelines" link (issue 36) names the namespace shown and
# draws its TEEs; with a second namespace picked the link follows it and draws that one's
# (none), the first one's timelines hidden. Screenshots go to $MERO_BUILD/test-out/admin_ui/.
# Also checked with curl: the files'
# types and security headers. Chromium that cannot start fails the test.
. "$(dirname "$0")/admission_lib.bash"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${MERO_BUILD:-$ROOT/build/release}/test-out/admin_ui
mkdir -p "$OUT"
rm -f "$OUT"/*.png

start_node owner --mock-tee
O=$(p2p_addr owner)
start_node t1 --mock-tee --bootstrap "$O"
start_node t2 --mock-tee --bootstrap "$O"
start_node t3 --mock-tee --bootstrap "$O"

# the page's files: public, typed, with the strict policy
hdr() { curl -s -D - -o "$WORK/body" "${URL[owner]}$1"; }
H=$(hdr /admin-ui/)
check "GET /admin-ui/ is public HTML" eval 'grep -q "^HTTP/1.1 200" <<<"$H" && grep -qi "^Content-Type: text/html; charset=utf-8" <<<"$H"'
check "the page's Content-Security-Policy is default-src 'self'" eval "grep -qi \"^Content-Security-Policy: default-src 'self'\" <<<\"\$H\""
check "the page has no inline script" eval '! grep -qiE "<script>|<script [^>]*>[^<]|on(load|click)=" "$WORK/body"'
H=$(hdr /admin-ui/app.js)
check "app.js is JavaScript, nosniff" eval 'grep -qi "^Content-Type: text/javascript" <<<"$H" && grep -qi "^X-Content-Type-Options: nosniff" <<<"$H"'
H=$(hdr /admin-ui/app.css)
check "app.css is CSS" eval 'grep -qi "^Content-Type: text/css" <<<"$H"'
req owner GET /admin-ui/nope.js noauth
check "an unknown file is 404" status_is 404
req owner GET /admin-ui/..%2Fadmin-token noauth
check "no way out of the embedded files" status_is 404

req owner POST /admin-api/namespaces '{}'
NS=$(jq -r .data.namespaceId <<<"$RESP")
set_zero_policy owner "$NS" true
fleet_join t1 "$NS"
check "t1 admitted" jq_is .data.admitted true
T1=$(jq -r .data.public_key <<<"$RESP")
fleet_join t2 "$NS" "[\"$O\"]"
check "t2 admitted" jq_is .data.admitted true
T2=$(jq -r .data.public_key <<<"$RESP")
# t3 presents the zero MRTD while the policy allows another one only
set_zero_policy owner "$NS" true "$(printf '%096d' 1)"
fleet_join t3 "$NS" "[\"$O\"]"
check "t3 refused" eval 'status_is 200 && jq_is .data.admitted false'
set_zero_policy owner "$NS" true
check "the zero-measurement policy restored" status_is 200

req owner GET "/admin-api/groups/$NS/fleet"
check "the fleet document lists the refusal" eval 'jq -e ".data.attempts[] | select(.verdict == \"refused\")" <<<"$RESP" >/dev/null'
RULE=$(jq -r '[.data.attempts[] | select(.verdict == "refused")][0].rule' <<<"$RESP")
REASON=$(jq -r '[.data.attempts[] | select(.verdict == "refused")][0].reason' <<<"$RESP")
MATCHED=$(jq -r --arg t "$T1" '.data.members[] | select(.identity == $t) | .tee.matched.name' <<<"$RESP")
check "the refusal's rule is the MRTD rule" eval '[ "$RULE" = MrtdNotAllowed ]'

# issue 35 item 6: t1 named by an admin (a long name, not ASCII), the owner row by its --name
LABEL="tdx-replica eu-west-1 ünïcode rack 42"
req owner PUT "/admin-api/groups/$NS/members/$T1/label" "$(jq -nc --arg l "$LABEL" '{label: $l}')"
check "t1 labelled" eval 'status_is 200 && jq_is .data.label "$LABEL"'
req owner GET "/admin-api/groups/$NS/fleet"
OWNER=$(jq -r .data.viewOf.identity <<<"$RESP")
req owner POST /admin-api/namespaces '{}'
NS2=$(jq -r .data.namespaceId <<<"$RESP")
check "a second namespace (no TEE) for the timeline link" eval '[[ "$NS2" =~ ^[0-9a-f]{64}$ ]]'
EXPECT=$(jq -nc --arg t1 "$T1" --arg t2 "$T2" --arg rule "$RULE" --arg reason "${REASON:0:40}" \
    --arg m "$MATCHED" --arg lbl "$LABEL" --arg owner "$OWNER" --arg ns "$NS" --arg ns2 "$NS2" \
    '{replicas: [$t1, $t2], role: "ReadOnlyTee", refusedRule: $rule, refusedReason: $reason, matched: $m,
      named: [{id: $t1, name: $lbl}, {id: $owner, name: "owner"}], self: $owner, ns: $ns, otherNs: $ns2}')
(cd "$ROOT/tests/js" && timeout 240 node admin_ui.mjs "${URL[owner]}" "${TOKEN[owner]}" "$OUT" "$EXPECT") \
    >"$WORK/ui.out" 2>"$WORK/ui.err"
rc=$?
while IFS= read -r line; do
    case $line in
    PASS\ *) ok "page: ${line#PASS }" ;;
    FAIL\ *) nok "page: ${line#FAIL }" ;;
    esac
done <"$WORK/ui.out"
grep -q '^PASS ' "$WORK/ui.out" || nok "the browser test ran" "rc=$rc $(head -c 400 "$WORK/ui.err")"
[ $rc -eq 0 ] || [ $rc -eq 1 ] || nok "the browser test exited cleanly" "rc=$rc $(head -c 400 "$WORK/ui.err")"
check "a screenshot saved under $OUT" test -s "$OUT/admin-ui.png"
finish
