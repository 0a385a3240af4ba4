#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# meroctl_input.sh - issue 21 items 9 and 11 (meroctl): a kv key is one URL-encoded path
# segment, so `kv put CTX 'a?b' v` no longer writes key `a` (the node refuses the key: exit
# 1), a key with a space is bad input (exit 1), not "unreachable" (3), and an allowed key still
# round-trips; `--token-file` naming a FIFO, a device or a corrupted token is refused at once
# with exit 1 instead of hanging or sending a cut token.
. "$(dirname "$0")/node_lib.bash"

STATUS= RESP=
start_node a --mock-tee
MC=("$BIN/meroctl" --node "${URL[a]}" --token-file "$WORK/a/admin-token")
NS=$("${MC[@]}" --json namespace create | jq -r .namespaceId)
CTX=$("${MC[@]}" --json context create "$NS" | jq -r .contextId)
check "namespace and context created" test ${#CTX} -eq 64

# rc_of CMD...: run with a 20 s bound, RC gets the exit status, ERR the stderr
rc_of() {
    ERR=$(timeout 20 "$@" 2>&1 >/dev/null)
    RC=$?
}
rc_of "${MC[@]}" kv put "$CTX" 'a?b' v
check "kv put 'a?b': exit 1 (the node refuses the key)" eval '[ $RC -eq 1 ] && grep -q "key may hold only" <<<"$ERR"'
req a GET "/admin-api/contexts/$CTX/kv/a"
check "... and key 'a' was not written" status_is 404
rc_of "${MC[@]}" kv put "$CTX" 'a b' v
check "kv put 'a b': exit 1, not 3" test $RC -eq 1
rc_of "${MC[@]}" kv put "$CTX" 'a#b' v
check "kv put 'a#b': exit 1" test $RC -eq 1
rc_of "${MC[@]}" kv put "$CTX" 'a/b' v
check "kv put 'a/b': exit 1" test $RC -eq 1
rc_of "${MC[@]}" kv put "$CTX" '%00' v
check "kv put '%00' (sent as %2500, a literal key the rule refuses): exit 1" test $RC -eq 1
rc_of "${MC[@]}" kv put "$CTX" "$(printf 'k%.0s' $(seq 257))" v
check "kv put with a 257-character key: exit 1" test $RC -eq 1
rc_of "${MC[@]}" kv put "$CTX" 'k.1:x-y_z' v1
check "kv put of an allowed key: exit 0" test $RC -eq 0
check "... and kv get reads it back" eval '[ "$("${MC[@]}" --json kv get "$CTX" k.1:x-y_z | jq -r .value)" = v1 ]'

mkfifo -m 600 "$WORK/fifo"
rc_of "$BIN/meroctl" --node "${URL[a]}" --token-file "$WORK/fifo" node info
check "--token-file naming a FIFO: exit 1 at once (no hang)" eval '[ $RC -eq 1 ] && grep -q "not a regular file" <<<"$ERR"'
rc_of env MERO_TOKEN_FILE="$WORK/fifo" "$BIN/meroctl" --node "${URL[a]}" node info
check "MERO_TOKEN_FILE naming a FIFO: exit 1" test $RC -eq 1
rc_of "$BIN/meroctl" --node "${URL[a]}" --token-file "$WORK" node info
check "--token-file naming a directory: exit 1" test $RC -eq 1
head -c 64 /dev/zero >"$WORK/nul-token"
chmod 600 "$WORK/nul-token"
rc_of "$BIN/meroctl" --node "${URL[a]}" --token-file "$WORK/nul-token" node info
check "--token-file of 64 NUL bytes: exit 1 (not sent cut)" eval '[ $RC -eq 1 ] && grep -q "NUL byte" <<<"$ERR"'
printf '%064d\n' 0 >"$WORK/wrong-token"
chmod 600 "$WORK/wrong-token"
rc_of "$BIN/meroctl" --node "${URL[a]}" --token-file "$WORK/wrong-token" node info
check "a well-formed wrong token: exit 4 (authentication)" test $RC -eq 4
rc_of "${MC[@]}" node info
check "the real token file still works" test $RC -eq 0
finish
