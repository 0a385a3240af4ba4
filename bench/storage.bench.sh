#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# storage.bench.sh - what the storage checks cost (issue 21 item 7): merod's own CPU time per
# kv GET (each read is checked against its signed, encrypted delta; CPU time, read from
# /proc, is far less disturbed by a loaded machine than wall time), over 5000 GETs of 200
# 1000-byte values on one keep-alive connection; and the wall time of `merod check` on that
# home (integrity_check of both databases, op log replay, every delta and value verified).
set -u
. "$(dirname "$0")/../tests/e2e/node_lib.bash"
start_node a
python3 - "${URL[a]}" "${TOKEN[a]}" "${PIDS[a]}" <<'PY'
import http.client, json, os, sys, urllib.parse
u = urllib.parse.urlparse(sys.argv[1])
c = http.client.HTTPConnection(u.hostname, u.port)
H = {"Authorization": "Bearer " + sys.argv[2], "Content-Type": "application/json"}
def req(m, p, b=None):
    c.request(m, p, body=json.dumps(b) if b is not None else None, headers=H)
    r = c.getresponse()
    d = r.read()
    return r.status, json.loads(d) if d else None
def cpu():
    f = open(f"/proc/{sys.argv[3]}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")
_, r = req("POST", "/admin-api/namespaces", {})
ns = r["data"]["namespaceId"]
_, r = req("POST", f"/admin-api/groups/{ns}/contexts", {})
ctx = r["data"]["contextId"]
for i in range(200):
    req("PUT", f"/admin-api/contexts/{ctx}/kv/k{i}", {"value": "v" * 1000})
c0 = cpu()
for i in range(5000):
    s, _ = req("GET", f"/admin-api/contexts/{ctx}/kv/k{i % 200}")
    assert s == 200
print("bench kv_get_merod_cpu %.0f us" % ((cpu() - c0) / 5000 * 1e6))
PY
stop_node a
S=$(date +%s%N)
"$BIN/merod" check --home "$WORK/a" >/dev/null || echo "# merod check failed"
E=$(date +%s%N)
echo "bench merod_check_200_values $(((E - S) / 1000000)) ms"
