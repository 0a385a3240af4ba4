#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# fleet_view.sh - the fleet view (issue 19, docs/fleet.md) across merod processes on
# 127.0.0.1: the reference scenario (an owner and two mock TEEs fleet-joined, one by prompt,
# one directly) plus one refused joiner (its mock MRTD, zeros, outside the policy then in
# force) and one evicted TEE. The owner's GET /admin-api/groups/NS/fleet has every field, and
# right: the policy as GET tee-admission-policy serves it, roles, isTee, measurements and the
# policy entry they match, evidence fresh with its lapse time, who admitted each TEE, last
# seen through sync; the refused attempt with its rule and reason; the evicted TEE gone from
# the members, its admission still in the log (and the evicted node's own log purged). A
# replica's and the refused joiner's views hold what they heard. `meroctl fleet` shows it, as
# a table, as JSON and watching.
. "$(dirname "$0")/admission_lib.bash"

start_node owner --mock-tee
O=$(p2p_addr owner)
OID=$(jq -r .peerId "$WORK/owner/run.json")
for n in t1 t2 t3 t4; do start_node $n --mock-tee --bootstrap "$O"; done
start_node plain --bootstrap "$O" # issue 35: a plain member another node added

req owner POST /admin-api/namespaces '{}'
NS=$(jq -r .data.namespaceId <<<"$RESP")
OWNER=$(jq -r .data.identity <<<"$RESP")
req owner POST "/admin-api/groups/$NS/contexts" '{}'
check "owner creates a namespace and a context" status_is 200

# the refused joiner: the policy lists an MRTD its (mock, zero) quote does not have
set_zero_policy owner "$NS" true "$(hex96 1)"
fleet_join t3 "$NS" "[\"$O\"]"
check "t3 refused: MRTD not in the lists" eval 'jq_is .data.admitted false && refusal_has "MRTD not in policy allowlist"'
T3=$(jq -r .data.public_key <<<"$RESP")

set_zero_policy owner "$NS" true
fleet_join t1 "$NS"
check "t1 admitted by prompt" jq_is .data.admitted true
T1=$(jq -r .data.public_key <<<"$RESP")
fleet_join t2 "$NS" "[\"$O\"]"
check "t2 admitted directly" jq_is .data.admitted true
T2=$(jq -r .data.public_key <<<"$RESP")
fleet_join t4 "$NS" "[\"$O\"]"
check "t4 admitted directly" jq_is .data.admitted true
T4=$(jq -r .data.public_key <<<"$RESP")

req owner DELETE "/admin-api/groups/$NS/members/$T4"
check "owner evicts t4" status_is 200
check "t4 self-purged the namespace" wait_for 15 grep -q "self-purge: evicted TEE; namespace" "$WORK/t4.log"

# issue 35 item 6: a plain Member that joined by id (the owner added it; it never decided an
# admission here) is seen through its signed sync HELLO and named by its own --name
req plain POST "/admin-api/namespaces/$NS/join" '{}'
PLAIN=$(jq -r .data.identity <<<"$RESP")
req owner POST "/admin-api/groups/$NS/members" "{\"identity\":\"$PLAIN\",\"role\":\"Member\"}"
check "plain added as a Member" status_is 200

fleet() { req "$1" GET "/admin-api/groups/$NS/fleet${2:-}"; }
# the owner pulls from every peer every 2 s: both replicas are seen through sync
seen_by_sync() { fleet owner && jq_is "[.data.members[]|select(.lastSeenVia==\"sync\")]|length" 3; }
check "owner: both replicas and the plain member last seen via sync" wait_for 15 seen_by_sync
named() { fleet owner && jq_is "[.data.members[]|select(.nameSource==\"announced\")]|length" 3; }
check "owner: both replicas and the plain member named as they announced" wait_for 15 named
D=$RESP
dq() { jq -r "$1" <<<"$D"; }
mem() { dq ".data.members[]|select(.identity==\"$1\")|$2"; }
att() { dq "[.data.attempts[]|select(.identity==\"$1\")][0]|$2"; }

