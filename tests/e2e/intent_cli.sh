#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# intent_cli.sh - the client side of relay mode (issue 15, docs/relay.md), with no node:
# `meroctl key generate` writes a 0600 key file once (never overwriting) and prints its
# identity; `meroctl intent sign` prints a base64 intent whose every field is what was asked and
# whose signature an independent Ed25519 (python3-cryptography) verifies under the printed
# identity over "mero.relay.intent.v1" || body; --put/--delete are exclusive; a loose or
# corrupt key file is refused; `intent submit` refuses locally (exit 1) a malformed intent or
# one for another context, and only then contacts the node (an unreachable node: exit 3).
. "$(dirname "$0")/node_lib.bash"

STATUS= RESP=
M=$BIN/meroctl
run() { "$@" >"$WORK/out" 2>"$WORK/err"; RC=$?; }
NS=$(printf '11%.0s' $(seq 32))
CTX=$(printf '22%.0s' $(seq 32))
RELAY=$(printf '33%.0s' $(seq 32))
K=$WORK/client.key

run "$M" key generate --out "$K"
ID=$(tr -d '\n' <"$WORK/out")
check "key generate: exit 0, prints a 64-hex identity" eval '[ $RC -eq 0 ] && [[ $ID =~ ^[0-9a-f]{64}$ ]]'
check "key generate: the file is 0600" eval '[ "$(stat -c %a "$K")" = 600 ]'
cp "$K" "$WORK/before"
run "$M" --json key generate --out "$K"
check "key generate: an existing file is refused (exit 2) and left as it was" \
    eval '[ $RC -eq 2 ] && cmp -s "$K" "$WORK/before" && jq -e ".error.message | contains(\"never overwritten\")" "$WORK/out" >/dev/null'
ln -s "$WORK/nowhere" "$WORK/link.key"
run "$M" key generate --out "$WORK/link.key"
check "key generate: never through a symbolic link" eval '[ $RC -eq 2 ] && [ ! -e "$WORK/nowhere" ]'
run "$M" --json key generate --out "$WORK/second.key"
check "key generate --json: identity and path" \
    eval '[ $RC -eq 0 ] && jq -e --arg p "$WORK/second.key" ".path == \$p and (.identity | test(\"^[0-9a-f]{64}$\"))" "$WORK/out" >/dev/null'

run "$M" --json intent sign --key "$K" --namespace "$NS" --context "$CTX" --put 'greeting=hello, relay' --expires 600 --relay "$RELAY"
cp "$WORK/out" "$WORK/signed.json"
check "intent sign --json: intent, id, author (the key's identity), expiresAt" \
    eval '[ $RC -eq 0 ] && jq -e --arg a "$ID" ".author == \$a and (.id | test(\"^[0-9a-f]{64}$\")) and (.expiresAt | type == \"number\") and (.intent | type == \"string\")" "$WORK/signed.json" >/dev/null'

# An independent reading of the bytes (docs/relay.md) and an independent Ed25519.
verify() { # JSON-FILE NS CTX AUTHOR RELAY OP KEY VALUE LIFETIME
    python3 - "$@" <<'PY'
import base64, hashlib, json, struct, sys
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
doc = json.load(open(sys.argv[1]))
ns, ctx, author, relay, op, key, value, life = sys.argv[2:10]
b = base64.b64decode(doc["intent"], validate=True)
body, sig = b[:-64], b[-64:]
assert body[0] == 1
assert body[1:33].hex() == ns and body[33:65].hex() == ctx
assert body[65:97].hex() == author and body[97:129].hex() == relay
issued, expires = struct.unpack("<QQ", body[145:161])
assert expires - issued == int(life) and expires == doc["expiresAt"]
assert body[161] == int(op)
(klen,) = struct.unpack("<I", body[162:166])
assert body[166:166 + klen] == key.encode()
rest = body[166 + klen:]
if int(op) == 0:
    (vlen,) = struct.unpack("<I", rest[:4])
    assert rest[4:] == value.encode() and vlen == len(value)
else:
    assert rest == b""
msg = b"mero.relay.intent.v1" + body
Ed25519PublicKey.from_public_bytes(bytes.fromhex(author)).verify(sig, msg)
assert hashlib.sha256(msg).hexdigest() == doc["id"]
PY
}
check "intent sign: every field as asked, signature verifies independently, id = SHA-256" \
    verify "$WORK/signed.json" "$NS" "$CTX" "$ID" "$RELAY" 0 greeting 'hello, relay' 600

