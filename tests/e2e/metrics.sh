#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# metrics.sh - GET /metrics (issue 19, docs/metrics.md) across merod processes: every scrape
# passes `promtool check metrics` (Debian's prometheus package: the Prometheus project's own
# parser and linter for the text format); without the admin token it is 401 unless merod runs
# with --metrics-public; and the counters move as admissions happen: a fleet-join admitted
# and one refused by the MRTD rule are counted under their result and rule on the admitter,
# gossip and the op log grow, a replica's sync lag appears once it pulled the namespace, and
# an evicted TEE counts its self-purge. Issue 35: per-TEE evidence age and TCB status (namespace
# and member labels), mero_build_info and Prometheus' standard process_* metrics.
. "$(dirname "$0")/admission_lib.bash"
command -v promtool >/dev/null || { nok "promtool is installed (scripts/deps.sh)"; finish; exit 1; }

start_node owner --mock-tee
O=$(p2p_addr owner)
start_node t1 --mock-tee --bootstrap "$O"
start_node t2 --mock-tee --bootstrap "$O" --metrics-public

# scrape NODE [noauth]: the exposition in $WORK/NODE.prom, STATUS and the Content-Type in CT
scrape() {
    local auth=(-H "Authorization: Bearer ${TOKEN[$1]}")
    [ "${2:-}" = noauth ] && auth=()
    STATUS=$(curl -s -o "$WORK/$1.prom" -D "$WORK/$1.hdr" -w '%{http_code}' --max-time 30 \
        "${auth[@]}" "${URL[$1]}/metrics")
    CT=$(sed -n 's/^Content-Type: *//Ip' "$WORK/$1.hdr" | tr -d '\r')
}
# value NODE SERIES: the sample's value in the last scrape of NODE (empty when absent)
value() { awk -v k="$2" '$1 == k { print $2 }' "$WORK/$1.prom"; }
lint() { promtool check metrics <"$WORK/$1.prom" >"$WORK/promtool.out" 2>&1; }
ADMITTED='mero_admissions_total{result="admitted",rule=""}'
REFUSED_MRTD='mero_admissions_total{result="refused",rule="MrtdNotAllowed"}'

STATUS=$(curl -s -o "$WORK/resp" -w '%{http_code}' "${URL[owner]}/metrics")
check "no token: 401" eval 'status_is 401 && [ "$(jq -r .error.status "$WORK/resp")" = 401 ]'
STATUS=$(curl -s -o "$WORK/resp" -w '%{http_code}' -H "Authorization: Bearer $(hex64 7)" "${URL[owner]}/metrics")
check "a wrong token: 401" status_is 401
scrape t2 noauth
check "--metrics-public: 200 without a token" status_is 200
scrape owner
check "with the token: 200" status_is 200
check "Content-Type is the text format 0.0.4" eval '[ "$CT" = "text/plain; version=0.0.4; charset=utf-8" ]'
check "promtool check metrics passes (before)" lint owner
check "the admission counter starts at 0" eval '[ "$(value owner "$ADMITTED")" = 0 ]'
check "the DCAP histogram ends in +Inf" eval '[ -n "$(value owner "mero_dcap_verify_seconds_bucket{le=\"+Inf\"}")" ]'
check "challenge book capacity exported" eval '[ "$(value owner "mero_challenge_book_capacity{kind=\"offered\"}")" -gt 0 ]'
check "two peers connected to the owner" wait_for 10 eval 'scrape owner; [ "$(value owner mero_peers_connected)" = 2 ]'
check "nothing trimmed under the high watermark (the counter is exported, 0)" eval '[ "$(value owner mero_net_conns_trimmed_total)" = 0 ]'
GOSSIP_OUT0=$(value owner 'mero_gossip_messages_total{direction="out"}')

req owner POST /admin-api/namespaces '{}'
NS=$(jq -r .data.namespaceId <<<"$RESP")
set_zero_policy owner "$NS" true
fleet_join t1 "$NS"
check "t1 admitted" jq_is .data.admitted true
T1=$(jq -r .data.public_key <<<"$RESP")
scrape owner
check "promtool check metrics passes (after an admission)" lint owner
check "the admitted counter moved 0 -> 1" eval '[ "$(value owner "$ADMITTED")" = 1 ]'
check "nothing counted as refused yet" eval '! grep -q "^mero_admissions_total{result=\"refused\"" "$WORK/owner.prom"'
check "the owner published gossip" eval '[ "$(value owner "mero_gossip_messages_total{direction=\"out\"}")" -gt "$GOSSIP_OUT0" ]'
NSL="namespace=\"${NS:0:16}\""
check "the op log gauge of the namespace (first 16 hex)" eval '[ "$(value owner "mero_oplog_ops{$NSL}")" -gt 0 ]'
# issue 35: per-TEE evidence age and TCB status, build info, the standard process metrics
T1L="member=\"${T1:0:16}\""
check "t1's evidence age on the owner, by namespace and member (seconds, fresh)" \
    wait_for 20 eval 'scrape owner; a=$(value owner "mero_tee_evidence_age_seconds{$NSL,$T1L}"); [ -n "$a" ] && [ "$a" -ge 0 ] && [ "$a" -lt 3600 ]'