check "document: group, namespace, whose view" eval '[ "$(dq .data.groupId)" = "$NS" ] && [ "$(dq .data.namespaceId)" = "$NS" ] && [ "$(dq .data.viewOf.peerId)" = "$OID" ] && [ "$(dq .data.viewOf.identity)" = "$OWNER" ]'
check "document: generatedAt is now" eval '[ $(( $(date +%s) - $(dq .data.generatedAt) )) -lt 60 ]'
check "document: evidence ages" eval '[ "$(dq .data.evidence.refreshSeconds)" = 43200 ] && [ "$(dq .data.evidence.maxAgeSeconds)" = 86400 ]'
req owner GET "/admin-api/groups/$NS/settings/tee-admission-policy"
check "document: the policy is the policy route's data" eval '[ "$(jq -cS .data <<<"$RESP")" = "$(jq -cS .data.policy <<<"$D")" ]'
check "document: every top-level field" eval '[ "$(dq ".data|keys|join(\",\")")" = "attempts,evidence,generatedAt,groupId,members,namespaceId,policy,viewOf" ]'

check "members: owner, t1, t2, plain (t4 evicted is gone)" eval '[ "$(dq "[.data.members[].identity]|sort|join(\",\")")" = "$(printf "%s\n" "$OWNER" "$T1" "$T2" "$PLAIN" | sort | paste -sd,)" ]'
check "member fields all present" eval '[ "$(dq "[.data.members[]|keys|join(\",\")]|unique|join(\";\")")" = "admittedAt,admittedBy,identity,isTee,lastSeen,lastSeenVia,name,nameSource,role,tee" ]'
check "owner row: its own --name, last seen now (self)" eval '[ "$(mem "$OWNER" .name)/$(mem "$OWNER" .nameSource)" = owner/self ] && [ "$(mem "$OWNER" .lastSeenVia)" = self ] && [ "$(mem "$OWNER" .lastSeen)" = "$(dq .data.generatedAt)" ]'
check "plain row: a Member that never decided an admission here, named and last seen via sync" eval '[ "$(mem "$PLAIN" .role)" = Member ] && [ "$(mem "$PLAIN" .name)/$(mem "$PLAIN" .nameSource)" = plain/announced ] && [ "$(mem "$PLAIN" .lastSeenVia)" = sync ] && [ $(( $(dq .data.generatedAt) - $(mem "$PLAIN" .lastSeen) )) -lt 60 ]'
check "owner row: Admin, not a TEE, the creator" eval '[ "$(mem "$OWNER" .role)" = Admin ] && [ "$(mem "$OWNER" .isTee)" = false ] && [ "$(mem "$OWNER" .tee)" = null ] && [ "$(mem "$OWNER" .admittedBy)" = null ]'
for t in T1 T2; do
    id=${!t}
    check "$t row: ReadOnlyTee TEE admitted by the owner" eval '[ "$(mem "$id" .role)" = ReadOnlyTee ] && [ "$(mem "$id" .isTee)" = true ] && [ "$(mem "$id" .admittedBy)" = "$OWNER" ] && [ "$(mem "$id" ".admittedAt|type")" = number ]'
    check "$t row: measurements zero, matching allowedMrtd[0]" eval '[ "$(mem "$id" .tee.measurements.mrtd)" = "$ZERO96" ] && [ "$(mem "$id" .tee.measurements.rtmr3)" = "$ZERO96" ] && [ "$(mem "$id" .tee.matched.kind)" = policy ] && [ "$(mem "$id" .tee.matched.name)" = "allowedMrtd[0]" ]'
    check "$t row: TCB Mock, no advisories, a quote hash" eval '[ "$(mem "$id" .tee.tcbStatus)" = Mock ] && [ "$(mem "$id" ".tee.advisoryIds|length")" = 0 ] && [[ "$(mem "$id" .tee.quoteHash)" =~ ^[0-9a-f]{64}$ ]]'
    check "$t row: evidence fresh, lapsing a day after it was attested" eval '[ "$(mem "$id" .tee.evidenceState)" = fresh ] && [ "$(mem "$id" ".tee.evidenceLapsesAt - .tee.evidenceAt")" = 86400 ] && [ "$(mem "$id" ".tee.evidenceAgeSeconds < 43200 and .tee.evidenceAgeSeconds >= 0")" = true ]'
    check "$t row: named ${t,,} as its node announced" eval '[ "$(mem "$id" .name)/$(mem "$id" .nameSource)" = "${t,,}/announced" ]'
    check "$t row: last seen via sync, recently" eval '[ "$(mem "$id" .lastSeenVia)" = sync ] && [ $(( $(dq .data.generatedAt) - $(mem "$id" .lastSeen) )) -lt 60 ]'
