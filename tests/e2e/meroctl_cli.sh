#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# meroctl_cli.sh - meroctl behaves like one tool (issue 18): global options before or after the
# command; --json on every command, offline ones included, and on every failure exactly one
# {"error":{"code","message"}} document on stdout (usage, unreachable node, timeout, missing
# file, a node error); exit codes as man/meroctl.1 documents them (refused connection and
# timeout 3, a file that is not a quote 1, 403 2); errors name the flag typed, not the JSON
# field the node saw; an unknown enum value lists the valid ones; `quote parse` takes the raw
# quote, its base64 and tee attest's JSON; `completion bash` equals the committed
# share/bash-completion/meroctl and completes commands and flags.
. "$(dirname "$0")/node_lib.bash"

STATUS= RESP=
M=$BIN/meroctl
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
start_node a --mock-tee
TOK=$WORK/a/admin-token
# one_doc FILE: FILE holds exactly one JSON document
one_doc() { [ "$(jq -s length "$1" 2>/dev/null)" = 1 ]; }
# err_doc FILE CODE TEXT: one {"error":{"code":CODE,"message":...TEXT...}} document
err_doc() { one_doc "$1" && jq -e --argjson c "$2" --arg t "$3" '.error.code == $c and (.error.message | contains($t))' "$1" >/dev/null; }
run() { "$@" >"$WORK/out" 2>"$WORK/err"; RC=$?; }

# global options anywhere
run "$M" namespace create --node "${URL[a]}" --json --token-file "$TOK"
NS=$(jq -r .namespaceId "$WORK/out")
check "globals after the command: namespace create works" eval '[ $RC -eq 0 ] && [ ${#NS} -eq 64 ]'
run "$M" --node "${URL[a]}" group --token-file "$TOK" members list "$NS" --json
check "globals between and after the command words" eval '[ $RC -eq 0 ] && one_doc "$WORK/out"'
run "$M" --json version
check "--json on an offline command (version)" eval '[ $RC -eq 0 ] && jq -e .version "$WORK/out" >/dev/null'

run "$M" release trusted-root show --json
check "--json on an offline command (release trusted-root show): one document" eval '[ $RC -eq 0 ] && one_doc "$WORK/out" && jq -e ".usable.tlogs[0] >= 1" "$WORK/out" >/dev/null'
run "$M" --json completion bash
check "--json on completion bash: the script in one document" eval '[ $RC -eq 0 ] && one_doc "$WORK/out" && jq -e ".shell == \"bash\" and (.script | contains(\"complete -F _meroctl meroctl\"))" "$WORK/out" >/dev/null'

# one JSON error document on every failure
run "$M" frobnicate --json
check "usage error: exit 1, one JSON error document" eval '[ $RC -eq 1 ] && err_doc "$WORK/out" 1 "unknown command"'
run "$M" --json kv put
check "a command's usage error in JSON" eval '[ $RC -eq 1 ] && err_doc "$WORK/out" 1 "kv needs"'
run "$M" --json quote parse "$WORK/missing.bin"
check "missing file: exit 1, JSON error naming it" eval '[ $RC -eq 1 ] && err_doc "$WORK/out" 1 "missing.bin"'
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
run "$M" --json --node "http://127.0.0.1:$PORT" tee info
check "refused connection: exit 3, JSON error" eval '[ $RC -eq 3 ] && err_doc "$WORK/out" 3 "127.0.0.1:$PORT"'
python3 -c 'import socket,sys,time
s=socket.socket(); s.bind(("127.0.0.1",0)); s.listen(8)
f=open(sys.argv[1],"w"); f.write(str(s.getsockname()[1])); f.close(); time.sleep(30)' "$WORK/silent.port" &
SILENT=$!
wait_for 10 test -s "$WORK/silent.port" >/dev/null
run "$M" --json --timeout 1 --node "http://127.0.0.1:$(cat "$WORK/silent.port")" tee info
kill "$SILENT" 2>/dev/null
check "a node that never answers (timeout): exit 3, JSON error" eval '[ $RC -eq 3 ] && err_doc "$WORK/out" 3 "no answer within 1 s (timed out"'
run "$M" --json --node "${URL[a]}" --token-file "$TOK" kv get "$(hex64 7)" k
check "a node error: one JSON document with code and the HTTP status" eval '[ $RC -ne 0 ] && one_doc "$WORK/out" && jq -e ".error.code == $RC and .error.status >= 400" "$WORK/out" >/dev/null'