check "  below the refresh age the alert rule compares it with" eval '[ "$(value owner mero_tee_evidence_refresh_seconds)" = 43200 ] && [ "$(value owner mero_tee_evidence_max_age_seconds)" = 86400 ]'
check "t1's TCB status, one series labelled with it" eval '[ "$(grep -c "^mero_tee_tcb_status{$NSL,$T1L,status=\"[A-Za-z]*\"} 1$" "$WORK/owner.prom")" = 1 ]'
check "no TEE row for the owner itself (not a TEE)" eval '[ "$(grep -c "^mero_tee_evidence_age_seconds{" "$WORK/owner.prom")" = 1 ]'
COMMIT=$(git -C "$(dirname "$0")" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
check "mero_build_info: version and commit" eval 'grep -qE "^mero_build_info\{version=\"[0-9]+\.[0-9]+\.[0-9]+\",commit=\"[0-9a-f]{12}|unknown\"\} 1$" "$WORK/owner.prom"'
PID=$(jq -r .pid "$WORK/owner/run.json")
# the descriptors and the CPU time, read from outside just before and just after a fresh
# scrape (connections come and go while the TEE's links settle; a node idle since its start
# may have used less than one clock tick): the node's own figures lie between (descriptors give
# or take 10)
TCK=$(getconf CLK_TCK)
cpu_out() { awk -v t="$TCK" '{ sub(/.*\) /, ""); printf "%.2f", ($12 + $13) / t }' "/proc/$PID/stat"; }
fds_before=$(ls /proc/$PID/fd | wc -l); cpu_before=$(cpu_out)
scrape owner
fds_after=$(ls /proc/$PID/fd | wc -l); cpu_after=$(cpu_out)
NOW=$(date +%s)
rss=$(value owner process_resident_memory_bytes); fds=$(value owner process_open_fds)
st=$(value owner process_start_time_seconds); cpu=$(value owner process_cpu_seconds_total)
echo "# process: rss=$rss fds=$fds ($fds_before, $fds_after) start=$st now=$NOW cpu=$cpu ($cpu_before, $cpu_after)"
check "process_* metrics: memory, CPU, fds, start time (the owner's own process)" eval '
    awk -v r="$rss" -v f="$fds" -v s="$st" -v c="$cpu" -v n="$NOW" -v a="$fds_before" \
        -v b="$fds_after" -v c0="$cpu_before" -v c1="$cpu_after" \
        "BEGIN { lo = a < b ? a : b; hi = a < b ? b : a
                 exit !(r > 1e6 && f > 3 && f <= hi + 10 && f >= lo - 10 && s > n - 3600 && s <= n + 1 &&
                        c != \"\" && c >= c0 - 0.001 && c <= c1 + 0.001) }"'
check "promtool check metrics passes (with the TEE, build and process families)" lint owner

set_zero_policy owner "$NS" true "$(hex96 1)"
fleet_join t2 "$NS" "[\"$O\"]"
check "t2 refused (MRTD not allowed)" eval 'status_is 200 && jq_is .data.admitted false'
scrape owner
check "promtool check metrics passes (after a refusal)" lint owner
check "refused counted under its rule" eval '[ "$(value owner "$REFUSED_MRTD")" = 1 ]'
check "the admitted counter did not move" eval '[ "$(value owner "$ADMITTED")" = 1 ]'

# t1 pulls the namespace from the owner (sync every few seconds): its lag appears
check "t1's sync of the namespace is recorded" wait_for 20 eval 'scrape t1; [ -n "$(value t1 "mero_sync_last_success_timestamp_seconds{$NSL}")" ]'
check "t1's sync lag is small once synced" eval '[ "$(value t1 "mero_sync_lag_seconds{$NSL}")" -lt 60 ]'
check "t1 received gossip" eval '[ "$(value t1 "mero_gossip_messages_total{direction=\"in\"}")" -gt 0 ]'
check "promtool check metrics passes (replica)" lint t1
# issue 33: the credential of t1's admission was checked by signature on the owner (at the
# admission's apply); both answers of the memory are exposed
check "the owner checked a credential's signature" eval '[ "$(value owner "mero_signature_checks_total{answer=\"verified\"}")" -gt 0 ]'
check "the memory's answers are exposed" eval '[ -n "$(value owner "mero_signature_checks_total{answer=\"memory\"}")" ]'
# issue 33: the prompts' fates, the ones dropped before a signature check included
PROMPTS='mero_admission_prompts_total{fate='
check "the prompts' three fates are exposed" eval '[ -n "$(value owner "${PROMPTS}\"forwarded\"}")" ] && [ -n "$(value owner "${PROMPTS}\"held\"}")" ] && [ -n "$(value owner "${PROMPTS}\"unchecked\"}")" ]'

# eviction: t1 purges the namespace and counts it
check "t1 counts no purge yet" eval '[ "$(value t1 mero_purges_total)" = 0 ]'
req owner DELETE "/admin-api/groups/$NS/members/$T1"
check "the owner evicts t1" status_is 200
check "t1 counts its self-purge" wait_for 20 eval 'scrape t1; [ "$(value t1 mero_purges_total)" = 1 ]'
check "the purged namespace leaves t1's per-namespace gauges" eval '! grep -q "$NSL" "$WORK/t1.prom"'
finish
