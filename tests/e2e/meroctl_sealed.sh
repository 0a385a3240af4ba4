#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# meroctl_sealed.sh - issue 31: `meroctl --sealed` against `merod run --mock-tee --sealed-only`.
# Plaintext meroctl is refused (403 sealed_required, exit 2); --sealed without trust flags is
# refused before anything is sent; --sealed --sealed-mrtd (a real-quote flag) refuses a mock
# node; --sealed --sealed-accept-mock attests the node, opens a session and makes the calls
# (namespace create, node info, a protected route with a wrong token answers 401 inside: exit
# 4); after a restart (new transport key) meroctl attests again and goes on.
ROOT=${MERO_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$ROOT/tests/e2e/node_lib.bash"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$BIN/merod" init --home "$WORK/n" --name n --api "127.0.0.1:$PORT" \
    --listen /ip4/127.0.0.1/tcp/0 >/dev/null
run_node n --mock-tee --sealed-only
TF=$WORK/n/admin-token
RESP=
M() { "$BIN/meroctl" --node "${URL[n]}" --token-file "$TF" "$@"; }

out=$(M --json node info 2>&1); rc=$?
check "plaintext meroctl against --sealed-only: refused 403, exit 2" \
    bash -c '[ "$0" = 2 ] && grep -q "403" <<<"$1"' "$rc" "$out"
out=$(M --sealed node info 2>&1); rc=$?
check "--sealed without trust flags: refused, nothing sent (exit 2)" \
    bash -c '[ "$0" = 2 ] && grep -q "needs trust flags" <<<"$1"' "$rc" "$out"
out=$(M --sealed --sealed-mrtd "$(hex96 0)" node info 2>&1); rc=$?
check "--sealed --sealed-mrtd does not trust a mock node (exit 2)" \
    bash -c '[ "$0" = 2 ] && grep -q "mock" <<<"$1"' "$rc" "$out"
out=$(M --json --sealed --sealed-accept-mock node info 2>&1); rc=$?
check "--sealed --sealed-accept-mock: node info through the envelope" \
    bash -c '[ "$0" = 0 ] && jq -e .peerId <<<"$1" >/dev/null' "$rc" "$out"
out=$(M --json --sealed --sealed-accept-mock --sealed-rtmr1 "$(hex96 0)" --sealed-rtmr3 "$(hex96 0)" node info 2>&1); rc=$?
check "--sealed-rtmr1/3 listing the mock's registers (zeros): trusted" \
    bash -c '[ "$0" = 0 ] && jq -e .peerId <<<"$1" >/dev/null' "$rc" "$out"
out=$(M --sealed --sealed-accept-mock --sealed-rtmr1 "$(hex96 0)" --sealed-rtmr2 "$(hex96 1)" node info 2>&1); rc=$?
check "--sealed-rtmr2 not listing the quote's RTMR2: not trusted, the register named (exit 2)" \
    bash -c '[ "$0" = 2 ] && grep -q "its rtmr2 is not a --sealed-rtmr2 value" <<<"$1"' "$rc" "$out"
out=$(M --sealed --sealed-accept-mock --sealed-rtmr0 abc node info 2>&1); rc=$?
check "--sealed-rtmr0 with a value that is not 96 hex digits: usage error (exit 1)" \
    bash -c '[ "$0" = 1 ] && grep -q "96 hex digits" <<<"$1"' "$rc" "$out"
out=$(M --json --sealed --sealed-accept-mock namespace create 2>&1); rc=$?
NS=$(jq -r .namespaceId <<<"$out" 2>/dev/null)
check "--sealed: namespace create (a protected write) through the envelope" \
    bash -c '[ "$0" = 0 ] && [ ${#1} = 64 ]' "$rc" "$NS"
printf '%064d\n' 7 >"$WORK/wrong-token"
chmod 600 "$WORK/wrong-token"
out=$("$BIN/meroctl" --node "${URL[n]}" --token-file "$WORK/wrong-token" --sealed \
    --sealed-accept-mock namespace create 2>&1); rc=$?
check "--sealed with a wrong token: 401 from inside the envelope, exit 4" \
    bash -c '[ "$0" = 4 ] && grep -q 401 <<<"$1"' "$rc" "$out"
stop_node n
run_node n --mock-tee --sealed-only
out=$(M --json --sealed --sealed-accept-mock node info 2>&1); rc=$?
check "--sealed after a restart: a new key attested, the call goes through" \
    bash -c '[ "$0" = 0 ] && jq -e .peerId <<<"$1" >/dev/null' "$rc" "$out"
finish
