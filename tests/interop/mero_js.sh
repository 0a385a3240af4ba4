#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# mero_js.sh - Calimero's JavaScript SDK (mero-js 13.2.0, $MERO_SHARED/peers/mero-js, used
# unchanged) drives merod: an owner and a --mock-tee node, and tests/interop/mero_js.mjs runs
# the reference scenario through the SDK's own functions, checking each result against the
# SDK's declared types. Needs Node 18+ (global fetch); TAP from the .mjs.
ROOT=${MERO_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$ROOT/tests/e2e/admission_lib.bash"
SHARED=${MERO_SHARED:-$(cd "$ROOT/../shared" && pwd)}
if [ ! -f "$SHARED/peers/mero-js/index.mjs" ]; then
    nok "the SDK is at \$MERO_SHARED/peers/mero-js/index.mjs" "missing under $SHARED"
    finish
    exit 1
fi

start_node owner --mock-tee
O=$(p2p_addr owner)
start_node tee --mock-tee --bootstrap "$O"

MERO_SHARED=$SHARED OWNER_URL=${URL[owner]} OWNER_TOKEN=${TOKEN[owner]} OWNER_ADDR=$O \
    TEE_URL=${URL[tee]} TEE_TOKEN=${TOKEN[tee]} A_KEY=$(edpk) B_KEY=$(edpk) C_KEY=$(edpk) \
    node "$ROOT/tests/interop/mero_js.mjs"
