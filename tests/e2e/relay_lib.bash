# SPDX-License-Identifier: Apache-2.0
# relay_lib.bash - helpers for the relay e2e scripts (sourced): admission_lib.bash plus a client
# key and intent signer written from docs/relay.md alone (Python `cryptography`), so the scripts
# can also craft what meroctl refuses to make (expired, forged, another relay's warrant), the
# relay-mode policy, and the intents route.
. "$(dirname "${BASH_SOURCE[0]}")/admission_lib.bash"

# set_relay_policy NODE NS MODE: the zero-measurement mock policy in MODE (relay|replica)
set_relay_policy() {
    req "$1" PUT "/admin-api/groups/$2/settings/tee-admission-policy" \
        "{\"allowedMrtd\":[\"$ZERO96\"],\"allowedRtmr1\":[\"$ZERO96\"],\"allowedRtmr2\":[\"$ZERO96\"],\"allowedRtmr3\":[\"$ZERO96\"],\"acceptMock\":true,\"mode\":\"$3\"}"
}

# client_seed: a fresh 32-byte seed (hex); client_pk SEED: its identity (hex)
client_seed() { python3 -c 'import os; print(os.urandom(32).hex())'; }
client_pk() {
    python3 -c 'import sys
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey as K
from cryptography.hazmat.primitives import serialization as s
k = K.from_private_bytes(bytes.fromhex(sys.argv[1]))
print(k.public_key().public_bytes(s.Encoding.Raw, s.PublicFormat.Raw).hex())' "$1"
}

# sign_intent SEED NS CTX KEY VALUE [ISSUED_OFFSET EXPIRES_OFFSET RELAY_HEX FORGE]: a put intent
# as base64 (docs/relay.md "The intent, byte by byte"); offsets in seconds from now (default
# 0 and 600); RELAY_HEX the warrant (default zero: any relay); FORGE=1 flips a signature bit.
sign_intent() {
    python3 - "$@" <<'PY'
import base64, os, struct, sys, time
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey as K
from cryptography.hazmat.primitives import serialization as s
a = sys.argv[1:]
seed, ns, ctx, key, value = a[0], a[1], a[2], a[3].encode(), a[4].encode()
iss = int(a[5]) if len(a) > 5 else 0
exp = int(a[6]) if len(a) > 6 else 600
relay = bytes.fromhex(a[7]) if len(a) > 7 and a[7] else bytes(32)
forge = len(a) > 8 and a[8] == "1"
k = K.from_private_bytes(bytes.fromhex(seed))
pk = k.public_key().public_bytes(s.Encoding.Raw, s.PublicFormat.Raw)
now = int(time.time())
b = bytes([1]) + bytes.fromhex(ns) + bytes.fromhex(ctx) + pk + relay + os.urandom(16)
b += struct.pack("<QQ", now + iss, now + exp) + bytes([0])
b += struct.pack("<I", len(key)) + key + struct.pack("<I", len(value)) + value
sig = bytearray(k.sign(b"mero.relay.intent.v1" + b))
if forge:
    sig[5] ^= 1
print(base64.b64encode(b + bytes(sig)).decode())
PY
}

# submit NODE CTX B64 [forge]: POST the intent (the test-only forge route with "forge")
submit() {
    local path="/admin-api/contexts/$2/intents"
    [ "${4:-}" = forge ] && path="/admin-api/test/contexts/$2/intents/forge"
    req "$1" POST "$path" "{\"intent\":\"$3\"}"
}

# member_add NODE NS ID ROLE
member_add() { req "$1" POST "/admin-api/groups/$2/members" "{\"identity\":\"$3\",\"role\":\"$4\"}"; }

# kv_absent NODE CTX KEY: the key holds no value on NODE
kv_absent() { req "$1" GET "/admin-api/contexts/$2/kv/$3"; status_is 404; }

# kv_author_is NODE CTX KEY AUTHOR
kv_author_is() { req "$1" GET "/admin-api/contexts/$2/kv/$3"; status_is 200 && jq_is .data.author "$4"; }

# role_is NODE NS ID ROLE
role_is() {
    req "$1" GET "/admin-api/groups/$2/members"
    jq_is "[.members[]|select(.identity==\"$3\")][0].role" "$4"
}
