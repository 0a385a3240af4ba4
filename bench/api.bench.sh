#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# api.bench.sh - admin API throughput of one merod --mock-tee on loopback, driven by one curl
# process over one keep-alive connection (so the client's process start-up is not measured):
# mock attest, kv PUT (signed, encrypted, committed with synchronous=FULL before the reply),
# kv GET; and replication latency (a write on one node until a second node serves it).
set -u
. "$(dirname "$0")/../tests/e2e/node_lib.bash"
ns_now() { date +%s%N; }
rate() { # name count start end
    awk -v n="$2" -v s="$3" -v e="$4" -v name="$1" \
        'BEGIN { printf "bench %s %.0f req/s\n", name, n / ((e - s) / 1e9) }'
}
start_node a --mock-tee
U=${URL[a]}
T=${TOKEN[a]}
N=$(hex64 1)
req a POST /admin-api/namespaces '{}'
NS=$(jq -r .data.namespaceId <<<"$RESP")
req a POST "/admin-api/groups/$NS/contexts" '{}'
CTX=$(jq -r .data.contextId <<<"$RESP")

COUNT=500
for i in $(seq $COUNT); do
    printf 'url = "%s/admin-api/tee/attest"\ndata = "{\\"nonce\\":\\"%s\\"}"\noutput = "/dev/null"\nnext\n' "$U" "$N"
done >"$WORK/attest.cfg"
s=$(ns_now); curl -s -K "$WORK/attest.cfg" 2>/dev/null; e=$(ns_now)
rate api_attest_mock $COUNT "$s" "$e"

for i in $(seq $COUNT); do
    printf 'url = "%s/admin-api/contexts/%s/kv/k%d"\nrequest = "PUT"\nheader = "Authorization: Bearer %s"\ndata = "{\\"value\\":\\"v%d\\"}"\noutput = "/dev/null"\nnext\n' "$U" "$CTX" "$i" "$T" "$i"
done >"$WORK/put.cfg"
s=$(ns_now); curl -s -K "$WORK/put.cfg" 2>/dev/null; e=$(ns_now)
rate api_kv_put $COUNT "$s" "$e"

for i in $(seq $COUNT); do
    printf 'url = "%s/admin-api/contexts/%s/kv/k%d"\nheader = "Authorization: Bearer %s"\noutput = "/dev/null"\nnext\n' "$U" "$CTX" "$i" "$T"
done >"$WORK/get.cfg"
s=$(ns_now); curl -s -K "$WORK/get.cfg" 2>/dev/null; e=$(ns_now)
rate api_kv_get $COUNT "$s" "$e"

start_node b --mock-tee --bootstrap "$(p2p_addr a)"
req b POST "/admin-api/namespaces/$NS/join" '{}'
IDB=$(jq -r .data.identity <<<"$RESP")
req a POST "/admin-api/groups/$NS/members" "{\"identity\":\"$IDB\",\"role\":\"Member\"}"
wait_for 20 kv_is b "$CTX" k$COUNT v$COUNT >/dev/null
s=$(ns_now)
req a PUT "/admin-api/contexts/$CTX/kv/latency" '{"value":"x"}'
wait_for 10 kv_is b "$CTX" latency x >/dev/null
e=$(ns_now)
awk -v s="$s" -v e="$e" 'BEGIN { printf "bench replication_write_to_peer_read %.1f ms\n", (e - s) / 1e6 }'