run "$M" intent sign --key "$K" --namespace "$NS" --context "$CTX" --delete greeting
B64=$(tr -d '\n' <"$WORK/out")
check "intent sign --delete: plain base64, zero warrant, default lifetime 3600 s" \
    eval '[ $RC -eq 0 ] && python3 -c "import base64,sys; base64.b64decode(sys.argv[1], validate=True)" "$B64"'
python3 - "$B64" "$ID" "$NS" "$CTX" >"$WORK/del.check" 2>&1 <<'PY'
import base64, struct, sys
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
b = base64.b64decode(sys.argv[1], validate=True)
body, sig = b[:-64], b[-64:]
assert body[97:129] == bytes(32) and body[161] == 1 and body[162:174] == b"\x08\x00\x00\x00greeting"
assert len(body) == 174
issued, expires = struct.unpack("<QQ", body[145:161])
assert expires - issued == 3600
Ed25519PublicKey.from_public_bytes(bytes.fromhex(sys.argv[2])).verify(sig, b"mero.relay.intent.v1" + body)
print("fine")
PY
check "intent sign --delete: the bytes and signature check independently" grep -qx fine "$WORK/del.check"

run "$M" intent sign --key "$K" --namespace "$NS" --context "$CTX" --put a=b --delete a
check "intent sign: --put and --delete are exclusive (exit 1)" eval '[ $RC -eq 1 ] && grep -q "exactly one" "$WORK/err"'
run "$M" intent sign --key "$K" --namespace "$NS" --context "$CTX" --put 'a/b=c'
check "intent sign: a key outside [A-Za-z0-9._:-] is refused (exit 1)" eval '[ $RC -eq 1 ]'
run "$M" intent sign --key "$K" --namespace "$NS" --context "$CTX" --put a=b --expires 86401
check "intent sign: a lifetime over 24 h is refused (exit 1)" eval '[ $RC -eq 1 ] && grep -q "1..86400" "$WORK/err"'
run "$M" intent sign --key "$K" --context "$CTX" --put a=b
check "intent sign: --namespace is required (exit 1)" eval '[ $RC -eq 1 ] && grep -q -- "--namespace" "$WORK/err"'
chmod 644 "$K"
run "$M" intent sign --key "$K" --namespace "$NS" --context "$CTX" --put a=b
check "intent sign: a key file readable by others is refused with the chmod to run" \
    eval '[ $RC -eq 1 ] && grep -q "chmod 600" "$WORK/err" && [ ! -s "$WORK/out" ]'
chmod 600 "$K"
printf 'not a key\n' >"$WORK/bad.key" && chmod 600 "$WORK/bad.key"
run "$M" intent sign --key "$WORK/bad.key" --namespace "$NS" --context "$CTX" --put a=b
check "intent sign: a corrupt key file is refused (exit 1)" eval '[ $RC -eq 1 ] && grep -q "does not hold" "$WORK/err"'

printf 'tok\n' >"$WORK/tok" && chmod 600 "$WORK/tok"
run "$M" --node http://127.0.0.1:1 --token-file "$WORK/tok" intent submit "$NS" "$B64"
check "intent submit: an intent for another context is refused locally (exit 1)" \
    eval '[ $RC -eq 1 ] && grep -q "another context" "$WORK/err"'
run "$M" --node http://127.0.0.1:1 --token-file "$WORK/tok" intent submit "$CTX" "AAAA${B64}"
check "intent submit: a malformed intent is refused locally (exit 1)" eval '[ $RC -eq 1 ] && grep -q "does not decode\|not standard base64" "$WORK/err"'
printf '%s\n' "$B64" | "$M" --node http://127.0.0.1:1 --token-file "$WORK/tok" intent submit "$CTX" - >"$WORK/out" 2>"$WORK/err"
RC=$?
check "intent submit -: reads standard input, then contacts the node (unreachable: exit 3)" eval '[ $RC -eq 3 ]'

finish
