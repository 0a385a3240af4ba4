#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# api_hostile_paths.sh - issue 21 items 8 and 11 (API input): an encoded NUL anywhere in the
# path or query is refused 400 (it used to cut the path: `%00anything/join` created a
# namespace, `kv/secret%00.public` wrote `secret`); path segments are decoded one by one
# (`%2F` stays in its key, a bad escape is 400); two Content-Length headers, or
# Content-Length with Transfer-Encoding, are refused 400 and the connection closed; an
# admitterAddrs peer id in the `Qm...` form is 400, not 500. libmicrohttpd's own refusals
# (505, 413 on an absurd Content-Length, 400 on bad chunking) are not ours to reshape: the
# node answers them with a status and stays up (docs/api.md).
. "$(dirname "$0")/node_lib.bash"

STATUS= RESP=
start_node a --mock-tee
U=${URL[a]}
PORT=${U##*:}
# raw REQUEST: send REQUEST (printf escapes) on a fresh connection, RAW gets the answer
raw() {
    RAW=$(python3 - "$PORT" "$1" <<'EOF'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
s.sendall(sys.argv[2].encode().decode("unicode_escape").encode("latin1"))
out = b""
try:
    while True:
        b = s.recv(65536)
        if not b:
            break
        out += b
except socket.timeout:
    out += b"\n<timeout>"
sys.stdout.write(out.decode("latin1"))
EOF
)
}
raw_status() { head -1 <<<"$RAW" | cut -d' ' -f2; }
raw_body() { sed -n '/^\r$/,$p' <<<"$RAW" | tail -n +2; }

req a GET /admin-api/node
NNS=$(jq '.data.namespaces | length' <<<"$RESP")
req a POST "/admin-api/namespaces/%00anything/join" '{}'
check "%00 in a path segment: 400" err_has 400 "NUL byte"
req a GET /admin-api/node
check "... and no namespace was created" jq_is '.data.namespaces | length' "$NNS"

req a POST /admin-api/namespaces '{}'
NS=$(jq -r .data.namespaceId <<<"$RESP")
req a POST "/admin-api/groups/$NS/contexts" '{}'
CTX=$(jq -r .data.contextId <<<"$RESP")
req a PUT "/admin-api/contexts/$CTX/kv/secret%00.public" '{"value":"leak"}'
check "%00 inside a kv key: 400" err_has 400 "NUL byte"
req a GET "/admin-api/contexts/$CTX/kv/secret"
check "... and key 'secret' was not written" status_is 404
req a GET "/admin-api/tee/info?x=%00" "" noauth
check "%00 in the query of a public route: 400" err_has 400 "NUL byte"
req a GET "/admin-api/tee/info?x=%2500" "" noauth
check "an encoded percent sign before 00 is no NUL: 200" status_is 200
# the same cut with a raw NUL byte in the request line (not encoded)
T=${TOKEN[a]}
raw "PUT /admin-api/contexts/$CTX/kv/rawsecret\\x00.public HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer $T\r\nContent-Length: 13\r\nConnection: close\r\n\r\n{\"value\":\"v\"}"
check "raw NUL byte in the request path: 400" test "$(raw_status)" = 400
req a GET "/admin-api/contexts/$CTX/kv/rawsecret"
check "... and key 'rawsecret' was not written" status_is 404
raw "GET /admin-api/tee/info?x=\\x00y HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
check "raw NUL byte in the query: 400" test "$(raw_status)" = 400
raw "GET /admin-api/tee/info HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
check "the same request line without the NUL: 200" test "$(raw_status)" = 200
req a PUT "/admin-api/contexts/$CTX/kv/a%2Fb" '{"value":"v"}'
check "%2F stays inside its segment (key 'a/b' refused by the key rule, 400)" err_has 400 "key may hold only"
req a PUT "/admin-api/contexts/$CTX/kv/k%zz" '{"value":"v"}'
check "a bad escape: 400" err_has 400 "percent-encoding"
req a PUT "/admin-api/contexts/$CTX/kv/k%3" '{"value":"v"}'
check "a cut escape: 400" err_has 400 "percent-encoding"
req a PUT "/admin-api/contexts/$CTX/kv/k%31" '{"value":"one"}'
check "an escaped allowed character decodes: key k1 written" eval 'status_is 200 && jq_is .data.key k1'
check "... and reads back as k1" kv_is a "$CTX" k1 one
req a PUT "/admin-api/contexts/$CTX/kv/a%3Fb" '{"value":"v"}'
check "an escaped ? is part of the key (refused by the key rule, 400)" err_has 400 "key may hold only"
req a GET "/admin-api/contexts/$CTX/kv/a"
check "... and key 'a' was not written" status_is 404

# a body the route would accept, so only the framing can refuse it
B="{\"nonce\":\"$(hex64 7)\"}"
L=${#B}
raw "POST /admin-api/tee/attest HTTP/1.1\r\nHost: x\r\nContent-Length: $L\r\nContent-Length: 5\r\n\r\n$B"
check "two different Content-Length headers: 400" test "$(raw_status)" = 400
check "... with the JSON error envelope" eval '[ "$(raw_body | jq -r .error.message)" = "conflicting Content-Length / Transfer-Encoding headers" ]'
check "... and the connection closed after it" grep -qi '^Connection: close' <<<"$RAW"
raw "POST /admin-api/tee/attest HTTP/1.1\r\nHost: x\r\nContent-Length: $L\r\nContent-Length: $L\r\nConnection: close\r\n\r\n$B"
check "two equal Content-Length headers: 400" test "$(raw_status)" = 400
raw "POST /admin-api/tee/attest HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\nConnection: close\r\n\r\n$(printf %x "$L")\r\n$B\r\n0\r\n\r\n"
check "Content-Length with Transfer-Encoding: 400" test "$(raw_status)" = 400
raw "POST /admin-api/tee/attest HTTP/1.1\r\nHost: x\r\nContent-Length: $L\r\nConnection: close\r\n\r\n$B"
check "the same request with one Content-Length: 200" test "$(raw_status)" = 200
T=${TOKEN[a]}
raw "GET /admin-api/node HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer $T\r\nAuthorization: Bearer x\r\nConnection: close\r\n\r\n"
check "two Authorization headers: 400" test "$(raw_status)" = 400

QM=QmYyQSo1c1Ym7orWxLYvCrM2EmxFTANf8wXmmE7DWjhx5N
req a POST /admin-api/tee/fleet-join "{\"groupId\":\"$NS\",\"admitterAddrs\":[\"/ip4/127.0.0.1/tcp/1/p2p/$QM\"]}"
check "admitterAddrs with a Qm... peer id: 400" err_has 400 "admitterAddrs[0]"

# libmicrohttpd's own answers: a status, and the node stays up
raw $'GET /admin-api/tee/info HTTP/2.0\r\nHost: x\r\nConnection: close\r\n\r\n'
check "HTTP/2.0 request line: libmicrohttpd answers 505" test "$(raw_status)" = 505
raw $'POST /admin-api/tee/attest HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999999\r\nConnection: close\r\n\r\n'
check "absurd Content-Length: 413" test "$(raw_status)" = 413
raw $'POST /admin-api/tee/attest HTTP/1.1\r\nHost: x\r\nContent-Length: 70000\r\nConnection: close\r\n\r\n'
check "Content-Length over our limit: 413 in the JSON envelope" eval '[ "$(raw_status)" = 413 ] && [ "$(raw_body | jq -r .error.status)" = 413 ]'
req a GET /admin-api/tee/info "" noauth
check "node still serves after all of it" status_is 200
finish
