#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# relay_offline_owner.sh - the story relay mode exists for (issue 15): a client with no node of
# its own writes through a RelayTee while the owner is offline. Two merod processes on
# 127.0.0.1 (the owner, a --mock-tee relay admitted under mode=relay). The client makes a key
# (meroctl key generate), the admin adds its identity as a Member; the owner stops; the client
# signs an intent (meroctl intent sign, no node contacted) and submits it to the relay (meroctl
# intent submit); the relay serves the value; the owner restarts, pulls the relayed delta and
# reads the value, its author the client's identity (not the relay's).
. "$(dirname "$0")/relay_lib.bash"
M=$BIN/meroctl

start_node owner --mock-tee
O=$(p2p_addr owner)
start_node relay --mock-tee --bootstrap "$O"
req owner POST /admin-api/namespaces '{}'
NS=$(jq -r .data.namespaceId <<<"$RESP")
req owner POST "/admin-api/groups/$NS/contexts" '{}'
CTX=$(jq -r .data.contextId <<<"$RESP")
set_relay_policy owner "$NS" relay
fleet_join relay "$NS" "[\"$O\"]"
check "the relay is admitted" jq_is .data.admitted true
TR=$(jq -r .data.public_key <<<"$RESP")

"$M" key generate --out "$WORK/client.key" --json >"$WORK/key.json"
check "meroctl key generate: a 0600 key file and its identity" eval '[ "$(stat -c %a "$WORK/client.key")" = 600 ] && [ "$(jq -r .identity "$WORK/key.json" | wc -c)" = 65 ]'
CLIENT=$(jq -r .identity "$WORK/key.json")
member_add owner "$NS" "$CLIENT" Member
check "the admin adds the client as a Member" status_is 200
check "the relay learns the membership" wait_for 15 role_is relay "$NS" "$CLIENT" Member

stop_node owner
check "the owner is offline" eval '! curl -s --max-time 2 "${URL[owner]}/admin-api/health" >/dev/null'

B64=$("$M" intent sign --key "$WORK/client.key" --namespace "$NS" --context "$CTX" \
    --put "note=written while the owner slept")
check "meroctl intent sign prints an intent (no node contacted)" eval '[ -n "$B64" ] && base64 -d <<<"$B64" >/dev/null'
"$M" --node "${URL[relay]}" --token-file "$WORK/relay/admin-token" --json intent submit "$CTX" "$B64" >"$WORK/submit.json"
RC=$?
check "meroctl intent submit to the relay: accepted, the author is the client" eval '[ $RC -eq 0 ] && jq -e ".author == \"$CLIENT\" and (.deltaId | length == 64)" "$WORK/submit.json" >/dev/null'
check "the relay serves the value with the owner offline" kv_is relay "$CTX" note "written while the owner slept"

run_node owner --mock-tee --bootstrap "$(p2p_addr relay)"
check "the restarted owner pulls the relayed write" wait_for 30 kv_is owner "$CTX" note "written while the owner slept"
check "its author is the client's identity" kv_author_is owner "$CTX" note "$CLIENT"
check "not the relay's" eval '! kv_author_is owner "$CTX" note "$TR"'
check "no crash in any log" eval '! grep -qiE "panicked|AddressSanitizer|segmentation" "$WORK"/*.log'
finish
