#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# fleet_audit.sh - the fleet audit export and its offline verification (issue 36,
# docs/audit.md) on 127.0.0.1: an owner and three mock TEEs fleet-joined; the policy switched
# to relay mode (every TEE converted to RelayTee); t3 removed. `meroctl fleet audit NS --out
# DIR` exports it; `meroctl audit verify DIR` (no --node: offline) exits 0 listing every TEE
# with its whole history (admitted, refresh, converted, removed), the mock quotes as "mock: not
# hardware-backed". Then one byte flipped in an exported op, in a quote, and a TEE left out of
# the manifest: each makes verify exit 2 naming the file (or the TEE). The node's audit route
# (the fleet page's TEE timelines) holds the same histories, and the page links to it.
. "$(dirname "$0")/relay_lib.bash"

start_node owner --mock-tee
O=$(p2p_addr owner)
for n in t1 t2 t3; do start_node $n --mock-tee --bootstrap "$O"; done

req owner POST /admin-api/namespaces '{}'
NS=$(jq -r .data.namespaceId <<<"$RESP")
set_relay_policy owner "$NS" replica
for n in t1 t2 t3; do
    fleet_join $n "$NS" "[\"$O\"]"
    check "$n admitted" jq_is .data.admitted true
    declare "ID_$n=$(jq -r .data.public_key <<<"$RESP")"
done
set_relay_policy owner "$NS" relay
check "the owner switches the namespace to relay mode" status_is 200
for n in t1 t2 t3; do
    id_var=ID_$n
    check "$n is converted to RelayTee" wait_for 20 role_is owner "$NS" "${!id_var}" RelayTee
done
req owner DELETE "/admin-api/groups/$NS/members/$ID_t3"
check "owner removes t3" status_is 200

req owner GET "/admin-api/namespaces/$NS/ops"
check "ops route: signed ops as base64 with hash and outcome" eval 'status_is 200 && jq -e ".data.ops|length > 5 and all(.hash|test(\"^[0-9a-f]{64}$\")) and all(.outcome==\"effective\" or .outcome==\"rejected\" or .outcome==\"deferred\")" <<<"$RESP" >/dev/null && jq_is .data.next null'
req owner GET "/admin-api/namespaces/$NS/ops?after=x"
check "ops route: a bad after is 400" status_is 400
req owner GET "/admin-api/namespaces/$(hex64 7)/ops"
check "ops route: an unknown namespace is 404" err_is 404 "namespace not found"
req owner GET "/admin-api/namespaces/$NS/ops" "" noauth
check "ops route: no token is 401" status_is 401

M=("$BIN/meroctl" --node "${URL[owner]}" --token-file "$WORK/owner/admin-token")
EXP=$WORK/export
OUT=$("${M[@]}" fleet audit "$NS" --out "$EXP" 2>&1)
RC=$?
check "meroctl fleet audit: exit 0" eval '[ $RC = 0 ]'
check "the export: manifest, report, ops, quotes" eval '[ -s "$EXP/manifest.json" ] && [ -s "$EXP/report.html" ] && ls "$EXP"/ops/*.bin >/dev/null && ls "$EXP"/quotes/*.bin >/dev/null'
check "report.html is self-contained (no script, no URL) with an SVG per TEE" eval '! grep -qiE "<script|https?://|src=" "$EXP/report.html" && [ "$(grep -c "<svg" "$EXP/report.html")" = 3 ]'

V=$("$BIN/meroctl" --json audit verify "$EXP")
RC=$?
check "audit verify (offline, no node named): exit 0" eval '[ $RC = 0 ] && [ "$(jq -r .ok <<<"$V")" = true ]'
hist() { jq -r ".tees[]|select(.identity==\"$1\")|[.events[].kind|select(.!=\"due\" and .!=\"lapsed\")]|join(\",\")" <<<"$V"; }
for n in t1 t2 t3; do id_var=ID_$n; echo "# history of $n: $(hist "${!id_var}")"; done
check "every TEE listed" eval '[ "$(jq ".tees|length" <<<"$V")" = 3 ]'
for n in t1 t2; do
    id_var=ID_$n
    check "$n: admitted, refresh, converted (and more refreshes), still a member" eval '[[ "$(hist "${!id_var}")" =~ ^admitted,refresh(,refresh)*,converted ]] && jq -e ".tees[]|select(.identity==\"${!id_var}\")|.member" <<<"$V" >/dev/null'
done
check "t3: admitted, converted, removed, no longer a member" eval '[[ "$(hist "$ID_t3")" =~ ^admitted,refresh.*,converted.*,removed$ ]] && [ "$(jq ".tees[]|select(.identity==\"$ID_t3\")|.member" <<<"$V")" = false ]'
check "mock quotes: mock, never verified; bindings and policy hold" eval 'jq -e "[.tees[].events[]|select(.kind==\"refresh\")|.checks] | length > 0 and all(.dcap.verdict==\"mock\" and .binding.verdict==\"ok\" and .policy.verdict==\"ok\")" <<<"$V" >/dev/null'
T=$("$BIN/meroctl" audit verify "$EXP")
check "the table says mock: not hardware-backed and all checks hold" eval 'grep -q "mock: not hardware-backed" <<<"$T" && grep -q "all checks hold" <<<"$T"'

