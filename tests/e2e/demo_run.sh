#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# demo_run.sh - `make run` (scripts/demo.sh) tells the story with meroctl (issue 18): it
# completes (exit 0), every step an operator can copy is a printed meroctl command (the
# owner()/replica() functions it prints first, no curl), KEEP=1 keeps its directory with both
# nodes' logs and leaves the replica serving the fleet page its last lines name (issue 35), and
# every log line names the node that wrote it.
. "$(dirname "$0")/node_lib.bash"

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
STATUS= RESP=
TMPDIR=$WORK KEEP=1 timeout 180 "$ROOT/scripts/demo.sh" "$ROOT/build/release" >"$WORK/demo.out" 2>&1
RC=$?
check "the demo completes (exit 0)" test $RC -eq 0
check "it prints the meroctl functions it uses" eval 'grep -q "owner()   { .*/meroctl --node http://127.0.0.1:[0-9]* --token-file .*/owner/admin-token" "$WORK/demo.out"'
check "every step is a printed meroctl command (namespace create, policy, fleet-join, kv get)" \
    eval 'grep -q "\$ owner --json namespace create" "$WORK/demo.out" && grep -q "\$ owner group settings set-tee-admission-policy .* --accept-mock --mode replica" "$WORK/demo.out" && grep -q "\$ replica --json tee fleet-join" "$WORK/demo.out" && grep -q "\$ replica --json kv get" "$WORK/demo.out"'
check "it shows a write carried by a relay, read on the owner as the client's (issue 15)" \
    eval 'grep -q "\$ client intent sign --key" "$WORK/demo.out" && grep -q "\$ replica --json intent submit" "$WORK/demo.out" && grep -q "author [0-9a-f]\{64\} (the client)" "$WORK/demo.out"'
check "it ends with the fleet table and the fleet page's address (issue 19)" \
    eval 'grep -q "\$ replica fleet [0-9a-f]\{64\}" "$WORK/demo.out" && grep -Eq "(ReadOnlyTee|RelayTee) .*allowedMrtd\[0\] .*fresh" "$WORK/demo.out" && grep -q "admitted *prompt" "$WORK/demo.out" && grep -q "The fleet page: http://127.0.0.1:[0-9]*/admin-ui/" "$WORK/demo.out"'
check "the demo uses no curl" eval '! grep -qw curl "$ROOT/scripts/demo.sh"'
D=$(sed -n 's/^KEEP=1: .* kept in //p' "$WORK/demo.out")
check "KEEP=1 keeps the directory with both logs" eval '[ -n "$D" ] && [ -s "$D/owner.log" ] && [ -s "$D/replica.log" ]'
# issue 35 item 7: with KEEP=1 the demo ends with the page address of a node still serving it
PAGE=$(tail -n 3 "$WORK/demo.out" | sed -n 's/.*The fleet page: \(http:[^ ]*\)$/\1/p')
SPID=$(tail -n 3 "$WORK/demo.out" | sed -n 's/.*still serving (pid \([0-9]*\)).*/\1/p')
check "KEEP=1: the last lines give the fleet page of the replica, still serving, and how to stop it" \
    eval '[ -n "$PAGE" ] && [ -n "$SPID" ] && tail -n 1 "$WORK/demo.out" | grep -q "stop the node with: kill $SPID" && [ "$(curl -s -o /dev/null -w %{http_code} "$PAGE")" = 200 ]'
[ -n "$SPID" ] && kill -TERM "$SPID" 2>/dev/null
stopped() { ! kill -0 "$SPID" 2>/dev/null; }
check "the kept replica stops on the printed kill" eval '[ -n "$SPID" ] && wait_for 10 stopped'
check "without KEEP the last line says the nodes are stopped and how to keep one serving" \
    grep -q "The nodes are stopped. To keep the replica serving its fleet page after the story, run: make run KEEP=1" "$ROOT/scripts/demo.sh"
check "every log line names its node" eval '! grep -v " owner: " "$D/owner.log" | grep -q . && ! grep -v " replica: " "$D/replica.log" | grep -q .'
finish
