#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# merod_home_lock.sh - merod owns its directory (issue 18): a second `merod run` on a home a
# running merod holds is refused at once (exit 2, a message naming the directory and the first
# one's pid), the first one's run.json is left as it was and the first node keeps serving; once
# the first one stops, the directory can be run again.
. "$(dirname "$0")/node_lib.bash"

start_node a
H=$WORK/a
BEFORE=$(cat "$H/run.json")
PID1=${PIDS[a]}
check "the lock file holds the running merod's pid" test "$(tr -d '\n' <"$H/merod.lock")" = "$PID1"
OUT=$(timeout 10 "$BIN/merod" run --home "$H" 2>&1)
RC=$?
check "a second run on the same home: exit 2" test $RC -eq 2
check "  with a message naming the home and the first merod's pid" \
    eval 'grep -qF "$H is in use by a running merod (pid $PID1)" <<<"$OUT"'
check "  the first one's run.json is untouched" test "$(cat "$H/run.json" 2>/dev/null)" = "$BEFORE"
req a GET /admin-api/health noauth
check "  the first node still serves" status_is 200
stop_node a
check "run.json is removed by the owner's clean stop" test ! -e "$H/run.json"
run_node a
check "the home runs again once its owner stopped" test -s "$H/run.json"
req a GET /admin-api/health noauth
check "  and serves" status_is 200
finish