done

check "attempt fields all present" eval '[ "$(dq "[.data.attempts[]|keys|join(\",\")]|unique|join(\";\")")" = "admitter,at,identity,matched,measurements,path,peerId,reason,rule,tcbStatus,verdict" ]'
check "attempts newest first" eval '[ "$(dq "[.data.attempts[].at] as \$a|\$a == (\$a|sort|reverse)")" = true ]'
check "the refused attempt: t3, direct, its rule and reason" eval '[ "$(att "$T3" .verdict)" = refused ] && [ "$(att "$T3" .path)" = direct ] && [ "$(att "$T3" .rule)" = MrtdNotAllowed ] && [ "$(att "$T3" .reason)" = "MRTD not in policy allowlist" ] && [ "$(att "$T3" .peerId)" = "$(jq -r .peerId "$WORK/t3/run.json")" ] && [ "$(att "$T3" .admitter)" = "$OWNER" ]'
check "the refused attempt: what it presented, matching nothing" eval '[ "$(att "$T3" .measurements.mrtd)" = "$ZERO96" ] && [ "$(att "$T3" .matched.kind)" = none ] && [ "$(att "$T3" .tcbStatus)" = Mock ]'
check "t1 admitted on the prompt path, t2 on the direct path" eval '[ "$(att "$T1" .verdict)/$(att "$T1" .path)" = admitted/prompt ] && [ "$(att "$T2" .verdict)/$(att "$T2" .path)" = admitted/direct ] && [ "$(att "$T1" .rule)" = null ] && [ "$(att "$T2" .matched.name)" = "allowedMrtd[0]" ]'
check "the evicted t4's admission stays in the log" eval '[ "$(att "$T4" .verdict)" = admitted ] && [ "$(att "$T4" .admitter)" = "$OWNER" ]'

fleet owner "?attempts=1"
check "?attempts=1 keeps the newest only" eval 'status_is 200 && jq_is ".data.attempts|length" 1 && jq_is ".data.attempts[0].at" "$(dq .data.attempts[0].at)"'
fleet owner "?attempts=0"
check "?attempts=0: none" eval 'status_is 200 && jq_is ".data.attempts|length" 0'
fleet owner "?attempts=1001"
check "?attempts=1001: 400" err_has 400 "attempts"
req owner GET "/admin-api/groups/$(hex64 7)/fleet"
check "unknown group: 404" err_is 404 "group not found"
req owner GET "/admin-api/groups/xyz/fleet"
check "malformed group id: 400" status_is 400
req owner GET "/admin-api/groups/$NS/fleet" "" noauth
check "without the token: 401" status_is 401