# flags, not JSON fields; enums list their values
run "$M" --node "${URL[a]}" --token-file "$TOK" group settings set-tee-admission-policy "$NS" --tcb-status uptodate --mode replica
check "--tcb-status uptodate: exit 1, lists the valid names" eval '[ $RC -eq 1 ] && grep -q "use one of UpToDate, SWHardeningNeeded, ConfigurationNeeded, ConfigurationAndSWHardeningNeeded" "$WORK/err"'
run "$M" --node "${URL[a]}" --token-file "$TOK" group settings set-tee-admission-policy "$NS" --mode replicas
check "--mode replicas: lists replica, relay" eval '[ $RC -eq 1 ] && grep -q "use one of replica, relay" "$WORK/err"'
run "$M" --node "${URL[a]}" --token-file "$TOK" group settings set-tee-admission-policy "$NS" --mrtd abc --mode replica
check "--mrtd abc: the message names --mrtd" eval '[ $RC -eq 1 ] && grep -q -- "--mrtd takes 96 hex" "$WORK/err"'
run "$M" --node "${URL[a]}" --token-file "$TOK" group settings set-tee-admission-policy "$NS" --mrtd "$(hex96 0)" --mode replica
check "a node refusal names --rtmr1, not allowedRtmr1" eval '[ $RC -eq 1 ] && grep -q -- "--rtmr1" "$WORK/err" && ! grep -q allowedRtmr1 "$WORK/err"'
run "$M" --node "${URL[a]}" --token-file "$TOK" tee fleet-join "$NS" --admitter /ip4/127.0.0.1/tcp/1
check "a bad --admitter is named as --admitter" eval '[ $RC -eq 1 ] && grep -q -- "--admitter" "$WORK/err" && ! grep -q admitterAddrs "$WORK/err"'

# exit codes
run "$M" --node "${URL[a]}" --token-file "$TOK" group members add "$NS" "$(edpk)" --role ReadOnlyTee
check "403 (a TEE role by hand): exit 2" eval '[ $RC -eq 2 ] && grep -q 403 "$WORK/err"'
Q=$ROOT/../shared/testdata/tdx/dcapqvl-1/quote.bin
run "$M" quote parse "$TOK"
check "a file that is not a quote: exit 1" test $RC -eq 1
run "$M" --node "${URL[a]}" --json tee attest
"$M" quote parse "$WORK/out" >/dev/null 2>&1
check "tee attest's mock quote: quote parse says exit 1 (not a TDX quote)" test $? -eq 1
base64 -w0 "$Q" >"$WORK/q.b64"
run "$M" --json quote parse "$WORK/q.b64"
check "quote parse takes base64 and prints RTMRs with --json" eval '[ $RC -eq 0 ] && [ "$(jq -r ".quote.body.mrTd // .quote.body.mrtd" "$WORK/out")" = "$("$M" --json quote parse "$Q" | jq -r ".quote.body.mrTd // .quote.body.mrtd")" ]'
printf '{"quoteB64":"%s"}' "$(cat "$WORK/q.b64")" >"$WORK/q.json"
run "$M" quote parse "$WORK/q.json"
check "quote parse takes tee attest's JSON (quoteB64); the summary shows rtmr3" eval '[ $RC -eq 0 ] && grep -qE "^rtmr3 +[0-9a-f]{96}$" "$WORK/out"'

# completion
run "$M" completion bash
check "completion bash equals the committed share/bash-completion/meroctl" cmp -s "$WORK/out" "$ROOT/share/bash-completion/meroctl"
comp() { bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _meroctl; echo "${COMPREPLY[*]}"' _ "$WORK/out" "$@"; }
check "  completes a command word" test "$(comp meroctl --json gr)" = group
check "  completes a command's flag" test "$(comp meroctl tee fleet-join NS --adm)" = --admitter
finish
