#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# sealed_js.sh - Calimero's own sealed-transport client (mero-js-sealed, $MERO_SHARED/peers/
# mero-js-sealed/sealed.mjs, built unchanged) and mero-js's AdminApiClient drive a real
# `merod run --mock-tee --sealed-only` on loopback through sealed HTTP v2 (issue 31):
# tests/interop/sealed_js.mjs attests, opens sessions, makes the admin calls through the
# envelope, checks that only envelopes cross the wire, restarts the node mid-run (new
# transport key: the client attests again and goes on) and makes every refusal happen on
# both sides. Needs Node 20 (WebCrypto X25519); TAP from the .mjs.
ROOT=${MERO_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$ROOT/tests/e2e/node_lib.bash"
SHARED=${MERO_SHARED:-$(cd "$ROOT/../shared" && pwd)}
for f in peers/mero-js/index.mjs peers/mero-js-sealed/sealed.mjs; do
    if [ ! -f "$SHARED/$f" ]; then
        nok "the client is at \$MERO_SHARED/$f" "missing under $SHARED"
        finish
        exit 1
    fi
done
# a fixed loopback port, so that the restarted node answers at the same base URL
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$BIN/merod" init --home "$WORK/n" --name n --api "127.0.0.1:$PORT" \
    --listen /ip4/127.0.0.1/tcp/0 >/dev/null
MERO_SHARED=$SHARED MEROD="$BIN/merod" NODE_HOME="$WORK/n" NODE_LOG="$WORK/n.log" \
    BASE_URL="http://127.0.0.1:$PORT" TOKEN=$(tr -d '\n' <"$WORK/n/admin-token") \
    node "$ROOT/tests/interop/sealed_js.mjs"
rc=$?
[ "$rc" = 0 ] || FAILS=1
exit $rc
