#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# api_bad_input.sh - hostile input against a running merod: oversized bodies (announced and
# chunked), malformed JSON, odd methods and paths, slow and half-open connections, and a flood
# of 1,000 concurrent requests (50 at a time) mixing reads and writes. The node must answer
# every request with a status, stay up, and lose no accepted write.
. "$(dirname "$0")/node_lib.bash"

start_node a --mock-tee
U=${URL[a]}
T=${TOKEN[a]}
N=$(hex64 3)

head -c 70000 /dev/zero | tr '\0' 'a' >"$WORK/big"
S=$(curl -s -o "$WORK/r" -w '%{http_code}' -X POST --data-binary @"$WORK/big" "$U/admin-api/tee/attest")
check "oversized body (Content-Length) 413" eval '[ "$S" = 413 ] && [ "$(jq -r .error.status "$WORK/r")" = 413 ]'
S=$(curl -s -o "$WORK/r" -w '%{http_code}' -X POST -H 'Transfer-Encoding: chunked' --data-binary @"$WORK/big" "$U/admin-api/tee/attest")
check "oversized chunked body 413" test "$S" = 413
req a POST /admin-api/tee/attest "$(printf '{"nonce":"%s"}' "$N" | head -c 20)" noauth
check "cut JSON 400" err_has 400 "not valid JSON"
req a POST /admin-api/tee/attest $'\xff\xfe{}' noauth
check "invalid UTF-8 400" status_is 400
req a POST /admin-api/tee/attest "{\"nonce\":\"$N\"}" noauth
check "node still answers after bad bodies" status_is 200
S=$(curl -s -o /dev/null -w '%{http_code}' -X PATCH "$U/admin-api/tee/info")
check "PATCH 405" test "$S" = 405
S=$(curl -s -o /dev/null -w '%{http_code}' "$U/")
check "root path 404" test "$S" = 404
S=$(curl -s -o /dev/null -w '%{http_code}' "$U/admin-api/groups/$N/members/$N/x/y/z")
check "deep unknown path 404" test "$S" = 404
S=$(curl -s -o /dev/null -w '%{http_code}' "$U/admin-api/tee/info/")
check "trailing slash still routes" test "$S" = 200
# half-open connections that never finish their request must not block others
for _ in 1 2 3 4 5; do
    (exec 3<>/dev/tcp/127.0.0.1/"${U##*:}"; printf 'POST /admin-api/tee/attest HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{' >&3; sleep 3) &
done
sleep 0.2
req a POST /admin-api/tee/attest "{\"nonce\":\"$N\"}" noauth
check "served while half-open connections hang" status_is 200

# The flood: 1,000 requests, 50 concurrent; every 4th one is a write (a kv PUT of its own
# key), the rest attest/info/unauthenticated reads. Every request must get a status and
# every write answered 200 must be readable afterwards.
req a POST /admin-api/namespaces '{}'
NS=$(jq -r .data.namespaceId <<<"$RESP")
req a POST "/admin-api/groups/$NS/contexts" '{}'
CTX=$(jq -r .data.contextId <<<"$RESP")
# four xargs pipelines of 250 curl runs each, 13 concurrent each (about 50 in flight),
# writing "<url> <status>" per request
W=(-s -o /dev/null -w '%{url} %{http_code}\n' --max-time 30)
seq 4 4 1000 | sed "s|^|$U/admin-api/contexts/$CTX/kv/k|" |
    xargs -P 13 -n 1 curl "${W[@]}" -X PUT -H "Authorization: Bearer $T" --data '{"value":"flood"}' >"$WORK/codes0" 2>/dev/null &
p0=$!
seq 1 4 1000 | sed "s|^|$U/admin-api/tee/attest?i=|" |
    xargs -P 13 -n 1 curl "${W[@]}" -X POST --data "{\"nonce\":\"$N\"}" >"$WORK/codes1" 2>/dev/null &
p1=$!
seq 2 4 1000 | sed "s|^|$U/admin-api/tee/info?i=|" | xargs -P 13 -n 1 curl "${W[@]}" >"$WORK/codes2" 2>/dev/null &
p2=$!
seq 3 4 1000 | sed "s|^|$U/admin-api/node?i=|" | xargs -P 13 -n 1 curl "${W[@]}" >"$WORK/codes3" 2>/dev/null &
p3=$!
wait $p0 $p1 $p2 $p3
cat "$WORK"/codes[0-3] >"$WORK/codes"
check "flood: 1000 answers" test "$(wc -l <"$WORK/codes")" -eq 1000
check "flood: no connection failures (000)" eval '! grep -q " 000$" "$WORK/codes"'
check "flood: statuses as expected (200 and 401 only)" eval '[ "$(cut -d" " -f2 "$WORK/codes" | sort -u | tr "\n" " ")" = "200 401 " ]'
check "flood: 250 unauthenticated reads refused 401" test "$(grep -c ' 401$' "$WORK/codes")" -eq 250
check "node alive after the flood" kill -0 "${PIDS[a]}"
# read back every acknowledged write in one curl process
grep '/kv/k[0-9]* 200$' "$WORK/codes" | cut -d' ' -f1 >"$WORK/acked"
acked=$(wc -l <"$WORK/acked")
sed 's/^/url = "/; s/$/"/' "$WORK/acked" >"$WORK/readback.cfg"
curl -s -H "Authorization: Bearer $T" -K "$WORK/readback.cfg" | jq -c '.data | [.key, .value]' >"$WORK/values"
lost=$(jq -r 'select(.[1] != "flood")' "$WORK/values" | wc -l)
got=$(wc -l <"$WORK/values")
lost=$((lost + acked - got))
check "flood: all 250 writes acknowledged" test "$acked" -eq 250
check "flood: no acknowledged write lost" test "$lost" -eq 0
finish
