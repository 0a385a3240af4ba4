#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# relay.bench.sh - what relaying costs (issue 15): latency from submitting a member's signed
# intent to a RelayTee (POST .../intents) until the value is readable on the owner, against a
# direct write by a member node (PUT .../kv) until readable on the owner, in the same run, N
# repetitions each, interleaved; prints both medians and relayed/direct (target <= 2). Three
# merod processes on 127.0.0.1 (owner, a --mock-tee relay, a member node); the owner is polled
# every 2 ms on one keep-alive connection.
set -u
. "$(dirname "$0")/../tests/e2e/relay_lib.bash"
N=${RELAY_BENCH_N:-25}
start_node owner --mock-tee
O=$(p2p_addr owner)
start_node relay --mock-tee --bootstrap "$O"
start_node member --bootstrap "$O"
req owner POST /admin-api/namespaces '{}'
NS=$(jq -r .data.namespaceId <<<"$RESP")
req owner POST "/admin-api/groups/$NS/contexts" '{}'
CTX=$(jq -r .data.contextId <<<"$RESP")
set_relay_policy owner "$NS" relay
fleet_join relay "$NS" "[\"$O\"]"
jq_is .data.admitted true || echo "# the relay was not admitted"
req member POST "/admin-api/namespaces/$NS/join" '{}'
MID=$(jq -r .data.identity <<<"$RESP")
member_add owner "$NS" "$MID" Member
SEED=$(client_seed)
CLIENT=$(client_pk "$SEED")
member_add owner "$NS" "$CLIENT" Member
wait_for 15 role_is relay "$NS" "$CLIENT" Member || echo "# the relay did not learn the client"
# the member node must hold the key before it can write
mkey() { req member PUT "/admin-api/contexts/$CTX/kv/warmup" '{"value":"w"}'; status_is 200; }
wait_for 20 mkey || echo "# the member node could not write"
python3 - "$N" "$SEED" "$NS" "$CTX" "${URL[owner]}" "${TOKEN[owner]}" "${URL[relay]}" \
    "${TOKEN[relay]}" "${URL[member]}" "${TOKEN[member]}" <<'PY'
import base64, http.client, json, os, statistics, struct, sys, time, urllib.parse
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey as K
from cryptography.hazmat.primitives import serialization as s
n, seed, ns, ctx = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
def conn(url, tok):
    u = urllib.parse.urlparse(url)
    return http.client.HTTPConnection(u.hostname, u.port), {
        "Authorization": "Bearer " + tok, "Content-Type": "application/json"}
owner, relay, member = conn(*sys.argv[5:7]), conn(*sys.argv[7:9]), conn(*sys.argv[9:11])
def req(c, m, p, b=None):
    c[0].request(m, p, body=json.dumps(b) if b is not None else None, headers=c[1])
    r = c[0].getresponse()
    d = r.read()
    return r.status, json.loads(d) if d else None
k = K.from_private_bytes(bytes.fromhex(seed))
pk = k.public_key().public_bytes(s.Encoding.Raw, s.PublicFormat.Raw)
def intent(key, value):
    now = int(time.time())
    b = bytes([1]) + bytes.fromhex(ns) + bytes.fromhex(ctx) + pk + bytes(32) + os.urandom(16)
    b += struct.pack("<QQ", now, now + 600) + bytes([0])
    b += struct.pack("<I", len(key)) + key.encode() + struct.pack("<I", len(value)) + value.encode()
    return base64.b64encode(b + k.sign(b"mero.relay.intent.v1" + b)).decode()
def until_on_owner(key, value, t0):
    while time.monotonic() - t0 < 30:
        st, r = req(owner, "GET", f"/admin-api/contexts/{ctx}/kv/{key}")
        if st == 200 and r["data"]["value"] == value:
            return time.monotonic() - t0
        time.sleep(0.002)
    return None
direct, relayed = [], []
for i in range(n):
    b64 = intent(f"r{i}", f"relayed {i}")  # signed by the client before the clock starts
    t0 = time.monotonic()
    st, _ = req(relay, "POST", f"/admin-api/contexts/{ctx}/intents", {"intent": b64})
    d = until_on_owner(f"r{i}", f"relayed {i}", t0) if st == 200 else None
    if d is not None:
        relayed.append(d)
    t0 = time.monotonic()
    st, _ = req(member, "PUT", f"/admin-api/contexts/{ctx}/kv/d{i}", {"value": f"direct {i}"})
    d = until_on_owner(f"d{i}", f"direct {i}", t0) if st == 200 else None
    if d is not None:
        direct.append(d)
if not direct or not relayed:
    print(f"# relay bench: {len(relayed)} relayed, {len(direct)} direct writes arrived")
    sys.exit(1)
md, mr = statistics.median(direct), statistics.median(relayed)
print("bench relay_direct_write_to_owner_median %.1f ms (n=%d)" % (md * 1e3, len(direct)))
print("bench relay_relayed_intent_to_owner_median %.1f ms (n=%d)" % (mr * 1e3, len(relayed)))
print("ratio relay_relayed_over_direct %.2f" % (mr / md))
PY
