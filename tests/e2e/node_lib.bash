# SPDX-License-Identifier: Apache-2.0
# node_lib.bash - shared helpers for the merod e2e scripts (sourced, not run): TAP output,
# starting/stopping merod in temp homes on 127.0.0.1 with ephemeral ports read from run.json,
# and a curl wrapper that sets STATUS and RESP.
set -u
BIN=${MERO_BIN:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/build/release/bin}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/mero-e2e.XXXXXX")
declare -A PIDS URL TOKEN HOME_OF
TAPN=0
FAILS=0

cleanup() {
    for n in "${!PIDS[@]}"; do
        kill -TERM "${PIDS[$n]}" 2>/dev/null
    done
    sleep 0.2
    for n in "${!PIDS[@]}"; do
        kill -KILL "${PIDS[$n]}" 2>/dev/null
    done
    # a failing script leaves its node logs behind (tests/run.sh keeps stderr in its log folder)
    if [ "$FAILS" -gt 0 ]; then
        for f in "$WORK"/*.log; do
            [ -f "$f" ] || continue
            echo "=== ${f##*/} (last 300 lines)" >&2
            tail -n 300 "$f" >&2
        done
    fi
    # MERO_KEEP_WORK=DIR: a copy of the whole work folder (homes, databases, logs) to look at
    [ -n "${MERO_KEEP_WORK:-}" ] && cp -r "$WORK" "$MERO_KEEP_WORK"
    rm -rf "$WORK"
}
trap cleanup EXIT

ok() { TAPN=$((TAPN + 1)); echo "ok $TAPN - $1"; }
nok() { TAPN=$((TAPN + 1)); FAILS=$((FAILS + 1)); echo "not ok $TAPN - $1 # ${2:-}"; }
# check NAME COMMAND...: ok when the command succeeds
check() {
    local name=$1
    shift
    if "$@"; then ok "$name"; else nok "$name" "status=${STATUS:-} resp=${RESP:0:300}"; fi
}

# init_node NAME: a fresh home with ephemeral ports
init_node() {
    local n=$1
    HOME_OF[$n]=$WORK/$n
    "$BIN/merod" init --home "$WORK/$n" --name "$n" --api 127.0.0.1:0 \
        --listen /ip4/127.0.0.1/tcp/0 >/dev/null
}

# run_node NAME [merod run flags...]: start and wait for run.json (10 s)
run_node() {
    local n=$1
    shift
    rm -f "$WORK/$n/run.json"
    "$BIN/merod" run --home "$WORK/$n" "$@" >>"$WORK/$n.log" 2>&1 &
    PIDS[$n]=$!
    for _ in $(seq 100); do
        [ -s "$WORK/$n/run.json" ] && break
        sleep 0.1
    done
    URL[$n]=$(jq -r .apiUrl "$WORK/$n/run.json")
    TOKEN[$n]=$(tr -d '\n' <"$WORK/$n/admin-token")
}

start_node() { init_node "$1" && run_node "$@"; }

stop_node() {
    local n=$1
    kill -TERM "${PIDS[$n]}" 2>/dev/null
    for _ in $(seq 50); do
        kill -0 "${PIDS[$n]}" 2>/dev/null || break
        sleep 0.1
    done
    unset "PIDS[$n]"
}

# req NODE METHOD PATH [BODY] [auth|noauth|TOKEN]: sets STATUS and RESP
req() {
    local n=$1 m=$2 p=$3 body=${4-} auth=${5:-auth}
    local args=(-s -o "$WORK/resp" -w '%{http_code}' -X "$m" --max-time 30)
    case $auth in
    auth) args+=(-H "Authorization: Bearer ${TOKEN[$n]}") ;;
    noauth) ;;
    *) args+=(-H "Authorization: $auth") ;;
    esac
    if [ -n "$body" ]; then
        args+=(-H 'Content-Type: application/json' --data-binary "$body")
    fi
    STATUS=$(curl "${args[@]}" "${URL[$n]}$p")
    RESP=$(cat "$WORK/resp" 2>/dev/null)
}

# status_is CODE; msg_is TEXT; jq_is FILTER VALUE
status_is() { [ "$STATUS" = "$1" ]; }
msg_is() { [ "$(jq -r .error.message <<<"$RESP")" = "$1" ]; }
msg_has() { jq -r .error.message <<<"$RESP" | grep -qF -- "$1"; }
jq_is() { [ "$(jq -r "$1" <<<"$RESP")" = "$2" ]; }
err_is() { status_is "$1" && jq_is .error.status "$1" && msg_is "$2"; }
err_has() { status_is "$1" && jq_is .error.status "$1" && msg_has "$2"; }

hex64() { printf "%064d" "$1"; }
hex96() { printf "%096d" "$1"; }

finish() {
    echo "1..$TAPN"
    [ "$FAILS" -eq 0 ]
}

# edpk: a fresh, valid Ed25519 public key (hex), for member identities of absent nodes
edpk() {
    python3 -c 'from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey as K
from cryptography.hazmat.primitives import serialization as s
print(K.generate().public_key().public_bytes(s.Encoding.Raw, s.PublicFormat.Raw).hex())'
}

# wait_for SECONDS COMMAND...: poll every 0.2 s until the command succeeds
wait_for() {
    local limit=$1
    shift
    local end=$((SECONDS + limit))
    while [ $SECONDS -lt $end ]; do
        "$@" && return 0
        sleep 0.2
    done
    "$@"
}

# kv_is NODE CTX KEY VALUE
kv_is() {
    req "$1" GET "/admin-api/contexts/$2/kv/$3"
    status_is 200 && jq_is .data.value "$4"
}

p2p_addr() { jq -r '.listenAddrs[0]' "$WORK/$1/run.json"; }

# ---- two admins of one namespace (issue 30's reproductions: gov_convergence, gov_nominee) ----
# role_on NODE ID ROLE: NODE lists ID in namespace $NS with ROLE
role_on() {
    req "$1" GET "/admin-api/groups/$NS/members"
    jq_is ".members|map(select(.identity==\"$2\"))[0].role" "$3"
}
# log_of NODE: NODE's op log of $NS, {heads, opCount}
log_of() { req "$1" GET "/admin-api/namespaces/$NS/log"; jq -c '.data|{heads,opCount}' <<<"$RESP"; }
# two_admins: nodes a and b up; a creates a namespace ($NS, a's identity $IDA), b joins ($IDB)
# and a makes b an Admin, until b sees itself one
two_admins() {
    start_node a
    start_node b --bootstrap "$(p2p_addr a)"
    req a POST /admin-api/namespaces '{}'
    NS=$(jq -r .data.namespaceId <<<"$RESP")
    IDA=$(jq -r .data.identity <<<"$RESP")
    req b POST "/admin-api/namespaces/$NS/join" '{}'
    IDB=$(jq -r .data.identity <<<"$RESP")
    check "b joins with its own identity" eval '[ ${#IDB} = 64 ] && [ "$IDA" != "$IDB" ]'
    req a POST "/admin-api/groups/$NS/members" "{\"identity\":\"$IDB\",\"role\":\"Member\"}"
    req a PUT "/admin-api/groups/$NS/members/$IDB/role" '{"role":"Admin"}'
    check "a makes b an Admin" status_is 200
    check "b sees itself an Admin" wait_for 15 role_on b "$IDB" Admin
}
# b_removes_a_unseen: with a stopped, b removes a; then b stops and a runs again, not knowing it
b_removes_a_unseen() {
    stop_node a
    req b DELETE "/admin-api/groups/$NS/members/$IDA"
    check "b removes a (200)" status_is 200
    stop_node b
    run_node a
}
