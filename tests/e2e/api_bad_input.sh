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

# The flood: 1,000 requests, 50 concurrent; every 4th one is a write (policy PUT with a
# distinct RTMR0), the rest attest/info/unauthenticated. Every request must get a status.
NS=$(hex64 99)
req a POST /admin-api/namespaces '{}'
NS2=$(jq -r '.data.namespaceId // empty' <<<"$RESP")
[ -n "$NS2" ] && NS=$NS2
M=$(hex96 1)
cat >"$WORK/one.sh" <<EOS
#!/usr/bin/env bash
i=\$1
case \$((i % 4)) in
0) r0=\$(printf '%096x' "\$i")
   curl -s -o /dev/null -w '%{http_code}\n' --max-time 30 -X PUT -H "Authorization: Bearer $T" \
     --data "{\"allowedMrtd\":[\"$M\"],\"allowedRtmr0\":[\"\$r0\"],\"allowedRtmr1\":[\"$M\"],\"allowedRtmr2\":[\"$M\"],\"allowedRtmr3\":[\"$M\"]}" \
     "$U/admin-api/groups/$NS/settings/tee-admission-policy" ;;
1) curl -s -o /dev/null -w '%{http_code}\n' --max-time 30 -X POST --data '{"nonce":"$N"}' "$U/admin-api/tee/attest" ;;
2) curl -s -o /dev/null -w '%{http_code}\n' --max-time 30 "$U/admin-api/tee/info" ;;
3) curl -s -o /dev/null -w '%{http_code}\n' --max-time 30 "$U/admin-api/node" ;;
esac
EOS
chmod +x "$WORK/one.sh"
seq 1000 | xargs -P 50 -n 1 "$WORK/one.sh" >"$WORK/codes" 2>/dev/null
check "flood: 1000 answers" test "$(wc -l <"$WORK/codes")" -eq 1000
check "flood: no connection failures (000)" eval '! grep -q "^000" "$WORK/codes"'
check "flood: statuses as expected (200 and 401 only)" eval '[ "$(sort -u "$WORK/codes" | tr "\n" " ")" = "200 401 " ]'
check "flood: 250 unauthenticated reads refused 401" test "$(grep -c '^401' "$WORK/codes")" -eq 250
check "node alive after the flood" kill -0 "${PIDS[a]}"
req a GET "/admin-api/groups/$NS/settings/tee-admission-policy"
check "flood: last accepted write is readable" eval 'status_is 200 && jq_is ".data.allowedRtmr0|length" 1'
finish