# a replica's view: its own admission as heard, t2's learned from the op log
t1_heard() { fleet t1 && jq_is "[.data.attempts[]|select(.identity==\"$T2\" and .admitter==\"$OWNER\")][0].verdict" admitted; }
check "t1 holds t2's admission (from the op log)" wait_for 10 t1_heard
check "t1's view is its own" eval 'jq_is .data.viewOf.identity "$T1" && jq_is ".data.members|length" 4'
# t1 learned of t2 and plain from the op log; the owner's own HELLO names it and binds its peer
t1_names_owner() { fleet t1 && jq_is ".data.members[]|select(.identity==\"$OWNER\")|.name" owner; }
check "t1 names the owner as the owner's node announced" wait_for 10 t1_names_owner
check "t1 heard from the owner recently" eval '[ "$(jq -r ".data.members[]|select(.identity==\"$OWNER\")|.lastSeenVia" <<<"$RESP")" != null ] && [ $(( $(jq -r .data.generatedAt <<<"$RESP") - $(jq -r ".data.members[]|select(.identity==\"$OWNER\")|.lastSeen" <<<"$RESP") )) -lt 60 ]'
check "t1 heard its own admission on the prompt path" jq_is "[.data.attempts[]|select(.identity==\"$T1\" and .path==\"prompt\")][0].verdict" admitted
fleet t3
check "t3 heard its refusal with the rule and reason" eval 'jq_is "[.data.attempts[]|select(.identity==\"$T3\")][0].rule" MrtdNotAllowed && jq_is "[.data.attempts[]|select(.identity==\"$T3\")][0].reason" "MRTD not in policy allowlist"'
t4_purged() {
    python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); sys.exit(0 if c.execute("select count(*) from adm_attempts where hex(ns)=upper(?)",(sys.argv[2],)).fetchone()[0]==0 else 1)' "$WORK/t4/node.db" "$NS"
}
check "the evicted t4's own attempt log for the namespace is purged" t4_purged

# meroctl fleet
M=("$BIN/meroctl" --node "${URL[owner]}" --token-file "$WORK/owner/admin-token")
OUT=$("${M[@]}" fleet "$NS")
RC=$?
check "meroctl fleet: exit 0" eval '[ $RC = 0 ]'
check "meroctl fleet: short ids, names, roles, matched entry, evidence state, admitter by name" eval 'grep -qF "${T1:0:8}…" <<<"$OUT" && grep -q "${T1:0:8}… *t1 *ReadOnlyTee.*allowedMrtd\[0\].*Mock.*s fresh *owner .*(sync)" <<<"$OUT" && grep -q "${OWNER:0:8}… *owner *Admin .*now (this node)" <<<"$OUT" && grep -q "${PLAIN:0:8}… *plain *Member" <<<"$OUT"'
check "meroctl fleet: the refusal with its rule and reason" grep -qE "ago +${T3:0:8}… +refused +direct +MrtdNotAllowed: MRTD not in policy allowlist" <<<"$OUT"
check "meroctl fleet: the evicted t4 only among the attempts" eval '[ "$(grep -c "${T4:0:8}…" <<<"$OUT")" = 1 ]'
J=$("${M[@]}" --json fleet "$NS" --attempts 2)
check "meroctl --json fleet: the document" eval '[ "$(jq -r .groupId <<<"$J")" = "$NS" ] && [ "$(jq ".attempts|length" <<<"$J")" = 2 ] && [ "$(jq ".members|length" <<<"$J")" = 4 ]'
"${M[@]}" fleet nothex >/dev/null 2>&1
RC=$?
check "meroctl fleet: a bad id is exit 1" eval '[ $RC = 1 ]'
"${M[@]}" fleet "$(hex64 7)" >/dev/null 2>&1
RC=$?
check "meroctl fleet: an unknown group is exit 1" eval '[ $RC = 1 ]'
printf '%064d\n' 0 >"$WORK/bad-token" && chmod 600 "$WORK/bad-token"
"$BIN/meroctl" --node "${URL[owner]}" --token-file "$WORK/bad-token" fleet "$NS" >/dev/null 2>&1
RC=$?
check "meroctl fleet: a wrong token is exit 4" eval '[ $RC = 4 ]'
timeout --preserve-status -s INT 5 "${M[@]}" --json fleet "$NS" --watch 1 >"$WORK/watch.out" 2>"$WORK/watch.err"
RC=$?
check "meroctl fleet --watch: Ctrl-C ends it with exit 0" eval '[ $RC = 0 ]'
check "meroctl --json fleet --watch: one JSON document per line" eval '[ -s "$WORK/watch.out" ] && jq -e -s "all(.groupId == \"$NS\")" "$WORK/watch.out" >/dev/null && [ "$(wc -l <"$WORK/watch.out")" = "$(jq -s length "$WORK/watch.out")" ]'
timeout --preserve-status -s INT 3 "${M[@]}" fleet "$NS" --watch 1 >"$WORK/watch.txt" 2>&1
check "meroctl fleet --watch: the table, no ANSI codes off a terminal" eval 'grep -q "recent admission attempts" "$WORK/watch.txt" && ! grep -q $'"'"'\033'"'"' "$WORK/watch.txt"'