req owner GET "/admin-api/namespaces/$NS/audit"
check "audit route (the fleet page's timelines): every check holds, the export's histories" eval 'status_is 200 && jq_is .data.findings 0 && [ "$(jq -c "[.data.tees[]|[.identity,[.events[]|select(.kind!=\"due\" and .kind!=\"lapsed\")|.op]]]|sort" <<<"$RESP")" = "$(jq -c "[.tees[]|[.identity,[.events[]|select(.kind!=\"due\" and .kind!=\"lapsed\")|.op]]]|sort" <<<"$V")" ]'
req owner GET "/admin-api/namespaces/$(hex64 7)/audit"
check "audit route: an unknown namespace is 404" err_is 404 "namespace not found"
PAGE=$(curl -s "${URL[owner]}/admin-ui/index.html")
check "the fleet page links to the TEE timelines" eval 'grep -q "id=\"timeline-link\"" <<<"$PAGE" && curl -s "${URL[owner]}/admin-ui/app.js" | grep -qF "/audit"'

# flip one byte of a copy
flip() { python3 -c 'import sys; p=sys.argv[1]; b=bytearray(open(p,"rb").read()); i=len(b)//2; b[i]^=1; open(p,"wb").write(b)' "$1"; }
tamper() { # KIND FILE(relative): copy, flip, verify; sets RC and ERR
    rm -rf "$WORK/t-$1" && cp -r "$EXP" "$WORK/t-$1" && flip "$WORK/t-$1/$2"
    "$BIN/meroctl" audit verify "$WORK/t-$1" >/dev/null 2>"$WORK/t-$1.err"
    RC=$?
    ERR=$(cat "$WORK/t-$1.err")
}
OPF=$(jq -r "[.tees[].events[]|select(.kind==\"refresh\")][0].op" <<<"$V")
tamper op "ops/$OPF.bin"
check "a flipped byte in an op: exit 2 naming ops/$OPF.bin" eval '[ $RC = 2 ] && grep -qF "ops/$OPF.bin" <<<"$ERR"'
QF=$(jq -r "[.quotes[].file][0]" <<<"$V")
tamper quote "$QF"
check "a flipped byte in a quote: exit 2 naming $QF" eval '[ $RC = 2 ] && grep -qF "$QF: differs from the quote the signed op carries" <<<"$ERR"'
rm -rf "$WORK/t-tee" && cp -r "$EXP" "$WORK/t-tee"
jq "del(.tees[0])" "$EXP/manifest.json" >"$WORK/t-tee/manifest.json"
"$BIN/meroctl" audit verify "$WORK/t-tee" >/dev/null 2>"$WORK/t-tee.err"
RC=$?
check "a TEE left out of the manifest: exit 2 naming it" eval '[ $RC = 2 ] && grep -q "is in the log but not listed" "$WORK/t-tee.err"'
rm -rf "$WORK/t-ops" && cp -r "$EXP" "$WORK/t-ops"
rm -f "$WORK/t-ops/ops/$OPF.bin"
"$BIN/meroctl" audit verify "$WORK/t-ops" >/dev/null 2>"$WORK/t-ops.err"
RC=$?
check "a missing op file: exit 2 naming it" eval '[ $RC = 2 ] && grep -qF "ops/$OPF.bin" "$WORK/t-ops.err"'

# the signed release a release-form policy names, exported with the log and verified offline
REL=${MERO_SHARED:?}/testdata/mero-tee/v2.3.87
EXR=$WORK/export-rel
OUT=$("${M[@]}" fleet audit "$NS" --out "$EXR" --releases "$REL" 2>&1)
RC=$?
check "fleet audit --releases: exit 0, the release's three files exported" eval '[ $RC = 0 ] && [ "$(ls "$EXR"/releases | wc -l)" = 3 ] && cmp -s "$REL/published-mrtds.json" "$EXR/releases/$(sha256sum "$REL/published-mrtds.json" | cut -c1-64).json"'
check "report.html lists the signed release, verified, still self-contained" eval 'grep -q "<h2>Signed releases</h2>" "$EXR/report.html" && grep -q "ok (Sigstore, node-release identity)" "$EXR/report.html" && ! grep -qiE "<script|https?://|src=" "$EXR/report.html"'
VR=$("$BIN/meroctl" --json audit verify "$EXR")
RC=$?
check "audit verify: the release verifies offline (Sigstore, node-release identity), tag 2.3.87" eval '[ $RC = 0 ] && jq -e ".ok and (.releases|length==1) and .releases[0].verified and .releases[0].tag==\"2.3.87\" and .releases[0].signedAt > 0" <<<"$VR" >/dev/null'
for part in file bundle sig; do
    RF=$(jq -r ".releases[0].$part" <<<"$VR")
    rm -rf "$WORK/t-rel" && cp -r "$EXR" "$WORK/t-rel" && flip "$WORK/t-rel/$RF"
    "$BIN/meroctl" audit verify "$WORK/t-rel" >/dev/null 2>"$WORK/t-rel.err"
    RC=$?
    check "a flipped byte in the release's $part: exit 2 naming $RF" eval '[ $RC = 2 ] && grep -qF "$RF" "$WORK/t-rel.err"'
