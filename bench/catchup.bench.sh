#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# catchup.bench.sh - issue 37 end to end: how soon a new TEE replica serves a context after its
# admission, with merod processes on 127.0.0.1. The owner writes CATCHUP_WRITES writes over
# CATCHUP_KEYS keys (one keep-alive connection); a --mock-tee replica then joins the namespace
# (POST /admin-api/tee/fleet-join: prompted, challenged, quote verified, admitted, key
# delivered). The clock starts when fleet-join answers "admitted" and stops when the replica
# serves the last key's latest value (polled every 5 ms; the live state is installed in one
# transaction, so every key is there then), and every key's latest value is checked after.
# Prints `bench catchup_admitted_to_serving_<W>w_<K>k <ms> ms` and, for the whole join,
# `bench catchup_join_to_serving_<W>w_<K>k <ms> ms`; the replica's log says whether it caught up by live
# state. Default 20,000 writes (the issue's target: within 2 s of admission on two cores);
# CATCHUP_WRITES=100000 for the larger context.
set -u
. "$(dirname "$0")/../tests/e2e/admission_lib.bash"
WRITES=${CATCHUP_WRITES:-20000}
KEYS=${CATCHUP_KEYS:-100}
start_node owner --mock-tee
O=$(p2p_addr owner)
req owner POST /admin-api/namespaces '{}'
NS=$(jq -r .data.namespaceId <<<"$RESP")
req owner POST "/admin-api/groups/$NS/contexts" '{}'
CTX=$(jq -r .data.contextId <<<"$RESP")
set_zero_policy owner "$NS" true
status_is 200 || echo "# the policy was refused: $RESP"
python3 - "$WRITES" "$KEYS" "$CTX" "${URL[owner]}" "${TOKEN[owner]}" <<'PY' || exit 1
import http.client, json, sys, time, urllib.parse
writes, keys, ctx, url, tok = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
u = urllib.parse.urlparse(url)
c = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
h = {"Authorization": "Bearer " + tok, "Content-Type": "application/json"}
t = time.monotonic()
for i in range(writes):
    c.request("PUT", f"/admin-api/contexts/{ctx}/kv/k{i % keys}", json.dumps({"value": f"v{i}"}), h)
    r = c.getresponse()
    r.read()
    if r.status != 200:
        sys.exit(f"# write {i} refused: {r.status}")
print(f"# owner wrote {writes} writes over {keys} keys in {time.monotonic() - t:.1f} s")
PY
start_node replica --mock-tee --bootstrap "$O"
T_JOIN=$(date +%s%N)
fleet_join replica "$NS" "[\"$O\"]"
T_ADMITTED=$(date +%s%N)
jq_is .data.admitted true || { echo "# the replica was not admitted: $RESP"; exit 1; }
python3 - "$WRITES" "$KEYS" "$CTX" "${URL[replica]}" "${TOKEN[replica]}" "$T_JOIN" "$T_ADMITTED" <<'PY'
import http.client, json, sys, time, urllib.parse
writes, keys, ctx, url, tok = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
t_join, t_adm = int(sys.argv[6]) / 1e9, int(sys.argv[7]) / 1e9
u = urllib.parse.urlparse(url)
c = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
h = {"Authorization": "Bearer " + tok}
def value(k):
    c.request("GET", f"/admin-api/contexts/{ctx}/kv/{k}", headers=h)
    r = c.getresponse()
    body = r.read()
    return json.loads(body)["data"]["value"] if r.status == 200 else None
last = writes - 1
deadline = time.time() + 120
while value(f"k{last % keys}") != f"v{last}":
    if time.time() > deadline:
        sys.exit("# the replica did not serve the latest value within 120 s")
    time.sleep(0.005)
t = time.time()
bad = [k for k in range(keys) if value(f"k{k}") != f"v{writes - keys + k if writes >= keys else k}"]
if bad:
    sys.exit(f"# {len(bad)} keys not at their latest value, e.g. k{bad[0]}")
print(f"bench catchup_admitted_to_serving_{writes}w_{keys}k {(t - t_adm) * 1e3:.0f} ms")
print(f"bench catchup_join_to_serving_{writes}w_{keys}k {(t - t_join) * 1e3:.0f} ms")
PY
if grep -q "caught up by live state" "$WORK/replica.log"; then
    echo "# the replica caught up by live state"
else
    echo "# the replica did not catch up by live state"
fi
