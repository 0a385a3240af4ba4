#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tls_admin.sh - issue 31 "bindTlsKey that can be used": `merod run --tls-cert F --tls-key F`
# serves the admin API over HTTPS (run.json's apiUrl says https), and a quote asked for with
# bindTlsKey commits to the SPKI of the certificate the node actually serves: the script reads
# the served certificate off the TLS connection (openssl s_client), hashes its SPKI and checks
# the quote's report data against nonce || SHA-256("calimero.tee-attest.tls-key.v1" || 32 zeros
# || spki). Without a certificate bindTlsKey stays 409; a key that is not the certificate's, or
# one flag without the other, is refused at start.
ROOT=${MERO_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$ROOT/tests/e2e/node_lib.bash"
RESP=
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=127.0.0.1 \
    -keyout "$WORK/key.pem" -out "$WORK/cert.pem" 2>/dev/null
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=other \
    -keyout "$WORK/other.pem" -out "$WORK/other-cert.pem" 2>/dev/null

init_node t
out=$("$BIN/merod" run --home "$WORK/t" --mock-tee --tls-cert "$WORK/cert.pem" \
    --tls-key "$WORK/other.pem" 2>&1); rc=$?
check "a key that is not the certificate's is refused at start" \
    bash -c '[ "$0" != 0 ] && grep -q "not a PEM certificate and its private key" <<<"$1"' "$rc" "$out"
out=$("$BIN/merod" run --home "$WORK/t" --mock-tee --tls-cert "$WORK/cert.pem" 2>&1); rc=$?
check "--tls-cert without --tls-key is refused" \
    bash -c '[ "$0" != 0 ] && grep -q "go together" <<<"$1"' "$rc" "$out"

run_node t --mock-tee --tls-cert "$WORK/cert.pem" --tls-key "$WORK/key.pem"
check "run.json's apiUrl is https" bash -c '[[ "$0" == https://127.0.0.1:* ]]' "${URL[t]}"
NONCE=$(hex64 5)
RESP=$(curl -sk -X POST -H 'Content-Type: application/json' \
    -d "{\"nonce\":\"$NONCE\",\"bindTlsKey\":true}" "${URL[t]}/admin-api/tee/attest")
RD=$(jq -r .data.quote.body.reportdata <<<"$RESP")
HP=${URL[t]#https://}
SPKI=$(openssl s_client -connect "$HP" </dev/null 2>/dev/null | openssl x509 -pubkey -noout |
    openssl pkey -pubin -outform DER | sha256sum | cut -d' ' -f1)
WANT=$(python3 -c 'import hashlib, sys
print(sys.argv[1] + hashlib.sha256(b"calimero.tee-attest.tls-key.v1" + bytes(32) + bytes.fromhex(sys.argv[2])).hexdigest())' "$NONCE" "$SPKI")
check "bindTlsKey: the quote commits to nonce || TLS binding of the served certificate's SPKI" \
    bash -c '[ ${#0} = 128 ] && [ "$0" = "$1" ]' "$RD" "$WANT"
HTTP=$(curl -s -o /dev/null -w '%{http_code}' "http://$HP/admin-api/health")
check "plain HTTP is not served on the TLS port" bash -c '[ "$0" != 200 ]' "$HTTP"
stop_node t

start_node u --mock-tee
req u POST /admin-api/tee/attest "{\"nonce\":\"$NONCE\",\"bindTlsKey\":true}"
check "without a certificate bindTlsKey is 409" status_is 409
finish
