#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# meroctl_nodes.sh - `--node` as Calimero's meroctl uses it (issue 35 item 8): `meroctl node
# add NAME URL --token-file F` saves a node (0600 file, the token file's path, never the
# token), `node ls` lists it, `--node NAME` and MERO_NODE=NAME reach that node with its token
# file (a protected route works without --token-file), an explicit --token-file wins, `node rm`
# forgets it; a malformed URL and an unknown name are exit 1 (usage), not 3 (unreachable),
# also with --json (one error document); a malformed nodes file is refused naming it.
. "$(dirname "$0")/node_lib.bash"

M=$BIN/meroctl
STATUS= RESP=
start_node a --mock-tee
TOK=$WORK/a/admin-token
export MEROCTL_CONFIG=$WORK/cfg/meroctl/nodes.json
run() { "$@" >"$WORK/out" 2>"$WORK/err"; RC=$?; }

run "$M" node add lab "${URL[a]}" --token-file "$TOK"
check "node add saves the node" eval '[ $RC -eq 0 ] && [ "$(stat -c %a "$MEROCTL_CONFIG")" = 600 ] && jq -e --arg u "${URL[a]}" ".nodes.lab.url == \$u" "$MEROCTL_CONFIG" >/dev/null'
check "  the token file's absolute path, never the token" eval '[ "$(jq -r .nodes.lab.tokenFile "$MEROCTL_CONFIG")" = "$(realpath "$TOK")" ] && ! grep -qF "$(head -c 64 "$TOK")" "$MEROCTL_CONFIG"'
run "$M" node ls
check "node ls lists it" eval '[ $RC -eq 0 ] && grep -qE "^lab +${URL[a]}" "$WORK/out"'
run "$M" --node lab namespace create --json
check "--node NAME reaches the node with its token file (a protected route)" eval '[ $RC -eq 0 ] && [ "$(jq -r .namespaceId "$WORK/out" | wc -c)" = 65 ]'
MERO_NODE=lab run "$M" node info --json
check "MERO_NODE=NAME too" eval '[ $RC -eq 0 ] && jq -e .peerId "$WORK/out" >/dev/null'
echo 0000000000000000000000000000000000000000000000000000000000000000 >"$WORK/wrong"
chmod 600 "$WORK/wrong"
run "$M" --node lab --token-file "$WORK/wrong" node info
check "an explicit --token-file wins over the saved one (wrong token: exit 4)" eval '[ $RC -eq 4 ]'
run "$M" --json --node nope node info
check "an unknown name: exit 1 and one JSON error naming it" eval '[ $RC -eq 1 ] && jq -e ".error.code == 1 and (.error.message | contains(\"no node named\") and contains(\"nope\"))" "$WORK/out" >/dev/null'
for bad in 'http://127.0.0.1:99999' 'http:/127.0.0.1:1' 'ftp://127.0.0.1:1' 'http://127.0.0.1:1/x y' 'http://' 'http://[::1'; do
    run "$M" --node "$bad" node info
    check "malformed URL '$bad': exit 1, not 3" eval '[ $RC -eq 1 ] && grep -qE "is not a node URL|neither a URL" "$WORK/err"'
done
run "$M" --node 'http://127.0.0.1:1' tee info
check "a well-formed URL nobody answers is still exit 3" eval '[ $RC -eq 3 ]'
run "$M" node add 'bad name' "${URL[a]}"
check "node add: a bad name is exit 1" eval '[ $RC -eq 1 ]'
run "$M" node add other 'ftp://x'
check "node add: a bad URL is exit 1, nothing saved" eval '[ $RC -eq 1 ] && [ "$(jq ".nodes|length" "$MEROCTL_CONFIG")" = 1 ]'
run "$M" node rm lab
check "node rm forgets it" eval '[ $RC -eq 0 ] && [ "$(jq ".nodes|length" "$MEROCTL_CONFIG")" = 0 ]'
run "$M" --node lab node info
check "  then --node lab is exit 1" eval '[ $RC -eq 1 ]'
echo '{"nodes":{"x":{"url":"gopher://y"}}}' >"$MEROCTL_CONFIG"
run "$M" --node x node info
check "a malformed nodes file is refused, naming the file and the entry" eval '[ $RC -eq 1 ] && grep -qF "$MEROCTL_CONFIG: the entry for" "$WORK/err" && grep -qF "is malformed" "$WORK/err"'
run "$M" --node "${URL[a]}" version
check "offline commands ignore --node" eval '[ $RC -eq 0 ]'
finish
