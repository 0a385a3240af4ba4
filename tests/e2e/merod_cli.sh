#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# merod_cli.sh - `merod init` / `merod run` as a process: modes of what init writes, refusal
# of a second init, of loose key/token/home permissions and of bad arguments; run.json with
# the real ephemeral ports; clean stop on SIGTERM and SIGINT (run.json removed, exit 0);
# restart carries on (same peer id, same namespaces); the thread pool is sized to the cores
# unless UV_THREADPOOL_SIZE says otherwise.
. "$(dirname "$0")/node_lib.bash"

init_node a
H=$WORK/a
mode() { stat -c %a "$1"; }
check "init: home 0700" test "$(mode "$H")" = 700
check "init: identity.key 0600" test "$(mode "$H/identity.key")" = 600
check "init: admin-token 0600, 64 hex" eval '[ "$(mode "$H/admin-token")" = 600 ] && grep -qE "^[0-9a-f]{64}$" "$H/admin-token"'
check "init: node.db 0600" test "$(mode "$H/node.db")" = 600
check "init: config.json names api and listen" eval 'jq -e ".api==\"127.0.0.1:0\" and .listen[0]==\"/ip4/127.0.0.1/tcp/0\"" "$H/config.json" >/dev/null'
"$BIN/merod" init --home "$H" >/dev/null 2>&1
check "second init refused (exit 2)" test $? -eq 2
"$BIN/merod" init >/dev/null 2>&1
check "init without --home: exit 1" test $? -eq 1
"$BIN/merod" init --home "$WORK/x" --api nope >/dev/null 2>&1
check "init with a bad --api: exit 2" test $? -eq 2
"$BIN/merod" frobnicate >/dev/null 2>&1
check "unknown command: exit 1" test $? -eq 1
"$BIN/merod" run --home "$H" --bogus >/dev/null 2>&1
check "run with an unknown option: exit 1" test $? -eq 1

chmod 644 "$H/identity.key"
OUT=$(timeout 10 "$BIN/merod" run --home "$H" 2>&1)
RC=$?
check "run refuses a 0644 identity.key (exit 2, names the file)" eval '[ $RC -eq 2 ] && grep -q "identity.key" <<<"$OUT"'
chmod 600 "$H/identity.key"
chmod 640 "$H/admin-token"
timeout 10 "$BIN/merod" run --home "$H" >/dev/null 2>&1
check "run refuses a group-readable admin-token" test $? -eq 2
chmod 600 "$H/admin-token"
chmod 755 "$H"
timeout 10 "$BIN/merod" run --home "$H" >/dev/null 2>&1
check "run refuses a 0755 home" test $? -eq 2
chmod 700 "$H"

run_node a --mock-tee
R=$H/run.json
check "run.json: real ports, peer id, pid" eval 'jq -e "(.api|endswith(\":0\")|not) and (.listenAddrs[0]|contains(\"/tcp/0/\")|not) and (.peerId|startswith(\"12D3KooW\")) and .pid > 0" "$R" >/dev/null'
check "log names the peer id and listen address" eval 'grep -q "peer id $(jq -r .peerId "$R")" "$WORK/a.log" && grep -q "listening on /ip4/127.0.0.1/tcp/" "$WORK/a.log"'
np=$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc) # the cores this process may use
want=$((np < 4 ? 4 : np > 128 ? 128 : np))
check "the thread pool is sized to the cores (at least 4)" grep -q "thread pool: $want workers (one per core" "$WORK/a.log"
PEER=$(jq -r .peerId "$R")
req a POST /admin-api/namespaces '{}'
NS=$(jq -r .data.namespaceId <<<"$RESP")
PID=${PIDS[a]}
kill -TERM "$PID"
wait "$PID"
RC=$?
unset "PIDS[a]"
check "SIGTERM: clean stop, exit 0" test $RC -eq 0
check "SIGTERM: run.json removed" test ! -e "$R"
UV_THREADPOOL_SIZE=3 run_node a --mock-tee
check "restart: same peer id" test "$(jq -r .peerId "$R")" = "$PEER"
check "an operator's UV_THREADPOOL_SIZE wins" grep -q "thread pool: UV_THREADPOOL_SIZE=3, the operator's" "$WORK/a.log"
req a GET /admin-api/node
check "restart: carries on from its database" jq_is ".data.namespaces[0].namespaceId" "$NS"
PID=${PIDS[a]}
kill -INT "$PID"
wait "$PID"
RC=$?
unset "PIDS[a]"
check "SIGINT: clean stop, exit 0" test $RC -eq 0
finish