done
"${M[@]}" fleet audit "$NS" --out "$WORK/export-tampered" --releases "$REL-tampered_fail" >/dev/null 2>"$WORK/t-relx.err"
RC=$?
check "fleet audit with a release altered after signing: exit 2, its Sigstore signature named" eval '[ $RC = 2 ] && grep -q "releases/[0-9a-f]*\.json: its Sigstore signature does not verify" "$WORK/t-relx.err"'
"$BIN/meroctl" audit verify "$WORK/nowhere" >/dev/null 2>&1
RC=$?
check "verify of a folder without an export: exit 2" eval '[ $RC = 2 ]'
"${M[@]}" fleet audit "$NS" >/dev/null 2>&1
RC=$?
check "fleet audit without --out: exit 1" eval '[ $RC = 1 ]'

# a sealed subgroup admission (tee-admit into a Restricted subgroup: published encrypted under
# the namespace key): without the key it is counted, not read; --disclose-sealed exports its
# plaintext (never the key) and verify puts it on t1's timeline, marked unauthenticated
req owner POST "/admin-api/groups/$NS/subgroups" '{"visibility":"restricted"}'
G=$(jq -r .data.groupId <<<"$RESP")
req owner POST "/admin-api/groups/$G/tee-admit" "{\"identity\":\"$ID_t1\"}"
check "t1 admitted into a Restricted subgroup" status_is 200
"${M[@]}" fleet audit "$NS" --out "$WORK/exp-nokey" >/dev/null 2>&1
RC=$?
VS=$("$BIN/meroctl" --json audit verify "$WORK/exp-nokey")
check "no disclosure: exit 0, the sealed admission counted, no subgroup event, no sealed/ file" eval '[ $RC = 0 ] && jq -e ".ok and .sealedOps >= 1 and ([.tees[].events[]|select(.group==\"$G\")]|length==0) and (.sealed|length==0)" <<<"$VS" >/dev/null && [ -z "$(ls "$WORK/exp-nokey/sealed")" ]'
"${M[@]}" fleet audit "$NS" --out "$WORK/exp-disc" --disclose-sealed >/dev/null 2>"$WORK/exp-disc.err"
RC=$?
VD=$("$BIN/meroctl" --json audit verify "$WORK/exp-disc")
RC2=$?
sub_ev() { jq -c "[.tees[]|select(.identity==\"$ID_t1\")|.events[]|select(.group==\"$G\" and .kind==\"admitted\")]" <<<"$VD"; }
echo "# t1's subgroup admission: $(sub_ev)"
check "--disclose-sealed: export and verify exit 0, nothing left sealed" eval '[ $RC = 0 ] && [ $RC2 = 0 ] && jq -e ".ok and .sealedOps == 0 and (.sealed|length >= 1) and all(.sealed[]; .applied)" <<<"$VD" >/dev/null'
check "t1's subgroup admission on its timeline: disclosed, unauthenticated, its root admission's facts" eval 'jq -e "length == 1 and (.[0].checks.dcap.detail|test(\"disclosed by the exporter\")) and .[0].checks.binding.verdict == \"ok\" and .[0].checks.policy.verdict == \"ok\"" <<<"$(sub_ev)" >/dev/null'
SF=$(jq -r ".sealed[0].file" <<<"$VD")
check "the export holds the plaintext files and no key" eval '[ -s "$WORK/exp-disc/$SF" ] && [ "$(ls "$WORK/exp-disc")" = "$(printf "%s\n" collateral manifest.json ops quotes releases report.html sealed)" ]'
rm -rf "$WORK/t-sealed" && cp -r "$WORK/exp-disc" "$WORK/t-sealed" && flip "$WORK/t-sealed/$SF"
"$BIN/meroctl" audit verify "$WORK/t-sealed" >/dev/null 2>"$WORK/t-sealed.err"
RC=$?
check "a flipped byte in a disclosed plaintext: exit 2 naming $SF" eval '[ $RC = 2 ] && grep -qF "$SF" "$WORK/t-sealed.err"'
req owner GET "/admin-api/namespaces/$NS/ops?disclose=keys"
check "ops route: disclose takes only sealed (400)" status_is 400

check "no crash in any log" eval '! grep -qiE "panicked|AddressSanitizer|segmentation" "$WORK"/*.log'
finish