# issue 35 item 6: an admin's label, checked, persisted, shown instead of the announced name
lab() { req owner "$1" "/admin-api/groups/$NS/members/$2/label" "${3-}" "${4:-auth}"; }
LONG="tdx-replica eu-west-1 ünïcode — rack 42"
lab PUT "$T2" "$(jq -nc --arg l "$LONG" '{label: $l}')"
check "label: PUT sets it" eval 'status_is 200 && jq_is .data.label "$LONG" && jq_is .data.identity "$T2"'
lab PUT "$T2" "$(jq -nc --arg l "$(printf "%065d" 0)" '{label: $l}')"
check "label: 65 bytes is 400" err_has 400 "at most 64 bytes"
lab PUT "$T2" "$(jq -nc --arg l "$(printf "%064d" 0)" '{label: $l}')"
check "label: 64 bytes is accepted" status_is 200
lab PUT "$T2" '{"label":"tab\there"}'
check "label: a control character is 400" err_has 400 "no control character"
lab PUT "$T2" '{"label":"c1\u0085"}'
check "label: a C1 control character is 400" err_has 400 "no control character"
lab PUT "$T2" $'{"label":"bad \xff utf8"}'
check "label: bytes that are not UTF-8 are 400" status_is 400
lab PUT "$T2" '{"label":""}'
check "label: empty is 400" err_has 400 "must not be empty"
lab PUT "$T2" '{"label":"   "}'
check "label: only spaces is 400" err_has 400 "only spaces"
lab PUT "$T2" '{"label":"x","extra":1}'
check "label: another field is 400" status_is 400
lab PUT "$T3" '{"label":"x"}'
check "label: an identity that is not a member is 404" err_is 404 "not a member of this group"
lab PUT "$T2" '{"label":"x"}' noauth
check "label: without the token 401" status_is 401
"${M[@]}" group members label "$NS" "$T2" "$LONG" >/dev/null
RC=$?
check "meroctl group members label: exit 0" eval '[ $RC = 0 ]'
"${M[@]}" group members label "$NS" "$T2" $'ctl\x07' >/dev/null 2>&1
RC=$?
check "meroctl group members label: a refused name is exit 1" eval '[ $RC = 1 ]'
fleet owner
check "the label replaces the announced name" eval 'jq_is ".data.members[]|select(.identity==\"$T2\")|.name" "$LONG" && jq_is ".data.members[]|select(.identity==\"$T2\")|.nameSource" label'
OUT=$("${M[@]}" fleet "$NS")
check "meroctl fleet: a long name cut to its column with …" grep -q "${T2:0:8}… *tdx-replica eu-… *ReadOnlyTee" <<<"$OUT"
stop_node owner
run_node owner --mock-tee
fleet owner
check "the label survives a restart (node.db)" jq_is ".data.members[]|select(.identity==\"$T2\")|.name" "$LONG"
"${M[0]}" --node "${URL[owner]}" --token-file "$WORK/owner/admin-token" group members label "$NS" "$T2" --clear >/dev/null
RC=$?
fleet owner
check "meroctl group members label --clear forgets it" eval '[ $RC = 0 ] && status_is 200 && [ "$(jq -r ".data.members[]|select(.identity==\"$T2\")|.nameSource" <<<"$RESP")" != label ]'

check "no crash in any log" eval '! grep -qiE "panicked|AddressSanitizer|segmentation" "$WORK"/*.log'
finish
