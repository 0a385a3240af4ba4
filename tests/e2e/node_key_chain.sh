#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# node_key_chain.sh - issue 31 "bindNodeKey that means something": a client that attested a
# relay checks a relayed write's signature chain back to the attested key, using only the
# API's answers (docs/relay.md "The chain to the attested key"). An owner and a --mock-tee
# relay r1 (mode=relay); a member client's intent is carried by r1. Then, from r1's answers
# alone: the quote (bindNodeKey) commits to nonce || key binding of boundPublicKey; r1's
# identity certificate for the namespace is signed by that key; the relayed delta's executor
# is the certified identity and its signature verifies under it; its author is the client and
# its id is the SHA-256 of its bytes. A certificate or a delta from elsewhere does not verify.
. "$(dirname "$0")/relay_lib.bash"

start_node owner --mock-tee
O=$(p2p_addr owner)
start_node r1 --mock-tee --bootstrap "$O"
req owner POST /admin-api/namespaces '{}'
NS=$(jq -r .data.namespaceId <<<"$RESP")
req owner POST "/admin-api/groups/$NS/contexts" '{}'
CTX=$(jq -r .data.contextId <<<"$RESP")
set_relay_policy owner "$NS" relay
check "policy mode=relay" status_is 200
fleet_join r1 "$NS" "[\"$O\"]"
check "r1 admitted" jq_is .data.admitted true
SEED=$(client_seed)
CLIENT=$(client_pk "$SEED")
member_add owner "$NS" "$CLIENT" Member
check "the client is a Member" status_is 200
req owner PUT "/admin-api/contexts/$CTX/kv/w0" '{"value":"warm"}'
check "r1 holds the key and the membership" eval 'wait_for 15 kv_is r1 "$CTX" w0 warm && wait_for 10 role_is r1 "$NS" "$CLIENT" Member'
submit r1 "$CTX" "$(sign_intent "$SEED" "$NS" "$CTX" greeting hello)"
check "r1 carries the intent" status_is 200
DELTA=$(jq -r .data.deltaId <<<"$RESP")

# ---- the chain, from r1's answers only
NONCE=$(hex64 9)
req r1 POST /admin-api/tee/attest "{\"nonce\":\"$NONCE\",\"bindNodeKey\":true}" noauth
ATTEST=$RESP
req r1 GET "/admin-api/namespaces/$NS/identity-certificate"
CERT=$RESP
check "the identity certificate route answers" status_is 200
req r1 GET "/admin-api/deltas/$DELTA"
DELTA_RESP=$RESP
check "the delta route answers" status_is 200
req owner GET "/admin-api/namespaces/$NS/identity-certificate"
OWNER_CERT=$RESP

chain() { # what to check: all | foreign-cert | tampered-delta
    python3 - "$1" "$NONCE" "$CLIENT" "$DELTA" "$ATTEST" "$CERT" "$DELTA_RESP" "$OWNER_CERT" <<'PY'
import base64, hashlib, json, sys
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey as P
what, nonce, client, delta_id = sys.argv[1:5]
attest, cert, dresp, owner_cert = (json.loads(x)["data"] for x in sys.argv[5:9])
if what == "foreign-cert":
    cert = owner_cert
def verify(pk_hex, sig_hex, msg):
    P.from_public_bytes(bytes.fromhex(pk_hex)).verify(bytes.fromhex(sig_hex), msg)
key = attest["boundPublicKey"]
# 1. the quote commits to nonce || SHA-256("calimero.tee-attest.key-binding.v1" || 0^32 || key)
want = nonce + hashlib.sha256(b"calimero.tee-attest.key-binding.v1" + bytes(32) + bytes.fromhex(key)).hexdigest()
assert attest["quote"]["body"]["reportdata"] == want, "report data"
# 2. the attested key signed the certificate for this namespace's identity
assert cert["nodeKey"] == key, "certificate of another node key"
verify(key, cert["signature"], b"mero.node.identity-cert.v1" + bytes.fromhex(cert["namespaceId"]) + bytes.fromhex(cert["identity"]))
# 3. the relayed delta: executor = certified identity, signed by it, authored by the client
d = base64.b64decode(dresp["delta"])
if what == "tampered-delta":
    d = d[:200] + bytes([d[200] ^ 1]) + d[201:]
assert hashlib.sha256(d).hexdigest() == delta_id == dresp["deltaId"], "delta id"
assert d[0] == 2 and d[33:65].hex() == client, "version / author"
assert d[117:149].hex() == cert["identity"], "executor is not the certified identity"
verify(cert["identity"], d[-64:].hex(), b"mero.context.delta.v2" + d[:-64])
print("chain ok")
PY
}
check "the chain holds: quote -> node key -> certificate -> executor -> delta signature" \
    bash -c "$(declare -f chain); $(declare -p NONCE CLIENT DELTA ATTEST CERT DELTA_RESP OWNER_CERT); chain all | grep -q 'chain ok'"
check "another node's certificate does not complete the chain" \
    bash -c "$(declare -f chain); $(declare -p NONCE CLIENT DELTA ATTEST CERT DELTA_RESP OWNER_CERT); ! chain foreign-cert >/dev/null 2>&1"
check "a delta changed by one bit does not verify" \
    bash -c "$(declare -f chain); $(declare -p NONCE CLIENT DELTA ATTEST CERT DELTA_RESP OWNER_CERT); ! chain tampered-delta >/dev/null 2>&1"
req r1 GET "/admin-api/deltas/$(hex64 1)"
check "an unknown delta is 404" status_is 404
req r1 GET "/admin-api/namespaces/$(hex64 2)/identity-certificate"
check "a namespace without an identity here is 404" status_is 404
req r1 GET "/admin-api/namespaces/$NS/identity-certificate" "" noauth
check "the certificate route is protected (401 without the token)" status_is 401
finish
